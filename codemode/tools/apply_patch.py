"""The ``apply_patch`` built-in: Codex's freeform patch tool, writing through the sandbox.

``await tools.apply_patch("*** Begin Patch\\n*** Add File: notes/a.md\\n+hi\\n*** End Patch\\n")``
-> ``{}``. The argument is the patch text itself (a freeform tool: Codex's code mode passes a
freeform tool's string input as it is, and refuses anything else with ``tool `apply_patch`
expects a string input``). The result is an empty object, as Codex's
``ApplyPatchToolOutput::code_mode_result`` (``codex-rs/core/src/tools/context.rs``) gives a
code-mode program; the text Codex shows the model for a direct call,
``Success. Updated the following files:\\nA notes/a.md\\n`` (``A``dded, then ``M``odified, moves
under their new path, then ``D``eleted, each path as the patch spells it), is
:func:`summary`'s.

The format and its leniencies: :mod:`codemode.tools.patch_parse`; how an update finds its
place: :mod:`codemode.tools.patch_contents`. Paths are relative to the kernel's working
directory (absolute ones are taken as they are).

All or nothing where it can be: the whole patch is read, checked and computed before the first
write, so a patch that does not parse, a file that is missing, a chunk that does not fit, or
a path the sandbox does not let cells write (:meth:`~codemode.sandbox.policy.SandboxPolicy.can_write`:
the writable roots, minus the protected paths such as ``codemode.toml`` and ``.git``) fails
the call with nothing written. Each write then goes through
:func:`~codemode.sandbox.files.write_checked` (and each removal through
:func:`~codemode.sandbox.files.delete_checked`), as ``write_file``'s do; a file system error
at that stage may leave the earlier files of the patch written, as Codex's apply may.

Errors reject the call with Codex's texts: ``apply_patch verification failed: invalid hunk at
line 2, ...``, ``apply_patch verification failed: Failed to find expected lines in
/abs/a.py:\\nold``, ``apply_patch verification failed: Failed to read file to update /abs/a.py:
No such file or directory (os error 2)``, ``No files were modified.`` for a patch of no hunks;
a sandbox refusal is ``apply_patch: `` and the sandbox's sentence.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codemode.errors import ToolCallError
from codemode.sandbox import Sandbox
from codemode.sandbox.files import WriteRefused, check_writable, delete_checked, read_checked, write_checked
from codemode.tools.base import Handler, Tool, ToolContext
from codemode.tools.patch_contents import PatchContentError, new_contents
from codemode.tools.patch_parse import AddFile, DeleteFile, PatchParseError, parse_patch
from codemode.tools.threads import BUILTINS

VERIFICATION_FAILED = "apply_patch verification failed: "
NO_FILES = "No files were modified."


@dataclass
class Change:
    """One file the patch changes: ``kind`` ``A``, ``M`` or ``D`` (as in the summary), the
    ``shown`` path (the patch's spelling, under which the summary lists it), the ``path`` to
    write (None for a removal) with its ``contents``, and the ``removed`` path (a deletion, or
    the old name of a moved file)."""

    kind: str
    shown: str
    path: Path | None = None
    contents: str = ""
    removed: Path | None = None


def summary(changes: list[Change]) -> str:
    """Codex's success text for ``changes`` (``codex-rs/apply-patch/src/lib.rs``
    ``print_summary``): added files, then modified, then deleted."""
    lines = ["Success. Updated the following files:"]
    lines += [f"{kind} {c.shown}" for kind in "AMD" for c in changes if c.kind == kind]
    return "\n".join(lines) + "\n"


def _os_error(exc: OSError) -> str:
    """``exc`` as Rust's ``io::Error`` prints itself: ``No such file or directory (os error 2)``."""
    return f"{exc.strerror} (os error {exc.errno})" if exc.errno else str(exc)


def _read(sandbox: Sandbox, path: Path, context: str, pending: dict[Path, str | None]) -> str:
    """The text of ``path`` as the patch has left it so far (``pending``), else as the file
    system has it; ``context`` heads Codex's error text."""
    key = Path(Path.cwd() / path)
    if key in pending:
        text = pending[key]
        if text is None:
            raise ToolCallError(f"{VERIFICATION_FAILED}{context} {key}: No such file or directory (os error 2)")
        return text
    try:
        data = read_checked(sandbox.policy, path)
    except WriteRefused as exc:
        raise ToolCallError(f"apply_patch: {exc}") from None
    except OSError as exc:
        raise ToolCallError(f"{VERIFICATION_FAILED}{context} {key}: {_os_error(exc)}") from None
    return data.decode("utf-8", "replace")


def plan(sandbox: Sandbox, text: str) -> list[Change]:
    """What patch ``text`` would change, read and checked, nothing written. Hunks apply in
    order, so a later hunk sees what an earlier one of the same patch made. Raises
    :class:`ToolCallError` with Codex's texts (see the module docstring)."""
    try:
        hunks = parse_patch(text)
    except PatchParseError as exc:
        raise ToolCallError(f"{VERIFICATION_FAILED}{exc}") from None
    if not hunks:
        raise ToolCallError(NO_FILES)
    changes: list[Change] = []
    pending: dict[Path, str | None] = {}
    for hunk in hunks:
        path = Path(hunk.path)
        if isinstance(hunk, AddFile):
            changes.append(Change("A", hunk.path, path, hunk.contents))
            pending[Path(Path.cwd() / path)] = hunk.contents
        elif isinstance(hunk, DeleteFile):
            _read(sandbox, path, "Failed to read", pending)
            changes.append(Change("D", hunk.path, removed=path))
            pending[Path(Path.cwd() / path)] = None
        else:
            original = _read(sandbox, path, "Failed to read file to update", pending)
            try:
                contents = new_contents(original, hunk.chunks, str(Path.cwd() / path))
            except PatchContentError as exc:
                raise ToolCallError(f"{VERIFICATION_FAILED}{exc}") from None
            target = path if hunk.move_to is None else Path(hunk.move_to)
            moved = None if hunk.move_to is None else path
            changes.append(Change("M", hunk.move_to or hunk.path, target, contents, moved))
            if moved is not None:
                pending[Path(Path.cwd() / moved)] = None
            pending[Path(Path.cwd() / target)] = contents
    for change in changes:
        for checked in (change.path, change.removed):
            if checked is not None:
                try:
                    check_writable(sandbox.policy, checked)
                except WriteRefused as exc:
                    raise ToolCallError(f"apply_patch: {exc}") from None
    return changes


def apply(sandbox: Sandbox, changes: list[Change]) -> str:
    """Write ``changes`` through the sandbox, in order; returns :func:`summary`'s text."""
    for change in changes:
        try:
            if change.path is not None:
                write_checked(sandbox.policy, change.path, change.contents.encode("utf-8", "surrogatepass"))
            if change.removed is not None:
                delete_checked(sandbox.policy, change.removed)
        except WriteRefused as exc:
            raise ToolCallError(f"apply_patch: {exc}") from None
        except OSError as exc:
            shown = change.path if change.path is not None else change.removed
            raise ToolCallError(f"apply_patch: {str(shown)!r} cannot be written ({exc.strerror}).") from None
    return summary(changes)


def patch_files(sandbox: Sandbox, text: str) -> str:
    """:func:`plan` then :func:`apply`: the whole patch, or nothing when it cannot be planned."""
    return apply(sandbox, plan(sandbox, text))


def _handler(sandbox: Sandbox) -> Handler:
    async def apply_patch(text: str, ctx: ToolContext) -> dict[str, Any]:
        await BUILTINS.run("apply_patch", patch_files, sandbox, text)
        return {}

    return apply_patch


DESCRIPTION = (
    "Use the `apply_patch` tool to edit files. Its input is the patch text itself, a freeform string:\n"
    "*** Begin Patch\n"
    "*** Add File: path/new.txt\n"
    "+a line of the new file\n"
    "*** Update File: path/old.txt\n"
    "*** Move to: path/renamed.txt\n"
    "@@ a line just above the change\n"
    " a context line\n"
    "-a removed line\n"
    "+an added line\n"
    "*** Delete File: path/gone.txt\n"
    "*** End Patch\n"
    "Paths are relative to the working directory. Files are written only where the sandbox lets cells "
    "write; a patch that cannot be applied whole writes nothing. Returns {}."
)


def apply_patch_tool(sandbox: Sandbox) -> Tool:
    """The ``apply_patch`` :class:`Tool` (freeform, exclusive), bound to ``sandbox``."""
    return Tool(
        name="apply_patch",
        description=DESCRIPTION,
        handler=_handler(sandbox),
        kind="freeform",
        supports_parallel=False,
    )
