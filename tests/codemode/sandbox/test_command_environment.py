"""``[shell_environment_policy]``: the variables a command gets, step by step in Codex's order
(inherit, default excludes, exclude, set, include_only), from a literal kernel environment."""

from __future__ import annotations

import pytest

from codemode.config import ShellEnvironmentPolicy
from codemode.sandbox.environment import command_environment

pytestmark = pytest.mark.unit

KERNEL_ENV = {
    "PATH": "/usr/bin:/bin",
    "HOME": "/home/ada",
    "path": "/lower/case",
    "TmpDir": "/var/tmp",
    "LANG": "C.UTF-8",
    "USER": "ada",
    "PLAIN_VAR": "plain",
    "MY_API_KEY": "k",
    "github_token": "t",
    "AWS_SECRET_ACCESS_KEY": "s",
    "Monkey": "m",
    "HTTP_PROXY": "http://proxy",
    "http_proxy": "http://lower-proxy",
}

CREDENTIALS = {"MY_API_KEY", "github_token", "AWS_SECRET_ACCESS_KEY", "Monkey"}


def env(**policy) -> dict[str, str]:
    return command_environment(ShellEnvironmentPolicy(**policy), KERNEL_ENV)


def test_default_inherits_all_but_names_with_key_secret_or_token_in_any_case():
    assert env() == {name: value for name, value in KERNEL_ENV.items() if name not in CREDENTIALS}


def test_the_input_mapping_is_not_changed():
    before = dict(KERNEL_ENV)
    result = env(set={"PATH": "/x"}, exclude=["*"])
    assert KERNEL_ENV == before
    assert result == {"PATH": "/x"}


def test_ignore_default_excludes_keeps_credentials():
    assert env(ignore_default_excludes=True) == KERNEL_ENV


def test_inherit_core_keeps_only_core_names_compared_without_case():
    assert env(inherit="core") == {
        "PATH": "/usr/bin:/bin",
        "HOME": "/home/ada",
        "path": "/lower/case",
        "TmpDir": "/var/tmp",
        "LANG": "C.UTF-8",
        "USER": "ada",
    }


def test_inherit_core_does_not_keep_a_core_name_inside_a_longer_name():
    assert command_environment(ShellEnvironmentPolicy(inherit="core"), {"MY_PATH": "x", "HOMEDIR": "y"}) == {}


def test_inherit_none_starts_empty():
    assert env(inherit="none") == {}
    assert env(inherit="none", set={"A": "1"}) == {"A": "1"}


def test_exclude_globs_match_without_regard_to_case():
    assert env(exclude=["*_proxy", "pl?in_var", "LANG"]) == {
        "PATH": "/usr/bin:/bin",
        "HOME": "/home/ada",
        "path": "/lower/case",
        "TmpDir": "/var/tmp",
        "USER": "ada",
    }


def test_exclude_pattern_matches_the_whole_name_not_a_part():
    assert "PLAIN_VAR" in env(exclude=["PLAIN"])
    assert "PLAIN_VAR" not in env(exclude=["PLAIN*"])


def test_exclude_runs_after_the_default_excludes_and_with_them():
    assert env(exclude=["PATH"]) == {
        "HOME": "/home/ada",
        "TmpDir": "/var/tmp",
        "LANG": "C.UTF-8",
        "USER": "ada",
        "PLAIN_VAR": "plain",
        "HTTP_PROXY": "http://proxy",
        "http_proxy": "http://lower-proxy",
    }


def test_set_runs_after_the_excludes_and_overwrites():
    result = env(exclude=["PLAIN_VAR", "HOME"], set={"PLAIN_VAR": "set", "OPENAI_API_KEY": "mine", "USER": "bob"})
    assert (result["PLAIN_VAR"], result["OPENAI_API_KEY"], result["USER"]) == ("set", "mine", "bob")
    assert "HOME" not in result


def test_include_only_keeps_only_matching_names_case_insensitively():
    assert env(include_only=["*path", "home"]) == {
        "PATH": "/usr/bin:/bin",
        "HOME": "/home/ada",
        "path": "/lower/case",
    }


def test_include_only_runs_after_set_and_removes_set_variables_that_do_not_match():
    assert env(include_only=["*PATH"], set={"PYTHONPATH": "/src", "FOO": "bar"}) == {
        "PATH": "/usr/bin:/bin",
        "path": "/lower/case",
        "PYTHONPATH": "/src",
    }


def test_include_only_cannot_bring_back_a_default_exclude():
    assert env(include_only=["*KEY*", "HOME"]) == {"HOME": "/home/ada"}


def test_all_steps_together_in_order():
    result = env(
        inherit="core",
        ignore_default_excludes=False,
        exclude=["user"],
        set={"USER": "set-after-exclude", "GITHUB_TOKEN": "explicit", "EXTRA": "x"},
        include_only=["USER", "*TOKEN", "HOME"],
    )
    assert result == {"HOME": "/home/ada", "USER": "set-after-exclude", "GITHUB_TOKEN": "explicit"}
