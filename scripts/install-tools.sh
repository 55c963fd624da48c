#!/usr/bin/env bash
# Install the non-Python tools that codemode's notebooks and tests use, idempotently:
#   - the npm MCP servers, into .npm-tools/ at the repository root (git ignores it);
#   - Debian packages, when missing: bubblewrap (the sandbox of the exec_command built-in; the
#     notebooks need it too) and, for the tests, tmux (jupyter console test) and chromium
#     (JupyterLab test, driven by Playwright).
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

printf '%s\n' "$prefix/node_modules"
