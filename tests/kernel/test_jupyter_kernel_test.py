"""Conformance checks from ``jupyter_kernel_test`` (the Jupyter project's kernel conformance tests).

Not covered, by design: stderr (cells have no ``console``), execute_result (the value of the
last expression is not output, as in Codex), history (jupyter_kernel_test checks it only
with execute_result; ``test_kernel_history.py`` does), pager payloads.
"""

from __future__ import annotations

import jupyter_kernel_test as jkt
import pytest

PNG_1X1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="


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
