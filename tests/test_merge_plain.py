"""The merge's line scan (parse/scan_plain.py) answers what the full parser does, or refuses."""

from __future__ import annotations

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from agent_memory.errors import InputError
from agent_memory.parse import facts, scan_plain
from agent_memory.parse.text import Text, decode

FOOTER = "<!-- id: {fid} | created: 2026-01-05 | last_used: 2026-01-09 | uses: 3 | tier: active -->"

# Line shapes real continuity.md files have, and the near misses that change their meaning.
PLAIN_LINES = [
    "# Continuity",
    "## Project State",
    "- last_review: 2026-01-09 | through 2026-01-09-101500 | 4 logs",
    "- **last_review:** 2026-01-09",
    "## Key Decisions",
    "## Open Threads",
    "### Notes",
    "- Use Postgres for the queue",
    "- **Outbox:** every write goes through the outbox table",
    "- `make check` runs the whole gate",
    "- [ ] Add rate limiting to the public API",
    "- [x] Ship the migration",
    "* Star bullets are facts too",
    "+ So are plus bullets",
    "- 2026 budget is fixed",
    "- (see the ADR) keep the API small",
    "  " + FOOTER.format(fid="a"),
    "  " + FOOTER.format(fid="b"),
    "    " + FOOTER.format(fid="c"),
    "- Inline footer " + FOOTER.format(fid="d"),
    "  <!-- id: p | created: 2026-01-05 | last_used: 2026-02-01 | uses: 0 | tier: archived | "
    "from: key-decisions | archived: 2026-03-01 -->",
    "  <!-- id: q | created: 2026-01-05 | last_used: 2026-02-01 | uses: 2 | tier: working | "
    "done: 2026-02-01 -->",
    "  continued under the bullet",
    "  - a nested point",
    "    deeper text",
    "Prose between the facts.",
    "",
    "  ",
]
NEAR_MISSES = [
    "##",
    "## ",
    "## Closed #",
    "#Heading",
    "####### seven",
    "- - -",
    "---",
    "***",
    "===",
    "1. ordered",
    "  1) nested ordered",
    "> quoted",
    "```",
    "  ```",
    "~~~",
    "<!-- a comment -->",
    "<!-- unclosed",
    "still inside -->",
    "<div>",
    "- ",
    "-no space",
    "-\tTabbed",
    "- [ ]",
    "[ref]: https://example.com",
    "*emphasis* at the start",
    "lazy continuation",
    " one space",
    "      six spaces",
    "        eight spaces",
    "\tTab indented",
    "  <!-- id: e | created: 2026-13-45 | uses: 3 -->",
    "  <!-- id: f | uses: 3 | colour: red -->",
    "  <!--id: g | uses: 3-->",
    "  <!-- id: h | uses: 3 | uses: 4 -->",
    "  <!-- id: Bad_Id | uses: 3 -->",
    "  <!-- id: i | uses: 3 --> trailing",
    "  <!-- note: no id here -->",
    "  `<!-- id: j | uses: 1 -->`",
    "- code `<!-- id: k | uses: 1 -->` shown",
    "- two " + FOOTER.format(fid="l") + " " + FOOTER.format(fid="m"),
    "<<<<<<< ours",
    "=======",
    ">>>>>>> theirs",
    "- text with a stray\r carriage return",
    "  <!-- id: n | uses:  3 -->",
    "  <!-- id: o | tier: -->",
]
ENDINGS = st.sampled_from(["\n", "\n", "\n", "\r\n"])


@st.composite
def documents(draw: st.DrawFn, misses: int) -> Text:
    """Plain lines, with up to ``misses`` near misses put among them."""
    picked = draw(st.lists(st.tuples(st.sampled_from(PLAIN_LINES), ENDINGS), max_size=30))
    for _ in range(draw(st.integers(0, misses))):
        at = draw(st.integers(0, len(picked)))
        picked.insert(at, (draw(st.sampled_from(NEAR_MISSES)), draw(ENDINGS)))
    body = "".join(line + ending for line, ending in picked)
    if picked and draw(st.booleans()):
        body = body.rstrip("\r\n")  # no final newline
    return decode("memory/continuity.md", body.encode())


def _agrees(text: Text) -> bool:
    scanned = scan_plain.scan("memory/continuity.md", text)
    event("scanned" if scanned is not None else "refused")
    try:
        parsed = facts.parse_text("memory/continuity.md", text)
    except InputError:
        assert scanned is None
        with pytest.raises(InputError):
            scan_plain.read("memory/continuity.md", text)
        return False
    if scanned is not None:
        assert scanned == parsed
    assert scan_plain.read("memory/continuity.md", text) == parsed
    return scanned is not None


@settings(max_examples=500, deadline=None)
@given(documents(misses=2))
def test_the_scan_answers_what_the_parser_does_or_refuses(text: Text) -> None:
    _agrees(text)


@settings(max_examples=300, deadline=None)
@given(documents(misses=0))
def test_the_scan_answers_for_plain_files(text: Text) -> None:
    """On the plain shapes alone it refuses only what the parser would complain of (two
    footers in one fact, a footer outside any fact, a lazy line, an h1 after a section)."""
    scanned = _agrees(text)
    if not scanned:
        assert facts.parse_text("memory/continuity.md", text).problems or _shape_refused(text)


def _shape_refused(text: Text) -> bool:
    """Shapes the scan leaves to the parser although it would read them without a finding."""
    lines = [line.rstrip("\r\n") for line in text.lines]
    seen_section = False
    for index, line in enumerate(lines):
        previous = lines[index - 1] if index else ""
        if line.startswith("## "):
            seen_section = True
        if line.startswith("# ") and seen_section:
            return True
        starts_block = line[:1] in ("", " ", "#", "-", "*", "+")
        if not starts_block and previous[:1] in ("-", "*", "+", " ") and previous.strip():
            return True  # a lazy line, or prose under an indented one
        indented = line.startswith(" ") and line.strip()
        if indented and (not previous.strip() or previous[:1] not in ("-", "*", "+", " ")):
            return True
    return False


def test_the_scan_reads_the_template_and_a_real_shaped_file() -> None:
    text = (
        "# Continuity\n\n## Project State\n- last_review: 2026-06-20 | through "
        "2026-06-20-101500 | 12 logs\n\n## Architectural Invariants\n"
        "- All writes go through the outbox table\n  " + FOOTER.format(fid="outbox") + "\n\n"
        "## Open Threads\n- [ ] Add rate limiting\n  " + FOOTER.format(fid="rate") + "\n"
    )
    decoded = decode("memory/continuity.md", text.encode())
    scanned = scan_plain.scan("memory/continuity.md", decoded)
    assert scanned is not None
    assert scanned == facts.parse_text("memory/continuity.md", decoded)
    assert [f.id for f in scanned.facts] == ["outbox", "rate"]
