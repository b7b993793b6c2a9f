"""Managed blocks: the user's bytes outside the markers never change."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_memory.core.blocks import HTML_MARKERS, find_block, upsert_block
from agent_memory.core.install.disable import without_block
from agent_memory.core.plan import Outcome
from agent_memory.errors import InputError
from conftest import build_tree, cli, stats

TEMPLATE = b"<!-- agent-memory:begin -->\n@AGENTS.md\n<!-- agent-memory:end -->\n"
NEWER = b"<!-- agent-memory:begin -->\n@AGENTS.md\nnew line\n<!-- agent-memory:end -->\n"

user_text = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=200
).filter(lambda s: "agent-memory:" not in s)


@given(user_text, user_text)
def test_block_insert_and_replace_keep_user_text(head: str, tail: str) -> None:
    original = head.encode()
    added, outcome = upsert_block("X.md", original or None, TEMPLATE)
    if not original:
        assert added == TEMPLATE and outcome is Outcome.CREATED
        return
    assert added.startswith(original)
    # The user adds text after our block; a re-sync with a newer block keeps both sides.
    edited = added + tail.encode()
    lines = edited.decode().split("\n")
    begin = next(i for i, line in enumerate(lines) if line.strip() == "<!-- agent-memory:begin -->")
    refreshed, outcome = upsert_block("X.md", edited, NEWER)
    assert outcome is Outcome.BLOCK_UPDATED
    assert refreshed.startswith("\n".join(lines[:begin]).encode())
    assert refreshed.endswith(edited[edited.index(b"<!-- agent-memory:end -->") + 25 :])
    again, outcome = upsert_block("X.md", refreshed, NEWER)
    assert again == refreshed and outcome is Outcome.UNCHANGED


# Small files as enable finds them: a front matter, blank lines, a title, text; any ending.
part = st.sampled_from(["", "\n", "\n\n", "  \n"])
small_file = st.builds(
    lambda matter, lead, title, gap, body, tail, crlf, final: (
        (matter + lead + title + gap + body + tail).rstrip("\n") * (not final)
        or matter + lead + title + gap + body + tail
    ).replace("\n", "\r\n" if crlf else "\n"),
    st.sampled_from(["", "---\nname: x\n---\n"]),
    part,
    st.sampled_from(["", "# Agents\n"]),
    part,
    st.sampled_from(["", "- existing\n", "Text.\n\n- rule\n"]),
    part,
    st.booleans(),
    st.booleans(),
)


@given(small_file, st.booleans())
def test_taking_the_block_out_gives_back_the_bytes_it_went_into(text: str, top: bool) -> None:
    """disable after enable is lossless: the removal takes out exactly the blank line and the
    newline the insertion added, wherever the block went."""
    original = text.encode()
    if not text.strip():
        return  # a file with nothing but our block (and blank lines) goes with it
    added, _ = upsert_block("X.md", original, TEMPLATE, top=top)
    assert without_block("X.md", added, HTML_MARKERS) == original


@pytest.mark.parametrize(
    ("text", "line", "problem"),
    [
        ("<!-- agent-memory:begin -->\nx\n", 1, "not closed"),
        (
            "<!-- agent-memory:begin -->\n<!-- agent-memory:end -->\n"
            "<!-- agent-memory:begin -->\n<!-- agent-memory:end -->\n",
            3,
            "second",
        ),
        ("<!-- agent-memory:end -->\n<!-- agent-memory:begin -->\n", 1, "without a begin"),
    ],
)
def test_malformed_blocks_are_refused_with_the_line(text: str, line: int, problem: str) -> None:
    with pytest.raises(InputError) as info:
        find_block("AGENTS.md", tuple(text.splitlines(keepends=True)))
    assert info.value.line == line and problem in str(info.value)


def test_cli_refuses_a_file_with_two_blocks(repo: Path) -> None:
    root = repo
    build_tree(root, {"AGENTS.md": TEMPLATE.decode() * 2})
    before = stats(root)
    result = cli("enable", root)
    assert result.exit_code == 1
    assert "AGENTS.md:4:" in result.output
    assert stats(root) == before
