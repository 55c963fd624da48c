"""The sandbox keys of ``codemode.toml`` as ``parse_config`` reads them: Codex's spelling and
defaults, each problem one sentence naming the key, the default kept when a value is bad."""

from __future__ import annotations

from pathlib import Path

import pytest

from codemode.config import SandboxSettings, ShellEnvironmentPolicy, parse_config

pytestmark = pytest.mark.unit


def test_defaults_without_any_sandbox_key():
    config = parse_config({})
    assert config.errors == []
    assert config.sandbox == SandboxSettings(
        sandbox_mode="workspace-write",
        approval_policy="on-request",
        writable_roots=[],
        network_access=False,
        exclude_tmpdir_env_var=False,
        exclude_slash_tmp=False,
        shell_environment=ShellEnvironmentPolicy(
            inherit="all", ignore_default_excludes=False, exclude=[], include_only=[], set={}
        ),
    )


@pytest.mark.parametrize("mode", ["read-only", "workspace-write", "danger-full-access"])
def test_each_sandbox_mode_is_read(mode):
    config = parse_config({"sandbox_mode": mode})
    assert (config.sandbox.sandbox_mode, config.errors) == (mode, [])


@pytest.mark.parametrize("policy", ["untrusted", "on-request", "on-failure", "never"])
def test_each_approval_policy_is_read(policy):
    config = parse_config({"approval_policy": policy})
    assert (config.sandbox.approval_policy, config.errors) == (policy, [])


def test_every_workspace_write_key_is_read(tmp_path):
    config = parse_config(
        {
            "sandbox_workspace_write": {
                "writable_roots": ["/srv/data", str(tmp_path / "cache")],
                "network_access": True,
                "exclude_tmpdir_env_var": True,
                "exclude_slash_tmp": True,
            }
        }
    )
    assert config.errors == []
    settings = config.sandbox
    assert settings.writable_roots == ["/srv/data", str(tmp_path / "cache")]
    assert (settings.network_access, settings.exclude_tmpdir_env_var, settings.exclude_slash_tmp) == (True, True, True)


def test_relative_writable_roots_are_resolved_against_the_config_folder(tmp_path):
    base = tmp_path / "project"
    config = parse_config({"sandbox_workspace_write": {"writable_roots": ["out", "sub/dir", "/abs"]}}, base=base)
    assert config.errors == []
    assert config.sandbox.writable_roots == [str(base / "out"), str(base / "sub" / "dir"), "/abs"]


def test_relative_writable_roots_without_a_base_use_the_working_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    config = parse_config({"sandbox_workspace_write": {"writable_roots": ["out"]}})
    assert config.sandbox.writable_roots == [str(tmp_path / "out")]


def test_every_shell_environment_key_is_read():
    config = parse_config(
        {
            "shell_environment_policy": {
                "inherit": "core",
                "ignore_default_excludes": True,
                "exclude": ["AWS_*", "*_PROXY"],
                "include_only": ["PATH", "HOME"],
                "set": {"CI": "1", "LANG": "C.UTF-8"},
            }
        }
    )
    assert config.errors == []
    assert config.sandbox.shell_environment == ShellEnvironmentPolicy(
        inherit="core",
        ignore_default_excludes=True,
        exclude=["AWS_*", "*_PROXY"],
        include_only=["PATH", "HOME"],
        set={"CI": "1", "LANG": "C.UTF-8"},
    )


@pytest.mark.parametrize("inherit", ["all", "core", "none"])
def test_each_inherit_value_is_read(inherit):
    config = parse_config({"shell_environment_policy": {"inherit": inherit}})
    assert (config.sandbox.shell_environment.inherit, config.errors) == (inherit, [])


def test_bad_top_level_values_fall_back_to_the_most_restrictive():
    # A typo of "read-only" must not allow writes: an unreadable value means read-only / never.
    config = parse_config({"sandbox_mode": "bogus", "approval_policy": 3})
    assert config.errors == [
        'codemode.toml: sandbox_mode: must be one of "read-only", "workspace-write", "danger-full-access", '
        "not 'bogus'; \"read-only\" is used.",
        'codemode.toml: approval_policy: must be one of "untrusted", "on-request", "on-failure", "never", '
        'not an integer (3); "never" is used.',
    ]
    assert (config.sandbox.sandbox_mode, config.sandbox.approval_policy) == ("read-only", "never")


def test_a_bad_sandbox_mode_keeps_a_good_approval_policy():
    config = parse_config({"sandbox_mode": "readonly", "approval_policy": "untrusted"})
    assert (config.sandbox.sandbox_mode, config.sandbox.approval_policy) == ("read-only", "untrusted")
    assert config.errors == [
        'codemode.toml: sandbox_mode: must be one of "read-only", "workspace-write", "danger-full-access", '
        "not 'readonly'; \"read-only\" is used."
    ]


def test_a_bad_value_keeps_an_earlier_good_value_of_another_key():
    config = parse_config({"sandbox_mode": "read-only", "approval_policy": "always"})
    assert (config.sandbox.sandbox_mode, config.sandbox.approval_policy) == ("read-only", "never")
    assert config.errors == [
        'codemode.toml: approval_policy: must be one of "untrusted", "on-request", "on-failure", "never", '
        "not 'always'; \"never\" is used."
    ]


def test_snake_case_spelling_of_a_policy_is_not_accepted():
    config = parse_config({"approval_policy": "on_failure"}, source="/etc/codemode.toml")
    assert config.sandbox.approval_policy == "never"
    assert config.errors == [
        '/etc/codemode.toml: approval_policy: must be one of "untrusted", "on-request", "on-failure", "never", '
        "not 'on_failure'; \"never\" is used."
    ]


def test_bad_workspace_write_values_are_reported_and_the_defaults_kept():
    config = parse_config(
        {
            "sandbox_workspace_write": {
                "writable_roots": ["/ok", 5],
                "network_access": "yes",
                "exclude_tmpdir_env_var": 1,
                "exclude_slash_tmp": True,
                "extra": 1,
            }
        }
    )
    assert config.errors == [
        "codemode.toml: sandbox_workspace_write.writable_roots[1]: must be a path (a string), "
        "not an integer (5); the setting was ignored.",
        "codemode.toml: sandbox_workspace_write.network_access: must be true or false, not a string ('yes'); "
        "false is used.",
        "codemode.toml: sandbox_workspace_write.exclude_tmpdir_env_var: must be true or false, "
        "not an integer (1); false is used.",
        "codemode.toml: sandbox_workspace_write.extra: is not a known setting and was ignored.",
    ]
    settings = config.sandbox
    assert settings.writable_roots == []
    assert (settings.network_access, settings.exclude_tmpdir_env_var, settings.exclude_slash_tmp) == (
        False,
        False,
        True,
    )


def test_bad_shell_environment_values_are_reported_and_the_defaults_kept():
    config = parse_config(
        {
            "shell_environment_policy": {
                "inherit": "some",
                "ignore_default_excludes": "true",
                "exclude": "AWS_*",
                "include_only": [1],
                "set": {"A": 1},
                "filters": {},
            }
        }
    )
    assert config.errors == [
        'codemode.toml: shell_environment_policy.inherit: must be one of "all", "core", "none", '
        "not 'some'; \"all\" is used.",
        "codemode.toml: shell_environment_policy.ignore_default_excludes: must be true or false, "
        "not a string ('true'); false is used.",
        "codemode.toml: shell_environment_policy.exclude: must be an array of name patterns (strings), "
        "not a string ('AWS_*'); it was ignored.",
        "codemode.toml: shell_environment_policy.include_only[0]: must be a name pattern (a string), "
        "not an integer (1); the setting was ignored.",
        "codemode.toml: shell_environment_policy.set.A: must be a string, not an integer (1); the setting was ignored.",
        "codemode.toml: shell_environment_policy.filters: is not a known setting and was ignored.",
    ]
    assert config.sandbox.shell_environment == ShellEnvironmentPolicy()


def test_sections_that_are_not_tables_are_reported():
    config = parse_config({"sandbox_workspace_write": ["/x"], "shell_environment_policy": "none"})
    assert config.errors == [
        "codemode.toml: sandbox_workspace_write: must be a table, not an array; the defaults are used.",
        "codemode.toml: shell_environment_policy: must be a table, not a string ('none'); the defaults are used.",
    ]
    assert config.sandbox == SandboxSettings()


def test_misspelled_top_level_keys_are_reported_as_unknown():
    config = parse_config({"colour": "blue", "sandbox_workspace_write": {"network": True}})
    assert config.errors == [
        "codemode.toml: colour: is not a known setting or section and was ignored.",
        "codemode.toml: sandbox_workspace_write.network: is not a known setting and was ignored.",
    ]
    assert config.sandbox == SandboxSettings()


@pytest.mark.parametrize(
    ("key", "meant", "closed"),
    [
        ("sandbox-mode", "sandbox_mode", "read-only"),
        ("Sandbox_Mode", "sandbox_mode", "read-only"),
        ("sandboxmode", "sandbox_mode", "read-only"),
        ("sandbox", "sandbox_mode", "read-only"),
        ("approval-policy", "approval_policy", "never"),
        ("aproval_policy", "approval_policy", "never"),
    ],
)
def test_a_misspelled_sandbox_key_gives_the_most_restrictive_value(key, meant, closed):
    """The user meant to set it: not the more open default, as for a value that cannot be read."""
    config = parse_config({key: "danger-full-access"})
    assert getattr(config.sandbox, meant) == closed
    assert config.errors == [
        f'codemode.toml: {key}: is not a known setting; it looks like `{meant}`, so {meant} = "{closed}" is '
        "used until it is spelled right."
    ]


def test_a_misspelled_key_beside_the_right_one_is_only_reported():
    config = parse_config({"sandbox_mode": "danger-full-access", "sandbox-mode": "read-only"})
    assert config.sandbox.sandbox_mode == "danger-full-access"
    assert config.errors == ["codemode.toml: sandbox-mode: is not a known setting or section and was ignored."]


def test_a_config_file_on_disk_resolves_roots_against_its_own_folder(tmp_path, monkeypatch):
    from codemode.config import load_config

    folder = tmp_path / "conf"
    folder.mkdir()
    (folder / "codemode.toml").write_text(
        'sandbox_mode = "workspace-write"\n[sandbox_workspace_write]\nwritable_roots = ["data"]\n'
    )
    monkeypatch.chdir(tmp_path)
    config = load_config(folder / "codemode.toml")
    assert config.errors == []
    assert config.sandbox.writable_roots == [str(Path(folder) / "data")]


def test_each_bad_element_is_named_by_its_index_and_key():
    config = parse_config(
        {
            "sandbox_workspace_write": {"writable_roots": ["/a", "/b", ["/c"]]},
            "shell_environment_policy": {"exclude": ["A_*", "B_*", False], "set": {"OK": "1", "N": 2.5}},
        }
    )
    assert config.errors == [
        "codemode.toml: sandbox_workspace_write.writable_roots[2]: must be a path (a string), not an array; "
        "the setting was ignored.",
        "codemode.toml: shell_environment_policy.exclude[2]: must be a name pattern (a string), not a boolean "
        "(False); the setting was ignored.",
        "codemode.toml: shell_environment_policy.set.N: must be a string, not a number (2.5); the setting was ignored.",
    ]
    assert config.sandbox == SandboxSettings()


def test_an_unknown_top_level_key_is_reported_once_and_ignored():
    config = parse_config({"sandbox": {"mode": "read-only"}, "model": "o3", "sandbox_mode": "read-only"})
    assert config.errors == [
        "codemode.toml: sandbox: is not a known setting or section and was ignored.",
        "codemode.toml: model: is not a known setting or section and was ignored.",
    ]
    assert config.sandbox == SandboxSettings(sandbox_mode="read-only")


CLOSED = 'the built-in defaults are used, but with sandbox_mode = "read-only" and approval_policy = "never" until the file is fixed.'
"""How a problem sentence about the whole file ends."""


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"sandbox_mode = \n", "is not valid TOML (Invalid value (at line 1, column 16))"),
        (
            b'sandbox_mode = "danger-full-access"\nsandbox_mode = "x"\n',
            "is not valid TOML (Cannot overwrite a value (at line 2, column 19))",
        ),
        (
            b'sandbox_mode = "danger-full-access" # \xff\n',
            "is not valid TOML ('utf-8' codec can't decode byte 0xff in position 38: invalid start byte)",
        ),
    ],
    ids=["syntax", "duplicate", "not-utf8"],
)
def test_a_file_that_is_not_valid_toml_closes_the_sandbox(tmp_path, content, problem):
    from codemode.config import load_config

    path = tmp_path / "codemode.toml"
    path.write_bytes(content)
    config = load_config(path)
    assert config.errors == [f"{path}: (file): {problem}; {CLOSED}"]
    assert config.sandbox == SandboxSettings(sandbox_mode="read-only", approval_policy="never")
    assert config.source_path == path


@pytest.mark.parametrize(("make", "why"), [("folder", "Is a directory"), ("missing", "No such file or directory")])
def test_a_file_that_cannot_be_read_closes_the_sandbox(tmp_path, monkeypatch, make, why):
    from codemode.config import load_config

    path = tmp_path / "codemode.toml"
    if make == "folder":
        path.mkdir()
    monkeypatch.setenv("CODEMODE_CONFIG", str(path))
    config = load_config()
    assert config.errors == [f"{path}: (file): cannot be read ({why}); {CLOSED}"]
    assert config.sandbox == SandboxSettings(sandbox_mode="read-only", approval_policy="never")
