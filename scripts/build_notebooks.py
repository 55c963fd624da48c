"""Write the example notebooks from the cells below, execute them and save their outputs.

    python scripts/build_notebooks.py            # every notebook
    python scripts/build_notebooks.py quickstart # one of them

The saved outputs are what nbval compares in the test suite, so run this after changing
a cell or the kernel's output format. Cells whose output depends on timing carry the
``nbval-ignore-output`` tag.
"""

from __future__ import annotations

import base64
import struct
import sys
import zlib
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
IGNORE_OUTPUT = {"tags": ["nbval-ignore-output"]}


def _png(width: int, height: int) -> bytes:
    """A small RGB gradient as PNG bytes (made here so the notebook needs no image file)."""
    rows = b"".join(
        b"\x00" + bytes(v for x in range(width) for v in (x * 255 // width, y * 255 // height, 160))
        for y in range(height)
    )

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def quickstart() -> nbformat.NotebookNode:
    png = base64.b64encode(_png(48, 24)).decode()
    cells = [
        new_markdown_cell(
            "# codemode quickstart\n\n"
            "Every cell is a code-mode program: JavaScript that calls tools with `await tools.NAME(args)`, "
            "prints with `text()`, shows images with `image()` and keeps values across cells with "
            "`store()`/`load()`. This notebook uses the built-in tools, which need no configuration, "
            "and two real MCP servers that the `codemode.toml` beside it starts."
        ),
        new_code_cell(
            "// The built-in tools (ALL_TOOLS also lists any MCP tools configured in codemode.toml).\n"
            'const builtins = ALL_TOOLS.map(t => t.name).filter(name => !name.startsWith("mcp__"));\n'
            'text(builtins.sort().join(", "));'
        ),
        new_markdown_cell("List a folder: the notebooks that sit beside this one."),
        new_code_cell(
            'const listing = await tools.list_dir({ path: "." });\n'
            'const notebooks = listing.entries.filter(e => e.name.endsWith(".ipynb"));\n'
            "for (const entry of notebooks.sort((a, b) => a.name.localeCompare(b.name))) {\n"
            "  text(`${entry.type}  ${entry.name}`);\n"
            "}"
        ),
        new_markdown_cell(
            "Run a shell command; it runs in its own process group and is killed if the cell is stopped."
        ),
        new_code_cell(
            "const result = await tools.exec_command({ cmd: \"printf 'hello from the shell\\\\n'; expr 6 '*' 7\" });\n"
            "text(`exit code ${result.exit_code}`);\n"
            "text(result.output.trim());"
        ),
        new_markdown_cell("Write a file, read it back, and call tools in parallel with `Promise.all`."),
        new_code_cell(
            'const path = "/tmp/codemode-quickstart.txt";\n'
            'const written = await tools.write_file({ path, content: "one\\ntwo\\nthree\\n" });\n'
            "const [file, echoed] = await Promise.all([\n"
            "  tools.read_file({ path }),\n"
            '  tools.echo({ note: "echo returns its input" }),\n'
            "]);\n"
            "text(`wrote ${written.bytes_written} bytes`);\n"
            'text(file.content.split("\\n").filter(Boolean).reverse().join(", "));\n'
            "text(echoed);"
        ),
        new_markdown_cell(
            "MCP tools are called the same way, as `tools.mcp__<server>__<tool>`. Here the `time` server "
            "converts a fixed time (between zones without daylight saving time, so the output is the same "
            "on any day) while the `everything` server echoes."
        ),
        new_code_cell(
            "const [converted, echo] = await Promise.all([\n"
            '  tools.mcp__time__convert_time({ source_timezone: "UTC", time: "14:30", target_timezone: "Asia/Tokyo" }),\n'
            '  tools.mcp__everything__echo({ message: "hello MCP" }),\n'
            "]);\n"
            "const { source, target } = converted.structuredContent;\n"
            "text(`${source.timezone} ${source.datetime.slice(11, 16)} -> ${target.timezone} ${target.datetime.slice(11, 16)}`);\n"
            "text(echo.content[0].text);"
        ),
        new_markdown_cell("Values passed to `store()` stay for later cells of this kernel session."),
        new_code_cell('store("inventory", { apples: 3, pears: 5 });\ntext("stored");'),
        new_code_cell(
            'const inventory = load("inventory");\ntext(`apples + pears = ${inventory.apples + inventory.pears}`);'
        ),
        new_markdown_cell("Images appear as rich output."),
        new_code_cell(f'image("data:image/png;base64,{png}");'),
        new_markdown_cell(
            "A long-running cell *yields*: after `yield_time_ms` the cell's reply returns while the "
            "program keeps running, and a status display tracks it. `%wait` collects what it produced."
        ),
        new_code_cell(
            '// @exec: {"yield_time_ms": 200}\n'
            'text("started");\n'
            "await tools.sleep({ ms: 1500 });\n"
            'text("finished after the sleep");',
            metadata=IGNORE_OUTPUT,
        ),
        new_code_cell("%wait"),
        new_markdown_cell("Errors in a tool call reject its promise, so a program can handle them."),
        new_code_cell(
            "try {\n"
            '  await tools.read_file({ path: "/no/such/file" });\n'
            "} catch (e) {\n"
            '  text("caught: " + (typeof e === "string" ? "a tool error" : e.name));\n'
            "}"
        ),
    ]
    return _notebook(cells)


def mcp_tools() -> nbformat.NotebookNode:
    cells = [
        new_markdown_cell(
            "# MCP tools\n\n"
            "The `codemode.toml` beside this notebook starts two real MCP servers: `mcp-server-time` "
            "(PyPI) and `@modelcontextprotocol/server-everything` (npm, installed by "
            "`scripts/install-tools.sh`). Their tools appear as `tools.mcp__<server>__<tool>`."
        ),
        new_code_cell('text(ALL_TOOLS.map(t => t.name).filter(n => n.startsWith("mcp__")).sort().join("\\n"));'),
        new_markdown_cell(
            "Convert a fixed time between two zones without daylight saving time, so the output is the same on any day."
        ),
        new_code_cell(
            "const converted = await tools.mcp__time__convert_time({\n"
            '  source_timezone: "UTC",\n'
            '  time: "14:30",\n'
            '  target_timezone: "Asia/Tokyo",\n'
            "});\n"
            "const { source, target } = converted.structuredContent;\n"
            "text(`${source.timezone} ${source.datetime.slice(11, 16)} -> ${target.timezone} ${target.datetime.slice(11, 16)}`);"
        ),
        new_markdown_cell("Echo, and add two numbers, in parallel on the `everything` server."),
        new_code_cell(
            "const [echo, sum] = await Promise.all([\n"
            '  tools.mcp__everything__echo({ message: "hello MCP" }),\n'
            "  tools.mcp__everything__get_sum({ a: 2, b: 40 }),\n"
            "]);\n"
            "text(echo.content[0].text);\n"
            "text(sum.content[0].text);"
        ),
        new_markdown_cell("An MCP image block goes straight to `image()`."),
        new_code_cell(
            "const tiny = await tools.mcp__everything__get_tiny_image({});\n"
            'image(tiny.content.find(block => block.type === "image"));'
        ),
        new_markdown_cell("A tool-level error resolves with `isError: true` instead of rejecting."),
        new_code_cell(
            'const bad = await tools.mcp__time__get_current_time({ timezone: "Not/AZone" });\n'
            "text(`isError: ${bad.isError}`);"
        ),
    ]
    return _notebook(cells)


def engines() -> nbformat.NotebookNode:
    intl = (
        'text(new Intl.DateTimeFormat("fr-FR", { dateStyle: "full", timeZone: "UTC" }).format(new Date(0)));\n'
        'text((1234567.891).toLocaleString("de-DE"));\n'
        "try {\n"
        '  const parts = [...new Intl.Segmenter("en", { granularity: "word" }).segment("Hello, world")];\n'
        '  text(parts.filter((part) => part.isWordLike).map((part) => part.segment).join(" | "));\n'
        "} catch (e) {\n"
        "  text(String(e));\n"
        "}"
    )
    cells = [
        new_markdown_cell(
            "# Two engines: QuickJS and V8\n\n"
            "Cells run on **QuickJS** by default: a small engine, a hard heap limit per cell. **V8**, the "
            "engine Codex itself runs cells on, gives Codex's exact error texts, all of `Intl` and "
            'JIT speed. Choose it with `[session] engine = "v8"` in `codemode.toml`, with the '
            "`codemode-v8` kernelspec (`python -m codemode install --engine v8`), or for the next cells "
            "with `%config engine=v8`. Tools, `store()`/`load()`, yields and limits are the same on both."
        ),
        new_code_cell('store("visit", { city: "Paris", day: 0 });\ntext(JSON.stringify(load("visit")));'),
        new_markdown_cell(
            "Formatting for a locale: QuickJS has no ICU, so its cells have V8 make each `Intl` object and "
            "ICU format (the strings are V8's); what it does not offer, such as `Intl.Segmenter`, says so:"
        ),
        new_code_cell(intl),
        new_markdown_cell(
            "Switch to V8. No cell may be running; the runtime host is replaced and the stored values go with it "
            "(the output lists the settings, so it is not compared)."
        ),
        new_code_cell("%config engine=v8", metadata=IGNORE_OUTPUT),
        new_code_cell(intl),
        new_code_cell('const visit = load("visit");\ntext(`${visit.city}, day ${visit.day}`);'),
        new_markdown_cell("CPU-bound code runs compiled. Ten million steps (the time varies, so it is not compared):"),
        new_code_cell(
            "const started = Date.now();\n"
            "let sum = 0;\n"
            "for (let i = 0; i < 10_000_000; i++) sum += i % 7;\n"
            "text(`sum ${sum} in ${Date.now() - started} ms`);",
            metadata=IGNORE_OUTPUT,
        ),
        new_markdown_cell("Back to QuickJS for the cells that follow:"),
        new_code_cell("%config engine=quickjs", metadata=IGNORE_OUTPUT),
        new_code_cell('text(load("visit").city);'),
    ]
    return _notebook(cells)


def notebook_profile() -> nbformat.NotebookNode:
    fruit_command = "printf 'apples 3\\\\npears 5\\\\nplums 8\\\\n'"
    cells = [
        new_markdown_cell(
            "# The notebook profile\n\n"
            "This notebook runs on the **Code Mode Notebook (JavaScript)** kernel (`codemode-notebook`), the "
            "profile for a person exploring tools: what a cell declares at its top level stays for the next "
            "cells, a cell's last expression is shown as its result (a table for an array of objects), "
            "`console.log` prints, and `display`, `html`, `markdown` and `svg` show rich output. Tools, "
            "`text()`, `store()`/`load()`, yields and `%wait` work as in the strict profile, where every cell "
            "behaves exactly as Codex's `exec`.\n\n"
            "The tools here are real: the `time` MCP server from `codemode.toml` beside this notebook and the "
            "built-in `exec_command`."
        ),
        new_markdown_cell("A declaration stays for later cells; a cell that ends in a declaration shows nothing."),
        new_code_cell('const zones = ["UTC", "Asia/Tokyo", "Asia/Kolkata"];'),
        new_markdown_cell(
            "Convert a fixed time into each zone (none of them has daylight saving time, so the result is the "
            "same on any day) with parallel MCP calls. The last expression, an array of plain objects, is shown "
            "as a table, with its text beside it for other front ends."
        ),
        new_code_cell(
            "const converted = await Promise.all(zones.map(timezone =>\n"
            '  tools.mcp__time__convert_time({ source_timezone: "UTC", time: "14:30", target_timezone: timezone })\n'
            "));\n"
            "const rows = converted.map(({ structuredContent: { target } }) => ({\n"
            "  zone: target.timezone,\n"
            "  time: target.datetime.slice(11, 16),\n"
            "}));\n"
            "rows"
        ),
        new_markdown_cell(
            "A function declared in one cell is called in the next; `console.log` formats values as Node does."
        ),
        new_code_cell("function describe(row) {\n  return `${row.zone.padEnd(12)} ${row.time}`;\n}"),
        new_code_cell(
            "for (const row of rows) console.log(describe(row));\n"
            "console.log({ zones: zones.length, first: rows[0] });\n"
            'console.warn("console.warn and console.error go to stderr");'
        ),
        new_markdown_cell("A shell command through the built-in `exec_command`; its output becomes data."),
        new_code_cell(
            f'const run = await tools.exec_command({{ cmd: "{fruit_command}" }});\n'
            'const fruit = run.output.trim().split("\\n").map(line => {\n'
            '  const [name, count] = line.split(" ");\n'
            "  return { name, count: Number(count) };\n"
            "});\n"
            "fruit"
        ),
        new_markdown_cell("Rich displays: Markdown and an SVG bar chart drawn from the same data."),
        new_code_cell(
            "const total = fruit.reduce((sum, f) => sum + f.count, 0);\n"
            "markdown(`**${fruit.length} kinds** of fruit, **${total}** pieces in all.`);\n"
            "const bars = fruit.map((f, i) =>\n"
            '  `<rect x="0" y="${i * 22}" width="${f.count * 20}" height="18" fill="#4a90d9"/>` +\n'
            '  `<text x="${f.count * 20 + 6}" y="${i * 22 + 14}" font-size="13">${f.name}</text>`\n'
            ').join("");\n'
            'svg(`<svg xmlns="http://www.w3.org/2000/svg" width="260" height="${fruit.length * 22}">${bars}</svg>`);'
        ),
        new_markdown_cell("A plain object is shown as JSON (JupyterLab's JSON viewer), anything else by its text."),
        new_code_cell("({ total, kinds: fruit.map(f => f.name) })"),
        new_code_cell("new Map(fruit.map(f => [f.name, f.count]))"),
        new_markdown_cell(
            "A long-running cell still *yields*: its reply returns while the program keeps running, a status "
            "display tracks it, and `%wait` collects what it printed and its value. Later cells see the "
            "bindings it has made so far."
        ),
        new_code_cell(
            '// @exec: {"yield_time_ms": 200}\n'
            'let progress = "started";\n'
            "await tools.sleep({ ms: 1500 });\n"
            'progress = "finished";\n'
            'console.log("slept 1.5 s");\n'
            "progress",
            metadata=IGNORE_OUTPUT,
        ),
        new_code_cell("%wait"),
        new_code_cell("progress"),
        new_markdown_cell("`store()` and `load()` keep working, and survive a change of profile or engine."),
        new_code_cell('store("fruit", fruit);\nload("fruit").length'),
    ]
    return _notebook(cells, kernel=("codemode-notebook", "Code Mode Notebook (JavaScript)"))


def replay() -> nbformat.NotebookNode:
    cells = [
        new_markdown_cell(
            "# Replaying a Codex session\n\n"
            "Codex writes every session to a file under `~/.codex/sessions/`. "
            "`python -m codemode replay` turns such a file into a notebook, runs the model's programs again "
            "and says where the rerun differs from what the model saw.\n\n"
            "The session here, `sessions/s05_mcp_store_load.jsonl`, is a real one: Codex CLI 0.171.0 wrote it "
            "while a model called three MCP tools of `server-everything` and kept values with `store()`. "
            "This notebook's cells are Python; each `!` line is the shell command you would type. "
            "[Replaying a Codex session](../docs/replay.md) has the whole reference."
        ),
        new_code_cell(
            "import json\n"
            "import os\n"
            "import shutil\n"
            "import sys\n"
            "import tempfile\n"
            "from pathlib import Path\n\n"
            "# `python` in the commands below is this kernel's Python, where codemode is installed.\n"
            'os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ[\'PATH\']}"\n'
            "here = Path.cwd()\n"
            'everything = (here / "../.npm-tools/node_modules/@modelcontextprotocol/server-everything/dist/index.js").resolve()\n'
            'work = Path(tempfile.mkdtemp(prefix="codemode-replay-"))\n'
            'shutil.copy(here / "sessions/s05_mcp_store_load.jsonl", work)\n\n'
            "# Codex's config.toml names the MCP servers the session used: here, server-everything.\n"
            '(work / "codex-config.toml").write_text(\n'
            '    f\'[mcp_servers.everything]\\ncommand = "node"\\nargs = ["{everything}", "stdio"]\\n\'\n'
            ")\n"
            "os.chdir(work)  # the commands below run in this scratch folder"
        ),
        new_markdown_cell(
            "## 1. Convert\n\n"
            "`-o` names the notebook to write. "
            "`--codex-config` names Codex's configuration; its MCP servers go to a `codemode.toml` beside the "
            "notebook. Without it, the command reads `~/.codex/config.toml`."
        ),
        new_code_cell(
            "!python -m codemode replay s05_mcp_store_load.jsonl -o s05.ipynb --codex-config codex-config.toml"
        ),
        new_markdown_cell(
            "## 2. Look at the notebook\n\n"
            "It reads as the session: the user's prompt and the model's messages are Markdown cells, and every "
            "`exec` call is a code cell. Open it in JupyterLab with the `codemode` kernel; here we list its cells."
        ),
        new_code_cell(
            'notebook = json.loads(Path("s05.ipynb").read_text())\n'
            'for cell in notebook["cells"]:\n'
            '    kind = cell["metadata"]["codemode"]["replay"]["kind"]\n'
            '    first_line = "".join(cell["source"]).splitlines()[0]\n'
            "    print(f\"{cell['cell_type']:9} {kind:8} {first_line}\")"
        ),
        new_markdown_cell(
            "A code cell holds the program exactly as the model sent it. "
            "Its outputs are what the model saw, and its metadata keeps the result as Codex recorded it: "
            "the status, the wall time, and `model_view`, the very output the model read."
        ),
        new_code_cell(
            'second = [c for c in notebook["cells"] if c["cell_type"] == "code"][1]\n'
            'print("".join(second["source"]))\n'
            'result = second["metadata"]["codemode"]["replay"]["result"]\n'
            'print(result["status"], result["wall_time_s"], "seconds")\n'
            'for item in result["model_view"]:\n'
            '    print(repr(item["text"]))'
        ),
        new_markdown_cell("The `codemode.toml` beside the notebook starts the same MCP server when the notebook runs."),
        new_code_cell('print(Path("codemode.toml").read_text().replace(str(everything), "<server-everything>"))'),
        new_markdown_cell(
            "## 3. Run it again, and record the tool calls\n\n"
            "`--run` runs the programs in a fresh kernel with the tools of the `codemode.toml` beside `-o`, and "
            "compares each answer with what the model saw. It prints a line per cell and a diff where they "
            "differ; `--report` writes the same as JSON, `--junit` as JUnit XML for CI.\n\n"
            "`CODEMODE_RECORDING=record` also writes every nested tool call (tool, arguments, answer) to "
            "`CODEMODE_RECORDING_PATH`.\n\n"
            "The output depends on the machine and the server's version, so the test suite does not check it. "
            "Here both cells come out `same` and the exit status is 0: codemode's MCP client declares "
            "elicitation, as Codex's did, so the server lists the same tools to both. With another version of "
            "the server, the first cell's `ALL_TOOLS` may differ."
        ),
        new_code_cell(
            "!CODEMODE_RECORDING=record CODEMODE_RECORDING_PATH=$PWD/s05.recording.jsonl "
            "python -m codemode replay s05.ipynb --run -o live.ipynb --report report.json",
            metadata=IGNORE_OUTPUT,
        ),
        new_markdown_cell(
            "## 4. Read the report\n\n"
            "Each `exec`, `wait` and `terminate` cell has a `status`: `same`, `differs` or `not_run`. "
            "Its `reason` says why. `wall_time`, `ids`, `paths` and `image_detail` are noise that was "
            "normalised away. `missing_tool` means codemode lacks a tool the program calls, so the cell did not "
            "run; a later cell that differs names it in `after_not_run`. Only `program` (the answer) and "
            "`notify` (the `notify()` texts) are real divergences: they make the exit status 1."
        ),
        new_code_cell(
            'report = json.loads(Path("report.json").read_text())\n'
            'print(report["summary"])\n'
            'for cell in report["cells"]:\n'
            '    print(cell["call_id"], cell["status"], cell["reason"])\n'
            '    print(cell["diff"], end="")',
            metadata=IGNORE_OUTPUT,
        ),
        new_markdown_cell("## 5. Replay with no server\n\nThe recording holds one line per tool call, after a header."),
        new_code_cell(
            'for line in Path("s05.recording.jsonl").read_text().splitlines():\n'
            "    record = json.loads(line)\n"
            '    if record.get("type") == "call":\n'
            '        print(record["tool"], json.dumps(record["arguments"]), "->", record["outcome"])'
        ),
        new_markdown_cell(
            "With `CODEMODE_RECORDING=replay`, the recording answers those calls: no MCP server starts, and "
            "a call it does not hold fails with an error. The folder `offline/` has no `codemode.toml`: the "
            "source folder's is used, but replay mode does not start its server."
        ),
        new_code_cell(
            "!mkdir -p offline && CODEMODE_RECORDING=replay CODEMODE_RECORDING_PATH=$PWD/s05.recording.jsonl "
            "python -m codemode replay s05.ipynb --run -o offline/s05.ipynb",
            metadata=IGNORE_OUTPUT,
        ),
        new_markdown_cell(
            "The programs saw the same outputs as in the live run. Here are the MCP answers, after the first "
            "output (the list of tools, which depends on the server's version)."
        ),
        new_code_cell(
            "def outputs(path):\n"
            '    cells = json.loads(Path(path).read_text())["cells"]\n'
            '    return [o.get("text") or o["data"]["text/plain"] for c in cells if c["cell_type"] == "code" for o in c["outputs"]]\n\n\n'
            'live, offline = outputs("live.ipynb"), outputs("offline/s05.ipynb")\n'
            "print(live == offline)\n"
            'print("".join(offline[1:]))'
        ),
        new_markdown_cell(
            "Codex's session file holds the results of the MCP calls too. `--record-from-session` writes them "
            "as a recording, so a session whose servers are gone can still be replayed. `ALL_TOOLS` then lists "
            "only the seeded tools, so a cell that prints it differs."
        ),
        new_code_cell(
            "!python -m codemode replay s05_mcp_store_load.jsonl --record-from-session seeded.recording.jsonl"
        ),
        new_markdown_cell(
            "**A recording holds whatever the tools returned, secrets included**, and so does the session file. "
            "Read them before you share them.\n\n"
            "The scratch folder goes away:"
        ),
        new_code_cell("os.chdir(here)\nshutil.rmtree(work)"),
    ]
    nb = _notebook(cells, kernel=("python3", "Python 3 (ipykernel)"))
    nb.metadata["language_info"] = {"name": "python", "file_extension": ".py", "mimetype": "text/x-python"}
    return nb


def _notebook(cells: list, kernel: tuple[str, str] = ("codemode", "Code Mode (JavaScript)")) -> nbformat.NotebookNode:
    for number, cell in enumerate(cells, start=1):
        cell.id = f"cell-{number}"  # stable ids: rebuilding changes only what really changed
    nb = new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": kernel[0], "display_name": kernel[1], "language": "javascript"}
    nb.metadata["language_info"] = {"name": "javascript", "file_extension": ".js", "mimetype": "text/javascript"}
    return nb


BUILDERS = {
    "quickstart": quickstart,
    "mcp-tools": mcp_tools,
    "engines": engines,
    "notebook-profile": notebook_profile,
    "replay": replay,
}


def main(names: list[str]) -> int:
    from codemode.notebook import run_notebook

    status = 0
    for name in names or list(BUILDERS):
        path = NOTEBOOKS / f"{name}.ipynb"
        nb = BUILDERS[name]()
        nbformat.write(nb, path)
        if nb.metadata["kernelspec"]["name"] == "python3":
            status |= _run_python(path)
        else:
            status |= run_notebook(path, save_to=path, out=sys.stdout, record_timing=False)
    return status


def _run_python(path: Path) -> int:
    """Execute a Python notebook (``replay``: its cells run shell commands) in its folder and
    save its outputs; ``python -m codemode run`` runs only codemode kernels."""
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, kernel_name="python3", timeout=300, resources={"metadata": {"path": str(NOTEBOOKS)}})
    try:
        client.execute()
    except CellExecutionError as exc:
        print(exc, file=sys.stderr)
        return 1
    nbformat.write(nb, path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
