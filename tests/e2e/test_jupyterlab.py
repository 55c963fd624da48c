"""The codemode kernel used from JupyterLab in a real headless browser.

The user: a person orchestrating tools from JupyterLab. A real ``jupyter lab`` server runs on
127.0.0.1 (token, ``--allow-root``, its root folder a fresh temp folder without
``codemode.toml``), and Debian's Chromium, driven by Playwright without ``playwright install``,
opens the launcher, starts a "Code Mode (JavaScript)" notebook, runs a tool-calling cell, a cell
that yields (its status display must say it is running) and ``%wait`` (the yielded cell's output
must appear). The kernel's idle state is read from the server's ``/api/sessions`` (see
:func:`_kernel_idle`). A screenshot is saved as ``jupyterlab.png`` in the test's tmp
folder (``jupyterlab-running.png`` while the yielded cell runs).

Chromium comes from Debian (``scripts/install-tools.sh`` installs it at test-session start when
run as root). The test skips when it is missing, except under CI (``$CI`` set), where a missing
browser is a failure (:mod:`dependencies`).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
import requests
from dependencies import require
from e2e_servers import DEADLINE_S, ServerProcess, alive, cmdline, free_port, server_env, wait_for

pytestmark = pytest.mark.timeout(150)

CHROMIUM = Path("/usr/bin/chromium")
TOKEN = "codemode-lab-token"
KERNEL_DISPLAY_NAME = "Code Mode (JavaScript)"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
"""Chromium flags that let Debian's Chromium run headless as root in a container."""

UI_TIMEOUT_MS = 45_000
"""Upper bound for one browser-side wait (page load, an output appearing)."""

LAB_SETTINGS = {
    # No "get notified about Jupyter news?" toast over the notebook, no request leaving the box.
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false",
        "checkForUpdates": False,
    },
}


def _require_chromium() -> None:
    require(CHROMIUM.exists(), f"Debian's Chromium is not installed at {CHROMIUM}")


@pytest.fixture
def lab(tmp_path):
    """A running JupyterLab server: ``(base_url, ServerProcess, notebook_folder)``."""
    _require_chromium()
    root = tmp_path / "root"
    notebooks = root / "notebooks"
    notebooks.mkdir(parents=True)
    env = server_env(tmp_path)
    for rel, values in LAB_SETTINGS.items():
        target = Path(env["JUPYTERLAB_SETTINGS_DIR"]) / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(values))
    port = free_port()
    server = ServerProcess(
        [
            sys.executable,
            "-m",
            "jupyter",
            "lab",
            "--no-browser",
            "--ip=127.0.0.1",
            f"--port={port}",
            f"--IdentityProvider.token={TOKEN}",
            f"--ServerApp.root_dir={notebooks}",
            "--allow-root",
        ],
        cwd=notebooks,
        env=env,
        log_path=tmp_path / "lab.log",
    )
    base = f"http://127.0.0.1:{port}"
    try:

        def up() -> bool:
            server.check_running()
            return requests.get(f"{base}/api/status", headers={"Authorization": f"token {TOKEN}"}, timeout=2).ok

        wait_for(up, "JupyterLab's /api/status", deadline_s=60)
        yield base, server, notebooks
    finally:
        server.stop()


@pytest.fixture
def browser_page(tmp_path):
    """A Playwright page in headless Debian Chromium (fresh profile); every browser process
    is gone after teardown."""
    _require_chromium()
    from playwright.sync_api import sync_playwright

    me = psutil.Process()
    before = {p.pid for p in me.children(recursive=True)}
    with sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            str(tmp_path / "chromium-profile"),
            executable_path=str(CHROMIUM),
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": 1280, "height": 800},
        )
        browser_procs = [p for p in me.children(recursive=True) if p.pid not in before]
        try:
            context.set_default_timeout(UI_TIMEOUT_MS)
            yield context.pages[0] if context.pages else context.new_page()
        finally:
            context.close()
    end = time.monotonic() + DEADLINE_S
    while left := [p for p in browser_procs if alive(p)]:
        if time.monotonic() >= end:
            for proc in left:
                proc.kill()
            raise AssertionError("Browser processes outlived the test: " + "; ".join(cmdline(p) for p in left))
        time.sleep(0.1)


def _kernel_idle(base: str, name: str = "codemode") -> str | None:
    """The id of the kernel ``name`` once a notebook session has it and it is idle (else None)."""
    sessions = requests.get(f"{base}/api/sessions", headers={"Authorization": f"token {TOKEN}"}, timeout=5).json()
    for session in sessions:
        kernel = session.get("kernel") or {}
        if kernel.get("name") == name and kernel.get("execution_state") == "idle":
            return kernel["id"]
    return None


def _run_cell(page, index: int, code: str, *, paste: bool = False) -> None:
    """Put ``code`` into notebook cell ``index`` (an empty cell) and run it with Shift+Enter.

    The code is typed key by key, or with ``paste`` inserted as one edit (for several lines:
    CodeMirror would indent typed lines of its own accord). The editor must then hold exactly
    ``code``.
    """
    editor = page.locator(".jp-NotebookPanel .jp-Cell").nth(index).locator(".cm-content")
    editor.click()
    if paste:
        page.keyboard.insert_text(code)
    else:
        page.keyboard.type(code)
    assert editor.inner_text() == code
    page.keyboard.press("Shift+Enter")


def _open_notebook(page, base: str, display_name: str, kernel_name: str) -> None:
    """Start a notebook of the kernel ``display_name`` from the launcher; return once the
    server sees its kernel ``kernel_name`` idle."""
    page.goto(f"{base}/lab?token={TOKEN}")
    card = page.locator('.jp-LauncherCard[data-category="Notebook"]', has_text=display_name)
    card.click()
    page.locator(".jp-NotebookPanel .jp-Cell .cm-content").first.wait_for()
    # The kernel-status selector in the page turns "idle" before the kernel answers requests
    # (observed with JupyterLab 4); the server's view of the session is reliable.
    wait_for(
        lambda: _kernel_idle(base, kernel_name), f"the {kernel_name} kernel to be idle in /api/sessions", deadline_s=60
    )


def test_lab_runs_a_tool_cell_a_yielded_cell_and_wait(lab, browser_page, tmp_path):
    from playwright.sync_api import expect

    base, server, notebooks = lab
    page = browser_page
    _open_notebook(page, base, KERNEL_DISPLAY_NAME, "codemode")

    cells = page.locator(".jp-NotebookPanel .jp-Cell")
    outputs = [cells.nth(i).locator(".jp-OutputArea-output") for i in range(6)]
    try:
        _run_cell(page, 0, 'const r = await tools.echo({greeting: "hello from Lab"}); text(r.greeting)')
        expect(outputs[0]).to_have_text("hello from Lab")

        _run_cell(
            page,
            1,
            '// @exec: {"yield_time_ms": 100}\nawait tools.sleep({ms: 1500});\ntext("slept while Lab went on");',
            paste=True,
        )
        expect(outputs[1]).to_contain_text("is running")
        expect(outputs[1]).to_contain_text("%wait")
        page.screenshot(path=str(tmp_path / "jupyterlab-running.png"))

        _run_cell(page, 2, "%wait")
        expect(outputs[2]).to_have_text("slept while Lab went on")
        # The yielded cell's status display is updated to its end in place.
        expect(outputs[1]).to_contain_text("its output was shown")
        expect(outputs[1]).not_to_contain_text("is running")

        # Lab sends allow_stdin true: its requests are not headless, and a slow cell without
        # a pragma yields at the default yield time (codemode.kernel.headless).
        _run_cell(page, 3, "%config yield_time_ms=300")
        expect(outputs[3]).to_contain_text("yield_time_ms = 300")
        _run_cell(page, 4, 'await tools.sleep({ms: 1500});\ntext("slept past the default yield");', paste=True)
        expect(outputs[4]).to_contain_text("is running")
        _run_cell(page, 5, "%wait --yield-time-ms 20000")
        expect(outputs[5]).to_have_text("slept past the default yield")
    finally:
        page.screenshot(path=str(tmp_path / "jupyterlab.png"))

    assert (notebooks / "Untitled.ipynb").exists()
    headers = {"Authorization": f"token {TOKEN}"}
    kernel_name = requests.get(f"{base}/api/sessions", headers=headers, timeout=5).json()[0]["kernel"]["name"]
    assert kernel_name == "codemode"
    server.remember()
    started = "\n".join(server.commands.values())
    assert "codemode.kernel" in started and "codemode.runtime" in started, started

    assert requests.post(f"{base}/api/shutdown", headers=headers, timeout=10).ok
    try:
        code = server.popen.wait(DEADLINE_S)
    except subprocess.TimeoutExpired:
        code = None
    assert code == 0, f"JupyterLab did not shut down cleanly (exit code {code}); output:\n{server.output()}"
    server.assert_all_gone()


def test_lab_notebook_profile_shows_a_table_markdown_and_a_yielded_cell(lab, browser_page, tmp_path):
    """The notebook profile in Lab: a binding kept from one cell to the next, an array of
    objects shown as an HTML table, a Markdown display rendered, and a yielded cell's value
    collected by ``%wait``. Screenshot: ``jupyterlab-notebook-profile.png``."""
    from playwright.sync_api import expect

    base, server, _ = lab
    page = browser_page
    _open_notebook(page, base, "Code Mode Notebook (JavaScript)", "codemode-notebook")
    cells = page.locator(".jp-NotebookPanel .jp-Cell")
    outputs = [cells.nth(i).locator(".jp-OutputArea-output") for i in range(5)]
    try:
        _run_cell(page, 0, 'const rows = [{city: "Berlin", temp: 3}, {city: "Tokyo", temp: 12}];')
        _run_cell(page, 1, "rows")
        table = outputs[1].locator("table")
        expect(table.locator("thead th")).to_have_text(["city", "temp"])
        expect(table.locator("tbody tr")).to_have_count(2)
        expect(table.locator("tbody tr").nth(1).locator("td")).to_have_text(["Tokyo", "12"])
        _run_cell(page, 2, "markdown(`## ${rows.length} cities`)")
        # Lab's Markdown renderer appends a "¶" anchor link to headings.
        expect(outputs[2].locator("h2")).to_have_text(re.compile(r"^2 cities¶?$"))
        _run_cell(
            page,
            3,
            '// @exec: {"yield_time_ms": 100}\nawait tools.sleep({ms: 1500});\nrows.map(r => r.city).join(" and ")',
            paste=True,
        )
        expect(outputs[3]).to_contain_text("is running")
        _run_cell(page, 4, "%wait")
        expect(outputs[4]).to_have_text("'Berlin and Tokyo'")
        expect(outputs[3]).to_contain_text("its output was shown")
    finally:
        page.screenshot(path=str(tmp_path / "jupyterlab-notebook-profile.png"), full_page=True)


HOSTILE_CELL = (
    'html(\'<b>shown</b><script>document.title = "pwned"; '
    'document.body.appendChild(document.createElement("codemode-pwned"))</script>'
    '<img src="data:," onerror="document.body.appendChild(document.createElement(&quot;codemode-pwned&quot;))">\')\n'
    "markdown('*md*\\n\\n<script>document.title = \"pwned\"</script>')"
)
"""A cell that would run script in the page (set the title, add ``<codemode-pwned>`` elements)
if the kernel published its HTML and Markdown as written."""


def test_lab_runs_no_script_a_cell_puts_in_html_or_markdown(lab, browser_page, tmp_path):
    """Outputs of a live session are trusted in JupyterLab, which runs their ``<script>`` tags
    and event handlers: the kernel must have removed them (``kernel/sanitize.py``).
    Screenshot: ``jupyterlab-hostile.png``."""
    from playwright.sync_api import expect

    base, _, _ = lab
    page = browser_page
    _open_notebook(page, base, "Code Mode Notebook (JavaScript)", "codemode-notebook")
    cells = page.locator(".jp-NotebookPanel .jp-Cell")
    outputs = [cells.nth(i).locator(".jp-OutputArea-output") for i in range(2)]
    title = page.title()
    try:
        _run_cell(page, 0, HOSTILE_CELL, paste=True)
        expect(outputs[0].nth(0).locator("b")).to_have_text("shown")
        expect(outputs[0].nth(1).locator("em")).to_have_text("md")
        # A later cell's output: by then an error handler of the first would have run.
        _run_cell(page, 1, '"after"')
        expect(outputs[1]).to_have_text("'after'")
        assert page.locator("codemode-pwned").count() == 0
        assert page.title() == title != "pwned"
    finally:
        page.screenshot(path=str(tmp_path / "jupyterlab-hostile.png"), full_page=True)
