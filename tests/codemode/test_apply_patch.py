"""``apply_patch``: Codex's patch format (``codex-rs/apply-patch``: ``parser.rs`` and its tests
``test_parse_patch``, ``lib.rs``, ``seek_sequence.rs``), applied through the sandbox."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from codemode.cancellation import CancellationToken
from codemode.config import Config, SandboxSettings
from codemode.dispatch import ToolCallRuntime
from codemode.tools.patch_contents import PatchContentError, new_contents, seek_sequence
from codemode.tools.patch_parse import AddFile, Chunk, DeleteFile, PatchParseError, UpdateFile, parse_patch
from codemode.tools.registry import ToolRegistry

pytestmark = pytest.mark.unit


def test_add_delete_update_and_move_parse_as_in_codex():
    text = (
        "*** Begin Patch\n*** Add File: path/add.py\n+abc\n+def\n*** Delete File: path/delete.py\n"
        "*** Update File: path/update.py\n*** Move to: path/update2.py\n@@ def f():\n-    pass\n+    return 123\n"
        "*** End Patch"
    )
    assert parse_patch(text) == [
        AddFile("path/add.py", "abc\ndef\n"),
        DeleteFile("path/delete.py"),
        UpdateFile("path/update.py", "path/update2.py", [Chunk("def f():", ["    pass"], ["    return 123"])]),
    ]


def test_the_lenient_forms():
    # Spaces around the markers, a heredoc around the whole, no @@ before the first chunk, blank
    # lines between chunks, an empty line as an empty context line, an empty Add File.
    assert parse_patch("  *** Begin Patch \n*** Add File: foo\n+hi\n *** End Patch  \n") == [AddFile("foo", "hi\n")]
    heredoc = "<<'EOF'\n*** Begin Patch\n*** Delete File: a\n*** End Patch\nEOF\n"
    assert parse_patch(heredoc) == [DeleteFile("a")]
    text = "*** Begin Patch\n*** Update File: f\n import foo\n+bar\n\n@@ x\n-y\n\n+z\n*** Add File: e\n*** End Patch"
    assert parse_patch(text) == [
        UpdateFile(
            "f",
            None,
            # The blank line after "+bar" is still the first chunk's: an empty context line.
            [Chunk(None, ["import foo", ""], ["import foo", "bar", ""]), Chunk("x", ["y", ""], ["", "z"])],
        ),
        AddFile("e", ""),
    ]
    assert parse_patch("*** Begin Patch\r\n*** Delete File: a\r\n*** End Patch\r\n") == [DeleteFile("a")]
    assert parse_patch("*** Begin Patch\n*** End Patch") == []


def test_end_of_file_marks_the_chunk():
    text = "*** Begin Patch\n*** Update File: f\n@@\n-last\n+LAST\n*** End of File\n*** End Patch"
    assert parse_patch(text) == [UpdateFile("f", None, [Chunk(None, ["last"], ["LAST"], end_of_file=True)])]


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("bad", "invalid patch: The first line of the patch must be '*** Begin Patch'"),
        ("", "invalid patch: The first line of the patch must be '*** Begin Patch'"),
        ("*** Begin Patch\nbad", "invalid patch: The last line of the patch must be '*** End Patch'"),
        ("*** Begin Patch", "invalid patch: The last line of the patch must be '*** End Patch'"),
        (
            "*** Begin Patch\n*** Update File: test.py\n*** End Patch",
            "invalid hunk at line 2, Update file hunk for path 'test.py' is empty",
        ),
        (
            "*** Begin Patch\n*** Add File: a\n+x\nnot a header\n*** End Patch",
            "invalid hunk at line 4, 'not a header' is not a valid hunk header. Valid hunk headers: "
            "'*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'",
        ),
        (
            "*** Begin Patch\n*** Update File: a\n@@\n-x\n@@\n*** End Patch",
            "invalid hunk at line 6, Update hunk does not contain any lines",
        ),
        (
            "*** Begin Patch\n*** Update File: a\n@@\n*** End of File\n*** End Patch",
            "invalid hunk at line 4, Update hunk does not contain any lines",
        ),
        (
            "*** Begin Patch\n*** Update File: a\n@@\n-x\nnot diff\n*** End Patch",
            "invalid hunk at line 5, Expected update hunk to start with a @@ context marker, got: 'not diff'",
        ),
        (
            "*** Begin Patch\n*** Update File: a\nnot diff\n*** End Patch",
            "invalid hunk at line 4, Unexpected line found in update hunk: 'not diff'. Every line should start "
            "with ' ' (context line), '+' (added line), or '-' (removed line)",
        ),
    ],
)
def test_bad_patches_are_worded_as_codex_words_them(text, error):
    with pytest.raises(PatchParseError) as raised:
        parse_patch(text)
    assert str(raised.value) == error


def test_contents_follow_codex_placement():
    original = "def f():\n    pass\n\ndef g():\n    pass\n"
    two = [Chunk("def g():", ["    pass"], ["    return 2"]), Chunk(None, [], ["# end"])]
    assert new_contents(original, two, "/w/a.py") == "def f():\n    pass\n\ndef g():\n    return 2\n# end\n"
    # Trailing spaces, then surrounding spaces, then typographic punctuation are forgiven.
    assert new_contents("a  \n  “b” — c\n", [Chunk(None, ["a", '"b" - c'], ["A", "B"])], "f") == "A\nB\n"
    # End of file: the last occurrence; no newline at the end: one is added.
    assert new_contents("x\ny\nx", [Chunk(None, ["x"], ["z"], end_of_file=True)], "f") == "x\ny\nz\n"
    # Old lines ending in an empty line are tried again without it.
    assert new_contents("a\nb\n", [Chunk(None, ["b", ""], ["B", ""])], "f") == "a\nB\n"


def test_contents_errors_are_codex_texts():
    with pytest.raises(PatchContentError) as context:
        new_contents("a\n", [Chunk("def h():", ["a"], ["b"])], "/w/a.py")
    assert str(context.value) == "Failed to find context 'def h():' in /w/a.py"
    with pytest.raises(PatchContentError) as lines:
        new_contents("a\n", [Chunk(None, ["b", "c"], ["d"])], "/w/a.py")
    assert str(lines.value) == "Failed to find expected lines in /w/a.py:\nb\nc"


LINE = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), max_size=8)


@given(st.lists(LINE, max_size=6), st.integers(0, 6), st.integers(0, 6), st.lists(LINE, max_size=3))
def test_a_found_block_is_replaced_and_the_rest_kept(lines, start, length, replacement):
    """Replacing lines ``start:start+length`` by ``replacement`` through a chunk whose old lines
    are those lines gives the file with exactly that change, at their first exact occurrence."""
    old = lines[start : start + length]
    if not old:
        return
    at = seek_sequence(lines, old, 0, False)
    assert at is not None and [line.rstrip() for line in lines[at : at + len(old)]] == [o.rstrip() for o in old]
    found = next(i for i in range(len(lines)) if lines[i : i + len(old)] == old)
    assert at == found
    result = new_contents("\n".join(lines) + "\n", [Chunk(None, old, replacement)], "f")
    expected = [*lines[:found], *replacement, *lines[found + len(old) :]]
    # Codex ends the text with a newline unless its last line is already empty.
    assert result == "\n".join(expected if expected and expected[-1] == "" else [*expected, ""])


@given(st.lists(LINE.filter(lambda s: not s.startswith("*")), min_size=1, max_size=5))
def test_an_added_file_holds_its_lines(lines):
    text = "*** Begin Patch\n*** Add File: a.txt\n" + "".join(f"+{line}\n" for line in lines) + "*** End Patch\n"
    assert parse_patch(text) == [AddFile("a.txt", "".join(f"{line}\n" for line in lines))]


@pytest.fixture
async def dispatcher(tmp_path, monkeypatch):
    ws = tmp_path / "ws"
    ws.mkdir()
    monkeypatch.chdir(ws)
    monkeypatch.delenv("TMPDIR", raising=False)
    registry = await ToolRegistry.create(Config(sandbox=SandboxSettings(exclude_slash_tmp=True)))
    yield ToolCallRuntime(registry)
    await registry.aclose()


async def apply(dispatcher, text):
    return await dispatcher.handle_tool_call(
        "1", "tool-1", {"name": "apply_patch", "namespace": None}, "freeform", text, CancellationToken()
    )


async def test_the_tool_writes_the_patch_and_answers_an_empty_object(dispatcher):
    """s07's patch, then one of each kind; a code-mode program gets ``{}`` as in Codex."""
    first = await apply(
        dispatcher, "*** Begin Patch\n*** Add File: notes/first.md\n+# First note\n+hello\n*** End Patch\n"
    )
    assert (first.outcome, first.value) == ("completed", {})
    assert Path("notes/first.md").read_text() == "# First note\nhello\n"
    Path("gone.txt").write_text("bye\n")
    Path("old.txt").write_text("one\ntwo\nthree\n")
    text = (
        "*** Begin Patch\n*** Update File: notes/first.md\n@@ # First note\n-hello\n+hello again\n"
        "*** Delete File: gone.txt\n*** Update File: old.txt\n*** Move to: sub/new.txt\n@@\n one\n-two\n+2\n"
        "@@\n three\n+four\n*** End Patch"
    )
    assert (await apply(dispatcher, text)).value == {}
    assert Path("notes/first.md").read_text() == "# First note\nhello again\n"
    assert Path("sub/new.txt").read_text() == "one\n2\nthree\nfour\n"
    assert not Path("gone.txt").exists() and not Path("old.txt").exists()


def test_the_success_text_is_codexs():
    from codemode.tools.apply_patch import Change, summary

    changes = [Change("M", "a"), Change("D", "b"), Change("A", "notes/first.md"), Change("M", "sub/new.txt")]
    assert summary(changes) == "Success. Updated the following files:\nA notes/first.md\nM a\nM sub/new.txt\nD b\n"


async def test_a_patch_that_cannot_apply_whole_writes_nothing(dispatcher):
    Path("a.txt").write_text("x\n")
    text = "*** Begin Patch\n*** Add File: new.txt\n+n\n*** Update File: a.txt\n@@\n-missing\n+y\n*** End Patch"
    failed = await apply(dispatcher, text)
    here = os.getcwd()
    assert (failed.outcome, failed.error) == (
        "failed",
        f"apply_patch verification failed: Failed to find expected lines in {here}/a.txt:\nmissing",
    )
    missing = await apply(dispatcher, "*** Begin Patch\n*** Delete File: nope.txt\n*** End Patch")
    assert (
        missing.error
        == f"apply_patch verification failed: Failed to read {here}/nope.txt: No such file or directory (os error 2)"
    )
    update = await apply(dispatcher, "*** Begin Patch\n*** Update File: nope.txt\n@@\n-a\n*** End Patch")
    assert update.error == (
        f"apply_patch verification failed: Failed to read file to update {here}/nope.txt: No such file or "
        "directory (os error 2)"
    )
    assert (await apply(dispatcher, "*** Begin Patch\n*** End Patch")).error == "No files were modified."
    assert (await apply(dispatcher, "hello")).error == (
        "apply_patch verification failed: invalid patch: The first line of the patch must be '*** Begin Patch'"
    )
    assert sorted(p.name for p in Path().iterdir()) == ["a.txt"]


async def test_the_tool_writes_only_where_write_file_may(dispatcher, tmp_path):
    """Outside the writable roots, codemode.toml, .git: refused before anything is written."""
    Path(".git").mkdir()
    outside = tmp_path / "outside.txt"
    for target, protected in (
        (str(outside), None),
        ("codemode.toml", Path.cwd() / "codemode.toml"),
        (".git/hooks/pre-commit", Path.cwd() / ".git"),
    ):
        result = await apply(
            dispatcher, f"*** Begin Patch\n*** Add File: ok.txt\n+1\n*** Add File: {target}\n+x\n*** End Patch"
        )
        assert result.outcome == "failed"
        if protected is None:
            assert result.error.startswith(
                f"apply_patch: {str(outside)!r} is outside the folders the sandbox lets cells write"
            )
        else:
            assert result.error.startswith(
                f"apply_patch: {str(Path.cwd() / target)!r} cannot be written: {str(protected)!r} stays read-only"
            )
    link = Path("link.txt")
    link.symlink_to(outside)
    outside.write_text("o\n")
    through = await apply(dispatcher, "*** Begin Patch\n*** Update File: link.txt\n@@\n-o\n+p\n*** End Patch")
    assert through.error.startswith(f"apply_patch: {str(outside)!r} is outside the folders")
    assert outside.read_text() == "o\n" and sorted(p.name for p in Path().iterdir()) == [".git", "link.txt"]
