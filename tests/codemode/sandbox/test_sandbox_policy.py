"""``SandboxPolicy``: the writable roots of each ``sandbox_mode``, the protected paths inside
them, ``can_write`` and the summary lines (Codex's ``get_writable_roots_with_cwd`` and
``default_read_only_subpaths_for_writable_root``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from codemode.config import SandboxSettings, ShellEnvironmentPolicy
from codemode.sandbox import Sandbox
from codemode.sandbox.policy import SandboxPolicy, WritableRoot, protected_paths

pytestmark = pytest.mark.unit

TMP = Path("/tmp").resolve()


@pytest.fixture
def ws(tmp_path):
    folder = tmp_path / "ws"
    folder.mkdir()
    return folder


def policy(workspace, environ=None, **settings):
    return SandboxPolicy.from_settings(SandboxSettings(**settings), workspace, {} if environ is None else environ)


def test_workspace_write_roots_are_writable_roots_then_tmp_then_tmpdir(ws, tmp_path):
    extra, tmpdir = tmp_path / "extra", tmp_path / "tmpdir"
    p = policy(ws, {"TMPDIR": str(tmpdir)}, writable_roots=[str(extra)])
    assert p == SandboxPolicy("workspace-write", ws, (extra, TMP, tmpdir), False)


def test_exclude_slash_tmp_leaves_tmp_out(ws, tmp_path):
    p = policy(ws, {"TMPDIR": str(tmp_path)}, exclude_slash_tmp=True)
    assert p.roots == (tmp_path,)


def test_exclude_tmpdir_env_var_leaves_tmpdir_out(ws, tmp_path):
    p = policy(ws, {"TMPDIR": str(tmp_path)}, exclude_tmpdir_env_var=True)
    assert p.roots == (TMP,)


@pytest.mark.parametrize("value", ["", "relative/tmp", "./tmp"])
def test_tmpdir_counts_only_when_absolute(ws, value):
    assert policy(ws, {"TMPDIR": value}).roots == (TMP,)


def test_environ_defaults_to_the_process_environment(ws, tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path / "from-env"))
    p = SandboxPolicy.from_settings(SandboxSettings(exclude_slash_tmp=True), ws)
    assert p.roots == (tmp_path / "from-env",)


def test_roots_are_resolved_and_deduplicated(ws, tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    p = policy(
        ws,
        {"TMPDIR": str(real)},
        exclude_slash_tmp=True,
        writable_roots=[str(tmp_path / "link"), str(tmp_path / "ws" / ".." / "real")],
    )
    assert p.roots == (real,)


def test_workspace_is_resolved(tmp_path, ws):
    (tmp_path / "ws-link").symlink_to(ws)
    assert policy(tmp_path / "ws-link").workspace == ws


def test_network_only_with_network_access_in_workspace_write(ws):
    assert policy(ws).network_access is False
    assert policy(ws, network_access=True).network_access is True
    assert policy(ws, sandbox_mode="read-only", network_access=True).network_access is False
    assert policy(ws, sandbox_mode="danger-full-access").network_access is True


def test_read_only_and_danger_modes_have_no_roots(ws, tmp_path):
    for mode in ("read-only", "danger-full-access"):
        p = policy(ws, {"TMPDIR": str(tmp_path)}, sandbox_mode=mode, writable_roots=[str(tmp_path)])
        assert (p.roots, p.writable_roots()) == ((), [])
    assert policy(ws, sandbox_mode="danger-full-access").unrestricted is True
    assert policy(ws, sandbox_mode="read-only").unrestricted is False
    assert policy(ws).unrestricted is False


def test_writable_roots_lists_existing_roots_workspace_first(ws, tmp_path):
    extra = tmp_path / "extra"
    extra.mkdir()
    (ws / ".git").mkdir()
    p = policy(ws, writable_roots=[str(extra), str(tmp_path / "missing")], exclude_slash_tmp=True)
    assert p.writable_roots() == [WritableRoot(ws, (ws / ".git",)), WritableRoot(extra, ())]


def test_protected_paths_are_the_existing_git_codex_agents_and_config_file(ws):
    assert protected_paths(ws) == ()
    (ws / ".agents").mkdir()
    (ws / ".git").mkdir()
    assert protected_paths(ws) == (ws / ".git", ws / ".agents")
    (ws / "codemode.toml").write_text("")
    (ws / ".codex").mkdir()
    assert protected_paths(ws) == (ws / ".git", ws / ".codex", ws / ".agents", ws / "codemode.toml")


def test_a_git_file_protects_the_git_directory_it_points_to(ws, tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    (ws / ".git").write_text("gitdir: ../real\n")
    assert protected_paths(ws) == (ws / ".git", real)


def test_a_git_file_with_an_absolute_pointer(ws, tmp_path):
    real = tmp_path / "repo" / ".git" / "worktrees" / "ws"
    real.mkdir(parents=True)
    (ws / ".git").write_text(f"gitdir: {real}")
    assert protected_paths(ws) == (ws / ".git", real)


@pytest.mark.parametrize("text", ["gitdir: ../missing\n", "gitdir:\n", "", "not a pointer", "gitdir ../real"])
def test_a_git_file_without_a_usable_pointer_protects_only_itself(ws, tmp_path, text):
    (tmp_path / "real").mkdir()
    (ws / ".git").write_text(text)
    assert protected_paths(ws) == (ws / ".git",)


def test_can_write_inside_the_workspace_only(ws, tmp_path):
    p = policy(ws, exclude_slash_tmp=True)
    assert p.can_write(ws / "a.txt") is True
    assert p.can_write(ws / "deep" / "new" / "b.txt") is True
    assert p.can_write(ws) is True
    assert p.can_write(tmp_path / "other.txt") is False
    assert p.can_write(tmp_path / "wsx" / "a.txt") is False
    assert p.can_write(Path("/etc/passwd")) is False


def test_can_write_refuses_protected_paths(ws, tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    (ws / ".codex").mkdir()
    (ws / ".agents").mkdir()
    (ws / ".git").write_text("gitdir: ../real")
    extra = tmp_path / "extra"
    extra.mkdir()
    p = policy(ws, writable_roots=[str(tmp_path)], exclude_slash_tmp=True)
    for path in (ws / ".git", ws / ".codex" / "config.toml", ws / ".agents" / "x", real / "hooks" / "pre-commit"):
        assert p.can_write(path) is False, path
    assert p.can_write(ws / ".gitignore") is True
    assert p.can_write(ws / "sub" / ".git" / "config") is True
    assert p.can_write(extra / "f") is True


def test_a_missing_git_may_be_created(ws):
    assert policy(ws, exclude_slash_tmp=True).can_write(ws / ".git" / "config") is True


def test_a_workspace_under_tmp_keeps_its_git_read_only(tmp_path):
    workspace = tmp_path / "nb"
    (workspace / ".git").mkdir(parents=True)
    p = policy(workspace)
    assert tmp_path.is_relative_to(TMP)  # pytest's folders are under /tmp: the /tmp root contains it
    assert p.can_write(workspace / "notes.txt") is True
    assert p.can_write(workspace / ".git" / "config") is False
    assert p.can_write(workspace / ".git") is False


def test_read_only_writes_nothing_and_danger_writes_anything(ws):
    assert policy(ws, sandbox_mode="read-only").can_write(ws / "a.txt") is False
    assert policy(ws, sandbox_mode="danger-full-access").can_write(Path("/etc/passwd")) is True
    (ws / ".git").mkdir()
    assert policy(ws, sandbox_mode="danger-full-access").can_write(ws / ".git" / "config") is True


def test_protection_follows_the_folder_as_it_changes(ws):
    p = policy(ws, exclude_slash_tmp=True)
    assert p.can_write(ws / ".codex" / "x") is True
    (ws / ".codex").mkdir()
    assert p.can_write(ws / ".codex" / "x") is False


def test_summary_of_workspace_write(ws, tmp_path):
    (ws / ".git").mkdir()
    (ws / ".codex").mkdir()
    tmpdir = tmp_path / "t"
    tmpdir.mkdir()
    p = policy(ws, {"TMPDIR": str(tmpdir)})
    assert p.summary() == [
        'sandbox_mode = "workspace-write"',
        f"  writable: {ws}, /tmp, {tmpdir}",
        f"  read-only inside them: {ws}/.git, {ws}/.codex, {ws}/codemode.toml",
        "  network: blocked",
    ]


def test_summary_with_network_lists_the_missing_config_file_as_read_only(ws):
    assert policy(ws, exclude_slash_tmp=True, network_access=True).summary() == [
        'sandbox_mode = "workspace-write"',
        f"  writable: {ws}",
        f"  read-only inside them: {ws}/codemode.toml",
        "  network: allowed",
    ]


def test_summary_names_an_existing_config_file_once(ws):
    (ws / "codemode.toml").write_text("")
    assert policy(ws, exclude_slash_tmp=True).summary() == [
        'sandbox_mode = "workspace-write"',
        f"  writable: {ws}",
        f"  read-only inside them: {ws}/codemode.toml",
        "  network: blocked",
    ]


def test_summary_of_read_only(ws):
    assert policy(ws, sandbox_mode="read-only").summary() == [
        'sandbox_mode = "read-only"',
        "  writable: nothing",
        "  network: blocked",
    ]


def test_summary_of_danger_full_access(ws):
    assert policy(ws, sandbox_mode="danger-full-access").summary() == [
        'sandbox_mode = "danger-full-access"',
        "  commands run without a sandbox; files can be written anywhere; network allowed",
    ]


def test_sandbox_summary_adds_the_approval_policy_and_environment(ws):
    settings = SandboxSettings(
        sandbox_mode="read-only",
        approval_policy="never",
        shell_environment=ShellEnvironmentPolicy(inherit="core", ignore_default_excludes=True),
    )
    sandbox = Sandbox.from_settings(settings, ws)
    assert sandbox.policy.workspace == ws
    assert sandbox.summary() == [
        'sandbox_mode = "read-only"',
        "  writable: nothing",
        "  credentials hidden (hide_credentials = true): ~/.ssh, ~/.aws, ~/.config/gcloud, ~/.azure, ~/.netrc, "
        "~/.codex/auth.json, ~/.docker/config.json, ~/.kube/config, ~/.gnupg, ~/.git-credentials, "
        "~/.config/git/credentials, ~/.pypirc, ~/.npmrc, ~/.config/gh/hosts.yml, ~/.config/hub, "
        "~/.cargo/credentials.toml, ~/.cargo/credentials, ~/.gem/credentials, "
        "~/.terraform.d/credentials.tfrc.json, ~/.vault-token, ~/.pgpass",
        "  network: blocked",
        'approval_policy = "never"',
        'shell_environment_policy: inherit = "core", *KEY*/*SECRET*/*TOKEN* kept',
    ]
    assert Sandbox.from_settings(SandboxSettings(), ws).summary()[-1] == (
        'shell_environment_policy: inherit = "all", *KEY*/*SECRET*/*TOKEN* removed'
    )


def test_sandbox_uses_the_working_folder_by_default(ws, monkeypatch):
    monkeypatch.chdir(ws)
    assert Sandbox.from_settings(SandboxSettings()).policy.workspace == ws
