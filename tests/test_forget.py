"""Forget by description (DECAY.md § Curating facts, `fact forget TEXT`): the one live fact a
description names, by recall's ranking above a floor and ahead of the next, retracted through
`fact retract`'s plan; otherwise the candidates, and nothing changed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_memory.cli.mcp.tools import McpSession, call
from agent_memory.core.agents.forget import choose
from agent_memory.parse import facts
from conftest import cli, tree

DAY = "2026-03-02"
FACTS = (
    ("node", "Builds pin Node 20 through the nvmrc file"),
    ("deploys", "Deploys wait for the CI pipeline to pass on main"),
    ("deploys-staging", "Deploys go through the staging cluster before production"),
    ("pnpm", "Use pnpm for every package install"),
)


@pytest.fixture
def enabled(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    assert cli("enable", root, "--today", "2026-03-01").exit_code == 0
    for fact_id, text in FACTS:
        assert cli("fact", "add", text, "--id", fact_id, root, "--today", DAY).exit_code == 0
    return root


def footer(root: Path, fact_id: str) -> str:
    text = (root / "memory/continuity.md").read_text()
    return next(line for line in text.splitlines() if f"id: {fact_id} " in line)


def test_the_one_fact_described_is_retracted_with_the_description_as_reason(
    enabled: Path,
) -> None:
    before = tree(enabled)
    dry = cli("fact", "forget", "node nvmrc pin", enabled, "--dry-run")
    assert (
        dry.exit_code == 0 and "tier: superseded | reason: forgotten: node nvmrc pin" in dry.stdout
    )
    assert tree(enabled) == before
    done = cli("fact", "forget", "node nvmrc pin", enabled, "--json")
    assert done.exit_code == 0
    report = json.loads(done.stdout)
    assert report["command"] == "fact forget" and report["summary"]["id"] == "node"
    assert "tier: superseded | reason: forgotten: node nvmrc pin" in footer(enabled, "node")
    again = cli("fact", "forget", "node nvmrc pin", enabled)  # retracted: no longer live
    assert again.exit_code == 1


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("deploys", "deploys"),  # one word: never enough
        ("deploys pipeline staging", "deploys-staging"),  # two facts close together
        ("the", ""),  # a common word alone
        ("kubernetes helm charts", ""),  # nothing
    ],
)
def test_no_clear_match_changes_nothing_and_names_the_candidates(
    enabled: Path, text: str, named: str
) -> None:
    before = tree(enabled)
    refused = cli("fact", "forget", text, enabled)
    assert refused.exit_code == 1 and "nothing changed" in refused.output
    assert f"{named} (" in refused.output if named else "Candidates" in refused.output
    assert tree(enabled) == before


def test_mcp_forgets_by_the_same_rule(enabled: Path) -> None:
    done = call(McpSession(enabled), "memory_fact_forget", {"text": "pnpm package install"})
    assert done.result is not None and done.result.report.summary["id"] == "pnpm"
    before = tree(enabled)
    refused = call(McpSession(enabled), "memory_fact_forget", {"text": "deploys"})
    assert refused.result is None and "nothing changed" in refused.err
    assert tree(enabled) == before


def test_the_margin_is_over_the_next_score() -> None:
    foot = "  <!-- id: {} | created: 2026-01-01 | last_used: 2026-01-01 | tier: working -->\n"
    text = "## Key Decisions\n" + "".join(
        f"- {words}\n" + foot.format(i)
        for i, words in (("a", "redis cache keys expire hourly"), ("b", "redis cache keys"))
    )
    doc = facts.parse("memory/continuity.md", text.encode())
    assert choose("redis cache keys expire hourly", [doc]).chosen is not None
    close = choose("redis cache keys", [doc])
    assert close.chosen is None and {h.id for h in close.candidates} == {"a", "b"}
