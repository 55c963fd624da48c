"""Conformance checks from ``jupyter_kernel_test`` (the Jupyter project's kernel conformance tests),
run on both profiles: the strict one (``codemode``, every cell as Codex's ``exec``) and the
notebook one (``codemode-notebook``), which has what the strict one lacks by design.

- stderr, execute_result, history: the notebook profile's (``console.error``, a cell's last
  expression as ``Out[n]``, and jupyter_kernel_test's history check, which replays its
  execute_result cells). Strict cells have no ``console`` and show no value (as in Codex), so
  the strict class leaves these to the notebook one (``test_kernel_history.py`` checks the
  strict kernel's history).
- pager and clear_output: neither profile has them. No magic or helper pages (inspection
  answers ``inspect_request`` instead, and the messaging specification calls execute_reply
  payloads deprecated), and a cell's output only grows, as Codex's content items do (no helper
  clears it). Both classes say so when they skip these.
"""

from __future__ import annotations

import jupyter_kernel_test as jkt
import pytest
from kernel_driver import execute

PNG_1X1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="

NO_PAGER = "codemode has no pager: inspect_request answers what `?` pages in IPython, and payloads are deprecated"
NO_CLEAR_OUTPUT = "a codemode cell's output only grows, as Codex's content items do: no helper clears it"
NOTEBOOK_ONLY = "strict cells have no console and show no value, as in Codex: TestCodeModeNotebookKernel runs this"


@pytest.mark.usefixtures("codemode_kernelspec")
class TestCodeModeKernel(jkt.KernelTests):
    kernel_name = "codemode"
    language_name = "javascript"
    file_extension = ".js"

    code_hello_world = 'text("hello, world")'
    code_generate_error = 'throw new Error("generated")'
    code_display_data = [
        {"code": f'image("data:image/png;base64,{PNG_1X1}")', "mime": "image/png"},
    ]
    completion_samples = [
        {"text": "await tools.ech", "matches": {"echo"}},
        {"text": "sto", "matches": {"store"}},
        {"text": "%wai", "matches": {"%wait"}},
    ]
    complete_code_samples = ['text("x")', "const a = 1;", "%cells", "// just a comment"]
    incomplete_code_samples = ["const o = {", "await tools.echo({a: [1,", "const s = `${x"]
    invalid_code_samples = ["foo())", "]"]
    code_inspect_sample = "tools.echo"

    def test_execute_stderr(self) -> None:
        pytest.skip(NOTEBOOK_ONLY)

    def test_execute_result(self) -> None:
        pytest.skip(NOTEBOOK_ONLY)

    def test_history(self) -> None:
        pytest.skip(NOTEBOOK_ONLY)

    def test_pager(self) -> None:
        pytest.skip(NO_PAGER)

    def test_clear_output(self) -> None:
        pytest.skip(NO_CLEAR_OUTPUT)


HISTORY_PATTERN = "*jkt-history-mark*"
"""Matches only the history cells below, also in a history file the whole test session shares."""


@pytest.mark.usefixtures("codemode_kernelspec")
class TestCodeModeNotebookKernel(jkt.KernelTests):
    kernel_name = "codemode-notebook"
    language_name = "javascript"
    file_extension = ".js"

    code_hello_world = 'console.log("hello, world")'
    code_stderr = 'console.error("to stderr")'
    code_generate_error = 'throw new Error("generated")'
    code_execute_result = [
        {"code": "6 * 7", "result": "42"},
        {"code": '"jkt-history-mark".length', "result": "16"},
    ]
    code_display_data = [
        {"code": "display({a: 1})", "mime": "application/json"},
        {"code": 'html("<b>bold</b>")', "mime": "text/html"},
    ]
    code_history_pattern = HISTORY_PATTERN
    supported_history_operations = ("tail", "range", "search")
    completion_samples = [
        {"text": "greet", "matches": {"greeting"}},  # declared by the class's first cell
        {"text": "greeting.toUpp", "matches": {"toUpperCase"}},
        {"text": "console.lo", "matches": {"log"}},
        {"text": "disp", "matches": {"display"}},
        {"text": 'await tools["ec', "matches": {"echo"}},
    ]
    complete_code_samples = ["const b = 2;", "1 + 1", "%cells"]
    incomplete_code_samples = ["function f() {", "console.log(`${x"]
    invalid_code_samples = ["foo())"]
    code_inspect_sample = "display"

    @classmethod
    def setUpClass(cls) -> None:
        super().setUpClass()
        assert execute(cls.kc, 'const greeting = "hello"').content["status"] == "ok"

    def test_pager(self) -> None:
        pytest.skip(NO_PAGER)

    def test_clear_output(self) -> None:
        pytest.skip(NO_CLEAR_OUTPUT)
