"""The outline scanner against markdown-it-py: whenever the scanner answers, it agrees."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import event, example, given, settings
from hypothesis import strategies as st

from agent_memory.parse.outline import _parsed, scan
from agent_memory.parse.text import split_lines

ROOT = Path(__file__).resolve().parents[1]

# Lines memory files hold, and lines that change what the lines around them mean.
LINES = [
    "",
    "   ",
    "\t",
    "# Title",
    "## Key Decisions",
    "## Open Threads ##",
    "## Project State",
    "### Detail",
    "#",
    "## #",
    "##  spaced  ",
    "#hashtag",
    "- a fact",
    "- [ ] open thread",
    "- [x] done thread",
    "* star fact",
    "+ plus fact",
    "- **Bold:** fact",
    "-",
    "- ",
    "-  two spaces",
    "-\ttab",
    "- # heading in item",
    "- > quote in item",
    "- ```",
    "- 1. ordered in item",
    "- - nested at once",
    "- ---",
    "  xxxxxxxxxxxxxxxx",
    "xxxxxxxxxxxxxxxx",
    "  continuation",
    " one space",
    "   three spaces",
    "    four spaces",
    "      six spaces",
    "        eight spaces",
    "  - nested",
    "    - nested deeper",
    "  1. nested ordered",
    "  -",
    "  ---",
    "  ===",
    "  # nested heading",
    "  ```",
    "  > nested quote",
    "  <!-- nested comment -->",
    "\tleading tab",
    "  \tspace tab",
    "plain paragraph",
    "*emphasis* paragraph",
    "--dashes",
    "---",
    "***",
    "* * *",
    "- - -",
    "___",
    "===",
    "==",
    "```",
    "```python",
    "~~~",
    "~~struck~~ text",
    "- ~~struck~~ fact",
    "`code` first",
    "> `code` quoted",
    "``",
    "~~",
    "> quote",
    ">",
    ">     quoted code",
    "> - quoted item",
    ">\tquoted tab",
    "1. ordered",
    "2) ordered",
    "10. ten",
    "<!-- comment -->",
    "<!-- opens",
    "closes -->",
    "<!-->",
    "<div>",
    "</div>",
    "[ref]: /url",
    "[ref]:",
    "[a link](url) at the start",
    "[multi",
    "line]: /url",
    "- [ref]: /url",
    "- [a link](url) fact",
    "| table | row |",
    "text with trailing spaces   ",
]

# Lines the scanner models, drawn more often so that most documents are scanned.
PLAIN = [
    line
    for line in LINES
    if scan([line + "\n"]) is not None and scan(["- a fact\n", line + "\n"]) is not None
]


def agree(text: str) -> bool:
    """Whether the scanner answered; when it does, markdown-it's outline is the same."""
    lines = split_lines(text)
    fast = scan(lines)
    if fast is not None:
        slow = _parsed(lines)
        items = [(start, _trim(lines, start, end)) for start, end in slow.items]
        assert fast.headings == slow.headings
        assert list(fast.items) == items
        assert slow.code == ()
    return fast is not None


def _trim(lines: list[str], start: int, end: int) -> int:
    while end > start + 1 and not lines[end - 1].strip(" \t\n"):
        end -= 1
    return end


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(PLAIN * 6 + LINES), max_size=14))
@example(["- a fact", "", " one space"])
@example(["- a fact", " - sibling"])
@example(["- a fact", "  - # nested heading", "plain paragraph"])
@example(["- a fact", "", "      six spaces"])
@example(["plain paragraph", "---"])
def test_scanner_agrees_with_markdown_it(lines: list[str]) -> None:
    event("scanned" if agree("\n".join(lines) + "\n") else "left to markdown-it")


@pytest.mark.parametrize(
    "path",
    sorted(
        str(p.relative_to(ROOT))
        for p in [
            *ROOT.glob("examples/*/*/memory/continuity.md"),
            *ROOT.glob("examples/*/*/memory/archive/*-Q*.md"),
            *ROOT.glob("templates/memory/continuity.md"),
        ]
    ),
)
def test_memory_files_take_the_fast_path(path: str) -> None:
    from agent_memory.parse.facts import _mask

    text = (ROOT / path).read_text(encoding="utf-8")
    masked, _ = _mask(path, split_lines(text.lstrip("\ufeff")), [])
    assert agree("".join(masked)), "a plain memory file should not need markdown-it"


def test_scanner_agrees_on_every_markdown_file_in_the_project() -> None:
    """Real files, hand-written and hostile ones included: where the scanner answers, it agrees."""
    from agent_memory.parse.facts import _mask

    scanned = 0
    for path in sorted(ROOT.rglob("*.md")):
        if ".git" in path.parts:
            continue
        try:
            text = path.read_bytes().decode("utf-8").lstrip("\ufeff")
        except UnicodeDecodeError:
            continue  # the corpus's binary and broken files never reach the outline
        masked, _ = _mask(str(path), split_lines(text), [])
        scanned += agree("".join(masked))
    assert scanned > 30
