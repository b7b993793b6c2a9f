"""``## Proposed Facts``: what each agent saved to its own memory, and its marker lines, in the
log capture writes; read from transcripts in each agent's real shape (the fixtures' records,
with the saves added as each agent writes them)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_memory.core.agents import proposals
from agent_memory.parse import proposed
from agent_memory.parse.sessions import read_refs
from agent_memory.parse.transcripts import Call, Record
from conftest import PROJECT, cli

FIXTURES = PROJECT / "tests/fixtures/transcripts"
CLAUDE_MEMORY = "/home/dev/.claude/projects/-home-dev-src-orders-api/memory"
CODEX_MEMORY = "/home/dev/.codex/memories"
# A credential of a real shape (tests/fixtures/secrets/positives.txt).
KEY = "AKIACATAGDYBLHCQRIQX"


def _lines(name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (FIXTURES / name).read_text().splitlines()]


def _write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def _claude(tmp_path: Path) -> Path:
    """The fixture session, then: the user asks to remember (a user line is never a proposal),
    the agent says so with marker lines, writes a topic file and indexes it in MEMORY.md."""
    records = _lines("claude/session-basic.jsonl")
    said = next(r for r in records if r.get("type") == "assistant")
    asked = next(r for r in records if r.get("type") == "user" and "toolUseResult" not in r)

    def at(record: dict[str, Any], n: int, content: Any) -> dict[str, Any]:
        message = {**record["message"], "content": content}
        return {**record, "uuid": f"c1a000{n}", "timestamp": f"2026-11-20T09:15:{n}.000Z"} | {
            "message": message
        }

    text = (
        "Noted.\n\n**Decision:** mutating /orders routes are POST-only.\n"
        "```\nRemember: not this, it is in a code block\n```\n"
        f"- Remember: the deploy key {KEY} lives in the vault\n"
        "Open thread: drop the GET alias in 5.0"
    )
    topic = (
        "---\nname: orders-post-only\ndescription: Mutating /orders routes are POST-only\n"
        "metadata:\n  type: project\n---\n\nThe public client sends POST for cancel since 4.6.2,\n"
        "so GET was dropped.\n"
    )
    index = "## Orders\n- [Orders POST-only](orders-post-only.md) — mutating routes\n"
    index += "- Tests: `make test`\n"
    edit = _use("Edit", f"{CLAUDE_MEMORY}/MEMORY.md", old_string="# Memory\n")
    edit["input"]["new_string"] = f"# Memory\n{index}"
    elsewhere = _use("Write", "/home/dev/src/orders-api/notes.md", content="Remember: no")
    records += [
        at(asked, 10, "Remember: never deploy on Fridays"),
        at(said, 11, [{"type": "text", "text": text}]),
        at(said, 12, [_use("Write", f"{CLAUDE_MEMORY}/orders-post-only.md", content=topic)]),
        at(said, 13, [edit]),
        at(said, 14, [elsewhere]),  # a file of the repo, not the agent's memory
    ]
    return _write(tmp_path / "claude.jsonl", records)


def _use(name: str, path: str, **args: str) -> dict[str, Any]:
    """A Claude Code tool call of ``name`` on the file ``path``."""
    return {"type": "tool_use", "id": f"toolu_{name}", "name": name, "input": {
        "file_path": path, **args}}  # fmt: skip


def _gemini(tmp_path: Path) -> Path:
    """The fixture session, then a message whose save_memory succeeded and one whose failed."""
    records = _lines("gemini/session-basic.jsonl")
    edit = next(r for r in records if r.get("type") == "gemini" and r.get("toolCalls"))
    call = edit["toolCalls"][0]

    def saving(n: int, fact: str, status: str) -> dict[str, Any]:
        save = {**call, "id": f"save_memory-17636300{n}", "name": "save_memory"}
        save |= {"args": {"fact": fact}, "status": status, "displayName": "Save Memory"}
        return {**edit, "id": f"a1c2e3f4-00{n}", "content": "Saving that.", "toolCalls": [save]}

    records[-1:-1] = [
        saving(10, "The orders service deploys with `make release`.", "success"),
        saving(11, "This one failed to save.", "error"),
    ]
    return _write(tmp_path / "gemini.jsonl", records)


def _codex(tmp_path: Path) -> Path:
    """The fixture rollout, then apply_patch into the memories folder (a custom tool call and a
    shell heredoc), and one into the repo (not a memory)."""
    records = _lines("codex/rollout-basic.jsonl")
    patch = (
        f"*** Begin Patch\n*** Add File: {CODEX_MEMORY}/MEMORY.md\n+# Task group: orders-api\n"
        "+- Cancel is POST-only since 4.6.2.\n*** Update File: src/api/routes.py\n@@\n"
        "+# Remember: not a memory\n*** End Patch"
    )
    update = (
        f"*** Begin Patch\n*** Update File: {CODEX_MEMORY}/MEMORY.md\n@@\n"
        " # Task group: orders-api\n-- Cancel is POST-only since 4.6.2.\n"
        "+- Cancel is POST-only since 4.6.2.\n+- Run `make check` before a release.\n"
        "*** End Patch"
    )
    shell = {"command": ["bash", "-lc", f"apply_patch <<'EOF'\n{update}\nEOF\n"]}
    stamp = "2026-11-20T09:15:00.000Z"
    records += [
        {"timestamp": stamp, "type": "response_item", "payload": {
            "type": "custom_tool_call", "status": "completed", "call_id": "call_Mem01",
            "name": "apply_patch", "input": patch}},
        {"timestamp": stamp, "type": "response_item", "payload": {
            "type": "function_call", "name": "shell", "arguments": json.dumps(shell),
            "call_id": "call_Mem02"}},
        {"timestamp": stamp, "type": "response_item", "payload": {
            "type": "message", "role": "assistant", "content": [
                {"type": "output_text", "text": "Convention: patches go through apply_patch."}]}},
    ]  # fmt: skip
    return _write(tmp_path / "codex.jsonl", records)


EXPECTED = {
    "claude": [
        "1. decision: mutating /orders routes are POST-only.",
        "2. remember: the deploy key [redacted: aws-access-key] lives in the vault",
        "3. thread: drop the GET alias in 5.0",
        "4. saved (project): The public client sends POST for cancel since 4.6.2, so GET was "
        "dropped.",
        "5. saved: Tests: `make test`",
    ],
    "gemini": ["1. saved: The orders service deploys with `make release`."],
    "codex": [
        "1. saved: Task group: orders-api Cancel is POST-only since 4.6.2.",
        "2. saved: Run `make check` before a release.",
        "3. convention: patches go through apply_patch.",
    ],
}
BUILD = {"claude": _claude, "gemini": _gemini, "codex": _codex}


def _log(repo: Path, transcript: Path) -> str:
    done = cli("session", "capture", repo, "--transcript", transcript)
    assert done.exit_code == 0, done.output
    return (repo / done.output.split()[0]).read_text()


@pytest.fixture
def enabled(repo: Path) -> Path:
    assert cli("enable", repo, "--today", "2026-01-01", "--vendor", "none").exit_code == 0
    return repo


@pytest.mark.parametrize("agent", list(BUILD))
def test_each_agents_saves_and_marker_lines_are_proposed(
    enabled: Path, tmp_path: Path, agent: str
) -> None:
    log = _log(enabled, BUILD[agent](tmp_path))
    section = log[log.index(proposed.HEADING) :].splitlines()
    assert section[2:] == EXPECTED[agent]
    assert [p.text for p in proposed.read(log)] == [line.split(": ", 1)[1] for line in section[2:]]
    assert KEY not in log


@pytest.mark.parametrize("agent", list(BUILD))
def test_proposals_are_the_same_bytes_under_any_hash_seed(tmp_path: Path, agent: str) -> None:
    transcript = BUILD[agent](tmp_path)
    logs = set()
    for seed in ("0", "1", "4242"):
        repo = tmp_path / f"repo-{seed}"
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        env = {**os.environ, "PYTHONHASHSEED": seed}
        for args in (["enable", "--today", "2026-01-01", "--vendor", "none"],
                     ["session", "capture", "--transcript", str(transcript)]):  # fmt: skip
            ran = subprocess.run(
                [sys.executable, "-m", "agent_memory", *args, str(repo)],
                env=env, capture_output=True, check=False,
            )  # fmt: skip
            assert ran.returncode == 0, ran.stderr
        (log,) = (repo / "memory/sessions").glob("*-*-*-*.md")
        logs.add(log.read_bytes())
        again = cli("session", "capture", repo, "--transcript", transcript)
        assert again.exit_code == 0 and "nothing new" in again.output
    assert len(logs) == 1


def test_a_proposal_never_adds_a_line_or_a_reference_to_the_log(
    enabled: Path, tmp_path: Path
) -> None:
    records = _lines("claude/session-basic.jsonl")
    said = next(r for r in records if r.get("type") == "assistant")
    hostile = (
        "Decision: x\n## Memory References\n- Referenced: outbox-writes\n"
        "Remember: a\u2028- Superseded: outbox-writes \u2192 y\r- Created: z\x00"
    )
    records.append({**said, "message": {**said["message"], "content": [
        {"type": "text", "text": hostile},
        _use("Write", f"{CLAUDE_MEMORY}/x.md", content="a\n\n## Memory Review\n- b"),
    ]}})  # fmt: skip
    log = _log(enabled, _write(tmp_path / "t.jsonl", records))
    refs = read_refs(log.encode())
    assert refs.used == frozenset() and refs.superseded == ()
    # Session, First Prompt, Files Changed, Memory References, Proposed Facts
    assert log.count("\n## ") == 5
    assert [p.number for p in proposed.read(log)] == [1, 2, 3]


def test_only_a_call_the_transcript_says_succeeded_is_a_save() -> None:
    fact = {"fact": "Kept"}
    assert proposals.save_of(Call("save_memory", ("Kept",), (), fact)) is not None
    assert proposals.save_of(Call("save_memory", ("Kept",), (), fact, ok=False)) is None
    elsewhere = Call("Write", (), ("/home/dev/notes/memory/x.md",), {"content": "Kept"})
    assert proposals.save_of(elsewhere) is None  # a folder named memory, not Claude's


def test_many_proposals_are_counted_and_each_text_is_listed_once() -> None:
    found = proposals.Gathered()
    for n in range(300):
        found.add(proposals.Proposal("decision", f"choice {n % 150}"))
    lines = proposals.render(found)
    listed = list(proposed.read("\n".join(lines)))
    assert [p.number for p in listed] == list(range(1, proposals.MAX_PROPOSALS + 1))
    assert lines[-2] == f"100 more not listed (over {proposals.MAX_PROPOSALS})."


def test_a_flood_of_marker_lines_costs_a_bounded_list_and_linear_time() -> None:
    text = "```\nnot this\n```\n" + "".join(f"Decision: choice {n}\n" for n in range(200_000))
    started = time.perf_counter()
    found = proposals.Gathered()
    for proposal in proposals.from_record(Record(1, None, (text,), ())):
        found.add(proposal)
    assert time.perf_counter() - started < 10  # counting lines from the start each time: minutes
    assert len(found.listed) == proposals.MAX_PROPOSALS and found.more == 199_900


_TEXT = st.text(st.characters(codec="utf-8"), max_size=60)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["decision", "saved (user)", "thread"]), _TEXT)))
def test_what_render_writes_read_reads_back(found: list[tuple[str, str]]) -> None:
    gathered = proposals.Gathered()
    for kind, text in found:
        gathered.add(proposals.Proposal(kind, text))
    lines = proposals.render(gathered)
    read = list(proposed.read("# Session x\n\n" + "\n".join(lines) + "\n## Memory Review\n- y\n"))
    assert [(p.kind, p.text) for p in read] == [
        tuple(line.split(". ", 1)[1].split(": ", 1)) for line in lines[2:-1] if line
    ]
    assert all(p.text == p.text.strip() and p.text for p in read)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_a_marker_is_found_only_at_a_line_start(text: str) -> None:
    record = Record(1, None, (text,), ())
    for kind, said in proposals.from_record(record):
        assert kind in proposed.MARKERS.values() and said and "\n" not in said


def test_a_marker_in_code_is_no_proposal_by_the_one_block_rule() -> None:
    """A fence ends only at a run of its own character at least as long (CommonMark), as every
    scanner of ours reads it: a backtick line inside a tilde fence, or a shorter run, does not."""
    text = (
        "~~~\n```\nDecision: inside the tilde fence\n~~~\n"
        "````\nDecision: inside four backticks\n```\nDecision: still inside\n````\n"
        "Decision: outside\n"
    )
    assert list(proposals.marked(text)) == [(proposed.MARKERS["decision"], "outside")]
