"""Choosing the profile (``strict`` or ``notebook``) through real kernels: ``python -m codemode
install --profile``, the kernelspec's ``CODEMODE_PROFILE``, ``[session] profile`` in
``codemode.toml``, ``%config profile=...`` while the kernel runs, and the runtime host's
``--profile``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from kernel_driver import execute, runtime_host, shell_reply, start_kernel, stop_kernel
from sandbox_cells import kernel_in

from codemode.host import HostProvider, default_host_command

pytestmark = pytest.mark.usefixtures("codemode_kernelspec")


@pytest.fixture(scope="module")
def notebook_kernel(codemode_kernelspec, tmp_path_factory):
    """A kernel in the notebook profile, shared by this module's rendering tests."""
    kernel = start_kernel(tmp_path_factory.mktemp("notebook-cwd"), {"CODEMODE_PROFILE": "notebook"})
    yield kernel
    stop_kernel(kernel)


def _shown(run) -> list[tuple[str, dict]]:
    """The output messages of an execution: type and content, status displays left out."""
    return [
        (m["msg_type"], m["content"])
        for m in run.messages
        if "transient" not in m["content"] and m["msg_type"] != "update_display_data"
    ]


def _install(prefix: Path, *extra: str) -> Path:
    subprocess.run(
        [sys.executable, "-m", "codemode", "install", "--prefix", str(prefix), *extra],
        capture_output=True,
        text=True,
        check=True,
    )
    return prefix / "share" / "jupyter" / "kernels"


SETTINGS = ("yield_time_ms", "max_output_tokens", "engine", "profile")


def _setting(kernel, name: str) -> str:
    (line,) = [line for line in execute(kernel.kc, "%config").stdout.splitlines() if line.startswith(f"{name} = ")]
    return line


def _host_profile(kernel) -> str:
    """The ``--profile`` the kernel's runtime host was started with."""
    argv = runtime_host(kernel).cmdline()
    return argv[argv.index("--profile") + 1]


def test_install_profile_notebook_writes_the_notebook_kernelspec(tmp_path):
    kernels = _install(tmp_path, "--profile", "notebook")
    _install(tmp_path)
    assert sorted(p.name for p in kernels.iterdir()) == ["codemode", "codemode-notebook"]
    plain, notebook = (
        json.loads((kernels / name / "kernel.json").read_text()) for name in ("codemode", "codemode-notebook")
    )
    assert notebook["display_name"] == "Code Mode Notebook (JavaScript)"
    assert notebook["env"] == {**plain["env"], "CODEMODE_PROFILE": "notebook"}
    assert notebook["argv"] == plain["argv"] and "CODEMODE_PROFILE" not in plain["env"]
    # The notebook profile does not run on V8 yet: no kernelspec that could not start.
    v8 = subprocess.run(
        [
            sys.executable,
            "-m",
            "codemode",
            "install",
            "--prefix",
            str(tmp_path),
            "--profile",
            "notebook",
            "--engine",
            "v8",
        ],
        capture_output=True,
        text=True,
    )
    assert (v8.returncode, v8.stderr) == (
        1,
        "The notebook profile runs on the quickjs engine for now; install it without --engine v8.\n",
    )
    assert sorted(p.name for p in kernels.iterdir()) == ["codemode", "codemode-notebook"]
    named = json.loads(
        (_install(tmp_path, "--profile", "strict", "--name", "cm-s") / "cm-s" / "kernel.json").read_text()
    )
    assert (named["env"]["CODEMODE_PROFILE"], named["display_name"]) == ("strict", "Code Mode (JavaScript)")
    wrong = subprocess.run(
        [sys.executable, "-m", "codemode", "install", "--prefix", str(tmp_path), "--profile", "repl"],
        capture_output=True,
        text=True,
    )
    assert wrong.returncode == 2
    assert "argument --profile: invalid choice: 'repl' (choose from 'strict', 'notebook')" in wrong.stderr


def test_the_host_command_names_engine_and_profile():
    python = [sys.executable, "-I", "-S"]  # isolated, started by codemode/runtime/boot.py without site
    listen = ["--listen", "stdio"]
    assert default_host_command()[:3] == python
    assert default_host_command()[-6:] == [*listen, "--engine", "quickjs", "--profile", "strict"]
    assert default_host_command("v8", "notebook")[-6:] == [*listen, "--engine", "v8", "--profile", "notebook"]
    assert HostProvider(profile="notebook").command[-6:] == [*listen, "--engine", "quickjs", "--profile", "notebook"]


def _completions(kernel, code: str) -> list[str]:
    return shell_reply(kernel.kc, kernel.kc.complete(code, len(code)), timeout=90)["content"]["matches"]


def test_the_notebook_kernelspec_starts_its_host_with_the_notebook_profile(tmp_path):
    with kernel_in(tmp_path / "nb", kernel_name="codemode-notebook") as kernel:
        # Before any cell built the code-mode session, the kernelspec decides: the notebook's helpers.
        assert _completions(kernel, "console.l") == ["log"]
        assert _setting(kernel, "profile") == "profile = notebook"
        assert _completions(kernel, "disp") == ["display"]
        assert execute(kernel.kc, "text(1 + 1)").stdout == "2\n"
        assert _host_profile(kernel) == "notebook"


def test_the_config_file_chooses_the_profile_and_the_kernelspec_overrides_it(tmp_path):
    toml = '[session]\nprofile = "notebook"\n'
    with kernel_in(tmp_path / "nb", toml) as kernel:
        assert _setting(kernel, "profile") == "profile = notebook"
        assert execute(kernel.kc, "text(1)").stdout == "1\n"
        assert _host_profile(kernel) == "notebook"
    with kernel_in(tmp_path / "nb2", toml, env={"CODEMODE_PROFILE": "strict"}) as kernel:
        assert _setting(kernel, "profile") == "profile = strict"
        assert execute(kernel.kc, "text(1)").stdout == "1\n"
        assert _host_profile(kernel) == "strict"
    with kernel_in(tmp_path / "nb3", '[session]\nprofile = "repl"\n') as kernel:
        run = execute(kernel.kc, "text(1)")
        assert run.stdout == "1\n"
        assert run.stderr_messages == [
            f"codemode configuration problem: {tmp_path / 'nb3' / 'codemode.toml'}: session.profile: must be one "
            "of 'strict', 'notebook', not 'repl'; strict is used.\n"
        ]
        assert _host_profile(kernel) == "strict"


def test_config_magic_switches_the_profile_and_keeps_stored_values(tmp_path):
    with kernel_in(tmp_path / "nb") as kernel:
        assert execute(kernel.kc, 'store("city", "Paris"); text("stored")').stdout == "stored\n"
        assert _host_profile(kernel) == "strict"
        assert _completions(kernel, "disp") == []
        switched = execute(kernel.kc, "%config profile=notebook")
        assert switched.content["status"] == "ok" and "\nprofile = notebook\n" in switched.stdout
        assert _completions(kernel, "disp") == ["display"]
        assert execute(kernel.kc, 'text(load("city"))').stdout == "Paris\n"
        assert _host_profile(kernel) == "notebook"

        wrong = execute(kernel.kc, "%config profile=repl")
        assert (wrong.content["ename"], wrong.content["evalue"]) == (
            "UsageError",
            "profile must be one of strict, notebook, not 'repl'",
        )
        assert _host_profile(kernel) == "notebook"

        running = execute(kernel.kc, '// @exec: {"yield_time_ms": 100}\nawait new Promise(() => {})')
        cell_id = running.codemode["cell_id"]
        refused = execute(kernel.kc, "%config profile=strict")
        assert (refused.content["ename"], refused.content["evalue"]) == (
            "UsageError",
            f"cannot change the profile while cells run: {cell_id}",
        )
        assert execute(kernel.kc, f"%terminate {cell_id}").codemode["status"] == "terminated"
        assert execute(kernel.kc, "%config profile=strict").content["status"] == "ok"
        assert execute(kernel.kc, 'text(load("city"))').stdout == "Paris\n"
        assert _host_profile(kernel) == "strict"


def test_the_notebook_profile_refuses_the_v8_engine_everywhere(tmp_path):
    """The notebook profile runs on QuickJS only: the config's v8 gives way with a problem
    report, and neither ``%config engine=v8`` (notebook) nor ``%config profile=notebook`` (V8)
    replaces a working host by one that cannot start."""
    with kernel_in(tmp_path / "nb", '[session]\nprofile = "notebook"\nengine = "v8"\n') as kernel:
        run = execute(kernel.kc, "const kept = 1; kept")
        assert run.stderr_messages == [
            "codemode configuration problem: session.engine: the notebook profile runs on the quickjs engine for "
            "now, not on v8; quickjs is used.\n"
        ]
        assert _setting(kernel, "engine") == "engine = quickjs"
        refused = execute(kernel.kc, "%config engine=v8")
        assert (refused.content["ename"], refused.content["evalue"]) == (
            "UsageError",
            "the notebook profile runs on the quickjs engine for now, not on v8",
        )
        assert _setting(kernel, "engine") == "engine = quickjs"
        assert _shown(execute(kernel.kc, "kept + 1"))[0][1]["data"]["text/plain"] == "2"  # the same host
    with kernel_in(tmp_path / "v8", env={"CODEMODE_ENGINE": "v8"}) as kernel:
        refused = execute(kernel.kc, "%config profile=notebook")
        assert (refused.content["ename"], refused.content["evalue"]) == (
            "UsageError",
            "the notebook profile runs on the quickjs engine for now, not on v8",
        )
        assert _setting(kernel, "profile") == "profile = strict"
        assert execute(kernel.kc, "text(1)").stdout == "1\n"


NOTEBOOK_ON_V8 = "the notebook profile runs on the quickjs engine for now, not on v8"


def test_a_config_request_that_fails_changes_nothing_and_key_order_does_not_matter(tmp_path):
    """``%config`` checks the whole request (each value, the engine and profile it leaves, the
    running cells) before it applies any of it, and replaces the host once for both."""
    with kernel_in(tmp_path / "nb") as kernel:
        host = runtime_host(kernel).pid
        for request in (
            "engine=v8 profile=notebook",
            "profile=notebook engine=v8",
            "yield_time_ms=1000 engine=v8 profile=notebook",
            "max_output_tokens=5 profile=notebook engine=v8 yield_time_ms=1000",
        ):
            refused = execute(kernel.kc, f"%config {request}")
            assert (refused.content["ename"], refused.content["evalue"]) == ("UsageError", NOTEBOOK_ON_V8)
        shown = execute(kernel.kc, "%config").stdout.splitlines()
        assert [line for line in shown if line.split(" = ")[0] in SETTINGS] == [
            "yield_time_ms = 10000",
            "max_output_tokens = 10000",
            "engine = quickjs",
            "profile = strict",
        ]
        assert runtime_host(kernel).pid == host

        # Either order reaches a combination that runs (strict on V8, notebook on QuickJS).
        assert execute(kernel.kc, "%config profile=notebook").content["status"] == "ok"
        for request, engine, profile in (
            ("engine=v8 profile=strict", "v8", "strict"),
            ("engine=quickjs profile=notebook", "quickjs", "notebook"),
            ("profile=strict engine=v8", "v8", "strict"),
        ):
            switched = execute(kernel.kc, f"%config {request}")
            assert switched.content["status"] == "ok"
            assert f"\nengine = {engine}\nprofile = {profile}\n" in switched.stdout
            assert execute(kernel.kc, "text(1)").stdout == "1\n"
            argv = " ".join(runtime_host(kernel).cmdline())
            assert f"--engine {engine} --profile {profile}" in argv

        running = execute(kernel.kc, '// @exec: {"yield_time_ms": 100}\nawait new Promise(() => {})')
        cell_id = running.codemode["cell_id"]
        host = runtime_host(kernel).pid
        for request, settings in (
            ("yield_time_ms=500 engine=quickjs", "engine"),
            ("max_output_tokens=5 profile=notebook engine=quickjs", "engine and profile"),
        ):
            refused = execute(kernel.kc, f"%config {request}")
            assert (refused.content["ename"], refused.content["evalue"]) == (
                "UsageError",
                f"cannot change the {settings} while cells run: {cell_id}",
            )
        assert (_setting(kernel, "yield_time_ms"), _setting(kernel, "max_output_tokens")) == (
            "yield_time_ms = 10000",
            "max_output_tokens = 10000",
        )
        assert runtime_host(kernel).pid == host
        assert execute(kernel.kc, f"%terminate {cell_id}").codemode["status"] == "terminated"


def test_a_host_that_is_not_codemodes_gets_no_profile(tmp_path):
    """``CODEMODE_HOST_BIN`` naming Codex's host (here a stand-in under its name that runs
    codemode's host in the strict profile): the notebook profile cannot be had, and says so."""
    stand_in = tmp_path / "bin" / "codex-code-mode-host"
    stand_in.parent.mkdir()
    stand_in.write_text(f'#!/bin/sh\nexec {sys.executable} -I -m codemode.runtime "$@"\n')
    stand_in.chmod(0o755)
    env = {"CODEMODE_HOST_BIN": str(stand_in), "CODEMODE_PROFILE": "notebook"}
    with kernel_in(tmp_path / "nb", env=env) as kernel:
        run = execute(kernel.kc, "text(1)")
        assert run.stdout == "1\n"
        assert run.stderr_messages == [
            "codemode configuration problem: session.profile: 'notebook' needs codemode's own runtime host, but "
            f"CODEMODE_HOST_BIN names {stand_in}, which takes no profile; cells run in the strict profile.\n"
        ]
        assert _setting(kernel, "profile") == "profile = strict"
        refused = execute(kernel.kc, "%config profile=notebook")
        assert (refused.content["ename"], refused.content["evalue"]) == (
            "UsageError",
            "the profile can be chosen only for codemode's own host, which this session does not run",
        )
        assert "--profile" not in runtime_host(kernel).cmdline()


def test_codemode_run_uses_the_notebooks_profile(tmp_path):
    """``python -m codemode run`` starts the kernelspec a notebook names: ``codemode-notebook``
    runs it in the notebook profile."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    nb = new_notebook(cells=[new_code_cell("%config")])
    nb.metadata["kernelspec"] = {"name": "codemode-notebook", "display_name": "x", "language": "javascript"}
    nbformat.write(nb, tmp_path / "profile.ipynb")
    env = {k: v for k, v in os.environ.items() if k != "CODEMODE_PROFILE"}
    done = subprocess.run(
        [sys.executable, "-m", "codemode", "run", str(tmp_path / "profile.ipynb")],
        capture_output=True,
        text=True,
        timeout=150,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert "\nprofile = notebook\n" in done.stdout


def test_notebook_items_are_shown_in_order_and_the_value_is_the_execute_result(notebook_kernel):
    kc = notebook_kernel.kc
    run = execute(kc, 'console.log("a", 1)\ntext("t")\nconsole.warn("w")\nhtml("<b>x</b>")\nconst x = 40\nx + 2')
    count = run.content["execution_count"]
    assert (run.content["status"], run.codemode["status"]) == ("ok", "completed")
    assert _shown(run) == [
        ("stream", {"name": "stdout", "text": "a 1\nt\n"}),
        ("stream", {"name": "stderr", "text": "w\n"}),
        ("display_data", {"data": {"text/html": "<b>x</b>", "text/plain": "<b>x</b>"}, "metadata": {}}),
        ("execute_result", {"execution_count": count, "data": {"text/plain": "42"}, "metadata": {}}),
    ]
    again = execute(kc, "x * 2")
    assert _shown(again) == [
        ("execute_result", {"execution_count": count + 1, "data": {"text/plain": "80"}, "metadata": {}})
    ]


def test_the_value_of_a_yielded_cell_shows_under_wait_as_a_display(notebook_kernel):
    kc = notebook_kernel.kc
    started = execute(kc, '// @exec: {"yield_time_ms": 100}\nawait tools.sleep({ms: 600})\nconsole.log("late")\n7')
    assert (started.codemode["status"], _shown(started)) == ("running", [])
    waited = execute(kc, f"%wait {started.codemode['cell_id']}")
    assert waited.codemode["status"] == "completed"
    assert _shown(waited) == [
        ("stream", {"name": "stdout", "text": "late\n"}),
        ("display_data", {"data": {"text/plain": "7"}, "metadata": {}}),
    ]


def test_a_flood_of_console_output_and_displays_stays_within_the_budget(notebook_kernel):
    run = execute(
        notebook_kernel.kc,
        '// @exec: {"max_output_tokens": 30}\nconsole.log("s".repeat(400))\nhtml("<i>" + "h".repeat(400) + "</i>")\n1',
    )
    # 30 tokens (120 bytes): the console line keeps 60 bytes at each end, the display is left
    # out, the value keeps a text/plain of the truncation marker alone.
    assert _shown(run) == [
        ("stream", {"name": "stdout", "text": "s" * 60 + "\u202671 tokens truncated\u2026" + "s" * 59 + "\n"}),
        (
            "execute_result",
            {
                "execution_count": run.content["execution_count"],
                "data": {"text/plain": "\u20261 tokens truncated\u2026"},
                "metadata": {},
            },
        ),
        (
            "stream",
            {
                "name": "stdout",
                "text": "[omitted 1 display items ...]\n[showed only the text/plain of 1 display items ...]\n",
            },
        ),
    ]


def test_html_and_markdown_of_a_cell_are_cleaned_before_they_are_published(notebook_kernel):
    """A model-written cell must not run script in the front end (``kernel/sanitize.py``)."""
    kc = notebook_kernel.kc
    run = execute(kc, 'html("<b>x</b><script>alert(1)</script>")\nmarkdown("# T\\n<img src=x onerror=alert(1)>")')
    assert _shown(run) == [
        (
            "display_data",
            {
                "data": {"text/html": "<b>x</b>", "text/plain": "<b>x</b><script>alert(1)</script>"},
                "metadata": {},
            },
        ),
        (
            "display_data",
            {
                "data": {"text/html": "<h1>T</h1>\n<img>\n\n", "text/plain": "# T\n<img src=x onerror=alert(1)>"},
                "metadata": {},
            },
        ),
    ]
    started = execute(
        kc, '// @exec: {"yield_time_ms": 100}\nawait tools.sleep({ms: 400})\nhtml("<a href=javascript:alert(1)>a</a>")'
    )
    waited = execute(kc, f"%wait {started.codemode['cell_id']}")
    assert _shown(waited) == [
        (
            "display_data",
            {
                "data": {
                    "text/html": '<a rel="noopener noreferrer">a</a>',
                    "text/plain": "<a href=javascript:alert(1)>a</a>",
                },
                "metadata": {},
            },
        )
    ]
