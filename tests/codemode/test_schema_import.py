"""jsonschema in the kernel process comes without the libraries behind its format checkers.

``rfc3987_syntax`` alone builds 38 Lark grammars when imported (0.8 to 2.4 s on the 2-core
machine), which the kernel paid at start-up for format checks it never runs."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

from dependencies import require

from codemode.schema import FORMAT_BACKENDS


def _modules_after(statement: str) -> dict[str, bool]:
    """For each format backend, whether it is in ``sys.modules`` after ``statement`` ran in a
    fresh interpreter."""
    probe = (
        f"import json, sys\n{statement}\nprint(json.dumps({{n: n in sys.modules for n in {list(FORMAT_BACKENDS)!r}}}))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def _installed() -> list[str]:
    return [name for name in FORMAT_BACKENDS if importlib.util.find_spec(name) is not None]


def test_importing_the_kernel_imports_no_format_backend():
    installed = _installed()
    require("rfc3987_syntax" in installed, "rfc3987_syntax (the slow one, a JupyterLab dependency) is not installed")
    loaded = _modules_after("import codemode.kernel.kernel, codemode.dispatch.dispatcher")
    assert [name for name, present in loaded.items() if present] == []


def test_plain_jsonschema_would_import_them():
    # The check above means something only if jsonschema, imported as usual, pulls them in.
    installed = _installed()
    require("rfc3987_syntax" in installed, "rfc3987_syntax is not installed")
    loaded = _modules_after("import jsonschema")
    assert loaded["rfc3987_syntax"] is True


def test_a_hidden_backend_imports_normally_afterwards():
    installed = _installed()
    require(bool(installed), "no format backend of jsonschema is installed")
    name = installed[0]
    loaded = _modules_after(f"import codemode.schema\nimport {name}")
    assert loaded[name] is True
