"""A file's new text from an Update File hunk's chunks, found as Codex finds them
(``codex-rs/apply-patch/src/lib.rs`` ``derive_new_contents_from_chunks`` and
``seek_sequence.rs``).

The file is cut into lines (a last empty one, after the final newline, dropped). Chunks are
placed in order, each searched from where the one before ended: a chunk's ``@@`` context line
first (the search goes on after it), then its old lines; a chunk with no old lines adds its
new lines at the end of the file. A chunk marked ``*** End of File`` is searched at the end of
the file only. Lines match exactly, else with trailing whitespace ignored, else with
surrounding whitespace ignored, else with typographic dashes, quotes and spaces read as their
ASCII forms too. Old lines ending in an empty line are tried again without it. The result
always ends with a newline.

Errors (:class:`PatchContentError`) are Codex's texts: ``Failed to find context 'def f():' in
/abs/a.py``, ``Failed to find expected lines in /abs/a.py:\\nold line``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from codemode.tools.patch_parse import Chunk

_ASCII = str.maketrans(
    {
        **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"),
        **dict.fromkeys("\u2018\u2019\u201a\u201b", "'"),
        **dict.fromkeys("\u201c\u201d\u201e\u201f", '"'),
        **dict.fromkeys("\u00a0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000", " "),
    }
)


class PatchContentError(ValueError):
    """The chunks do not fit the file; ``str()`` is Codex's text."""


_PASSES: tuple[Callable[[str], str], ...] = (
    lambda line: line,
    str.rstrip,
    str.strip,
    lambda line: line.strip().translate(_ASCII),
)


def seek_sequence(lines: Sequence[str], pattern: Sequence[str], start: int, end_of_file: bool) -> int | None:
    """Where ``pattern`` first occurs in ``lines`` at or after ``start`` (at the end only when
    ``end_of_file``), trying each looser comparison in turn; None when it does not."""
    if not pattern:
        return start
    if len(pattern) > len(lines):
        return None
    first = len(lines) - len(pattern) if end_of_file else start
    for norm in _PASSES:
        wanted = [norm(p) for p in pattern]
        for i in range(first, len(lines) - len(pattern) + 1):
            if all(norm(lines[i + k]) == wanted[k] for k in range(len(pattern))):
                return i
    return None


def new_contents(original: str, chunks: Sequence[Chunk], shown_path: str) -> str:
    """The text ``chunks`` make of ``original``; ``shown_path`` names the file in errors.
    Raises :class:`PatchContentError`."""
    lines = original.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    replacements: list[tuple[int, int, list[str]]] = []
    at = 0
    for chunk in chunks:
        if chunk.context is not None:
            found = seek_sequence(lines, [chunk.context], at, False)
            if found is None:
                raise PatchContentError(f"Failed to find context '{chunk.context}' in {shown_path}")
            at = found + 1
        if not chunk.old:
            replacements.append((len(lines), 0, list(chunk.new)))
            continue
        old, new = chunk.old, chunk.new
        found = seek_sequence(lines, old, at, chunk.end_of_file)
        if found is None and old[-1] == "":
            old = old[:-1]
            new = new[:-1] if new and new[-1] == "" else new
            found = seek_sequence(lines, old, at, chunk.end_of_file)
        if found is None:
            raise PatchContentError(f"Failed to find expected lines in {shown_path}:\n" + "\n".join(chunk.old))
        replacements.append((found, len(old), list(new)))
        at = found + len(old)
    replacements.sort(key=lambda r: r[0])
    for start, length, new_lines in reversed(replacements):
        lines[start : start + length] = new_lines
    if not lines or lines[-1] != "":
        lines.append("")
    return "\n".join(lines)
