"""Session logs: the forgiving reader of Memory References, and the scanner vs markdown-it."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from agent_memory.parse.markdown import front_matter
from agent_memory.parse.sessions import _read_refs, read_refs, reference_sections


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


def test_what_the_one_block_rule_hides_holds_no_section_and_no_use() -> None:
    log = (
        "---\ntitle: x\n## Memory References\n---\n"  # a front matter
        "<details>\n## Memory References\n- Referenced: in-html\n</details>\n\n"
        "## Memory References\n- Referenced: real-one\n"
        "~~~\n```\n- Referenced: in-a-tilde-fence\n~~~\n"  # a backtick run does not close it
        "- Created: after-the-fence\n"
    )
    assert [first for first, _ in reference_sections(log)] == [11]
    assert refs(log) == ({"real-one", "after-the-fence"}, {"after-the-fence"})


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


def _markdown_it_sections(text: str) -> list[list[str]]:
    """Every reference section's lines as markdown-it sees them: top-level headings only, and a
    section runs to the next heading of its level or higher (its sub-headings are inside it). A
    leading front matter, which CommonMark does not know, is blank lines to it."""
    lines = text.split("\n")
    matter = front_matter(lines)
    tokens = MarkdownIt("commonmark").parse("\n" * matter + "\n".join(lines[matter:]))
    sections = []
    start = None
    level = 0
    for index, token in enumerate(tokens):
        if token.type != "heading_open" or token.level != 0 or token.markup.startswith(("=", "-")):
            continue
        assert token.map is not None
        if start is not None:
            if len(token.markup) > level:
                continue
            sections.append(lines[start : token.map[0]])
            start = None
        if tokens[index + 1].content.strip().lower() == "memory references":
            start, level = token.map[1], len(token.markup)
    if start is not None:
        sections.append(lines[start:])
    return sections


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
            "- ```",
            "  - x",
            "<div>",  # HTML blocks (CommonMark's kinds 1 to 6) hide what they hold
            "</div>",
            "<!--",
            "-->",
            "<pre>",
            "---",  # a front matter, when the log opens with one
            "...",
        ]
    ),
    st.text(alphabet="#`~ -abc", max_size=12),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(log_line, max_size=25))
def test_scanner_agrees_with_markdown_it(lines: list[str]) -> None:
    text = "\n".join(lines) + "\n"
    expected = _markdown_it_sections(text)
    found = reference_sections(text)
    assert [[line for line in body if line.strip()] for _, body in found] == [
        [line for line in body if line.strip()] for body in expected
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
        "- Archived: Not An Id",
        "- Swept: a..b",
        "- Used: non-canonical",
        "- Whatever: unknown-label",
        "- Referenced: a b",
        "- Referenced: `quoted`",
        "- Referenced: x (with a note)",
        "  continued-id",
        "- Referenced: Upper-Case",
        "- Referenced: release-2.4.1-shipped, a.b",
        "- a-b — referenced (why; with a comma, too)",
        "- a.b (created, tier: working)",
        "- a-b — superseded (not a use)",
        "- Superseded: a-b → c",
        "- Superseded: a-b -> c, d->e",
        "- Superseded: (none)",
        "- Superseded: a-b",
        "(none — lightweight session)",
        "- (none — lightweight)",
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
        "<details>",  # an HTML block, and a front matter: the one block rule's
        "</details>",
        "  <!--",
        "-->",
        "---",
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


def test_the_hand_run_forms() -> None:
    """HANDRUN.md: id-first items, dotted ids, ``Superseded:`` pairs, lite logs, two sections."""
    log = (
        "# Session\n\n## Memory References\n(none — auto-stub; enrich later)\n\n"
        "## Enrichment\nLater.\n\n"
        "## Memory References\n"
        "- bp-companion-sync — referenced (test driven wholly over `/sync`)\n"
        "- ot-help-pages-rewrite — referenced (maintainer re-confirmed the errors;\n"
        "  walkthrough continues)\n"
        "- `release-4.6.2-shipped` (created, tier: working)\n"
        "- ot-done — completed (merged)\n"
        "- created: eric-release-rhythm (materialized from an earlier log)\n"
        "- old-idea — superseded (by the new one)\n"
        "- Superseded: cache-v1 → cache-v2, a.b -> c-d (why); (none)\n"
        "- (none — lightweight)\n"
    )
    found = read_refs(log.encode())
    assert found == _read_refs(log.encode())
    assert found.used == {
        "bp-companion-sync",
        "ot-help-pages-rewrite",
        "release-4.6.2-shipped",
        "ot-done",
        "eric-release-rhythm",
    }
    assert found.created == {"release-4.6.2-shipped", "eric-release-rhythm"}
    assert found.superseded == (("cache-v1", "cache-v2"), ("a.b", "c-d"))
    assert [w.line for w in found.warnings] == [16]  # "old-idea — superseded": not a use


def test_a_superseded_line_that_is_no_pair_is_a_warning() -> None:
    found = read_refs(b"## Memory References\n- Superseded: cache-v1\n- Superseded: 0\n")
    assert found.superseded == ()
    assert [w.message for w in found.warnings] == [
        "Superseded: 'cache-v1' is not 'old-id → new-id'; it is ignored"
    ]


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


def test_a_wiki_linked_id_first_item_counts_by_its_verb_and_linked_is_not_a_use() -> None:
    """As mercury-composable's release logs wrote them: the id as a wiki link, then its verb.
    ``linked`` says the new fact was related to that one (DECAY.md § Events): not a use."""
    log = (
        "# S\n\n## Memory References\n"
        "- [[release-4-8-1-shipped]] — created (release closure)\n"
        "- [[release-4-8-0-shipped]] — linked (twin-kafka architecture facts)\n"
        "- [[kafka-twin|the twin]] — referenced\n"
    )
    refs = read_refs(log.encode())
    assert refs.used == {"release-4-8-1-shipped", "kafka-twin"}
    assert refs.created == {"release-4-8-1-shipped"}
