"""``fact accept``: proposals of session logs become facts once, in their kind's section; what
``context`` says is pending; the MCP tool."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agent_memory.cli.mcp.tools import McpSession, call
from conftest import cli, tree
from test_json import SCHEMA, violations
from test_proposals import BUILD

DAY = ["--today", "2026-11-21"]
LOG = "2026-11-20-091400-claude-7d3f2c1e"


@pytest.fixture
def captured(repo: Path, tmp_path: Path) -> Path:
    """An enabled repo with one captured Claude Code session that proposed five facts."""
    assert cli("enable", repo, "--today", "2026-01-01", "--vendor", "none").exit_code == 0
    transcript = BUILD["claude"](tmp_path)
    assert cli("session", "capture", repo, "--transcript", transcript).exit_code == 0
    assert (repo / f"memory/sessions/{LOG}.md").exists()
    return repo


def _continuity(repo: Path) -> str:
    return (repo / "memory/continuity.md").read_text()


def _section(repo: Path, title: str) -> str:
    text = _continuity(repo)
    return text.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]


def test_listing_writes_nothing_and_accepting_twice_adds_nothing(captured: Path) -> None:
    before = tree(captured)
    listed = cli("fact", "accept", captured)
    assert listed.exit_code == 0 and tree(captured) == before
    assert [line.split()[0] for line in listed.output.splitlines()[:-1]] == [
        f"{LOG}#{n}" for n in range(1, 6)
    ]
    first = cli("fact", "accept", f"{LOG}#4", captured, *DAY)
    assert first.exit_code == 0, first.output
    assert f"origin: {LOG}#4 -->" in _section(captured, "Key Decisions")
    after = tree(captured)
    again = cli("fact", "accept", f"{LOG}#4", captured, *DAY)
    assert again.exit_code == 0 and "already accepted as" in again.output
    assert tree(captured) == after


def test_all_accepts_each_pending_proposal_in_its_kinds_section(captured: Path) -> None:
    assert cli("fact", "accept", f"{LOG}#1", captured, *DAY).exit_code == 0
    done = cli("fact", "accept", "--all", captured, *DAY)
    assert done.exit_code == 0, done.output
    assert "already accepted" not in done.output  # #1 is no longer pending
    assert re.search(rf"- \[ \] drop the GET alias in 5\.0\n.*origin: {LOG}#3 ", _continuity(
        captured))  # fmt: skip
    decisions = _section(captured, "Key Decisions")
    assert "- mutating /orders routes are POST-only." in decisions
    assert "- the deploy key [redacted: aws-access-key] lives in the vault" in decisions
    assert "- The public client sends POST for cancel since 4.6.2, so GET was dropped." in (
        decisions
    )
    assert sorted(re.findall(r"origin: (\S+) -->", _continuity(captured))) == [
        f"{LOG}#{n}" for n in range(1, 6)
    ]
    after = tree(captured)
    again = cli("fact", "accept", "--all", captured, *DAY)
    assert again.exit_code == 0 and "nothing to accept" in again.output
    assert tree(captured) == after


def test_dry_run_writes_nothing_and_json_is_one_valid_document(captured: Path) -> None:
    before = tree(captured)
    dry = cli("fact", "accept", "--all", captured, "--dry-run", *DAY)
    assert dry.exit_code == 0 and "+- mutating /orders routes are POST-only." in dry.output
    assert tree(captured) == before
    for args in (["--all", "--dry-run"], [], [f"{LOG}#2"]):
        result = cli("fact", "accept", *args, captured, "--json", *DAY)
        doc = json.loads(result.stdout)
        assert violations(doc, SCHEMA) == []
        assert set(doc["summary"]) == {"pending", "accepted", "skipped"}


def test_context_counts_what_is_pending_until_a_review_reads_the_log(captured: Path) -> None:
    def pending() -> int:
        result = cli("context", captured, "--json")
        doc = json.loads(result.stdout)
        count = doc["summary"]["proposals_pending"]
        waits = "fact waits" if count == 1 else "facts wait"
        note = f"_{count} proposed {waits} in session logs no review has read"
        assert (note in doc["summary"]["markdown"]) == bool(count)
        return int(count)

    assert pending() == 5
    assert cli("fact", "accept", f"{LOG}#2", captured, *DAY).exit_code == 0
    assert pending() == 4
    assert cli("review", captured, *DAY).exit_code == 0
    assert pending() == 0
    assert "no proposals pending" in cli("fact", "accept", captured).output
    late = cli("fact", "accept", f"{LOG}#5", captured, *DAY)  # a read log's proposal, later
    assert late.exit_code == 0 and f"origin: {LOG}#5" in _continuity(captured)


def test_an_accepted_fact_in_the_archive_is_still_accepted(captured: Path) -> None:
    assert cli("fact", "accept", f"{LOG}#1", captured, *DAY).exit_code == 0
    fact_id = re.search(rf"id: (\S+) .*origin: {LOG}#1", _continuity(captured))
    assert fact_id is not None
    assert cli("fact", "archive", fact_id.group(1), captured, *DAY).exit_code == 0
    assert cli("review", captured, *DAY).exit_code == 0
    assert f"origin: {LOG}#1" not in _continuity(captured)
    before = tree(captured)
    again = cli("fact", "accept", f"{LOG}#1", captured, *DAY)
    assert again.exit_code == 0 and f"already accepted as {fact_id.group(1)}" in again.output
    assert tree(captured) == before


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["nolog#1"], "is not a proposal's address"),
        (["2026-01-01-000000#1"], "no session log memory/sessions/2026-01-01-000000.md"),
        ([f"{LOG}#9"], "has no proposal #9: its proposals are #1, #2, #3, #4, #5"),
        ([f"{LOG}#0"], "is not a proposal's address"),
        ([f"{LOG}#1", "--all"], "not both"),
        ([f"{LOG}#1\n"], "is not a proposal's address"),
    ],
)
def test_a_bad_address_is_one_line_exit_1_nothing_written(
    captured: Path, args: list[str], said: str
) -> None:
    before = tree(captured)
    result = cli("fact", "accept", *args, captured, *DAY)
    assert result.exit_code == 1 and said in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert tree(captured) == before


def test_a_hand_written_proposal_holding_a_credential_is_never_a_fact(captured: Path) -> None:
    log = captured / "memory/sessions/2026-11-20-120000.md"
    key = "ghp_CcO4N35lkTN2OQHCcKuxu4IsAEpaJh1Jllhh"
    log.write_text(f"# Session\n\n## Proposed Facts\n\n1. decision: the token is {key}\n")
    refused = cli("fact", "accept", "2026-11-20-120000#1", captured, *DAY)
    assert refused.exit_code == 1 and "credential" in refused.output
    every = cli("fact", "accept", "--all", captured, *DAY)
    assert every.exit_code == 0 and "2026-11-20-120000#1: skipped" in every.output
    assert key not in _continuity(captured)


def test_a_word_without_a_hash_is_path(captured: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(captured.parent)
    listed = cli("fact", "accept", captured.name)
    assert listed.exit_code == 0 and "5 proposals pending" in listed.output
    done = cli("fact", "accept", "--all", captured.name, *DAY)
    assert done.exit_code == 0 and f"origin: {LOG}#5" in _continuity(captured)


def test_the_same_repo_accepts_to_the_same_bytes_under_any_hash_seed(captured: Path) -> None:
    results = set()
    for seed in ("0", "7", "31337"):
        copy = captured.parent / f"copy-{seed}"
        shutil.copytree(captured, copy)
        env = {**os.environ, "PYTHONHASHSEED": seed}
        ran = subprocess.run(
            [sys.executable, "-m", "agent_memory", "fact", "accept", "--all", str(copy), *DAY],
            env=env, capture_output=True, check=False,
        )  # fmt: skip
        assert ran.returncode == 0, ran.stderr
        results.add((copy / "memory/continuity.md").read_bytes())
    assert len(results) == 1


def test_the_mcp_tool_lists_accepts_and_refuses_as_the_command_does(captured: Path) -> None:
    session = McpSession(captured)
    listed = call(session, "memory_fact_accept", {})
    assert listed.result is not None
    summary = listed.result.report.summary
    assert [p["address"] for p in summary["pending"]][:1] == [f"{LOG}#1"]
    one = call(session, "memory_fact_accept", {"address": f"{LOG}#3"})
    assert one.result is not None
    assert one.result.report.summary["accepted"][0]["section"] == "Open Threads"
    every = call(session, "memory_fact_accept", {"all": True})
    assert every.result is not None and len(every.result.report.summary["accepted"]) == 4
    wrong = call(session, "memory_fact_accept", {"address": "x#1"})
    assert wrong.result is None and "is not a proposal's address" in wrong.err
    extra = call(session, "memory_fact_accept", {"address": f"{LOG}#1", "text": "x"})
    assert extra.result is None


def test_a_broken_continuity_stops_all_with_one_line(captured: Path) -> None:
    continuity = captured / "memory/continuity.md"
    footer = "  <!-- id: one | created: 2026-13-45 | last_used: 2026-01-01 | uses: 1 -->\n"
    continuity.write_text(continuity.read_text() + f"- one\n{footer}")
    before = tree(captured)
    result = cli("fact", "accept", "--all", captured, *DAY)
    assert result.exit_code == 1 and len(result.output.strip().splitlines()) == 1
    assert "memory/continuity.md" in result.output
    assert tree(captured) == before


def test_a_log_that_starts_with_its_proposals_is_read(captured: Path) -> None:
    log = captured / "memory/sessions/2026-11-20-120000.md"
    log.write_text("## Proposed Facts\n\n1. convention: tabs in Makefiles\n")
    done = cli("fact", "accept", "--all", captured, *DAY)
    assert done.exit_code == 0 and "2026-11-20-120000#1 \u2192 tabs-in-makefiles" in done.output
    assert "- tabs in Makefiles" in _section(captured, "Conventions")


def test_the_pending_line_fits_within_the_smallest_budget(captured: Path) -> None:
    result = cli("context", captured, "--max-bytes", "256")
    assert result.exit_code == 0
    assert len(result.output.rstrip("\n").encode()) <= 256
    assert "_5 proposed facts wait in session logs no review has read" in result.output


def test_a_footer_quoted_in_a_code_example_accepts_nothing(captured: Path) -> None:
    """Only a fact's own footer says a proposal was accepted, as the reader finds facts: the
    same words in a fenced example of the archive do not."""
    quarter = captured / "memory/archive/2026-Q1.md"
    quarter.write_text(
        "# Archive 2026-Q1\n\n## Facts\n\n"
        f"```\n- an example\n  <!-- id: an-example | origin: {LOG}#4 -->\n```\n"
    )
    listed = cli("fact", "accept", captured)
    assert f"{LOG}#4" in listed.output
    accepted = cli("fact", "accept", f"{LOG}#4", captured, *DAY)
    assert accepted.exit_code == 0 and "already accepted" not in accepted.output
    assert f"origin: {LOG}#4 -->" in _section(captured, "Key Decisions")


def test_a_proposal_its_section_would_swallow_is_refused(captured: Path) -> None:
    """Key Decisions ending in an HTML block took the accepted fact into it: gone, though
    accepted."""
    path = captured / "memory/continuity.md"
    text = path.read_text()
    path.write_text(text.replace("## Key Decisions\n", "## Key Decisions\n<details>\n", 1))
    before = tree(captured)
    done = cli("fact", "accept", f"{LOG}#4", captured, *DAY)
    assert done.exit_code == 1
    assert "ends inside the HTML block that starts here" in done.output
    assert f"{LOG}#4: memory/continuity.md:" in done.output
    assert tree(captured) == before


def test_a_number_written_twice_in_a_log_addresses_neither_proposal(captured: Path) -> None:
    """A log written by hand may give two proposals one number: accepting one closed both. The
    number is refused for accept and reject, said by lint and proposals, and the log untouched."""
    stem = "2026-11-20-130000-dup"
    log = captured / f"memory/sessions/{stem}.md"
    log.write_text(
        "# S\n\n## Proposed Facts\n\n1. remember: Alpha rule about caches\n"
        "1. remember: Beta rule about queues\n3. decision: Gamma rule about logs\n"
    )
    before = tree(captured)
    twice = (
        f"agent-memory: memory/sessions/{stem}.md:6: proposal #1 is numbered twice (lines 5, "
        "6); renumber one in the log, then accept or reject each\n"
    )
    for args in (["accept"], ["reject", "--reason", "no"]):
        done = cli("fact", *args, f"{stem}#1", captured, *DAY)
        assert done.exit_code == 1 and done.output == twice
    missing = cli("fact", "accept", f"{stem}#2", captured, *DAY)
    assert missing.exit_code == 1
    assert missing.output.endswith(f"{stem}.md has no proposal #2: its proposals are #1, #3\n")
    assert tree(captured) == before
    assert f"{stem}#1 is the number of 2 proposals" in cli("proposals", captured).stdout
    linted = cli("lint", captured, "--only", "proposal-number").stdout
    assert f"memory/sessions/{stem}.md:6: warning [proposal-number] proposal #1 is" in linted
    every = cli("fact", "accept", "--all", captured, *DAY)
    assert f"{stem}#1: skipped, numbered twice in its log; renumber one" in every.stdout
    assert "Alpha rule" not in _continuity(captured) and "Beta rule" not in _continuity(captured)
    assert (
        "Gamma rule" in _continuity(captured)
        and log.read_bytes() == before[f"memory/sessions/{stem}.md"]
    )
