"""The first prompt a session log records: what a replay's view takes as its task."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_memory.parse.sessions import first_prompt
from agent_memory.parse.untrusted import one_line

WORDS = (
    st.text(
        st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp"), blacklist_characters="\\"),
        min_size=1,
        max_size=20,
    )
    .map(str.strip)
    .filter(bool)
)
# a prompt of words joined by what one_line escapes, so its ends are words
PROMPTS = (
    st.lists(
        st.tuples(WORDS, st.sampled_from((" ", "\n", "\t", "\x00", "\u2028", "\x85"))),
        min_size=1,
        max_size=6,
    )
    .map(lambda parts: "".join(w + sep for w, sep in parts[:-1]) + parts[-1][0])
    .filter(lambda t: not re.match(r" {0,3}#{1,2}(?:[ \t]|$)", t))
)


@settings(max_examples=300, deadline=None)
@given(PROMPTS, st.text(max_size=60), st.booleans())
def test_a_prompt_written_as_a_log_line_is_read_back(prompt: str, before: str, crlf: bool) -> None:
    """Escaped as capture writes every log line, anywhere in the log, read back as it was."""
    # the log's text before it opens no block (a fence or a <pre> there would hide the section)
    head = one_line(before.translate({ord(c): None for c in "#`~<"}).lower())
    head = head.replace("first prompt", "")
    log = f"# Session\n\n{head}\n\n## First Prompt\n\n{one_line(prompt)}\n\n## Files\n"
    if crlf:
        log = log.replace("\n", "\r\n")
    assert first_prompt(log) == prompt


def test_no_section_an_empty_one_or_one_ended_by_a_heading_gives_no_prompt() -> None:
    assert first_prompt("# Session\n\n## Memory References\n- Referenced: a\n") is None
    assert first_prompt("## First Prompt\n\n\n") is None
    assert first_prompt("## First Prompt\n\n## Memory References\n- Referenced: a\n") is None
    assert first_prompt("### First Prompt\n\nnot the section\n") is None


def test_the_first_non_empty_line_of_the_section_is_the_prompt() -> None:
    log = "# Session\n\n## Session\n- agent: claude\n\n##  first prompt  ##\n\n"
    log += "  Fix the `outbox` retry  \nmore\n"
    assert first_prompt(log) == "Fix the `outbox` retry"
    assert first_prompt("## First Prompt\n### Sub\nx\n") == "### Sub"  # one line, whatever it holds


def test_escapes_are_undone_and_a_lone_surrogate_becomes_a_replacement() -> None:
    written = one_line("line one\nline two\u2028\udc80 \x7f")
    assert "\n" not in written
    assert first_prompt(f"## First Prompt\n\n{written}\n") == "line one\nline two\u2028\ufffd \x7f"


OPENERS = ("```", "~~~~", "<details>", "<pre>", "<!--")


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(OPENERS), st.from_regex(r"[a-z][a-z ]{0,29}", fullmatch=True), PROMPTS)
def test_a_first_prompt_inside_a_block_is_the_log_s_text_not_its_prompt(
    opener: str, inside: str, prompt: str
) -> None:
    """REVIEW.md § Inputs: a ``## First Prompt`` in a fence, an HTML block or a front matter
    opens no section, as a ``## Memory References`` there does not; one after the block does."""
    held = f"{opener}\n{inside}\n## First Prompt\n\nFrom the example\n"
    log = f"# Session\n\n## Memory References\n- Referenced: a\n\n{held}"
    assert first_prompt(log) is None
    closing = {"```": "```", "~~~~": "~~~~", "<pre>": "</pre>", "<!--": "-->"}.get(opener, "")
    log += f"{closing}\n\n## First Prompt\n\n{one_line(prompt)}\n"
    assert first_prompt(log) == prompt
    front = "---\n## First Prompt\nFrom the front matter\n---\n# Session\n"
    assert first_prompt(front) is None
    assert first_prompt("\ufeff" + front + f"## First Prompt\n{one_line(prompt)}\n") == prompt
