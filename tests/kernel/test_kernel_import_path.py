"""The notebook's folder is not on the import path of the kernel or of the runtime host.

The kernel runs in the notebook's folder. Files there named like modules that the kernel, the
host or their libraries import must not be imported: each shadow here raises on import, so a
kernel or host that imported one would fail to start or to run cells. A Python tool module
configured in ``codemode.toml`` beside the notebook is still found (after installed modules).
"""

from __future__ import annotations

import pytest
from kernel_driver import execute, kernel_with_tools, start_kernel, stop_kernel

from codemode.kernel.__main__ import drop_working_folder

pytestmark = pytest.mark.timeout(180)

SHADOWS = ("json", "regex", "typing_extensions", "anyio", "zmq", "jsonschema", "quickjs", "codemode", "signal")

TOOLS = '''
import codemode


@codemode.tool
def beside(word: str) -> str:
    """Returns ``word`` with a suffix."""
    return word + " from beside the notebook"
'''


@pytest.fixture(scope="module")
def shadowed_kernel(codemode_kernelspec, tmp_path_factory):
    folder = tmp_path_factory.mktemp("notebook-folder")
    for name in SHADOWS:
        (folder / f"{name}.py").write_text(
            f'raise ImportError("the shadow {name}.py in the notebook folder was imported")\n'
        )
    with kernel_with_tools(folder, "nb_beside_tools", TOOLS) as kernel:
        yield kernel


def test_cells_tools_and_host_run_beside_shadowing_files(shadowed_kernel):
    kc = shadowed_kernel.kc
    run = execute(kc, 'text(JSON.stringify({a: 1})); store("k", 2)')
    assert (run.content["status"], run.stdout) == ("ok", '{"a":1}\n')
    assert execute(kc, 'text(load("k"))').stdout == "2\n"
    listed = execute(
        kc, 'const r = await tools.list_dir({path: "."}); text(r.entries.map(e => e.name).sort().join(","))'
    )
    assert listed.stdout.split(",")[0:2] == ["anyio.py", "codemode.py"]
    called = execute(kc, 'text(await tools.beside({word: "hello"}))')
    assert called.stdout == "hello from beside the notebook\n"
    echoed = execute(kc, 'const r = await tools.exec_command({cmd: "echo shell ok"}); text([r.exit_code, r.output])')
    assert echoed.stdout == '[0,"shell ok\\n"]\n', echoed.content


@pytest.mark.unit
def test_drop_working_folder_removes_every_working_folder_entry(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for first in ("", str(tmp_path)):
        path = [first, "/usr/lib/python3"]
        drop_working_folder(path)
        assert path == ["/usr/lib/python3"]
    # An empty PYTHONPATH entry puts the folder later on the path, too.
    other = ["/elsewhere", str(tmp_path), "/usr/lib/python3", ""]
    drop_working_folder(other)
    assert other == ["/elsewhere", "/usr/lib/python3"]


def test_an_empty_pythonpath_entry_does_not_put_the_folder_on_the_path(codemode_kernelspec, tmp_path):
    """``PYTHONPATH=:/opt/x`` (as ``export PYTHONPATH=$PYTHONPATH:/opt/x`` makes it) names the
    working folder: neither the kernel nor a runtime host imports the shadow there."""
    (tmp_path / "json.py").write_text('raise ImportError("the shadow json.py was imported")\n')
    kernel = start_kernel(tmp_path, {"PYTHONPATH": ":/nonexistent-codemode-path"})
    try:
        assert execute(kernel.kc, "text(JSON.stringify({ok: 1}))").stdout == '{"ok":1}\n'
    finally:
        stop_kernel(kernel)


def test_a_kernel_started_without_dash_p_drops_the_folder_too(codemode_kernelspec, tmp_path):
    """Without ``-P``, ipykernel's app (IPython's ``init_path``) puts ``""`` back on the path
    before ``site-packages`` after the kernel was created, unless told not to
    (``codemode.kernel.protections``): ``jsonschema``, imported at the first request, would then
    come from the folder."""
    for name in ("json", "jsonschema"):
        (tmp_path / f"{name}.py").write_text(f'raise ImportError("the shadow {name}.py was imported")\n')
    kernel = start_kernel(tmp_path, argv_without_safe_path=True)
    try:
        assert execute(kernel.kc, 'text("started without -P")').stdout == "started without -P\n"
    finally:
        stop_kernel(kernel)


def test_a_compiled_module_planted_beside_the_notebook_is_not_loaded(codemode_kernelspec, tmp_path):
    """A cell can write the notebook's folder: a ``__pycache__`` there must not stand in for the
    tool module at the next start (an unchecked-hash .pyc is loaded whatever the source says)."""
    import importlib.util
    import py_compile

    planted = tmp_path / "planted_source.py"
    planted.write_text(TOOLS.replace("from beside the notebook", "from a planted .pyc"))
    cache = importlib.util.cache_from_source(str(tmp_path / "nb_planted_tools.py"))
    py_compile.compile(
        str(planted), cfile=cache, invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH, doraise=True
    )
    planted.unlink()
    with kernel_with_tools(tmp_path, "nb_planted_tools", TOOLS) as kernel:
        called = execute(kernel.kc, 'text(await tools.beside({word: "hello"}))')
    assert called.stdout == "hello from beside the notebook\n"
