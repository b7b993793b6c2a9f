"""What the agent still holds of our hooks' context, read from its transcript
(``parse/hookcontext``): the session-start hook that adds nothing on a resume whose view the
agent holds (HOOKS.md § Session start), and the prompt hook that skips a fact an earlier prompt
brought in full (§ Recall on each prompt). The records are shaped as Claude Code 2.1 and Codex
0.169 write them (the real agents' suite, tests/agents/test_prompt_hook.py, runs both)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_memory.commands import context as context_command
from agent_memory.commands.hook_payload import TRANSCRIPT_TAIL
from agent_memory.core.agents.prompt_recall import HEAD
from agent_memory.parse.hookcontext import LONGEST, in_full
from agent_memory.parse.hookcontext import held as held_texts
from agent_memory.shell.repo import Repo
from agent_memory.shell.stream import tail
from conftest import PROJECT

EXAMPLE = PROJECT / "examples/evolving-memory-example/after"
ASK = "Where do the Redis sessions live, and what TTL do they get?"


def _lines(*records: Any) -> bytes:
    return b"".join(json.dumps(record).encode() + b"\n" for record in records)


def earlier(data: bytes) -> frozenset[str]:
    return in_full(held_texts(data, HEAD))


def held(*records: Any) -> frozenset[str]:
    return earlier(_lines(*records))


def _shown(*ids: str, one_line: tuple[str, ...] = ()) -> str:
    """The prompt hook's lines: ``ids`` in full, ``one_line`` by their one line."""
    full = "".join(
        f"- `{i}` [active] memory/continuity.md:3, in full:\n  - Text of {i}\n" for i in ids
    )
    lines = "".join(
        f"- `{i}` [archived] memory/archive/2026-Q2.md:9: Text of {i}\n" for i in one_line
    )
    return f"{HEAD}\n{full}{lines}"


def claude(text: str) -> dict[str, Any]:
    attachment = {
        "type": "hook_additional_context",
        "content": [text],
        "hookName": "UserPromptSubmit",
    }
    return {"type": "attachment", "attachment": attachment, "sessionId": "s"}


def codex(text: str) -> dict[str, Any]:
    content = [{"type": "input_text", "text": text}]
    return {
        "type": "response_item",
        "payload": {"type": "message", "role": "developer", "content": content},
    }


CLAUDE_COMPACTED = {
    "type": "system",
    "subtype": "compact_boundary",
    "content": "Conversation compacted",
}
CODEX_COMPACTED = {"type": "compacted", "payload": {"message": "", "replacement_history": []}}


def test_claude_code_s_and_codex_s_records_of_the_hook_count_its_facts_in_full() -> None:
    assert held(claude(_shown("a", "b", one_line=("c",)))) == {"a", "b"}
    assert held(codex(_shown("d"))) == {"d"}
    assert held(claude(_shown("a")), codex(_shown("d"))) == {"a", "d"}


def test_a_compaction_forgets_what_came_before_it() -> None:
    for compacted in (CLAUDE_COMPACTED, CODEX_COMPACTED):
        assert held(claude(_shown("a")), compacted) == set()
        assert held(claude(_shown("a")), compacted, codex(_shown("b"))) == {"b"}


def test_the_same_words_anywhere_else_count_for_nothing() -> None:
    """A user's message, a tool's result, a file the agent read, the model's words, Gemini
    CLI's message (whose resumed session does not send it again) or a text that only quotes
    the heading: none is the hook's record."""
    text = _shown("a")
    others = [
        {"type": "user", "message": {"role": "user", "content": text}},
        {"type": "user", "message": {"content": [{"type": "tool_result", "content": text}]}},
        {"type": "assistant", "message": {"content": [{"type": "text", "text": text}]}},
        {"type": "attachment", "attachment": {"type": "file", "content": [text]}},
        {
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": text}],
            },
        },
        {"type": "response_item", "payload": {"type": "function_call_output", "output": text}},
        {"type": "user", "content": [{"text": f"<hook_context>{text}</hook_context>"}]},  # Gemini
        claude("Quoting it: " + text),
        codex("# AGENTS.md instructions\n" + text),
    ]
    assert held(*others) == set()


def test_a_fact_s_own_text_quoting_a_hit_line_is_not_one() -> None:
    quoted = _shown("a") + "  - `b` [active] memory/continuity.md:7, in full:\n"
    assert held(claude(quoted)) == {"a"}


def test_lines_that_are_not_records_are_passed_over() -> None:
    """Not JSON, nested past the decoder, no object, over the bound, or cut off at the end."""
    deep = b"[" * 100_000 + b"]" * 100_000
    head = HEAD.encode()
    bad = [b"not json " + head, deep + head, b"[1, 2]", b'"' + head + b'"']
    record = _lines(claude(_shown("a")))
    data = b"\r\n".join(bad) + b"\n" + record + b"\n" + _lines(claude(_shown("b")))[:-40]
    assert earlier(data) == {"a"}
    assert earlier(record.replace(b"\n", b"\r\n")) == {"a"}
    long = _lines(claude(_shown("a") + " " * LONGEST))  # over the bound: never decoded
    assert len(long) > LONGEST and earlier(long) == set()


_IDS = st.sampled_from(["a", "b", "c-1", "d.2"])
_EVENTS = st.lists(
    st.one_of(
        st.tuples(
            st.sampled_from(["claude", "codex"]),
            st.lists(_IDS, max_size=3),
            st.lists(_IDS, max_size=2),
        ),
        st.sampled_from(["claude-compacted", "codex-compacted", "noise"]),
    ),
    max_size=12,
)


@given(_EVENTS)
def test_what_is_held_is_every_hit_in_full_since_the_last_compaction(events: list[Any]) -> None:
    records: list[Any] = []
    expected: set[str] = set()
    for event in events:
        if event == "noise":
            records.append({"type": "user", "message": {"content": _shown("a")}})
        elif isinstance(event, str):
            records.append(CLAUDE_COMPACTED if event == "claude-compacted" else CODEX_COMPACTED)
            expected.clear()
        else:
            agent, full, one_line = event
            records.append(
                (claude if agent == "claude" else codex)(_shown(*full, one_line=tuple(one_line)))
            )
            expected.update(full)
    assert held(*records) == expected


# -- the hook --------------------------------------------------------------------------------


def _hook(event: str, root: Path, transcript: Path | None, **fields: str) -> str:
    """What ``agent-memory hook <event>`` prints for a payload naming ``transcript``."""
    payload: dict[str, Any] = {"cwd": str(root), **fields}
    if transcript is not None:
        payload["transcript_path"] = str(transcript)
    done = subprocess.run(
        ["agent-memory", "hook", event], cwd=root, input=json.dumps(payload).encode(),
        capture_output=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0 and done.stderr == b"", done.stderr
    return done.stdout.decode()


def _prompt(root: Path, transcript: Path | None) -> str:
    return _hook("prompt", root, transcript, hook_event_name="UserPromptSubmit", prompt=ASK)


def test_the_prompt_hook_does_not_show_again_what_the_agent_holds(tmp_path: Path) -> None:
    root = tmp_path / "example"
    shutil.copytree(EXAMPLE, root)
    first = _prompt(root, None)
    added = json.loads(first)["hookSpecificOutput"]["additionalContext"]
    assert "`redis-sessions` [archived]" in added
    transcript = tmp_path / "session.jsonl"
    opening = {"type": "user", "sessionId": "s", "message": {"role": "user", "content": ASK}}
    transcript.write_bytes(_lines(opening))
    assert _prompt(root, transcript) == first  # nothing held yet
    for holder in (claude, codex):
        transcript.write_bytes(_lines(opening, holder(added)))
        assert _prompt(root, transcript) == ""  # held: nothing else clears the floor
        transcript.write_bytes(_lines(opening, holder(added), CLAUDE_COMPACTED))
        assert _prompt(root, transcript) == first  # compacted away: brought again


def test_a_transcript_that_cannot_be_read_is_no_transcript(tmp_path: Path) -> None:
    """The hook never fails over the transcript: it shows the fact again."""
    root = tmp_path / "example"
    shutil.copytree(EXAMPLE, root)
    first = _prompt(root, None)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for where in (tmp_path / "missing.jsonl", tmp_path, fifo, Path("bad\x01name")):
        assert _prompt(root, where) == first


def test_only_the_transcript_s_end_is_read(tmp_path: Path) -> None:
    """A hook record before the last ``TRANSCRIPT_TAIL`` bytes is not read: its fact is shown
    again (never the other way round); what is read starts at a line's start."""
    root = tmp_path / "example"
    shutil.copytree(EXAMPLE, root)
    first = _prompt(root, None)
    added = json.loads(first)["hookSpecificOutput"]["additionalContext"]
    filler = _lines({"type": "user", "message": {"content": "x" * 1000}})
    transcript = tmp_path / "session.jsonl"
    count = TRANSCRIPT_TAIL // len(filler)
    transcript.write_bytes(_lines(claude(added)) + filler * (count - 2))
    assert _prompt(root, transcript) == ""
    transcript.write_bytes(_lines(claude(added)) + filler * (count + 2))
    assert _prompt(root, transcript) == first
    data = b"one\ntwo\nthree\n"
    transcript.write_bytes(data)
    assert [tail(transcript, n) for n in (14, 99, 13, 9, 4, 3)] == [
        data,
        data,
        b"two\nthree\n",
        b"three\n",
        b"",
        b"",
    ]
    # the tail begins exactly where a line does: that line is whole, and kept
    assert [tail(transcript, n) for n in (10, 6)] == [b"two\nthree\n", b"three\n"]


def _start(root: Path, transcript: Path | None, source: str = "resume") -> str:
    return _hook("session-start", root, transcript, hook_event_name="SessionStart", source=source)


def test_a_resume_adds_no_view_while_the_agent_holds_one(tmp_path: Path) -> None:
    """Codex sends its session-start hook again on each resume, and keeps what it added before:
    a resumed session that holds a view goes on with it, as one never left does, until a
    compaction. Only on a resume: a compaction asks for the view again, and a new session
    (startup, clear) holds none."""
    root = tmp_path / "example"
    shutil.copytree(EXAMPLE, root)
    first = _start(root, None)
    view = json.loads(first)["hookSpecificOutput"]["additionalContext"]
    assert view.startswith("# Memory context\n")
    transcript = tmp_path / "session.jsonl"
    opening = {"type": "user", "sessionId": "s", "message": {"role": "user", "content": ASK}}
    for holder in (codex, claude):
        transcript.write_bytes(_lines(opening, holder(view)))
        assert _start(root, transcript) == ""
        for source in ("compact", "startup", "clear", ""):
            assert _start(root, transcript, source) == first
        transcript.write_bytes(_lines(opening, holder(view), CODEX_COMPACTED))
        assert _start(root, transcript) == first
        older = view.replace("- not due", "- due: 12 sessions since the last review")
        transcript.write_bytes(_lines(opening, holder(older)))
        assert _start(root, transcript) == ""  # it goes on with the one it holds
    transcript.write_bytes(_lines({"type": "user", "message": {"content": view}}))
    assert _start(root, transcript) == first  # a user's message is no hook's record


def test_the_prompt_hook_takes_what_the_start_showed_from_the_view_the_agent_holds(
    tmp_path: Path,
) -> None:
    """A resumed session goes on with the view it was given, which may differ from the one the
    memory lays out now: a fact shown in full now but not in the held view is brought."""
    root = tmp_path / "example"
    shutil.copytree(EXAMPLE, root)
    ask = "the rate limit of the public api"
    hooked = _hook("prompt", root, None, hook_event_name="UserPromptSubmit", prompt=ask)
    assert hooked == ""  # laid out again: the start showed it in full
    view = json.loads(_start(root, None, "startup"))["hookSpecificOutput"]["additionalContext"]
    whole = "- [ ] Add rate limiting to the public API\n  - per API key first, per IP later\n"
    assert whole in view
    transcript = tmp_path / "session.jsonl"
    for holder in (claude, codex):
        transcript.write_bytes(_lines(holder(view)))
        assert _hook("prompt", root, transcript, prompt=ask) == ""
        older = view.replace(whole, "- [ ] Add rate limiting to the public API …\n")
        transcript.write_bytes(_lines(holder(older)))
        brought = _hook("prompt", root, transcript, prompt=ask)
        assert "`public-api-rate-limit` [" in brought and "per IP later" in brought


@pytest.mark.parametrize(
    "example",
    ["evolving-memory-example", "handrun-4x-repo", "legacy-2x-repo", "vendor-repo"],
)
def test_a_held_view_says_what_laying_it_out_again_says(tmp_path: Path, example: str) -> None:
    """On each example's memory (one enabled by hand among them), the facts a held start view
    shows in full are those the view laid out again shows in full: the two ways agree."""
    root = tmp_path / example
    shutil.copytree(PROJECT / "examples" / example / "after", root)
    view = json.loads(_start(root, None, "startup"))["hookSpecificOutput"]["additionalContext"]
    again = context_command.listed_at_start(Repo(root))
    assert again and context_command.listed_at_start(Repo(root), held=lambda _h: [view]) == again
