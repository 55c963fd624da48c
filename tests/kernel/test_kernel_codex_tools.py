"""Codex's nested tools through the Jupyter protocol: programs written for Codex, as the model
wrote them in ``tests/replay/sessions/`` (s07's apply_patch, s12's terminal session, s06's
view_image, s03's argument error), run in a kernel and print Codex's answers."""

from __future__ import annotations

import base64
import json

from kernel_driver import execute
from sandbox_cells import kernel_in, printed

CHECKER = (
    "iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAAG0lEQVR42mP478AARwwJ/xGIihLIHBRF1JMAALmoU8HSfm8+AAAAAElFTkSuQmCC"
)


def test_programs_written_for_codex_get_codexs_answers(tmp_path):
    workspace = tmp_path / "work"
    with kernel_in(workspace, 'approval_policy = "never"\n') as kernel:
        # s07, call_exec_4.
        patched = execute(
            kernel.kc,
            'await tools.apply_patch("*** Begin Patch\\n*** Add File: notes/first.md\\n+# First note\\n'
            '+hello from code mode\\n*** End Patch\\n");\n'
            'const cat = await tools.exec_command({cmd: "cat notes/first.md"});\ntext(cat.output);',
        )
        assert printed(patched) == "# First note\nhello from code mode\n"
        # s12, call_exec_1 (its first two calls); the session outlives the cell.
        started = execute(
            kernel.kc,
            'const s = await tools.exec_command({cmd: "read line; echo got:$line", tty: true, yield_time_ms: 500});\n'
            "store('sid', s.session_id); text(Object.keys(s).join(','));",
        )
        assert printed(started) == "chunk_id,wall_time_seconds,session_id,original_token_count,output"
        written = execute(
            kernel.kc,
            'const w = await tools.write_stdin({session_id: load("sid"), chars: "hello\\n", yield_time_ms: 1000});\n'
            "text(JSON.stringify([w.exit_code, w.output]));",
        )
        assert json.loads(printed(written)) == [0, "hello\r\ngot:hello\r\n"]
        # s06, call_exec_2 (its view_image), and s03's call without cmd.
        (workspace / "checker.png").write_bytes(base64.b64decode(CHECKER))
        viewed = execute(
            kernel.kc,
            'const v = await tools.view_image({path: "checker.png"});\ntext(Object.keys(v).join(","));\n'
            "image(v.image_url);\nawait tools.exec_command({});",
        )
    assert printed(viewed) == "image_url"
    assert viewed.of_type("display_data")[0]["data"]["image/png"] == CHECKER
    assert viewed.errors[0]["evalue"] == "failed to parse function arguments: missing field `cmd` at line 1 column 2"
