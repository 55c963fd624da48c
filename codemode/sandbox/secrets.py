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
(``~/.netrc``), Codex, Docker, ``kubectl`` and GnuPG keep their secrets in. Codex lets its
sandboxed commands read them; here they are hidden unless ``hide_credentials = false``.
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
)
"""Credential files and folders, relative to the home folder."""

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
