"""The fast path of the memory parser (parse/scan_written.py) against the general parser."""

from __future__ import annotations

from unittest import mock

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from agent_memory.errors import InputError
from agent_memory.parse import facts, scan_written
from agent_memory.parse.footer import CANONICAL
from agent_memory.parse.text import decode


def general(data: bytes) -> facts.Document:
    """The document as the general parser reads it (the fast path switched off)."""
    with mock.patch.object(facts, "written", lambda _path, _text: None):
        return facts.parse("m.md", data)


def fast(data: bytes) -> facts.Document | None:
    return facts.written("m.md", decode("m.md", data))


ODD = ["2026-02-30", "1234567890", "01", "Active", "x\u00a0", "\u2003y", "a | b", "a <b>", "", " "]
SHAPES = {
    "id": ["fact-1", "release-2.4.1-shipped"],
    "date": ["2026-06-08", "2025-12-31"],
    "count": ["0", "12", "999999999"],
    "tier": ["archived", "archive-candidate", "superseded", "core"],
    "any": ["Key Decisions", "open-threads/t.md", "hand", "a: b", "a -- b", "why, and how"],
    "see": ["fact-1", "fact-1, release-2.4.1-shipped"],
    "cites": ["src/a.py:3-9@0123456789ab", "a b/c.md@abcdefabcdef, x.py:1-1@000000000000"],
}
# Values of the 5.1.0 fields that the general parser refuses: the fast path must decline them.
ODD_NEW = [
    "fact-1,,Bad_Id",
    "/etc/passwd@0123456789ab",
    "../up.py@0123456789ab",
    "a.py:9-3@0123456789ab",
    "a.py@012345",
    "a.py:0-2@0123456789ab",
    "fact-1 , fact-2",
]
TEXTS = ["Fact about the system", "**Bold** decision", "Fix #12 | and: more", "\u00e9 accent"]
ODD_TEXTS = [
    "trailing space ",
    "tab\there",
    "1. not a list",
    "`code`",
    "a <!-- b",
    "*",
    "",
    "a -->",
]
HEADINGS = ["# Archive 2026-Q2", "## Facts", "## Key Decisions", "## Project State", "## Done"]
ODD_LINES = [
    "- last_review: 2026-06-08 | through 2026-06-08-120000 | 3 logs",
    "## Completed Threads #",
    "##  Spaced",
    "## Trailing ",
    "### Deeper",
    "  continued",
    "plain paragraph",
    "```",
    "> quoted",
    "<!-- a comment -->",
    "<<<<<<< ours",
    "---",
    " ",
]


def documents(odd: bool) -> st.SearchStrategy[list[str]]:
    """Lines of a memory file in the shape the review writes; with ``odd``, now and then a
    line, value or spacing of another shape."""

    def mostly(usual: list[str], rare: list[str]) -> st.SearchStrategy[str]:
        if not odd:
            return st.sampled_from(usual)
        # One in ten rare: a mistake in every line of a file would leave no file the fast path
        # answers for.
        return st.integers(0, 9).flatmap(lambda n: st.sampled_from(rare if n == 7 else usual))

    def value(key: str) -> st.SearchStrategy[str]:
        if key in ("uses", "base_uses"):
            return mostly(SHAPES["count"], ODD)
        if key in ("created", "last_used", "done", "archived", "base_last_used", "valid-until"):
            return mostly(SHAPES["date"], ODD)
        if key in ("see", "cites"):
            return mostly(SHAPES[key], [*ODD, *ODD_NEW])
        return mostly(SHAPES.get(key, SHAPES["any"]), ODD)

    keys = mostly(list(CANONICAL[1:]), ["Uses", "colour", "tier ", "id"])
    footers = st.tuples(
        mostly(["<!-- "], ["<!--  ", "<!--", "<!-- ID: x | "]),
        value("id"),
        st.lists(keys, max_size=6, unique=True).flatmap(
            lambda ks: st.tuples(*(st.tuples(st.just(k), value(k)) for k in ks))
        ),
        mostly([" -->"], ["-->", "  -->", " | -->", ""]),
    ).map(
        lambda p: (
            p[0]
            + " | ".join(f"{k}: {v}" for k, v in [("id", p[1]), *sorted(p[2], key=_order)])
            + p[3]
        )
    )
    prefixes = mostly(["- ", "- [ ] ", "- [x] ", "- [X] "], ["* ", "-  ", "- [y] ", "-\t"])
    facts_ = st.tuples(
        prefixes, mostly(TEXTS, ODD_TEXTS), mostly(["  "], ["   ", "", "    ", "\t"]), footers
    ).map(lambda p: [p[0] + p[1], p[2] + p[3]])
    others = mostly(["", *HEADINGS], ODD_LINES).map(lambda line: [line])
    return st.lists(st.one_of(facts_, facts_, others), max_size=12).map(
        lambda blocks: ["## Facts", *(line for block in blocks for line in block)]
    )


def _order(pair: tuple[str, str]) -> int:
    return CANONICAL.index(pair[0]) if pair[0] in CANONICAL else len(CANONICAL)


def _archive(n: int) -> bytes:
    body = "".join(
        f"- [x] Thread {i}\n  <!-- id: t-{i} | created: 2026-01-0{1 + i % 9} | last_used: "
        f"2026-02-01 | uses: {i} | tier: archived | done: 2026-02-02 | from: open-threads/t.md "
        f"| archived: 2026-03-01 -->\n"
        for i in range(n)
    )
    return f"# Archive 2026-Q1\n\n## Facts\n\n## Completed Threads\n{body}".encode()


@pytest.mark.slow  # 1,500 documents: the crash matrix's stage, beside the default suite
@settings(max_examples=1500, deadline=None)
@given(documents(odd=True), st.booleans())
@example(["## Facts", "- A fact", "  <!-- id: a | tier: archived -->"], True)
@example(["## Project State", "- A fact", "  <!-- id: a -->"], True)
@example(["# Top", "- A fact", "  <!-- id: a -->"], True)
def test_the_fast_path_reads_what_the_general_parser_reads(lines: list[str], end: bool) -> None:
    data = ("\n".join(lines) + ("\n" if end else "")).encode()
    found = fast(data)
    if found is not None:
        assert found == general(data)


@settings(max_examples=500, deadline=None)
@given(documents(odd=False))
def test_the_fast_path_takes_the_shape_the_review_writes(lines: list[str]) -> None:
    data = "".join(f"{line}\n" for line in lines).encode()
    doc = general(data)
    # What the general parser reads without a problem, outside Project State, is that shape.
    if not doc.problems and not any(f.section == "Project State" for f in doc.facts):
        assert fast(data) == doc


def test_a_file_the_review_writes_takes_the_fast_path() -> None:
    data = _archive(50)
    doc = fast(data)
    assert doc is not None and doc == general(data)
    assert [f.id for f in doc.facts] == [f"t-{i}" for i in range(50)]
    assert doc.facts[0].task == "x" and doc.facts[0].section == "Completed Threads"
    continuity = (
        b"# Continuity\n\n## Project State\n- last_review: 2026-06-08 | through x | 3 logs\n\n"
        b"## Key Decisions\n- One\n  <!-- id: one | created: 2026-06-08 | last_used: 2026-06-08"
        b" | uses: 1 | tier: working -->\n"
    )
    assert fast(continuity) == general(continuity) != None  # noqa: E711


def test_any_other_shape_goes_to_the_general_parser() -> None:
    for data in (
        _archive(3).replace(b"2026-02-02", b"2026-02-30"),  # not a real date: a problem
        _archive(3).replace(b"tier: archived", b"tier: Archived"),
        _archive(3).replace(b"\n", b"\r\n"),
        _archive(3) + b"- Orphan\n",  # a bullet without a footer outside Project State
        _archive(3).rstrip(b"\n"),
    ):
        assert fast(data) is None
        assert facts.parse("m.md", data) == general(data)


def test_every_field_with_every_odd_value() -> None:
    for key in CANONICAL[1:]:
        for value in [*ODD, *(v for vs in SHAPES.values() for v in vs)]:
            data = f"## Facts\n- A fact\n  <!-- id: a | {key}: {value} -->\n".encode()
            found = fast(data)
            assert found is None or found == general(data), (key, value)


def test_only_a_file_long_enough_to_pay_for_it_takes_the_fast_path() -> None:
    def refuse(*_args: object) -> None:
        raise AssertionError("the other path was taken")

    long = _archive(facts.PLAIN_FROM // 2)
    expected = general(long)
    with mock.patch.object(facts, "_facts", refuse):
        assert facts.parse("m.md", long) == expected
    with mock.patch.object(facts.scan_written, "scan", refuse):
        assert len(facts.parse("m.md", _archive(3)).facts) == 3


# What ``count`` must not take for plain: text that opens a block, an HTML block or a code span,
# lines between a bullet and its comment, a comment of two lines.
COUNT_ODD = [
    "- - -",
    "- > quote",
    "- 1. one",
    "- # heading",
    "- <div>",
    "-",
    "- ",
    "  <!-- a",
    "  -->",
    "  <!-- x --> <!-- y -->",
    "  <!-- a > b -->",
    "  <!-- id: z -->",
    "<!-- id: top -->",
    "## Project State",
    "## project state",
    "## Project State #",
    "## Project State ",
    "# Archive",
    "#",
    "## ",
]


@pytest.mark.slow  # 1,500 documents: the crash matrix's stage, beside the default suite
@settings(max_examples=1500, deadline=None)
@given(
    st.one_of(documents(odd=True), st.lists(st.sampled_from([*COUNT_ODD, *ODD_LINES, "- A"]))),
    st.booleans(),
)
@example(["## Facts", "- A fact", "- - -", "- B"], True)
@example(["## Project State", "- A", "## Facts", "- B", "  <!-- note -->", "# Top", "- C"], True)
@example(["## Project State #", "- A"], True)  # a closing sequence is no part of the title
@example(["## Project State ", "- A"], True)
@example(["## Facts", "  <!-- a", "- B", "  <!-- b -->"], True)  # an HTML block holds "- B"
@example(["## Facts\r- A\r- B"], True)  # line breaks of CR alone: refused
@example(["## Facts", "- A\0"], True)  # binary: refused
def test_the_count_is_the_general_parsers(lines: list[str], end: bool) -> None:
    data = ("\n".join(lines) + ("\n" if end else "")).encode()
    try:
        expected: int | str = len(general(data).facts)
    except InputError as error:
        expected = str(error)
    found = scan_written.count(data)
    assert found is None or found == expected
    try:
        assert facts.fact_count("m.md", data) == expected
    except InputError as error:
        assert str(error) == expected


@settings(max_examples=300, deadline=None)
@given(documents(odd=False))
def test_the_count_takes_the_shape_the_review_writes(lines: list[str]) -> None:
    assert scan_written.count("".join(f"{line}\n" for line in lines).encode()) is not None
