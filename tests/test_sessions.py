"""Session logs: the forgiving reader of Memory References, and the scanner vs markdown-it."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from agent_memory.parse.sessions import _read_refs, read_refs, reference_section


def refs(text: str) -> tuple[set[str], set[str]]:
    found = read_refs(text.encode())
    return set(found.used), set(found.created)


def test_only_the_real_heading_counts() -> None:
    log = (
        "# Session\n\nWe discussed the ## Memory References heading.\n\n"
        "```markdown\n## Memory References\n- Referenced: fake-one\n```\n\n"
        "## Memory References\n- Referenced: real-one\n\n## After\n- Referenced: later-one\n"
    )
    assert refs(log) == ({"real-one"}, set())


def test_the_forms_real_logs_use() -> None:
    log = (
        "## memory references\n"
        "- **Referenced:** `post-only-mutations`, webhook-fire-forget,graphql;drizzle\n"
        "- Created: graphql-gateway-added (tier: working)\n"
        "- referenced/updated: harvest-skill (the skill this refines, mostly); vision (serves)\n"
        "- Referenced and completed: closed-thread\n"
        "- Reactivated: none\n- Used: —\n- Touched: (n/a — nothing)\n- New: born-here\n"
        "- Archived: old-fact\n- Swept: old-thread\n"
        "- Referenced: wrapped-one,\n  wrapped-two\n"
        "- Touched: [[wiki-linked]], [[labelled-link|the label]] (see [[not-this-one]])\n"
        "This paragraph mentions re-tiering and post-hoc words.\n"
    )
    used, created = refs(log)
    assert used == {
        "post-only-mutations",
        "webhook-fire-forget",
        "graphql",
        "drizzle",
        "graphql-gateway-added",
        "harvest-skill",
        "vision",
        "closed-thread",
        "born-here",
        "wrapped-one",
        "wrapped-two",
        "wiki-linked",
        "labelled-link",
    }
    assert created == {"graphql-gateway-added", "born-here"}
    warnings = read_refs(log.encode()).warnings
    assert any("prose" in warning.message for warning in warnings)


def test_crlf_bom_and_garbage_never_crash() -> None:
    assert refs("\ufeff## Memory References\r\n- Referenced: a-b\r\n") == ({"a-b"}, set())
    assert read_refs(b"\xff\xfe## Memory References\n- Referenced: \x00\xc3\n").used == frozenset()


def _markdown_it_section(text: str) -> list[str] | None:
    """The reference section's lines as markdown-it sees it: top-level headings only, and the
    section runs to the next heading of its level or higher (its sub-headings are inside it)."""
    tokens = MarkdownIt("commonmark").parse(text)
    lines = text.split("\n")
    start = None
    level = 0
    for index, token in enumerate(tokens):
        if token.type != "heading_open" or token.level != 0 or token.markup.startswith(("=", "-")):
            continue
        assert token.map is not None
        if start is not None:
            if len(token.markup) > level:
                continue
            return lines[start : token.map[0]]
        if tokens[index + 1].content.strip().lower() == "memory references":
            start, level = token.map[1], len(token.markup)
    return None if start is None else lines[start:]


log_line = st.one_of(
    st.sampled_from(
        [
            "## Memory References",
            "# Session",
            "## What We Did",
            "```",
            "~~~",
            "````",
            "- Referenced: a-b, c",
            "- Created: d",
            "",
            "text",
            "    ## Memory References",
            "> ## Memory References",
            "``` python",
            "### Notes",
            "### Referenced",
            "#### Deeper",
            "  ```",
        ]
    ),
    st.text(alphabet="#`~ -abc", max_size=12),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(log_line, max_size=25))
def test_scanner_agrees_with_markdown_it(lines: list[str]) -> None:
    text = "\n".join(lines) + "\n"
    expected = _markdown_it_section(text)
    found = reference_section(text)
    if expected is None:
        assert found is None
    else:
        assert found is not None
        assert [line for line in found[1] if line.strip()] == [
            line for line in expected if line.strip()
        ]


reference_line = st.sampled_from(
    [
        "## Memory References",
        "## MEMORY REFERENCES ##",
        "## Memory Reference\u017f",  # long s: a case-insensitive match only in Unicode
        "### After",
        "### Referenced",
        "# Top",
        "- bare-id",
        "- Referenced: snake_case, Upper",
        "#not a heading",
        "- Referenced: a-b, c",
        "- Referenced: a-b,c,  d",
        "* Created: born-here",
        "+ Reactivated: back-again",
        "- Referenced: none",
        "- Referenced:",
        "- Archived: old-one",
        "- Used: non-canonical",
        "- Whatever: unknown-label",
        "- Referenced: a b",
        "- Referenced: `quoted`",
        "- Referenced: x (with a note)",
        "  continued-id",
        "- Referenced: Upper-Case",
        "prose line",
        "prose about memory references, twice: Memory References",
        "   ## Memory References",
        "    ## Memory References",
        "",
        "   ",
        "```",
        "\r",
        "\ufeff",
        "é",
    ]
)


@settings(max_examples=1500, deadline=None)
@given(st.lists(reference_line, max_size=12), st.booleans())
def test_fast_reader_agrees_with_the_general_one(lines: list[str], final_newline: bool) -> None:
    data = ("\n".join(lines) + ("\n" if final_newline else "")).encode()
    assert read_refs(data) == _read_refs(data)


def test_plain_logs_take_the_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    import agent_memory.parse.sessions as sessions

    def fail(data: bytes) -> sessions.SessionRefs:
        raise AssertionError("a plain log should not need the general reader")

    monkeypatch.setattr(sessions, "_read_refs", fail)
    log = b"# S\n\n## Memory References\n- Referenced: a-b, c\n- Created: d\n\n## Next\n- x\n"
    assert read_refs(log).used == {"a-b", "c", "d"}
    assert read_refs(log).created == {"d"}


def test_a_sub_heading_is_the_label_of_the_bullets_under_it() -> None:
    log = (
        "# Session\n\n## Memory References\n### Referenced\n- post-only-mutations\n"
        "- `webhook-fire` (why it mattered)\n\n### Created\n- graphql-gateway\n"
        "### Archived\n- old-thing\n\n## Memory Review (2026-01-01)\n- Referenced: not-this\n"
    )
    found = read_refs(log.encode())
    assert found.used == {"post-only-mutations", "webhook-fire", "graphql-gateway"}
    assert found.created == {"graphql-gateway"} and found.warnings == ()


def test_a_sub_heading_that_is_no_label_is_warned_never_dropped() -> None:
    log = "## Memory References\n- Referenced: a-b\n### Notes\n- c-d\n"
    found = read_refs(log.encode())
    assert found.used == {"a-b"}
    assert [w.line for w in found.warnings] == [3, 4]
    assert "sub-heading 'Notes' is not a label" in found.warnings[0].message


def test_segments_that_are_not_ids_are_kept_for_lint() -> None:
    log = "## Memory References\n- Referenced: bun-tooling, Proxy-Aware-Fetch, snapshot_update\n"
    found = read_refs(log.encode())
    assert found.used == {"bun-tooling"}
    assert [(w.line, w.token) for w in found.written] == [
        (2, "Proxy-Aware-Fetch"),
        (2, "snapshot_update"),
    ]
