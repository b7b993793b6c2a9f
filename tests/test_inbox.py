"""The proposals inbox (DECAY.md § The review gate): `agent-memory proposals` lists what waits,
`fact reject LOG#N --reason` appends to the committed memory/rejected.md, a rejected proposal
waits no more and its text is not proposed again, and `context` counts what waits."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_memory.cli.mcp.tools import McpSession, call
from agent_memory.core.agents.inbox import Rejection, appended, rejections
from conftest import PROJECT, cli, tree
from test_gate import propose

DAY = "2026-03-02"
LATER = "2026-12-01"  # after the fixture transcript's day


@pytest.fixture
def waiting(tmp_path: Path) -> tuple[Path, list[str]]:
    """A gated repo whose agent proposed three facts over MCP, one much like a fact held."""
    root = tmp_path / "repo"
    root.mkdir()
    assert cli("enable", root, "--today", "2026-03-01").exit_code == 0
    assert cli("fact", "add", "Use pnpm for every package", "--id", "pnpm", root).exit_code == 0
    propose(root)
    session = McpSession(root)
    addresses = []
    for text in ("Deploys wait for CI", "Ship on Fridays", "Use pnpm for every package install"):
        done = call(session, "memory_fact_add", {"text": text})
        assert done.result is not None, done.err
        addresses.append(done.result.report.summary["id"])
    return root, addresses


def test_proposals_lists_what_waits_with_similar_facts(waiting: tuple[Path, list[str]]) -> None:
    root, addresses = waiting
    listed = json.loads(cli("proposals", root, "--json").stdout)["summary"]["proposals"]
    assert [p["address"] for p in listed] == addresses
    assert [p["similar"] for p in listed] == [[], [], ["pnpm"]]
    assert {p["log"] for p in listed} == {addresses[0].split("#")[0] + ".md"}
    text = cli("proposals", root).stdout
    assert f"{addresses[1]}  remember: Ship on Fridays" in text and "3 proposals wait" in text
    over_mcp = call(McpSession(root), "memory_proposals", {})
    assert over_mcp.result is not None
    assert over_mcp.result.report.summary["proposals"] == listed
    assert "3 proposed facts wait" in cli("context", root).stdout


def test_a_rejection_is_appended_and_closes_the_proposal(waiting: tuple[Path, list[str]]) -> None:
    root, addresses = waiting
    before = tree(root)
    dry = cli("fact", "reject", addresses[1], "--reason", "we ship any day", root, "--dry-run")
    assert dry.exit_code == 0 and tree(root) == before
    assert cli("fact", "reject", addresses[1], "--reason", "we ship any day", root).exit_code == 0
    rejected = (root / "memory/rejected.md").read_text()
    assert f"- {addresses[1]} | " in rejected and "  reason: we ship any day\n" in rejected
    listed = json.loads(cli("proposals", root, "--json").stdout)["summary"]["proposals"]
    assert [p["address"] for p in listed] == [addresses[0], addresses[2]]
    assert "2 proposed facts wait" in cli("context", root).stdout
    pending = json.loads(cli("fact", "accept", root, "--json").stdout)["summary"]["pending"]
    assert [p["address"] for p in pending] == [addresses[0], addresses[2]]
    again = cli("fact", "reject", addresses[1], "--reason", "twice", root)
    assert again.exit_code == 1 and "was rejected on" in again.output
    assert cli("fact", "reject", addresses[0], "--reason", "not now", root).exit_code == 0
    grown = (root / "memory/rejected.md").read_text()
    assert grown.startswith(rejected)  # append-only
    refused = call(McpSession(root), "memory_fact_add", {"text": "ship on fridays!"})
    assert refused.result is None and f"rejected this proposal before ({addresses[1]}" in (
        refused.err
    )


def test_an_agent_cannot_reject_behind_the_gate(waiting: tuple[Path, list[str]]) -> None:
    root, addresses = waiting
    done = call(McpSession(root), "memory_fact_reject", {"address": addresses[0], "reason": "x"})
    assert done.result is None and "agent_writes is propose" in done.err
    assert not (root / "memory/rejected.md").exists()


def test_reject_refuses_a_bad_address_or_reason(waiting: tuple[Path, list[str]]) -> None:
    root, addresses = waiting
    before = tree(root)
    for args in (["nope", "--reason", "x"], [addresses[0], "--reason", "a\x07b"],
                 [addresses[0].replace("#1", "#9"), "--reason", "x"]):  # fmt: skip
        done = cli("fact", "reject", *args, root)
        assert done.exit_code == 1 and len(done.output.strip().splitlines()) == 1
    assert tree(root) == before


def test_the_rejection_file_is_committed(waiting: tuple[Path, list[str]]) -> None:
    root, addresses = waiting
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    assert cli("fact", "reject", addresses[0], "--reason", "no", root).exit_code == 0
    ignored = subprocess.run(["git", "check-ignore", "-q", "memory/rejected.md"], cwd=root)
    assert ignored.returncode == 1  # not ignored: the team shares it


def test_rejections_on_two_branches_merge_without_a_conflict(
    waiting: tuple[Path, list[str]],
) -> None:
    """memory/rejected.md is append-only: git's union driver (the .gitattributes block) keeps
    both branches' lines."""
    root, addresses = waiting

    def git(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
            cwd=root, capture_output=True, text=True, check=False,
        )  # fmt: skip

    git("init", "-q", "-b", "main")
    assert cli("fact", "reject", addresses[0], "--reason", "first", root).exit_code == 0
    git("add", "-A")
    git("commit", "-qm", "base")
    git("checkout", "-qb", "other")
    assert cli("fact", "reject", addresses[1], "--reason", "theirs", root).exit_code == 0
    git("commit", "-qam", "other")
    git("checkout", "-q", "main")
    assert cli("fact", "reject", addresses[2], "--reason", "ours", root).exit_code == 0
    git("commit", "-qam", "main")
    merged = git("merge", "-q", "other", "-m", "merge")
    assert merged.returncode == 0, merged.stdout + merged.stderr
    found = [r.address for r in rejections((root / "memory/rejected.md").read_text())]
    assert sorted(found) == sorted(addresses)


@given(
    st.lists(
        st.tuples(st.text(min_size=1, max_size=40), st.text(min_size=1, max_size=40)),
        max_size=5,
    )
)
def test_rejections_read_back_what_was_appended(items: list[tuple[str, str]]) -> None:
    text: str | None = None
    for n, (said, why) in enumerate(items, 1):
        text = appended(text, Rejection(f"2026-03-01-000000#{n}", DAY, said, why))
    found = rejections(text or "")
    assert [r.address for r in found] == [
        f"2026-03-01-000000#{n}" for n in range(1, len(items) + 1)
    ]


def test_reject_never_copies_a_credential_into_the_committed_file(
    waiting: tuple[Path, list[str]],
) -> None:
    """rejected.md is committed: a key in the reason is refused, one in the proposal (a hand-
    written log's, which capture did not scrub) is recorded redacted, and lint sees the file."""
    root, addresses = waiting
    aws, token = "AKIA" + "Q7RZ4XKPL2MWN3TB", "ghp_" + "CcO4N35lkTN2OQHCcKuxu4IsAEpaJh1Jllhh"
    before = tree(root)
    refused = cli("fact", "reject", addresses[0], "--reason", f"key {aws}", root)
    assert refused.exit_code == 1 and len(refused.output.strip().splitlines()) == 1
    assert "--reason holds what looks like a credential (aws-access-key" in refused.output
    assert aws not in refused.output and tree(root) == before
    log = root / "memory/sessions/2026-03-05-120000.md"
    log.write_text(f"# Session\n\n## Proposed Facts\n\n1. decision: the token is {token}\n")
    done = cli("fact", "reject", "2026-03-05-120000#1", "--reason", "a credential", root, "--json")
    assert done.exit_code == 0 and token not in done.output
    rejected = (root / "memory/rejected.md").read_text()
    assert token not in rejected
    assert "| the token is [redacted: github-token]\n  reason: a credential\n" in rejected
    log.unlink()
    assert cli("lint", root, "--only", "secret").exit_code == 0
    (root / "memory/rejected.md").write_text(f"{rejected}- x#1 | 2026-03-05 | uses {token}\n")
    found = cli("lint", root, "--only", "secret")
    assert found.exit_code == 1 and token not in found.output
    assert f"memory/rejected.md:{len(rejected.splitlines()) + 1}: error [secret]" in found.output


def _capture(root: Path, tmp_path: Path, session: str, said: str) -> None:
    """A Claude session (the fixture's records) whose agent says ``said``, captured."""
    lines = (PROJECT / "tests/fixtures/transcripts/claude/session-basic.jsonl").read_text()
    records = [json.loads(line) for line in lines.splitlines()]
    records = [{**r, "sessionId": session} if "sessionId" in r else r for r in records]
    agent = next(r for r in records if r.get("type") == "assistant")
    content = [{"type": "text", "text": said}]
    records.append(
        {**agent, "uuid": "c1a00099", "message": {**agent["message"], "content": content}}
    )
    transcript = tmp_path / f"{session[:8]}.jsonl"
    transcript.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert cli("session", "capture", root, "--transcript", transcript).exit_code == 0


def test_words_a_person_rejected_neither_wait_nor_land_when_another_session_says_them(
    tmp_path: Path,
) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    assert cli("enable", root, "--today", "2026-03-01").exit_code == 0
    _capture(root, tmp_path, "11111111-5b8a-4e2f-9c61-0a4b8d2e6f13",
             "Remember: Agents may force-push to main")  # fmt: skip
    first = "2026-11-20-091400-claude-11111111#1"
    assert cli("fact", "reject", first, "--reason", "never", root, "--today", LATER).exit_code == 0
    _capture(root, tmp_path, "22222222-5b8a-4e2f-9c61-0a4b8d2e6f13",
             "Remember: agents may FORCE-PUSH to main!")  # fmt: skip
    again = "2026-11-20-091400-claude-22222222#1"
    assert "no proposals wait" in cli("proposals", root).stdout
    assert "no proposals pending" in cli("fact", "accept", root).stdout
    before = tree(root)
    said = (
        f"a person rejected the same words before ({first}, {LATER}: never) in memory/rejected.md"
    )
    refused = cli("fact", "accept", again, root)
    assert (
        refused.exit_code == 1
        and refused.output == f"agent-memory: {again}: {said}; it is not accepted\n"
    )
    every = cli("fact", "accept", "--all", root)
    assert f"{again}: skipped, {said}" in every.stdout
    assert tree(root) == before
    assert "proposed facts wait" not in cli("context", root).stdout
    assert cli("fact", "accept", first, root).exit_code == 0  # a person may land what they rejected
