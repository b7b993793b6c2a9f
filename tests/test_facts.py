"""Memory documents: lossless round trip, structure from markdown-it, and forgiving footers."""

from __future__ import annotations

import re
import time

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from agent_memory.core.review.edits import (
    Edit,
    append_to_section,
    append_to_sections,
    apply_edits,
    footer_edit,
)
from agent_memory.errors import InputError
from agent_memory.parse import facts, footer
from agent_memory.parse.text import Text
from conftest import PROJECT

FOOTER = "<!-- id: {id} | created: 2026-06-08 | last_used: 2026-06-12 | uses: 3 | tier: active -->"


def test_every_markdown_file_in_the_project_round_trips() -> None:
    paths = [
        *PROJECT.glob("*.md"),
        *PROJECT.glob("templates/**/*.md"),
        *PROJECT.glob("examples/**/*.md"),
    ]
    assert len(paths) > 10
    for path in paths:
        data = path.read_bytes()
        assert facts.parse(path.name, data).render() == data


def test_crlf_and_bom_round_trip_and_edit_only_the_footer_line() -> None:
    src = (
        "\ufeff# Continuity\r\n\r\n## Key Decisions\r\n- POST only\r\n  "
        + FOOTER.format(id="post-only")
        + "\r\n- other\r\n  "
        + FOOTER.format(id="other")
        + "\r\n"
    ).encode()
    doc = facts.parse("c.md", src)
    assert doc.render() == src
    fact = doc.facts[0]
    fields = dict(fact.fields) | {"uses": "4"}
    new = apply_edits(doc.text, [footer_edit(doc.text, fact, fields)]).encode()
    old_lines, new_lines = src.split(b"\n"), new.split(b"\n")
    changed = [i for i, (a, b) in enumerate(zip(old_lines, new_lines, strict=True)) if a != b]
    assert changed == [4]
    assert new_lines[4].endswith(b"uses: 4 | tier: active -->\r")


def test_footer_missing_its_close_is_one_error_and_later_facts_still_parse() -> None:
    body = "".join(f"- fact {i}\n  {FOOTER.format(id=f'fact-{i}')}\n" for i in range(20))
    src = ("## Key Decisions\n- broken\n  <!-- id: broken | created: 2026-06-08\n" + body).encode()
    doc = facts.parse("c.md", src)
    assert [(p.line, p.check) for p in doc.problems] == [(3, "footer-unclosed")]
    assert [f.id for f in doc.facts] == ["broken", *(f"fact-{i}" for i in range(20))]


def test_unclosed_plain_comment_does_not_swallow_the_file() -> None:
    src = b"## Key Decisions\n<!-- note to self\n- a\n  <!-- id: a -->\n- b\n  <!-- id: b -->\n"
    doc = facts.parse("c.md", src)
    assert [f.id for f in doc.facts] == ["a", "b"]
    assert [p.check for p in doc.problems] == ["comment-unclosed"]


def test_open_thread_with_sub_bullets_is_one_fact() -> None:
    src = (
        b"## Open Threads\n- [ ] Add rate limiting\n  - per key\n  - per IP\n"
        b"  <!-- id: rate-limit | created: 2026-06-10 -->\n- [x] Done thing\n"
    )
    doc = facts.parse("c.md", src)
    thread, done = doc.facts
    assert (thread.id, thread.task, thread.start, thread.end) == ("rate-limit", " ", 1, 5)
    assert thread.first_line == "Add rate limiting"
    assert done.task == "x" and done.id is None


def test_footer_on_the_bullet_line_and_fences_and_quotes_are_not_facts() -> None:
    src = (
        b"## Key Decisions\n- inline footer <!-- id: inline | uses: 2 -->\n"
        b"```\n- not a fact\n## Not a heading\n```\n> - quoted, not a fact\n"
        b"1. ordered, not a fact\n\n## Project State\n- last_review: (none yet)\n"
    )
    doc = facts.parse("c.md", src)
    assert [(f.id, f.first_line) for f in doc.facts] == [("inline", "inline footer")]
    assert [s.title for s in doc.sections] == ["Key Decisions", "Project State"]


def test_five_thousand_facts_parse_completely() -> None:
    body = "".join(
        f"- Fact number {i} about the system\n  {FOOTER.format(id=f'f-{i}')}\n" for i in range(5000)
    )
    doc = facts.parse("c.md", ("# Continuity\n\n## Key Decisions\n" + body).encode())
    assert len(doc.facts) == 5000 and not doc.problems
    assert doc.facts[-1].id == "f-4999" and doc.facts[-1].end == 3 + 2 * 5000


line_text = st.lists(
    st.sampled_from(
        [
            *"abc -*+#>`~[]x|:!<>\t\r",
            *("<!--", "-->", "id: a", "\ufeff", "- [ ] ", "see: a, b", "cites: /x@0"),
            *("valid-until: 2026-01-01", "cites: a.py:1-2@0123456789ab"),
        ]
    ),
    max_size=12,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(st.lists(line_text, max_size=30), st.booleans(), st.booleans())
@example(["## K", "- a <!-- id: a -->", "- b", "  <!-- id: b | uses: 1 -->"], True, False)
@example(["## K", "* [ ] t", "  - sub", "", "  <!-- id: t -->", "- last"], False, True)
def test_arbitrary_text_round_trips_and_never_crashes(
    lines: list[str], crlf: bool, final_newline: bool
) -> None:
    newline = "\r\n" if crlf else "\n"
    src = newline.join(lines) + (newline if final_newline and lines else "")
    data = src.encode()
    if src.count("\n") <= int(src.endswith("\n")) and "\r" in src.rstrip("\r\n"):
        with pytest.raises(InputError, match="classic Mac line endings"):
            facts.parse("c.md", data)  # CR-only line breaks: refused, never misread
        return
    try:
        doc = facts.parse("c.md", data)
    except InputError as exc:  # nested past markdown-it's limit: refused, never half read
        assert "too deeply" in str(exc)
        return
    assert doc.render() == data
    for fact in doc.facts:
        assert 0 <= fact.start < fact.end <= len(doc.text.lines)
        if fact.id is not None and not any(p.severity == "error" for p in doc.problems):
            # Rewriting one footer touches that footer's line only; the structure stays.
            edit = footer_edit(doc.text, fact, {**dict(fact.fields), "uses": "7"})
            edited = apply_edits(doc.text, [edit])
            assert edit.end - edit.start == 1 and len(edit.lines) == 1
            assert edited.lines[: edit.start] == doc.text.lines[: edit.start]
            assert edited.lines[edit.end :] == doc.text.lines[edit.end :]
            again = facts.parse_text("c.md", edited)
            assert [f.id for f in again.facts] == [f.id for f in doc.facts]
            assert next(f for f in again.facts if f.id == fact.id).field("uses") == "7"


def test_footers_shown_as_code_are_examples_not_footers() -> None:
    src = (
        b"# C\n\n> Footer format: `<!-- id: kebab-id | uses: N -->`\n\n## Key Decisions\n"
        b"- Write footers like `<!-- id: example -->` on their own line\n"
        b"  <!-- id: real | uses: 1 -->\n\n```markdown\n<!-- id: in-a-fence -->\n```\n"
    )
    doc = facts.parse("c.md", src)
    assert [f.id for f in doc.facts] == ["real"]
    assert doc.problems == ()


@settings(max_examples=2000, deadline=None)
@given(st.text(alphabet="<!->id: |x`\t", max_size=40))
@example("<!-- a <!--> id: b -->")
@example("<!-- note --> text <!-- id: x")
def test_footer_finder_is_the_footer_regex(line: str) -> None:
    match = footer.FOOTER.search(line)
    found = footer.find(line)
    if match is None:
        assert found is None
    else:
        assert found == footer.Found(
            match.start(), match.end(), match.group("body"), match.group("close") == "-->"
        )


def _spliced(text: Text, edits: list[Edit]) -> Text:
    """The model ``apply_edits`` must agree with: each edit spliced in, from the last line up
    (of two at one place, the one given first is spliced first, so the later one ends first)."""
    lines = list(text.lines)
    for edit in sorted(edits, key=lambda e: (e.start, e.end), reverse=True):
        lines[edit.start : edit.end] = edit.lines
    return Text(text.bom, tuple(lines))


@st.composite
def _edited(draw: st.DrawFn) -> tuple[Text, list[Edit]]:
    """A text and non-overlapping edits of it, insertions at one line included."""
    size = draw(st.integers(0, 12))
    text = Text(False, tuple(f"line {i}\n" for i in range(size)))
    cuts = sorted(draw(st.lists(st.integers(0, size), max_size=10)))
    edits = []
    for start, end in zip(cuts[::2], cuts[1::2], strict=False):
        new = tuple(f"new {start}-{end}-{k}\n" for k in range(draw(st.integers(0, 2))))
        edits.append(Edit(start, draw(st.sampled_from([start, end])), new))
    return text, draw(st.permutations(edits))


@settings(max_examples=500, deadline=None)
@given(_edited())
def test_edits_applied_in_one_pass_are_the_edits_spliced_one_by_one(
    case: tuple[Text, list[Edit]],
) -> None:
    text, edits = case
    assert apply_edits(text, edits) == _spliced(text, edits)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(["S0", "s0 ", "S1", "New", "new", "Other"]), max_size=6),
    st.booleans(),
)
def test_appends_to_many_sections_at_once_are_the_appends_made_one_by_one(
    titles: list[str], final_newline: bool
) -> None:
    src = "# C\n\n## S0\n- a\n\n## S1\n- b\n\n\n## S2\n- c"
    text = facts.parse("c.md", (src + ("\n" if final_newline else "")).encode()).text
    appends = [(title, [f"- moved {i}"]) for i, title in enumerate(titles)]
    one_by_one = text
    for title, lines in appends:
        one_by_one = append_to_section("c.md", one_by_one, title, lines)
    assert append_to_sections("c.md", text, appends) == one_by_one


def test_many_edits_apply_in_linear_time() -> None:
    """A review removing 100,000 facts spliced each out of a list, moving the rest of the file
    every time (2 s)."""
    text = Text(False, tuple(f"line {i}\n" for i in range(400_000)))
    edits = [Edit(4 * i, 4 * i + 2, ()) for i in range(100_000)]
    started = time.process_time()
    assert len(apply_edits(text, edits).lines) == 200_000
    assert time.process_time() - started < 1.0


_CONFLICT = re.compile(r"^(<{7}|\|{7}|>{7})(?: |$)|^={7}$")


def _markers(text: str) -> list[int]:
    """The lines the conflict check reports, by its pattern alone (a bare ``=======`` only
    inside a conflict), line by line."""
    found, inside = [], False
    for number, line in enumerate(text.splitlines(), 1):
        if _CONFLICT.match(line) and (line[:7] != "=======" or inside):
            inside = line[:7] != ">>>>>>>"
            found.append(number)
    return found


@given(
    st.lists(
        st.sampled_from(
            [
                "<<<<<<< ours",
                "=======",
                "||||||| base",
                ">>>>>>> theirs",
                "<<<<<<",
                "a =======",
                "========",
                "<<<<<<<",
                "text",
                "",
                "- <<<<<<< x",
            ]
        ),
        max_size=8,
    ).map("\n".join)
)
def test_conflict_markers_are_the_lines_the_pattern_matches(text: str) -> None:
    assert [p.line for p in facts.conflict_markers("m.md", text)] == _markers(text)


FRONT = "---\ntitle: x\n## Key Decisions\n- Frontmatter fake kafkafm\n  <!-- id: fm-fake -->\n---\n"


@settings(max_examples=300, deadline=None)
@given(
    st.lists(line_text.filter(lambda t: t.strip() not in ("---", "...")), max_size=8),
    st.lists(line_text, max_size=20),
)
@example(["title: x", "## Key Decisions", "- fake", "  <!-- id: fm-fake -->"], ["## K", "- a"])
def test_a_leading_front_matter_holds_no_section_fact_or_footer(
    matter: list[str], body: list[str]
) -> None:
    """Whatever a front matter holds, the document reads as its body alone after as many blank
    lines: the one block rule (``markdown.front_matter``) makes it opaque."""
    head = "\n".join(["---", *matter, "---"]) + "\n"
    text = "\n".join(body) + "\n"
    if "\r" in text or "\r" in head:
        return
    blank = "\n" * (len(matter) + 2)
    try:
        alone = facts.parse("c.md", (blank + text).encode())
    except InputError:
        return
    doc = facts.parse("c.md", (head + text).encode())
    assert doc.facts == alone.facts and doc.sections == alone.sections
    problems = [p for p in doc.problems if p.check != "conflict-marker"]
    assert problems == [p for p in alone.problems if p.check != "conflict-marker"]


@pytest.mark.parametrize("bom", [False, True])
@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_front_matter_facts_are_none_plain_bom_or_crlf(bom: bool, newline: str) -> None:
    body = "# C\n\n## Key Decisions\n- Real\n  <!-- id: real -->\n"
    data = ("\ufeff" * bom + (FRONT + body).replace("\n", newline)).encode()
    doc = facts.parse("c.md", data)
    assert [f.id for f in doc.facts] == ["real"] and doc.render() == data
    assert facts.fact_count("c.md", data) == 1
    assert [s.title for s in facts.sections_of("c.md", doc.text)] == ["Key Decisions"]
