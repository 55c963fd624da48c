"""The ``apply_patch`` format, read as Codex reads it (``codex-rs/apply-patch/src/parser.rs``).

::

    start: begin_patch hunk+ end_patch
    begin_patch: "*** Begin Patch" LF
    end_patch: "*** End Patch" LF?
    hunk: add_hunk | delete_hunk | update_hunk
    add_hunk: "*** Add File: " filename LF add_line+
    delete_hunk: "*** Delete File: " filename LF
    update_hunk: "*** Update File: " filename LF change_move? change?
    add_line: "+" /(.*)/ LF
    change_move: "*** Move to: " filename LF
    change: (change_context | change_line)+ eof_line?
    change_context: ("@@" | "@@ " /(.+)/) LF
    change_line: ("+" | "-" | " ") /(.*)/ LF
    eof_line: "*** End of File" LF

Codex's leniencies, kept: the text is stripped first; the begin and end markers and the hunk
headers may carry spaces around them; the whole patch may be wrapped in a heredoc (``<<EOF``,
``<<'EOF'`` or ``<<"EOF"`` on the first line, a last line ending in ``EOF``, four lines at
least); an Add File hunk may have no ``+`` line (an empty file); the first chunk of an Update
File hunk may leave out its ``@@`` line; blank lines between chunks are skipped; an empty line
inside a chunk is an empty context line; a chunk ends at the first line that starts with none
of `` ``, ``+``, ``-`` (the next chunk or hunk); ``*** Begin Patch`` with ``*** End Patch`` and
nothing between is a patch of no hunks.

Errors (:class:`PatchParseError`) are worded as Codex's ``ParseError``: ``invalid patch: The
first line of the patch must be '*** Begin Patch'``, ``invalid hunk at line 3, Update file hunk
for path 'a.txt' is empty`` (line numbers count from the ``*** Begin Patch`` line, 1).
"""

from __future__ import annotations

from dataclasses import dataclass, field

BEGIN = "*** Begin Patch"
END = "*** End Patch"
ADD = "*** Add File: "
DELETE = "*** Delete File: "
UPDATE = "*** Update File: "
MOVE = "*** Move to: "
END_OF_FILE = "*** End of File"
CONTEXT = "@@ "
EMPTY_CONTEXT = "@@"
HEREDOC_STARTS = ("<<EOF", "<<'EOF'", '<<"EOF"')
NO_LINES = "Update hunk does not contain any lines"


class PatchParseError(ValueError):
    """A patch that is not in the format; ``str()`` is Codex's text."""


def _invalid_patch(message: str) -> PatchParseError:
    return PatchParseError(f"invalid patch: {message}")


def _invalid_hunk(message: str, line_number: int) -> PatchParseError:
    return PatchParseError(f"invalid hunk at line {line_number}, {message}")


@dataclass
class Chunk:
    """One ``@@`` section of an Update File hunk: ``context`` (the ``@@ text`` line, a line to
    find first), the ``old`` lines to find after it and the ``new`` lines that replace them;
    ``end_of_file``: the old lines must end the file."""

    context: str | None = None
    old: list[str] = field(default_factory=list)
    new: list[str] = field(default_factory=list)
    end_of_file: bool = False


@dataclass
class AddFile:
    """``*** Add File: path`` and the file's whole ``contents`` (each ``+`` line and a newline)."""

    path: str
    contents: str


@dataclass
class DeleteFile:
    """``*** Delete File: path``."""

    path: str


@dataclass
class UpdateFile:
    """``*** Update File: path``, renamed to ``move_to`` when set, changed by ``chunks``."""

    path: str
    move_to: str | None
    chunks: list[Chunk]


Hunk = AddFile | DeleteFile | UpdateFile


def _boundaries(lines: list[str]) -> list[str]:
    """The lines between the markers, or :class:`PatchParseError`."""
    if not lines or lines[0].strip() != BEGIN:
        raise _invalid_patch(f"The first line of the patch must be '{BEGIN}'")
    if lines[-1].strip() != END or len(lines) < 2:
        raise _invalid_patch(f"The last line of the patch must be '{END}'")
    return lines[1:-1]


def _lenient_boundaries(lines: list[str]) -> list[str]:
    try:
        return _boundaries(lines)
    except PatchParseError as first:
        if len(lines) >= 4 and lines[0] in HEREDOC_STARTS and lines[-1].endswith("EOF"):
            return _boundaries(lines[1:-1])
        raise first from None


def _lines(text: str) -> list[str]:
    """``text`` cut at each ``\\n``, a ``\\r`` before it dropped, as Rust's ``str::lines``."""
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def parse_patch(text: str) -> list[Hunk]:
    """The hunks of patch ``text``, in order. Raises :class:`PatchParseError`."""
    body = _lenient_boundaries(_lines(text.strip()))
    hunks: list[Hunk] = []
    line_number = 2
    while body:
        hunk, used = _hunk(body, line_number)
        hunks.append(hunk)
        line_number += used
        body = body[used:]
    return hunks


def _hunk(lines: list[str], line_number: int) -> tuple[Hunk, int]:
    first = lines[0].strip()
    if first.startswith(ADD):
        contents = []
        for line in lines[1:]:
            if not line.startswith("+"):
                break
            contents.append(line[1:] + "\n")
        return AddFile(first[len(ADD) :], "".join(contents)), 1 + len(contents)
    if first.startswith(DELETE):
        return DeleteFile(first[len(DELETE) :]), 1
    if first.startswith(UPDATE):
        return _update(first[len(UPDATE) :], lines, line_number)
    raise _invalid_hunk(
        f"'{first}' is not a valid hunk header. Valid hunk headers: '{ADD}{{path}}', '{DELETE}{{path}}', "
        f"'{UPDATE}{{path}}'",
        line_number,
    )


def _update(path: str, lines: list[str], line_number: int) -> tuple[UpdateFile, int]:
    rest = lines[1:]
    used = 1
    move_to = None
    if rest and rest[0].startswith(MOVE):
        move_to = rest[0][len(MOVE) :]
        rest, used = rest[1:], used + 1
    chunks: list[Chunk] = []
    while rest:
        if not rest[0].strip():
            rest, used = rest[1:], used + 1
            continue
        if rest[0].startswith("*"):
            break
        chunk, chunk_lines = _chunk(rest, line_number + used, allow_missing_context=not chunks)
        chunks.append(chunk)
        rest, used = rest[chunk_lines:], used + chunk_lines
    if not chunks:
        raise _invalid_hunk(f"Update file hunk for path '{path}' is empty", line_number)
    return UpdateFile(path, move_to, chunks), used


def _chunk(lines: list[str], line_number: int, allow_missing_context: bool) -> tuple[Chunk, int]:
    if lines[0] == EMPTY_CONTEXT:
        chunk, start = Chunk(), 1
    elif lines[0].startswith(CONTEXT):
        chunk, start = Chunk(context=lines[0][len(CONTEXT) :]), 1
    elif allow_missing_context:
        chunk, start = Chunk(), 0
    else:
        raise _invalid_hunk(f"Expected update hunk to start with a @@ context marker, got: '{lines[0]}'", line_number)
    if start >= len(lines):
        raise _invalid_hunk(NO_LINES, line_number + 1)
    parsed = 0
    for line in lines[start:]:
        if line == END_OF_FILE:
            if parsed == 0:
                raise _invalid_hunk(NO_LINES, line_number + 1)
            chunk.end_of_file = True
            parsed += 1
            break
        marker, rest = line[:1], line[1:]
        if marker == "":
            chunk.old.append("")
            chunk.new.append("")
        elif marker == " ":
            chunk.old.append(rest)
            chunk.new.append(rest)
        elif marker == "+":
            chunk.new.append(rest)
        elif marker == "-":
            chunk.old.append(rest)
        elif parsed == 0:
            raise _invalid_hunk(
                f"Unexpected line found in update hunk: '{line}'. Every line should start with ' ' (context line), "
                "'+' (added line), or '-' (removed line)",
                line_number + 1,
            )
        else:
            break
        parsed += 1
    return chunk, parsed + start
