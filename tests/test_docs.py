"""The README is a first page and the docs stay readable and connected.

What is checked, all by reading files (no process starts):

- ``README.md`` is under 200 lines;
- no sentence of ``README.md``, ``CONTRIBUTING.md`` or ``docs/*.md`` is over 60 words, fenced code
  and tables left out (:func:`sentences` says what a sentence is; its own tests pin that a
  61-word sentence is caught);
- every relative link in those files reaches a file that exists, and an ``#anchor`` a heading
  of that file, named by GitHub's rules (:func:`anchor`);
- ``docs/README.md`` links every page of ``docs/``;
- ``LICENSE`` holds the license ``pyproject.toml`` declares;
- ``.ci/run`` runs the README's test command;
- every test file the reliability table names exists.
"""

from __future__ import annotations

import re
import tomllib
from collections import Counter
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

REPO = Path(__file__).resolve().parent.parent
MAX_WORDS = 60
PAGES = sorted([REPO / "README.md", REPO / "CONTRIBUTING.md", *(REPO / "docs").glob("*.md")])

FENCE = re.compile(r"^\s*(```|~~~)")
LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
LINK = re.compile(r"!?\[((?:[^\[\]]|\[[^\]]*\])*)\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
SENTENCE_END = re.compile(r"[.!?][\"')\]]*(\s+)")

LICENSE_TITLES = {"Apache-2.0": ("Apache License", "Version 2.0, January 2004")}
"""SPDX identifier -> lines that open the license's standard text."""


def without_fences(markdown: str) -> list[str]:
    """The lines of ``markdown`` outside fenced code blocks (``` or ~~~)."""
    kept, fenced = [], False
    for line in markdown.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            kept.append(line)
    return kept


def prose_blocks(markdown: str) -> list[str]:
    """Paragraphs, list items and headings of ``markdown``, each joined into one line.

    Fenced code and table rows (lines starting with ``|``) are left out. A blank line, a heading
    and the start of a list item end a block, so a list's items are never one sentence.
    """
    blocks: list[str] = []
    current: list[str] = []

    def flush() -> None:
        if current:
            blocks.append(" ".join(current))
            current.clear()

    for line in without_fences(markdown):
        stripped = line.strip().removeprefix(">").strip()
        if not stripped or stripped.startswith("|"):
            flush()
        elif heading := HEADING.match(line):
            flush()
            blocks.append(heading.group(2))
        elif LIST_ITEM.match(stripped):
            flush()
            current.append(LIST_ITEM.sub("", stripped, count=1))
        else:
            current.append(stripped)
    flush()
    return blocks


def sentences(markdown: str) -> list[str]:
    """The sentences of ``markdown``'s prose.

    A sentence ends at ``.``, ``!`` or ``?`` followed by white space (a closing quote or bracket
    may come between), or at the end of its block (:func:`prose_blocks`). An inline code span
    counts as one word and cannot end a sentence; a link counts as its text.
    """
    found = []
    for block in prose_blocks(markdown):
        prose = CODE_SPAN.sub("CODE", block)
        prose = LINK.sub(lambda m: m.group(1), prose)
        start = 0
        for end in SENTENCE_END.finditer(prose):
            found.append(prose[start : end.start(1)])
            start = end.end()
        found.append(prose[start:])
    return [sentence.strip() for sentence in found if sentence.strip()]
    return found


def word_count(sentence: str) -> int:
    """The words of ``sentence``: runs between spaces that hold a letter or a digit."""
    return sum(1 for token in sentence.split() if re.search(r"\w", token))


def long_sentences(markdown: str, limit: int = MAX_WORDS) -> list[str]:
    """The sentences of ``markdown`` over ``limit`` words, each with its count."""
    return [f"{word_count(s)} words: {s[:120]}" for s in sentences(markdown) if word_count(s) > limit]


def anchor(heading: str) -> str:
    """GitHub's anchor of a heading: the rendered text lowercased, every character but letters,
    digits, ``_``, ``-`` and spaces dropped, each space made a ``-`` (github-slugger, which
    GitHub's Markdown renderer uses)."""
    text = CODE_SPAN.sub(lambda m: m.group(2).strip(), heading)
    text = LINK.sub(lambda m: m.group(1), text).replace("*", "")
    return re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")


def anchors(markdown: str) -> set[str]:
    """Every heading anchor of ``markdown``; a repeated one gets ``-1``, ``-2``, ... as on GitHub."""
    seen: Counter[str] = Counter()
    found = set()
    for line in without_fences(markdown):
        if heading := HEADING.match(line):
            slug = anchor(heading.group(2))
            found.add(f"{slug}-{seen[slug]}" if seen[slug] else slug)
            seen[slug] += 1
    return found


def relative_links(markdown: str) -> list[str]:
    """The targets of ``markdown``'s links that are neither absolute URLs nor mail addresses,
    outside code."""
    prose = CODE_SPAN.sub("CODE", "\n".join(without_fences(markdown)))
    return [m.group(2) for m in LINK.finditer(prose) if not re.match(r"[a-z][a-z0-9+.-]*:", m.group(2))]


def broken_links(page: Path) -> list[str]:
    """The relative links of ``page`` whose file, or whose ``#anchor`` in it, does not exist."""
    broken = []
    for target in relative_links(page.read_text()):
        path, _, fragment = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists():
            broken.append(f"{target}: no file {file}")
        elif fragment and file.suffix == ".md" and fragment not in anchors(file.read_text()):
            broken.append(f"{target}: no heading with that anchor in {file.name}")
    return broken


def test_a_sentence_of_61_words_is_too_long_and_one_of_60_is_not():
    sixty = " ".join(["word"] * 59) + " end."
    assert word_count(sixty) == 60
    assert long_sentences(sixty) == []
    assert long_sentences("One " + sixty) == [f"61 words: One {sixty[:116]}"]


def test_sentences_end_at_stops_and_blocks_not_inside_code_tables_or_fences():
    text = """# A heading

First sentence here. Second one, with `code that. has stops` inside! Third?

- a list item without a stop
- another item

| a table row. with stops. | that is | left out |
|---|---|---|

```sh
echo "a fenced. block."
```

A [link. text](x.md) counts as its words (and "quoted.") Last
line of the paragraph.
"""
    assert sentences(text) == [
        "A heading",
        "First sentence here.",
        "Second one, with CODE inside!",
        "Third?",
        "a list item without a stop",
        "another item",
        "A link.",
        'text counts as its words (and "quoted.")',
        "Last line of the paragraph.",
    ]


def test_a_code_span_is_one_word_and_a_list_item_its_own_sentence():
    span = "`" + " ".join(["x"] * 100) + "`"
    assert long_sentences(f"Run {span} now.") == []
    items = "\n".join("- " + " ".join(["word"] * 40) for _ in range(3))
    assert long_sentences(items) == []
    assert long_sentences(" ".join(["word"] * 40) + "; " + " ".join(["word"] * 40) + ".") != []


def test_anchors_follow_githubs_rules():
    assert anchor("The notebook profile's realm") == "the-notebook-profiles-realm"
    assert anchor("Where codemode differs from Codex") == "where-codemode-differs-from-codex"
    assert anchor("`%wait` and `%terminate`") == "wait-and-terminate"
    assert anchor("Set up (two commands)") == "set-up-two-commands"
    assert anchors("# A\n## A\n```\n# not a heading\n```\n## b_c") == {"a", "a-1", "b_c"}


def test_links_to_missing_files_and_headings_are_found(tmp_path):
    (tmp_path / "other.md").write_text("# Other page\n\n## A part\n")
    page = tmp_path / "page.md"
    page.write_text(
        "See [ok](other.md#a-part), [self](#here), [web](https://example.com), `[code](nowhere.md)`.\n\n"
        "## Here\n\n[gone](missing.md) and [bad](other.md#no-part).\n"
    )
    assert broken_links(page) == [
        f"missing.md: no file {tmp_path / 'missing.md'}",
        "other.md#no-part: no heading with that anchor in other.md",
    ]


def test_the_readme_is_a_first_page_under_200_lines():
    lines = (REPO / "README.md").read_text().splitlines()
    assert len(lines) < 200, f"README.md has {len(lines)} lines"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_no_sentence_is_over_60_words(page):
    assert long_sentences(page.read_text()) == []


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_reaches_a_file_and_heading(page):
    assert broken_links(page) == []


def test_the_docs_index_links_every_page():
    linked = {target.partition("#")[0] for target in relative_links((REPO / "docs" / "README.md").read_text())}
    pages = {p.name for p in (REPO / "docs").glob("*.md")} - {"README.md"}
    assert pages - linked == set()


def test_the_license_file_holds_the_license_pyproject_declares():
    declared = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["license"]["text"]
    text = (REPO / "LICENSE").read_text()
    assert text.splitlines()[0] == "Copyright (c) 2026 the codemode authors"
    opening = [line.strip() for line in text.splitlines()[1:] if line.strip()][: len(LICENSE_TITLES[declared])]
    assert tuple(opening) == LICENSE_TITLES[declared]


def test_ci_runs_the_readmes_test_command():
    command = "python3 -m venv .venv && .venv/bin/pip install -q -e '.[test]' && .venv/bin/python -m pytest"
    assert command in (REPO / "README.md").read_text()
    assert (REPO / ".ci" / "run").read_text().splitlines()[-1] == command


def test_every_test_file_the_reliability_table_names_exists():
    page = (REPO / "docs" / "reliability.md").read_text()
    rows = [line for line in page.splitlines() if line.startswith("| ") and not line.startswith("| what ")]
    named = {path for row in rows for path in re.findall(r"`(tests/[^`*]+)`", row)}
    assert len(named) > 30
    assert sorted(path for path in named if not (REPO / path).exists()) == []
