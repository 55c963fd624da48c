"""codemode.toml loading: errors as "file: key: problem"; valid parts load."""

from pathlib import Path

import pytest

from codemode.config import Config, SessionDefaults, load_config
from codemode.sandbox.startup import startup_code

pytestmark = pytest.mark.unit


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "codemode.toml"
    path.write_text(text)
    return path


def test_missing_file_gives_defaults(tmp_path, monkeypatch):
    monkeypatch.delenv("CODEMODE_CONFIG", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    config = load_config(cwd=tmp_path)
    assert config == Config()
    assert config.session == SessionDefaults(10000, 10000, 600000, 268435456)


def test_search_order(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CODEMODE_CONFIG", raising=False)
    home_cfg = tmp_path / "home" / ".config" / "codemode" / "config.toml"
    home_cfg.parent.mkdir(parents=True)
    home_cfg.write_text("[session]\nyield_time_ms = 1\n")
    assert load_config(cwd=tmp_path).session.yield_time_ms == 1
    write(tmp_path, "[session]\nyield_time_ms = 2\n")
    assert load_config(cwd=tmp_path).session.yield_time_ms == 2
    env_cfg = tmp_path / "env.toml"
    env_cfg.write_text("[session]\nyield_time_ms = 3\n")
    monkeypatch.setenv("CODEMODE_CONFIG", str(env_cfg))
    config = load_config(cwd=tmp_path)
    assert config.session.yield_time_ms == 3 and config.source_path == env_cfg


def test_full_example_loads(tmp_path):
    path = write(
        tmp_path,
        """
[session]
yield_time_ms = 2000
max_output_tokens = 500
max_yield_time_ms = 60000
max_heap_size_bytes = 1048576

[tools]
disabled = ["exec_command"]

[mcp_servers.time]
command = "python"
args = ["-m", "mcp_server_time"]
env = { TZ = "UTC" }
cwd = "sub"
startup_timeout_sec = 5
tool_timeout_sec = 30
enabled_tools = ["get_current_time"]

[mcp_servers.remote]
url = "http://127.0.0.1:8000/mcp"
bearer_token_env_var = "TOKEN"
http_headers = { X-A = "b" }

[python_tools]
modules = ["mypkg.tools"]
""",
    )
    config = load_config(path)
    assert config.errors == []
    assert config.session == SessionDefaults(2000, 500, 60000, 1048576)
    assert config.disabled_tools == ["exec_command"]
    time = config.mcp_servers["time"]
    assert time.transport == "stdio" and time.args == ["-m", "mcp_server_time"]
    assert time.env == {"TZ": "UTC"} and time.cwd == str(tmp_path / "sub")
    assert time.startup_timeout_sec == 5.0 and time.enabled_tools == ["get_current_time"]
    remote = config.mcp_servers["remote"]
    assert remote.transport == "http" and remote.http_headers == {"X-A": "b"}
    assert config.python_modules == ["mypkg.tools"]


def test_errors_are_sentences_and_valid_parts_still_load(tmp_path):
    path = write(
        tmp_path,
        """
[session]
yield_time_ms = "fast"
max_output_tokens = 7
colour = 1

[mcp_servers.bad]
args = ["x"]

[mcp_servers.good]
command = "true"
startup_timeout_sec = -1

[weird]
""",
    )
    config = load_config(path)
    assert config.session.yield_time_ms == 10000 and config.session.max_output_tokens == 7
    assert list(config.mcp_servers) == ["good"]
    assert config.mcp_servers["good"].startup_timeout_sec == 10.0
    assert config.errors == [
        f"{path}: session.yield_time_ms: must be a non-negative integer, not a string ('fast'); the default is used.",
        f"{path}: session.colour: is not a known setting and was ignored.",
        f"{path}: mcp_servers.bad: needs `command` (stdio) or `url` (streamable HTTP). The server was skipped.",
        f"{path}: mcp_servers.good.startup_timeout_sec: must be a positive number of seconds, not -1; "
        "the setting was ignored.",
        f"{path}: weird: is not a known setting or section and was ignored.",
    ]


def test_invalid_toml_is_one_error(tmp_path):
    path = write(tmp_path, "[session\n")
    config = load_config(path)
    assert config.session == SessionDefaults()
    # The file meant to set something: the sandbox is the most restrictive until it is fixed.
    assert (config.sandbox.sandbox_mode, config.sandbox.approval_policy) == ("read-only", "never")
    assert config.errors == [
        f"{path}: (file): is not valid TOML (Expected ']' at the end of a table declaration (at line 1, column 9)); "
        'the built-in defaults are used, but with sandbox_mode = "read-only" and approval_policy = "never" '
        "until the file is fixed."
    ]


def test_a_heap_too_small_to_start_a_cell_is_refused_with_the_minimum(tmp_path):
    path = write(tmp_path, "[session]\nmax_heap_size_bytes = 1000\n")
    config = load_config(path)
    assert config.session.max_heap_size_bytes == SessionDefaults().max_heap_size_bytes
    assert config.errors == [
        f"{path}: session.max_heap_size_bytes: must be at least 1048576 bytes (1 MiB), not 1000: a smaller heap "
        "cannot even start a cell; the default is used."
    ]


def test_tools_and_python_tools_tables_report_each_problem(tmp_path):
    path = write(tmp_path, 'python_tools = 3\n[tools]\ndisabled = "exec_command"\nhidden = ["x"]\n')
    config = load_config(path)
    assert config.disabled_tools == [] and config.python_modules == []
    assert config.errors == [
        f"{path}: python_tools: must be a table, not an integer (3).",
        f"{path}: tools.disabled: must be an array of tool names (strings); it was ignored.",
        f"{path}: tools.hidden: is not a known setting and was ignored.",
    ]


def test_one_bad_entry_drops_only_itself(tmp_path):
    config = load_config(write(tmp_path, '[python_tools]\nmodules = ["no_such_mod", 5, "other"]\n'))
    assert config.python_modules == ["no_such_mod", "other"]
    assert config.errors == [
        f"{tmp_path / 'codemode.toml'}: python_tools.modules[1]: must be a string, not an integer (5); it was ignored."
    ]


def test_the_engine_is_quickjs_unless_the_session_table_names_v8(tmp_path):
    assert load_config(write(tmp_path, "")).session.engine == "quickjs"
    assert load_config(write(tmp_path, '[session]\nengine = "v8"\n')).session.engine == "v8"
    path = write(tmp_path, '[session]\nengine = "V8"\n')
    config = load_config(path)
    assert config.session.engine == "quickjs"
    assert config.errors == [f"{path}: session.engine: must be one of 'quickjs', 'v8', not 'V8'; quickjs is used."]


def test_the_profile_is_strict_unless_the_session_table_names_notebook(tmp_path):
    assert load_config(write(tmp_path, "")).session.profile == "strict"
    assert load_config(write(tmp_path, '[session]\nprofile = "notebook"\n')).session.profile == "notebook"
    path = write(tmp_path, '[session]\nprofile = "jupyter"\nengine = "v8"\n')
    config = load_config(path)
    assert (config.session.profile, config.session.engine) == ("strict", "v8")
    assert config.errors == [
        f"{path}: session.profile: must be one of 'strict', 'notebook', not 'jupyter'; strict is used."
    ]


def test_the_profiles_are_the_runtime_hosts():
    from codemode.config import PROFILES
    from codemode.runtime import profile

    assert PROFILES == profile.PROFILES == ("strict", "notebook")
    # The one engine the notebook profile runs on is the same rule for the kernel and the host.
    from codemode.config.session_defaults import NOTEBOOK_ENGINES

    assert NOTEBOOK_ENGINES == profile.NOTEBOOK_ENGINES == ("quickjs",)


def test_a_file_nested_too_deeply_to_read_gives_the_closed_sandbox(tmp_path):
    config_file = tmp_path / "codemode.toml"
    config_file.write_text("x = " + "[" * 20000 + "]" * 20000 + '\nsandbox_mode = "danger-full-access"\n')
    config = load_config(config_file)
    assert (config.sandbox.sandbox_mode, config.sandbox.approval_policy) == ("read-only", "never")
    assert config.errors == [
        f"{config_file}: (file): is not valid TOML (arrays or tables nested too deeply to read); the built-in "
        'defaults are used, but with sandbox_mode = "read-only" and approval_policy = "never" until the file is fixed.'
    ]


def test_paths_and_module_names_that_cannot_be_used_lose_only_their_key(tmp_path):
    config_file = tmp_path / "codemode.toml"
    config_file.write_text(
        'sandbox_mode = "workspace-write"\n'
        '[sandbox_workspace_write]\nwritable_roots = ["~nosuchuser-cm/out"]\nnetwork_access = true\n'
        '[python_tools]\nmodules = ["ok.tools", "pkg/tools", "", "a..b", "x\\u0000", "os.path", "__main__", "this"]\n'
        '[mcp_servers.a]\ncommand = "bin/\\u0000x"\n'
        '[mcp_servers.b]\ncommand = "x"\nargs = ["~nosuchuser-cm"]\nstartup_timeout_sec = inf\ntool_timeout_sec = 1e300\n'
        '[mcp_servers.c]\ncommand = "x"\ntool_timeout_sec = inf\n'
    )
    config = load_config(config_file)
    assert config.sandbox.writable_roots == [] and config.sandbox.network_access is True
    assert config.python_modules == ["ok.tools"]
    assert list(config.mcp_servers) == ["b", "c"] and config.mcp_servers["b"].startup_timeout_sec == 600
    assert [config.mcp_servers[s].tool_timeout_sec for s in ("b", "c")] == [86400, 86400]
    name = "is not a Python module name (identifiers joined by dots, such as mypkg.tools); it was ignored."
    assert config.errors == [
        f"{config_file}: {problem}"
        for problem in (
            "sandbox_workspace_write.writable_roots[0]: starts with '~nosuchuser-cm', the home folder of a user "
            "that does not exist here; the setting was ignored.",
            f"python_tools.modules[1]: 'pkg/tools' {name}",
            f"python_tools.modules[2]: '' {name}",
            f"python_tools.modules[3]: 'a..b' {name}",
            f"python_tools.modules[4]: 'x\\x00' {name}",
            "python_tools.modules[5]: 'os.path' is a module of Python's standard library, not a tool module; it was "
            "ignored.",
            "python_tools.modules[6]: '__main__' is the kernel's own program, not a tool module; it was ignored.",
            "python_tools.modules[7]: 'this' is a module of Python's standard library, not a tool module; it was "
            "ignored.",
            "mcp_servers.a.command: contains a NUL character, which no path can hold. The server was skipped.",
            "mcp_servers.b.startup_timeout_sec: inf s is more than the 600 s allowed; 600 s is used.",
            "mcp_servers.b.tool_timeout_sec: 1e+300 s is more than the 86400 s allowed; 86400 s is used.",
            "mcp_servers.c.tool_timeout_sec: inf s is more than the 86400 s allowed; 86400 s is used.",
        )
    ]
    startup_code(config_file, config.python_modules, config.mcp_servers.values())  # no RuntimeError


def test_an_environment_variable_that_cannot_exist_loses_its_key(tmp_path):
    config_file = tmp_path / "codemode.toml"
    for table in ('{ "A=B" = "1" }', '{ OK = "1", BAD = "x\\u0000y" }'):
        config_file.write_text(f'[shell_environment_policy]\nset = {table}\ninherit = "core"\n')
        config = load_config(config_file)
        assert (config.sandbox.shell_environment.set, config.sandbox.shell_environment.inherit) == ({}, "core")
        key = "A=B" if "A=B" in table else "BAD"
        assert config.errors == [
            f"{config_file}: shell_environment_policy.set.{key}: cannot be an environment variable (a name with '=' "
            "or a NUL character, or a value with a NUL character); the setting was ignored."
        ]


def test_a_value_of_the_right_type_is_named_alone_and_one_of_another_type_with_its_type(tmp_path):
    """``not -5``, not ``not an integer (-5)`` after "must be a non-negative integer": the type
    is named only when it is what is wrong."""
    path = write(
        tmp_path,
        """[session]
yield_time_ms = -5
max_output_tokens = 1.5
max_yield_time_ms = true
engine = "rhino"
profile = 2

[mcp_servers.a]
command = "true"
startup_timeout_sec = -0.5

[mcp_servers.b]
command = "true"
startup_timeout_sec = "10"
""",
    )
    assert load_config(path).errors == [
        f"{path}: session.yield_time_ms: must be a non-negative integer, not -5; the default is used.",
        f"{path}: session.max_output_tokens: must be a non-negative integer, not a number (1.5); the default is used.",
        f"{path}: session.max_yield_time_ms: must be a non-negative integer, not a boolean (True); the default is "
        "used.",
        f"{path}: session.engine: must be one of 'quickjs', 'v8', not 'rhino'; quickjs is used.",
        f"{path}: session.profile: must be one of 'strict', 'notebook', not an integer (2); strict is used.",
        f"{path}: mcp_servers.a.startup_timeout_sec: must be a positive number of seconds, not -0.5; the setting "
        "was ignored.",
        f"{path}: mcp_servers.b.startup_timeout_sec: must be a positive number of seconds, not a string ('10'); the "
        "setting was ignored.",
    ]
