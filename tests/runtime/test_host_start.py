"""The host as the client starts it (``default_host_command``): isolated, without ``site``,
through ``codemode/runtime/boot.py``; what it leaves out of its start, and that what it loads
later (Intl's libraries, V8, the notebook profile's parser, ``ssl``) still loads."""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys

import pytest
from rt_client import HostClient, text_items

from codemode.host import default_host_command
from codemode.host.spawn import host_import_plan

pytestmark = pytest.mark.timeout(120)

NOT_AT_START = (
    "site",  # -S: the client hands the host its import path (boot.py)
    "_ssl",  # OpenSSL, for asyncio's TLS support, never used by the host (boot.py; the attempts
    # asyncio makes to import ``ssl`` are listed too, so the check names the extension module)
    "quickjs",  # the binding's wrapper package, which starts a thread pool (engines/quickjs.py imports _quickjs)
    "concurrent.futures.thread",  # that thread pool
    "importlib.resources",  # the prelude is read as plain files (prelude_source.py)
    "hashlib",  # only a long MCP tool name is hashed (codemode/wire/tool_names.py)
    "argparse",  # the client's command line is read by hand (runtime/__main__.py)
    "shutil",  # argparse's help formatter
    "tree_sitter",  # the notebook profile's parser
    "icu",  # Intl, loaded at a cell's first Intl call
    "py_mini_racer",  # V8, for --engine v8 or Intl
    "dataclasses",  # the host's records are plain classes (outcome.py, livecell.py, cellstate.py)
)


async def _host(command: list[str]) -> HostClient:
    process = await asyncio.create_subprocess_exec(
        *command,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        limit=2**31 - 1,
    )
    client = HostClient(process)
    assert (await client.hello())["type"] == "connection/ready"
    assert (await client.open("s1"))["status"] == "ok"
    return client


async def _finish(client: HostClient) -> str:
    """Close the host's stdin, wait for its exit and return its stderr."""
    assert client.process.stderr is not None
    status = await client.close()
    stderr = (await client.process.stderr.read()).decode()
    assert status == 0, stderr
    return stderr


async def test_the_host_starts_and_runs_a_cell_without_site_tls_or_unused_modules():
    """A host started as the client starts it runs its first cell having imported none of the
    modules it does not need (read from ``-X importtime``, which lists every import)."""
    command = default_host_command()
    assert command[:3] == [sys.executable, "-I", "-S"] and command[3].endswith("boot.py")
    client = await _host([command[0], "-X", "importtime", *command[1:]])
    assert text_items(await client.run("text(1 + 1)")) == ["2"]
    imported = set(re.findall(r"^import time:\s+\d+ \|\s+\d+ \| +(\S+)$", await _finish(client), re.M))
    assert {"asyncio", "_quickjs", "codemode.runtime.server"} <= imported
    assert sorted(imported & set(NOT_AT_START)) == []


@pytest.mark.parametrize(
    ("engine", "profile", "source", "expected"),
    [
        ("quickjs", "strict", "text(new Intl.NumberFormat('de-DE').format(1234.5))", ["1.234,5"]),
        ("v8", "strict", "text(2 ** 10)", ["1024"]),
        ("quickjs", "notebook", "const x = 20; console.log(x + 1)", ["21\n"]),
    ],
)
async def test_modules_loaded_after_start_are_found(engine, profile, source, expected):
    """What the host imports only when a cell needs it comes from the import path the client
    handed over: ICU and V8 for Intl, V8 for ``--engine v8``, tree-sitter for the notebook profile."""
    client = await _host(default_host_command(engine, profile))
    response = await client.run(source)
    assert [item.get("text") for item in response["Result"]["content_items"]] == expected, response
    await _finish(client)


def test_ssl_is_importable_after_asyncio_was_imported_without_it():
    """boot.py hides ``ssl`` from asyncio only while asyncio loads: asyncio then has no TLS, and a
    later ``import ssl`` (any library's) works."""
    probe = (
        "from codemode.runtime.boot import import_asyncio_without_ssl; import_asyncio_without_ssl(); "
        "import sys, asyncio.sslproto; assert asyncio.sslproto.ssl is None and 'ssl' not in sys.modules; "
        "import ssl; print(ssl.PROTOCOL_TLS_CLIENT.name)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (0, "PROTOCOL_TLS_CLIENT\n"), done.stderr


@pytest.mark.unit
def test_the_import_plan_names_the_folders_this_interpreter_imports_from():
    """The plan's packages are where this process finds codemode and codemode.runtime (an
    editable install maps the latter to the repository's ``runtime/``)."""
    import codemode.runtime  # binds codemode too

    plan = host_import_plan()
    assert plan is not None
    assert plan["packages"] == {
        "codemode": codemode.__path__[0],
        "codemode.runtime": codemode.runtime.__path__[0],
    }
    assert all("site-packages" in folder or "dist-packages" in folder for folder in plan["path"])


@pytest.mark.unit
def test_the_clients_command_line_is_read_as_argparse_reads_it():
    """The host reads the client's ``--listen stdio --engine E --profile P`` by hand; every such
    line gives what argparse gives, and anything else is left to argparse (its errors, ``--help``)."""
    from codemode.runtime.__main__ import _client_options, _parse_options

    for engine in ("quickjs", "v8"):
        for chosen in ("strict", "notebook"):
            argv = default_host_command(engine, chosen)[-6:]
            if (engine, chosen) == ("v8", "notebook"):
                assert _client_options(argv) is None  # argparse's path refuses it (status 2)
            else:
                assert _client_options(argv) == _parse_options(argv) == (engine, chosen)
    for argv in (
        [],
        ["--listen", "stdio"],
        ["--engine", "v8", "--listen", "stdio", "--profile", "strict"],
        ["--listen", "stdio://", "--engine", "v8", "--profile", "strict"],
        ["--listen", "stdio", "--engine", "V8", "--profile", "strict"],
        ["--listen", "stdio", "--engine=v8", "--profile", "strict", "x"],
    ):
        assert _client_options(argv) is None, argv
    assert _parse_options(["--engine", "v8"]) == ("v8", "strict")


@pytest.mark.parametrize("listen", ["foo", "grpc://127.0.0.1:1"])
def test_an_unsupported_listen_address_is_refused_in_codex_words(listen):
    """Codex's host: ``Error: unsupported --listen URL `<it>`; expected ...``, status 1 (its list
    also names gRPC addresses, which this host does not serve)."""
    done = subprocess.run(
        [*default_host_command()[:5], "--listen", listen],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (done.returncode, done.stdout, done.stderr) == (
        1,
        "",
        f"Error: unsupported --listen URL `{listen}`; expected `stdio` or `stdio://`\n",
    )


def test_the_collector_is_off_while_the_host_starts_and_on_once_it_serves():
    """boot.py, run as the host's script, turns the cyclic collector off on its first line
    (start-up's imports make only objects that live as long as the process); ``serve`` freezes
    them and turns it back on before the connection is served, so a cell's garbage cycles are
    collected. Imported as a module, boot.py leaves the collector alone."""
    probe = (
        "import gc, os, runpy, sys\n"
        "import codemode.runtime.boot, codemode.runtime.stdio as stdio\n"
        "from codemode.runtime import __main__ as host\n"
        "print(gc.isenabled())\n"
        "def start(argv):\n"
        "    print(gc.isenabled())\n"
        "    return os.dup(1)\n"
        "async def serve_stdio(frames):\n"
        "    print(gc.isenabled(), gc.get_freeze_count() > 0)\n"
        "    return 0\n"
        "host.start, stdio.serve_stdio, os._exit = start, serve_stdio, sys.exit\n"
        "sys.argv = [codemode.runtime.boot.__file__, '{}']\n"
        "runpy.run_path(sys.argv[0], run_name='__main__')\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.stdout == "True\nFalse\nTrue True\n", done.stderr
