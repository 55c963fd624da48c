"""``python -m codemode install``: the kernelspec Jupyter sees."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from codemode.install import LOGO_FILES, build_spec
from codemode.kernel.logo import encode_png, render_rgba, render_svg

REPO_ROOT = Path(__file__).resolve().parents[2]


def _install(prefix: Path, *extra: str) -> Path:
    done = subprocess.run(
        [sys.executable, "-m", "codemode", "install", "--prefix", str(prefix), *extra],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "Installed kernelspec" in done.stdout
    return prefix / "share" / "jupyter" / "kernels"


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def test_install_writes_spec_with_absolute_interpreter_and_logos(tmp_path):
    folder = _install(tmp_path) / "codemode"
    spec = json.loads((folder / "kernel.json").read_text())
    assert spec["argv"][0] == os.path.abspath(sys.executable)
    assert spec["argv"][1:] == ["-E", "-P", "-Xfrozen_modules=off", "-m", "codemode.kernel", "-f", "{connection_file}"]
    assert spec["display_name"] == "Code Mode (JavaScript)"
    assert spec["language"] == "javascript"
    assert spec["interrupt_mode"] == "signal"
    assert _png_size(folder / "logo-32x32.png") == (32, 32)
    assert _png_size(folder / "logo-64x64.png") == (64, 64)
    assert (folder / "logo-svg.svg").read_text().startswith("<svg")


def test_jupyter_kernelspec_list_shows_codemode(tmp_path):
    kernels = _install(tmp_path)
    env = dict(os.environ, JUPYTER_PATH=str(kernels.parent))
    listed = subprocess.run(
        [sys.executable, "-m", "jupyter", "kernelspec", "list", "--json"],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    specs = json.loads(listed.stdout)["kernelspecs"]
    assert specs["codemode"]["spec"]["display_name"] == "Code Mode (JavaScript)"


def test_name_and_display_name_options(tmp_path):
    folder = _install(tmp_path, "--name", "cm-test", "--display-name", "CM test") / "cm-test"
    assert json.loads((folder / "kernel.json").read_text())["display_name"] == "CM test"


@pytest.mark.unit
def test_template_is_the_repository_kernel_json():
    template = json.loads((REPO_ROOT / "kernel.json").read_text())
    spec = build_spec(executable="/x/python")
    assert spec["argv"] == ["/x/python", *template["argv"][1:]]
    assert set(LOGO_FILES) <= {p.name for p in (REPO_ROOT / "kernel" / "resources").iterdir()}


@pytest.mark.unit
def test_shipped_logos_are_the_drawn_ones():
    resources = REPO_ROOT / "kernel" / "resources"
    for size in (32, 64):
        assert (resources / f"logo-{size}x{size}.png").read_bytes() == encode_png(size, size, render_rgba(size))
    assert (resources / "logo-svg.svg").read_text() == render_svg()


def test_unknown_command_is_a_usage_error():
    done = subprocess.run([sys.executable, "-m", "codemode", "frobnicate"], capture_output=True, text=True)
    assert done.returncode == 2
    assert "Unknown command" in done.stderr


def test_install_engine_v8_writes_a_second_kernelspec_that_chooses_v8(tmp_path):
    """``--engine v8``: kernel ``codemode-v8``, "Code Mode (JavaScript, V8)", ``CODEMODE_ENGINE=v8`` in its env."""
    kernels = _install(tmp_path, "--engine", "v8")
    _install(tmp_path)
    assert sorted(p.name for p in kernels.iterdir()) == ["codemode", "codemode-v8"]
    v8 = json.loads((kernels / "codemode-v8" / "kernel.json").read_text())
    plain = json.loads((kernels / "codemode" / "kernel.json").read_text())
    assert v8["display_name"] == "Code Mode (JavaScript, V8)"
    assert v8["env"] == {**plain["env"], "CODEMODE_ENGINE": "v8"}
    assert v8["argv"] == plain["argv"] and "CODEMODE_ENGINE" not in plain["env"]
    named = json.loads(
        (_install(tmp_path, "--engine", "quickjs", "--name", "cm-q") / "cm-q" / "kernel.json").read_text()
    )
    assert (named["env"]["CODEMODE_ENGINE"], named["display_name"]) == ("quickjs", "Code Mode (JavaScript)")
