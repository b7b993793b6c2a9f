"""The review gate (DECAY.md § The review gate): with `agent_writes: propose`, no MCP tool and no
hook writes continuity.md or the archive; `memory_fact_add` becomes a proposal in the session's
own log, which a person lands with `fact accept`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from agent_memory.cli.mcp.tools import TOOLS, McpSession, call
from agent_memory.commands.runner import Journal
from agent_memory.core.agents.gate import with_proposal
from agent_memory.parse import policy, proposed
from conftest import PROJECT, build_tree, cli, git_init
from test_hook import _hook

DAY = "2026-03-02"
POLICY = "memory/decay-policy.md"
# A valid call of every tool that writes: a tool added later without a line here fails below.
CALLS: dict[str, dict[str, Any]] = {
    "memory_fact_add": {"text": "Deploys wait for CI"},
    "memory_fact_edit": {"id": "node", "text": "Builds pin Node 22"},
    "memory_fact_supersede": {"id": "node", "text": "Builds pin Node 24"},
    "memory_fact_retract": {"id": "node", "reason": "gone"},
    "memory_fact_forget": {"text": "builds pin node nvmrc"},
    "memory_fact_archive": {"id": "node"},
    "memory_fact_restore": {"id": "node"},
    "memory_fact_pin": {"id": "node"},
    "memory_fact_unpin": {"id": "node"},
    "memory_fact_expire": {"id": "node", "until": "2027-01-01"},
    "memory_fact_relate": {"id": "node", "other": "pnpm"},
    "memory_fact_cite": {"id": "node", "place": "README.md"},
    "memory_fact_recite": {"id": "node"},
    "memory_fact_accept": {"all": True},
    "memory_fact_reject": {"address": "2026-03-01-000000#1", "reason": "no"},
    "memory_fact_share": {"id": "node"},
}


@pytest.fixture
def gated(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    assert cli("enable", root, "--today", "2026-03-01").exit_code == 0
    for fact_id, text in (("node", "Builds pin Node 20 via nvmrc"), ("pnpm", "Use pnpm")):
        assert cli("fact", "add", text, "--id", fact_id, root, "--today", DAY).exit_code == 0
    build_tree(root, {"README.md": "# r\n"})
    propose(root)
    return root


def propose(root: Path) -> None:
    """``agent_writes: propose`` in the policy, before its documentation section."""
    policy_file = root / POLICY
    text = policy_file.read_text()
    gate = "## Review gate\n- agent_writes: propose\n\n## Never decays"
    policy_file.write_text(text.replace("## Never decays", gate))


def memory_bytes(root: Path) -> dict[str, bytes]:
    """continuity.md and every file of the archive: what the gate keeps from agents."""
    found = {"continuity": (root / "memory/continuity.md").read_bytes()}
    found |= {p.name: p.read_bytes() for p in sorted((root / "memory/archive").glob("*"))}
    return found


@pytest.mark.parametrize(
    ("value", "read", "errors"),
    [("direct", "direct", 0), ("propose", "propose", 0), ("Propose", "propose", 0),
     ("maybe", "propose", 1)],
)  # fmt: skip
def test_the_policy_key_fails_closed(value: str, read: str, errors: int) -> None:
    found, problems = policy.parse(f"- agent_writes: {value}\n".encode())
    assert found.agent_writes == read
    assert sum(p.severity == "error" for p in problems) == errors
    assert policy.parse(None)[0].agent_writes == "direct"


def test_no_mcp_tool_writes_the_memory_behind_the_gate(gated: Path) -> None:
    writing = {name for name, tool in TOOLS.items() if tool.journal is Journal.WRITES}
    assert writing == {*CALLS, "memory_reference"}
    before = memory_bytes(gated)
    session = McpSession(gated)
    for name, args in CALLS.items():
        done = call(session, name, args)
        if name == "memory_fact_add":
            assert done.result is not None, done.err
            assert done.result.report.summary["tier"] == "proposed"
        else:
            assert done.result is None and "agent_writes is propose" in done.err, name
        assert memory_bytes(gated) == before, name
    address = TOOLS and call(session, "memory_fact_add", {"text": "Ship on Fridays"})
    assert address.result is not None
    second = address.result.report.summary["id"]
    log = (gated / address.result.report.summary["log"]).read_text()
    assert [p.text for p in proposed.read(log)] == ["Deploys wait for CI", "Ship on Fridays"]
    assert second.endswith("#2")  # the session's own log, numbered on
    listed = cli("fact", "accept", gated, "--json")
    assert [p["text"] for p in json.loads(listed.stdout)["summary"]["pending"]] == [
        "Deploys wait for CI",
        "Ship on Fridays",
    ]
    assert cli("fact", "accept", second, gated).exit_code == 0  # a person lands it
    assert "Ship on Fridays" in (gated / "memory/continuity.md").read_text()


def test_a_proposal_is_redacted_and_one_line(gated: Path) -> None:
    secret = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    done = call(McpSession(gated), "memory_fact_add", {"text": f"token {secret}\n## Proposed"})
    assert done.result is not None
    log = (gated / done.result.report.summary["log"]).read_text()
    assert secret not in log and "[redacted: " in log
    assert [p.number for p in proposed.read(log)] == [1]
    assert "\n## Proposed\n" not in log.split(proposed.HEADING, 1)[1]


def test_with_proposal_numbers_on_after_the_last_one() -> None:
    log = f"# S\n\n{proposed.HEADING}\n\n1. remember: a\n\n## Notes\nx\n"
    after, number = with_proposal(log, "convention", "b")
    assert number == 2
    assert (
        after == f"# S\n\n{proposed.HEADING}\n\n1. remember: a\n2. convention: b\n\n## Notes\nx\n"
    )
    fresh, one = with_proposal("# S\n", "remember", "c")
    assert (fresh, one) == (f"# S\n\n{proposed.HEADING}\n\n1. remember: c\n", 1)


def test_direct_is_the_default_and_writes(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    assert cli("enable", root, "--today", "2026-03-01").exit_code == 0
    done = call(McpSession(root), "memory_fact_add", {"text": "Deploys wait for CI"})
    assert done.result is not None and done.result.report.summary["tier"] != "proposed"
    assert "Deploys wait for CI" in (root / "memory/continuity.md").read_text()


def test_the_session_start_hook_runs_no_review_behind_the_gate(tmp_path: Path) -> None:
    root = tmp_path / "example"
    shutil.copytree(PROJECT / "examples/evolving-memory-example/before", root)
    git_init(root)
    assert cli("review", root, "--check").exit_code == 1  # a review is due there
    propose(root)
    before = memory_bytes(root)
    payload = json.dumps({"cwd": str(root), "hook_event_name": "SessionStart"})
    done = _hook("session-start", payload, root)
    assert done.returncode == 0, done.stderr
    assert memory_bytes(root) == before
    assert cli("review", root, "--check").exit_code == 1  # still due: a person runs it


@pytest.mark.parametrize(
    ("event", "name"),
    [("pre-compact", "PreCompact"), ("session-end", "SessionEnd"), ("prompt", "UserPromptSubmit")],
)
def test_no_other_hook_writes_the_memory_behind_the_gate(
    gated: Path, event: str, name: str
) -> None:
    """The capture hooks write the session's log (its proposals in it), never a fact."""
    transcript = PROJECT / "tests/fixtures/transcripts/claude/session-basic.jsonl"
    before = memory_bytes(gated)
    payload = {"cwd": str(gated), "hook_event_name": name, "session_id": "7d3f2c1e",
               "transcript_path": str(transcript), "prompt": "builds pin node"}  # fmt: skip
    done = _hook(event, json.dumps(payload), gated)
    assert done.returncode == 0, done.stderr
    assert memory_bytes(gated) == before


def test_review_if_due_reviews_nothing_behind_the_gate(tmp_path: Path) -> None:
    """5.0.0's hooks, and any a team wrote, run `review --if-due` themselves: behind the gate it
    says a review is due and writes nothing; a person's `review` still reviews."""
    root = tmp_path / "example"
    shutil.copytree(PROJECT / "examples/evolving-memory-example/before", root)
    propose(root)
    before = memory_bytes(root)
    done = cli("review", root, "--if-due", "--json")
    assert done.exit_code == 0
    summary = json.loads(done.output)["summary"]
    assert summary["due"] and summary["held"] == "agent_writes is propose"
    assert memory_bytes(root) == before
    assert cli("review", root).exit_code == 0
    assert memory_bytes(root) != before
