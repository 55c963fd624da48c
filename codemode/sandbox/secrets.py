"""Files whose content gives a cell more than the sandbox does: Jupyter connection files and the
credentials of the usual command-line tools.

A connection file (Jupyter messaging spec, "Connection files" in jupyter_client's docs: a JSON
object with ``ip``, ``transport``, the five ``*_port`` numbers, ``signature_scheme`` and
``key``) holds the key that signs messages to a kernel: whoever reads it can run code in that
kernel (a ``python3`` kernel runs anything) once a command has the network. jupyter_client
writes one for every kernel it starts, and not only into Jupyter's runtime folder: a plain
``KernelManager`` (what nbclient, papermill and nbval use) writes ``tempfile.mkstemp(".json")``,
``$TMPDIR/tmpXXXXXXXX.json`` or ``/tmp/tmpXXXXXXXX.json``, and a ``MultiKernelManager`` writes
``kernel-<id>.json`` into its ``connection_dir``. Such files appear at any time, so they are
recognised by their content (:func:`is_connection_file`), not by a list made when the kernel
started: the file tools check what they really opened (a symlink or a hard link changes
nothing), and each sandboxed command is started with the connection files then lying at the top
of the folders :func:`connection_files` scans covered.

:data:`CREDENTIALS`: what ``ssh``, the AWS, Google Cloud and Azure command lines, ``curl``/``git``
(``~/.netrc``), Codex, Docker, ``kubectl``, GnuPG and the usual token files of git, GitHub,
package registries, Terraform, Vault and PostgreSQL keep their secrets in. Codex lets its
sandboxed commands read them; here they are hidden unless ``hide_credentials = false``. They
are recognised by path and, for the file tools, also by identity
(:func:`credential_identities`): a hard link to ``~/.netrc`` made elsewhere is the same file.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable, Mapping
from pathlib import Path

CREDENTIALS = (
    ".ssh",
    ".aws",
    ".config/gcloud",
    ".azure",
    ".netrc",
    ".codex/auth.json",
    ".docker/config.json",
    ".kube/config",
    ".gnupg",
    # git's "store" helper: git-scm.com/docs/git-credential-store, FILES.
    ".git-credentials",
    ".config/git/credentials",
    # PyPI upload tokens: packaging.python.org, "The .pypirc file".
    ".pypirc",
    # npm's per-user config, holding ``_authToken``: docs.npmjs.com, "npmrc", Files.
    ".npmrc",
    # GitHub CLI's ``oauth_token``s: cli.github.com/manual/gh_help_environment (GH_CONFIG_DIR).
    ".config/gh/hosts.yml",
    # hub's ``oauth_token``: hub(1), "Configuration".
    ".config/hub",
    # Cargo's registry tokens: doc.rust-lang.org/cargo/reference/config.html, "Credentials".
    ".cargo/credentials.toml",
    ".cargo/credentials",
    # RubyGems' API keys: guides.rubygems.org/api-key-scopes.
    ".gem/credentials",
    # Terraform's ``terraform login`` tokens: developer.hashicorp.com/terraform/cli/config/config-file, "Credentials".
    ".terraform.d/credentials.tfrc.json",
    # Vault's token helper: developer.hashicorp.com/vault/docs/commands/token-helper.
    ".vault-token",
    # libpq's password file: postgresql.org/docs/current/libpq-pgpass.html.
    ".pgpass",
)
"""Credential files and folders, relative to the home folder."""

MAX_CREDENTIAL_FOLDER_ENTRIES = 64
"""Most entries of one credential folder (its subfolders' included, the top first) whose identity
:func:`credential_identities` takes: ``~/.ssh`` holds a handful; a folder with more (a
``~/.config/gcloud/logs`` full of files) costs no more than this many ``stat`` calls per check."""

MAX_CONNECTION_FILE_BYTES = 64 * 1024
"""Largest file :func:`connection_files` reads to recognise one (a connection file is ~300 bytes)."""

_OBJECT = re.compile(rb"(?:\xef\xbb\xbf)?\s*\{")
_KEY = re.compile(rb'"key"\s*:\s*"')
_CONNECTION_FIELD = re.compile(rb'"(?:signature_scheme|shell_port|iopub_port|stdin_port|control_port|hb_port)"\s*:')


def is_connection_file(data: bytes) -> bool:
    """True when ``data`` (a file's bytes, or their beginning) is a JSON object, or the start
    of one, with a connection file's string ``"key"`` and one of its other fields. Byte
    patterns, not a JSON parse: a file caught while jupyter_client writes it (the ports come
    first) still counts; source code or a page quoting a connection file's fields does not
    (it does not start with ``{``)."""
    return (
        _OBJECT.match(data) is not None and _KEY.search(data) is not None and _CONNECTION_FIELD.search(data) is not None
    )


def temp_folders(environ: Mapping[str, str] | None = None) -> list[Path]:
    """Where ``tempfile.mkstemp`` (so a plain ``KernelManager``) may put a connection file:
    ``$TMPDIR``, ``$TEMP``, ``$TMP`` (absolute ones), ``/tmp``, ``/var/tmp``
    (``tempfile._candidate_tempdir_list``, without the working folder), resolved."""
    environ = os.environ if environ is None else environ
    named = [environ.get(name, "") for name in ("TMPDIR", "TEMP", "TMP")]
    folders = [Path(p) for p in named if p and os.path.isabs(p)] + [Path("/tmp"), Path("/var/tmp")]
    return list(dict.fromkeys(Path(os.path.realpath(p)) for p in folders))


def _starts_like_one(folder: Path, name: str) -> bool:
    try:
        fd = os.open(folder / name, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
    except OSError:
        return False
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_CONNECTION_FILE_BYTES:
            return False
        return is_connection_file(os.read(fd, MAX_CONNECTION_FILE_BYTES))
    except OSError:
        return False
    finally:
        os.close(fd)


def _owner_only(entry: os.DirEntry[str]) -> bool:
    try:
        info = entry.stat(follow_symlinks=False)
    except OSError:
        return False
    return stat.S_ISREG(info.st_mode) and not info.st_mode & 0o077


def connection_files(folders: Iterable[Path]) -> list[Path]:
    """The connection files at the top of ``folders`` right now: regular ``*.json`` files
    only their owner may read or write (jupyter_client writes every connection file so, with
    ``tempfile.mkstemp`` or ``jupyter_core.paths.secure_write``; a folder of data files costs
    a ``stat`` each, not a read), of at most :data:`MAX_CONNECTION_FILE_BYTES`, that this
    process can read and :func:`is_connection_file` recognises (symlinks and other files are
    not opened). A folder that cannot be listed is skipped."""
    found: list[Path] = []
    for folder in dict.fromkeys(folders):
        try:
            with os.scandir(folder) as entries:
                names = [e.name for e in entries if e.name.endswith(".json") and _owner_only(e)]
        except OSError:
            continue
        found += [folder / name for name in sorted(names) if _starts_like_one(folder, name)]
    return found


def credential_paths(home: Path) -> list[Path]:
    """:data:`CREDENTIALS` under ``home``, whether or not they exist."""
    return [home / relative for relative in CREDENTIALS]


def _folder_identities(folder: Path) -> Iterable[tuple[int, int]]:
    """The identities of ``folder``'s entries, breadth first (its top before its subfolders),
    at most :data:`MAX_CREDENTIAL_FOLDER_ENTRIES`; a symlink counts as what it points to and is
    not descended into; what cannot be listed or reached is skipped."""
    queue, seen = [folder], 0
    while queue and seen < MAX_CREDENTIAL_FOLDER_ENTRIES:
        try:
            with os.scandir(queue.pop(0)) as scanned:
                entries = list(scanned)
        except OSError:
            continue
        for entry in entries[: MAX_CREDENTIAL_FOLDER_ENTRIES - seen]:
            seen += 1
            try:
                info = entry.stat()
            except OSError:
                continue
            yield info.st_dev, info.st_ino
            if entry.is_dir(follow_symlinks=False):
                queue.append(Path(entry.path))


def credential_identities(credentials: Iterable[Path]) -> set[tuple[int, int]]:
    """The ``(st_dev, st_ino)`` of each of ``credentials`` that exists now (what a symlink points
    to), and of what lies in those that are folders (:func:`_folder_identities`): a file opened
    under another name (a hard link, a bind mount of it) with one of these identities is a
    credential. Costs a ``stat`` per path, and a listing only for folders that exist."""
    found: set[tuple[int, int]] = set()
    for path in dict.fromkeys(credentials):
        try:
            info = os.stat(path)
        except OSError:
            continue
        found.add((info.st_dev, info.st_ino))
        if stat.S_ISDIR(info.st_mode):
            found.update(_folder_identities(path))
    return found
