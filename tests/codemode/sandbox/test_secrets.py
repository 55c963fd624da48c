"""Connection files and credentials (``codemode.sandbox.secrets``): what is recognised as a
connection file, which are found for a command, and what the policy, the file tools and the
``hide_credentials`` key make of them. Through the kernel: ``tests/kernel/test_kernel_secrets.py``."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from jupyter_client.connect import write_connection_file

from codemode.config import SandboxSettings, parse_config
from codemode.sandbox.bwrap import bwrap_argv
from codemode.sandbox.files import WriteRefused, read_checked, write_checked
from codemode.sandbox.policy import SandboxPolicy
from codemode.sandbox.secrets import (
    MAX_CONNECTION_FILE_BYTES,
    MAX_CREDENTIAL_FOLDER_ENTRIES,
    connection_files,
    credential_identities,
    is_connection_file,
    temp_folders,
)

pytestmark = pytest.mark.unit

CONNECTION_FILE = "it is a Jupyter connection file, whose key lets anyone holding it run code in that kernel."
CREDENTIALS = (
    "credentials (~/.ssh, ~/.aws, ~/.netrc, ...) are out of cells' reach; hide_credentials = false in "
    "codemode.toml lets cells read them."
)


def connection(path: Path) -> Path:
    """A connection file as jupyter_client writes it for a kernel it starts."""
    write_connection_file(str(path), key=b"0123456789abcdef", kernel_name="python3")
    return path


def policy(ws, environ=None, **settings) -> SandboxPolicy:
    return SandboxPolicy.from_settings(SandboxSettings(exclude_slash_tmp=True, **settings), ws, environ or {})


def test_a_written_connection_file_and_its_beginning_are_recognised(tmp_path):
    data = connection(tmp_path / "kernel-1.json").read_bytes()
    assert is_connection_file(data)
    # jupyter_client writes the ports first and the key after them: caught mid-write, it counts.
    assert is_connection_file(data[: data.index(b'"key"') + 8])
    assert is_connection_file(b'\xef\xbb\xbf \n{"signature_scheme": "hmac-sha256", "key": ""}')


@pytest.mark.parametrize(
    "data",
    [
        b'{"key": "k"}',
        b'{"shell_port": 1, "ip": "127.0.0.1"}',
        b'{"keys": "k", "shell_port": 2}',
        b'{"key": 1, "shell_port": 2}',
        b"",
        b'cfg = {"shell_port": shell_port, "key": "k"}',  # source quoting the fields
        b'{"cells": [{"source": "{\\"key\\": \\"k\\", \\"shell_port\\": 1}"}]}',  # a notebook quoting one
    ],
)
def test_other_files_are_not_connection_files(data):
    assert not is_connection_file(data)


def test_jupyter_clients_own_source_is_no_connection_file():
    """It spells a connection file's fields out (``"shell_port": shell_port``, ``"key": key``)."""
    import jupyter_client.connect

    assert not is_connection_file(Path(jupyter_client.connect.__file__).read_bytes())


def test_temp_folders_are_tempfiles_candidates_resolved(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    environ = {"TMPDIR": str(tmp_path / "link"), "TEMP": "relative", "TMP": "/tmp"}
    assert temp_folders(environ) == [tmp_path / "real", Path("/tmp"), Path("/var/tmp")]


def test_connection_files_are_found_at_the_top_of_folders_by_content(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    found = [connection(a / "tmpabc.json"), connection(b / "kernel-7.json")]
    connection(a / "kernel.txt")  # not *.json: left to the file tools
    (a / "sub").mkdir()
    connection(a / "sub" / "kernel-2.json")  # not at the top
    (a / "link.json").symlink_to(found[1])  # never opened through a link
    (a / "data.json").write_text(json.dumps({"rows": [1, 2]}))
    (a / "data.json").chmod(0o600)
    connection(a / "shared.json").chmod(0o640)  # not as jupyter_client writes one: not read
    (a / "big.json").write_bytes(connection(tmp_path / "c.json").read_bytes() + b" " * MAX_CONNECTION_FILE_BYTES)
    (a / "big.json").chmod(0o600)
    os.mkfifo(a / "pipe.json")  # never waited on
    assert connection_files([a, b, a, tmp_path / "missing"]) == found


def test_each_command_hides_the_connection_files_of_the_watched_folders_as_it_starts(ws, tmp_path):
    watched = tmp_path / "tmp"
    watched.mkdir()
    p = policy(ws).with_protection(watched=(watched,))
    before = bwrap_argv("bwrap", p, ws, 7, ["true"])
    made = connection(watched / "tmp1234.json")
    after = bwrap_argv("bwrap", p, ws, 7, ["true"])
    assert after[after.index("--seccomp") - 3 : after.index("--seccomp")] == ["--ro-bind", "/dev/null", str(made)]
    assert len(after) == len(before) + 3


def test_the_file_tools_refuse_a_connection_file_wherever_it_lies(ws):
    made = connection(ws / "notes.txt")
    os.link(made, ws / "hard")
    (ws / "link").symlink_to(made)
    for path in (made, ws / "hard", ws / "link"):
        real = Path(os.path.realpath(path))
        with pytest.raises(WriteRefused) as refused:
            read_checked(policy(ws), path)
        assert str(refused.value) == f"{str(real)!r} cannot be read: {CONNECTION_FILE}"
        with pytest.raises(WriteRefused) as refused:
            write_checked(policy(ws), path, b"{}")
        assert str(refused.value) == f"{str(real)!r} cannot be written: {CONNECTION_FILE}"
    assert is_connection_file(made.read_bytes())
    assert write_checked(policy(ws), ws / "new.json", b"{}") == ws / "new.json"


def test_credentials_are_hidden_unless_hide_credentials_is_false(ws, tmp_path):
    home = tmp_path / "home"
    (home / ".aws").mkdir(parents=True)
    (home / ".aws" / "credentials").write_text("secret")
    environ = {"HOME": str(home)}
    hidden = policy(ws, environ)
    with pytest.raises(WriteRefused) as refused:
        read_checked(hidden, home / ".aws" / "credentials")
    assert str(refused.value) == f"{str(home / '.aws' / 'credentials')!r} cannot be read: {CREDENTIALS}"
    argv = bwrap_argv("bwrap", hidden, ws, 7, ["true"])
    assert argv[argv.index("--seccomp") - 2 : argv.index("--seccomp")] == ["--tmpfs", str(home / ".aws")]
    shown = policy(ws, environ, hide_credentials=False)
    assert shown.credentials == ()
    assert read_checked(shown, home / ".aws" / "credentials") == b"secret"
    assert policy(ws, environ, sandbox_mode="danger-full-access").credentials == ()


def test_hide_credentials_is_read_from_the_config():
    assert parse_config({}).sandbox.hide_credentials is True
    assert parse_config({"hide_credentials": False}).sandbox.hide_credentials is False
    bad = parse_config({"hide_credentials": "no"})
    assert (bad.sandbox.hide_credentials, bad.errors) == (
        True,
        ["codemode.toml: hide_credentials: must be true or false, not a string ('no'); true is used."],
    )


@pytest.mark.parametrize(
    "relative",
    [
        ".git-credentials",
        ".config/git/credentials",
        ".pypirc",
        ".npmrc",
        ".config/gh/hosts.yml",
        ".config/hub",
        ".cargo/credentials.toml",
        ".cargo/credentials",
        ".gem/credentials",
        ".terraform.d/credentials.tfrc.json",
        ".vault-token",
        ".pgpass",
    ],
)
def test_the_usual_token_files_are_credentials(ws, tmp_path, relative):
    home = tmp_path / "home"
    token = home / relative
    token.parent.mkdir(parents=True, exist_ok=True)
    token.write_text("token = secret\n")
    hidden = policy(ws, {"HOME": str(home)})
    with pytest.raises(WriteRefused) as refused:
        read_checked(hidden, token)
    assert str(refused.value) == f"{str(token)!r} cannot be read: {CREDENTIALS}"
    argv = bwrap_argv("bwrap", hidden, ws, 7, ["true"])
    assert ["--ro-bind", "/dev/null", str(token)] == argv[argv.index(str(token)) - 2 : argv.index(str(token)) + 1]


def test_a_hard_link_to_a_credential_is_refused_by_the_file_tools(ws, tmp_path):
    """The link existed before: the file is the same (``st_dev``, ``st_ino``), its name is not."""
    home = tmp_path / "home"
    keys = home / ".gnupg" / "private-keys-v1.d"
    keys.mkdir(parents=True)
    (home / ".netrc").write_text("machine example.com password secret\n")
    (keys / "ABCD.key").write_text("private key\n")
    (home / "notes.txt").write_text("not a secret\n")
    os.link(home / ".netrc", ws / "netrc-hardlink")
    os.link(keys / "ABCD.key", ws / "key")
    os.link(home / "notes.txt", ws / "notes")
    hidden = policy(ws, {"HOME": str(home)})
    for link in (ws / "netrc-hardlink", ws / "key"):
        with pytest.raises(WriteRefused) as refused:
            read_checked(hidden, link)
        assert str(refused.value) == f"{str(link)!r} cannot be read: {CREDENTIALS}"
        with pytest.raises(WriteRefused) as refused:
            write_checked(hidden, link, b"overwritten")
        assert str(refused.value) == f"{str(link)!r} cannot be written: {CREDENTIALS}"
    assert (home / ".netrc").read_text() == "machine example.com password secret\n"
    assert (keys / "ABCD.key").read_text() == "private key\n"
    assert read_checked(hidden, ws / "notes") == b"not a secret\n"
    assert read_checked(policy(ws, {"HOME": str(home)}, hide_credentials=False), ws / "netrc-hardlink") == (
        b"machine example.com password secret\n"
    )


def test_credential_folders_give_a_bounded_number_of_identities_top_first(tmp_path):
    folder = tmp_path / ".gnupg"
    (folder / "sub").mkdir(parents=True)
    for n in range(MAX_CREDENTIAL_FOLDER_ENTRIES + 10):
        (folder / f"f{n}").write_text("")
    (folder / "sub" / "deep").write_text("")
    (tmp_path / "other").write_text("")
    (folder / "link").symlink_to(tmp_path / "other")
    identities = credential_identities([folder, tmp_path / "missing"])

    def identity(path: Path) -> tuple[int, int]:
        info = os.stat(path)
        return info.st_dev, info.st_ino

    assert len(identities) == 1 + MAX_CREDENTIAL_FOLDER_ENTRIES
    assert identity(folder) in identities
    assert identity(folder / "sub" / "deep") not in identities  # beyond the cap, the top came first
    small = tmp_path / ".ssh"
    (small / "sub").mkdir(parents=True)
    (small / "sub" / "deep").write_text("")
    (small / "link").symlink_to(tmp_path / "other")
    assert credential_identities([small]) == {
        identity(small),
        identity(small / "sub"),
        identity(small / "sub" / "deep"),
        identity(tmp_path / "other"),
    }
