#!/usr/bin/env bash
# Install the non-Python tools that codemode's notebooks and tests use, idempotently:
#   - the npm MCP servers, into .npm-tools/ at the repository root (git ignores it);
#   - Debian packages, when missing: bubblewrap (the sandbox of the exec_command built-in; the
#     notebooks need it too) and, for the tests, tmux (jupyter console test) and chromium
#     (JupyterLab test, driven by Playwright);
#   - for the tests, Jupyter Enterprise Gateway in a virtualenv of its own, PREFIX/venv (its pins,
#     jupyter_server<2 and jupyter_client<7, conflict with the project's), and its Python kernel
#     launcher, PREFIX/launch_ipykernel.py (only EG's source archive has it). PREFIX is
#     $CODEMODE_TOOLS_CACHE/enterprise-gateway-VERSION, outside the checkout so that a fresh clone
#     on the same machine (CI's) finds it; CODEMODE_TOOLS_CACHE defaults to ~/.cache/codemode
#     (tests/enterprise_gateway.py computes the same path).
# Usage: install-tools.sh [--npm-only]   (--npm-only: what the notebooks need: no test-only packages)
# Prints the npm folder's node_modules path on its last line. Safe to run repeatedly:
# it does nothing when everything is already there.
set -euo pipefail

npm_only=0
[[ "${1:-}" == "--npm-only" ]] && npm_only=1

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
prefix="$root/.npm-tools"
packages=(
  "@modelcontextprotocol/server-everything@2026.8.31"
  "@modelcontextprotocol/server-filesystem@2026.8.31"
  "@modelcontextprotocol/server-memory@2026.8.31"
)

need_npm=0
for spec in "${packages[@]}"; do
  name="${spec%@*}"
  [[ -f "$prefix/node_modules/$name/package.json" ]] || need_npm=1
done
if [[ $need_npm == 1 ]]; then
  command -v npm >/dev/null || { echo "install-tools: npm is required (Node.js 20 or newer)" >&2; exit 1; }
  mkdir -p "$prefix"
  [[ -f "$prefix/package.json" ]] || printf '{"name":"codemode-npm-tools","private":true}\n' > "$prefix/package.json"
  echo "install-tools: npm install ${packages[*]}" >&2
  npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error "${packages[@]}" >&2
fi

missing_deb=()
command -v bwrap >/dev/null || missing_deb+=(bubblewrap)
# The sandbox's seccomp filter is built with libseccomp (the pyseccomp binding loads it).
ldconfig -p 2>/dev/null | grep -q 'libseccomp\.so\.2' || missing_deb+=(libseccomp2)
if (( ! npm_only )); then
  command -v tmux >/dev/null || missing_deb+=(tmux)
  # JupyterLab end-to-end tests drive Debian's Chromium through Playwright (no driver needed).
  [[ -x /usr/bin/chromium ]] || missing_deb+=(chromium)
fi
if (( ${#missing_deb[@]} )); then
  if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
    echo "install-tools: apt-get install ${missing_deb[*]}" >&2
    # A failed install is reported, not fatal: the tests that need the package say why they skip.
    { apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing_deb[@]}" >&2; } \
      || echo "install-tools: apt-get could not install ${missing_deb[*]}" >&2
  else
    echo "install-tools: please install: ${missing_deb[*]}" >&2
  fi
fi

eg_version="3.3.0"
eg_prefix="${CODEMODE_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/codemode}/enterprise-gateway-$eg_version"
if (( ! npm_only )) && [[ ! -x "$eg_prefix/venv/bin/jupyter-enterprisegateway" || ! -f "$eg_prefix/launch_ipykernel.py" ]]; then
  echo "install-tools: jupyter_enterprise_gateway==$eg_version into $eg_prefix/venv" >&2
  # A failed install is reported, not fatal: the tests that need it say why they skip (fail under CI).
  {
    rm -rf "$eg_prefix" && mkdir -p "$eg_prefix/sdist" \
      && python3 -m venv "$eg_prefix/venv" \
      && "$eg_prefix/venv/bin/pip" install -q "jupyter_enterprise_gateway==$eg_version" >&2 \
      && "$eg_prefix/venv/bin/pip" download -q --no-deps --no-binary :all: \
        "jupyter_enterprise_gateway==$eg_version" -d "$eg_prefix/sdist" >&2 \
      && tar -xzf "$eg_prefix/sdist/jupyter_enterprise_gateway-$eg_version.tar.gz" -O \
        "jupyter_enterprise_gateway-$eg_version/etc/kernel-launchers/python/scripts/launch_ipykernel.py" \
        > "$eg_prefix/launch_ipykernel.py.part" \
      && mv "$eg_prefix/launch_ipykernel.py.part" "$eg_prefix/launch_ipykernel.py" \
      && rm -rf "$eg_prefix/sdist"
  } || echo "install-tools: could not install Jupyter Enterprise Gateway $eg_version" >&2
fi

printf '%s\n' "$prefix/node_modules"
