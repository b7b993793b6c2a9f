"""The one Markdown block rule (parse/markdown.py): fences, HTML blocks and front matter, as
CommonMark reads them, for every line scanner."""

from __future__ import annotations

from hypothesis import assume, example, given
from hypothesis import strategies as st

from agent_memory.parse.markdown import (
    Block,
    blocks,
    closing,
    front_matter,
    headings,
    inside,
    opening,
)
from agent_memory.parse.outline import markdown

# Lines without indentation or containers, among them every kind of opaque block's start and
# end, so that blocks open, close and nest inside one another (HTML blocks of kinds 1 to 6: a
# lone tag of another name, kind 7, is read as text).
LINES = st.sampled_from(
    [
        "```", "````", "```md", "~~~", "~~~~", "``` a`b", "# heading", "text", "", "- item",
        "<!-- note", "-->", "<!-- one line -->", "<details>", "</details>", "<pre>", "x</pre>",
        "<script>", "y</script> z", "<?php", "?>", "<!DOCTYPE html>", "<![CDATA[", "]]>",
        "<div class=x>", "> quote", "***",
    ]
)  # fmt: skip


def markdown_it(lines: list[str]) -> tuple[tuple[int, int, str], ...]:
    tokens = markdown().parse("".join(line + "\n" for line in lines))
    kinds = {"fence": "fence", "html_block": "html"}
    return tuple(
        (t.map[0], t.map[1], kinds[t.type])
        for t in tokens
        if t.type in kinds and t.level == 0 and t.map is not None
    )


@given(st.lists(LINES, max_size=30))
def test_fences_and_html_blocks_are_where_markdown_it_puts_them(lines: list[str]) -> None:
    found = tuple((b.start, b.end, b.kind) for b in blocks(lines))
    # markdown-it ends a block's map at its last line; a trailing blank line is not in it.
    assert found == markdown_it(lines)


def test_front_matter_is_closed_or_none() -> None:
    assert front_matter(["---", "a: 1", "---", "# x"]) == 3
    assert front_matter(["---", "a: 1", "...", "# x"]) == 3
    assert front_matter(["---", "a thematic break, never closed"]) == 0
    assert front_matter(["text", "---", "a: 1", "---"]) == 0
    lines = ["---", "title: x", "---", "# h", "```", "# code", "```"]
    assert blocks(lines) == (Block(0, 3, "front matter"), Block(4, 7, "fence"))


def test_an_unclosed_fence_runs_to_the_end_and_is_hidden_only_when_asked() -> None:
    lines = ["a", "```", "# not a heading", "<!-- agent-memory:begin -->"]
    assert blocks(lines) == (Block(1, 4, "fence", closed=False),)
    assert inside(lines) == {1, 2, 3}
    assert inside(lines, ("fence",), unclosed=False) == set()


def test_a_tilde_fence_inside_a_backtick_fence_is_code() -> None:
    lines = ["```md", "~~~", "# inside", "~~~", "```", "# outside"]
    assert blocks(lines) == (Block(0, 5, "fence"),)
    assert 5 not in inside(lines)


# LINES, and lines a block rule leaves to a container or calls text that CommonMark may not:
# a lone tag (an HTML block of kind 7), indented fences and tags, front matter, footers and
# headings of every shape
MORE = st.one_of(
    LINES,
    st.sampled_from(
        [
            "<foo>", "</span>", "  ```", "   ~~~", "   <div>", "    <div>", "---", "...", "a: 1",
            "  <!-- id: a | tier: core -->", "  <!-- id: a", "Title", "===", "--", "- ", "#",
            "## h2", "##\th", " # h1", "### h3", "#5", "\t```",
        ]
    ),
)  # fmt: skip


@given(st.lists(MORE, max_size=30))
def test_no_line_is_in_a_block_when_none_before_it_may_open_one(lines: list[str]) -> None:
    """``opening``, a search of the bytes in C, finds no line later than the first that opens a
    block, markdown-it's fences and HTML blocks (of every kind) and front matter; ``headings``
    finds each heading of level 1 or 2 after the first line."""
    text = "".join(line + "\n" for line in lines)
    data, offsets = text.encode(), [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line.encode()) + 1)
    tokens = [t for t in markdown().parse(text) if t.level == 0 and t.map]
    spans = [(t.map[0], t.map[1]) for t in tokens if t.map and t.type in ("fence", "html_block")]
    spans.append((0, front_matter(lines)))
    first = opening(data)
    for n in range(len(lines)):
        if offsets[n] <= first:
            assert not any(a < n < b for a, b in spans), n
    starts = headings(data)
    for token in markdown().parse(text):
        if token.type == "heading_open" and token.level == 0 and token.tag in ("h1", "h2"):
            last = token.map[1] - 1 if token.map else 0  # an ATX line, or a setext underline
            assert last == 0 or offsets[last] in starts, last


def _heading_after(lines: list[str]) -> bool:
    """Whether markdown-it reads ``## Next`` after ``lines``, the line ``closing`` adds and a
    blank line, as a heading."""
    end = closing(lines)
    after = [*lines, *([end] if end else []), "", "## Next"]
    tokens = markdown().parse("".join(line + "\n" for line in after))
    heads = [n for n, t in enumerate(tokens) if t.type == "heading_open" and t.level == 0]
    return bool(heads) and tokens[heads[-1] + 1].content == "Next"


@given(st.lists(st.one_of(LINES, st.sampled_from(["  ```", "  code", "   ~~~ sh"])), max_size=30))
@example(["  ```", "margin"])
def test_the_closing_line_leaves_no_block_open_for_the_text_after(lines: list[str]) -> None:
    """What ``closing`` adds after a piece of text (a file's section in AGENTS.md) leaves
    nothing open: markdown-it reads the heading after it as a heading. Containers aside, as
    the block rule reads them (an indented fence under a list item: the test below)."""
    assume("- item" not in lines or not any(line[:1] == " " for line in lines))
    assume(not (lines and lines[0] == "---" and front_matter(lines)))  # only one at the top
    assert _heading_after(lines), lines


def test_a_fence_indented_under_an_item_ends_with_the_item() -> None:
    assert closing(["- item", "  ```sh", "  code"]) == "  ```"
    assert closing(["- item", "  ```", "  code", "margin"]) is None
    assert closing(["- item", "  ```", "margin", "<!-- open"]) == "-->"
    for lines in (["- item", "  ```sh", "  code"], ["- item", "  ```", "  code", "margin"]):
        assert _heading_after(lines)
