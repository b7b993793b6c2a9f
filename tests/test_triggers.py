"""When a review is due (REVIEW.md § When): only when it would change something."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import build_tree, cli

TODAY = "2026-06-01"


def mature(repo: Path, facts: int, logs: int, used_in: int = -1) -> None:
    """An enabled repo reviewed through its last log, with ``facts`` decaying facts last used
    in log ``used_in``: by default the last one, as in a mature repo right after its adoption —
    over continuity_max_facts (30), nothing old enough to archive."""
    assert cli("enable", repo, "--today", TODAY).exit_code == 0
    names = [f"2026-06-{day:02d}-100000.md" for day in range(2, 2 + logs)]
    ids = [f"fact-{n}" for n in range(facts)]
    lines = "".join(
        f"- Fact {fact_id}.\n  <!-- id: {fact_id} | created: 2026-06-02 | last_used: "
        f"{names[used_in][:10]} | uses: 2 | tier: active -->\n"
        for fact_id in ids
    )
    continuity = repo / "memory/continuity.md"
    text = continuity.read_text().replace("## Key Decisions\n", "## Key Decisions\n" + lines)
    mark = f"- last_review: {names[-1][:10]} | through {names[-1][:-3]} | {len(names)} logs"
    continuity.write_text(text.replace("- last_review: (none yet)", mark))
    used = f"# S\n\n## Memory References\n- Referenced: {', '.join(ids)}\n"
    build_tree(repo, {f"memory/sessions/{name}": "# S\n" for name in names})
    build_tree(repo, {f"memory/sessions/{names[used_in]}": used})


def test_a_size_trigger_nothing_can_act_on_is_advice_not_due(tmp_path: Path) -> None:
    mature(tmp_path, 38, 3)
    day = "2026-06-04"
    assert "nothing to change" in cli("review", tmp_path, "--today", day).output
    status = json.loads(cli("status", tmp_path, "--json").output)
    assert status["outcome"] == "ok" and status["summary"]["due"] == []
    (advice,) = status["summary"]["advice"]
    assert "38 decaying facts (continuity_max_facts: 30)" in advice
    assert "no fact is old enough to archive" in advice
    text = cli("status", tmp_path).output
    assert "review: not due" in text and "\nadvice: continuity.md is over a limit" in text
    quiet = cli("review", tmp_path, "--if-due", "--today", day)
    assert quiet.exit_code == 0 and quiet.output == ""
    assert "- not due" in cli("context", tmp_path).output
    lint = cli("lint", tmp_path).output
    assert "[continuity-size]" in lint and "[review-due]" not in lint
    assert "run agent-memory review" not in lint


def test_a_size_trigger_is_due_when_a_fact_can_be_archived(tmp_path: Path) -> None:
    """The same repo whose facts were last used 23 logs ago, past archive_window (20): the
    size trigger is due, and the review it asks for archives."""
    mature(tmp_path, 38, 24, used_in=0)
    status = json.loads(cli("status", tmp_path, "--json").output)
    assert status["summary"]["advice"] == []
    assert status["summary"]["due"] == ["38 decaying facts (continuity_max_facts: 30)"]
    review = cli("review", tmp_path, "--if-due", "--today", "2026-06-25")
    assert "Archived: 38" in review.output


def test_under_the_limits_nothing_is_said(tmp_path: Path) -> None:
    mature(tmp_path, 30, 3)
    status = json.loads(cli("status", tmp_path, "--json").output)
    assert status["summary"]["due"] == [] and status["summary"]["advice"] == []


def test_a_fact_that_leaves_whatever_the_logs_say_makes_a_review_due(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Archived by hand, retracted, or past valid-until: the next review moves it, so the
    session-start view should not wait review_every logs to lose it (REVIEW.md § When)."""
    mature(tmp_path, 3, 3)
    assert json.loads(cli("status", tmp_path, "--json").output)["summary"]["due"] == []
    day = "2026-06-05"
    assert cli("fact", "archive", "fact-0", tmp_path, "--today", day).exit_code == 0
    assert (
        cli("fact", "retract", "fact-1", tmp_path, "--reason", "gone", "--today", day).exit_code
        == 0
    )
    assert cli("fact", "expire", "fact-2", "2026-06-06", tmp_path, "--today", day).exit_code == 0
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1780617600")  # 2026-06-05: fact-2 holds still
    status = json.loads(cli("status", tmp_path, "--json").output)
    (due,) = status["summary"]["due"]
    assert due.startswith("2 facts wait to move to the archive") and "(fact-0, fact-1)" in due
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1780790400")  # 2026-06-07: it has expired
    (due,) = json.loads(cli("status", tmp_path, "--json").output)["summary"]["due"]
    assert due.startswith("3 facts wait") and "(fact-0, fact-1, fact-2)" in due
    review = cli("review", tmp_path, "--if-due", "--today", "2026-06-07")
    assert (
        "Archived: 2 (fact-0, fact-1)" in review.output and "Expired: 1 (fact-2)" in review.output
    )


def test_a_count_of_one_reads_as_english(tmp_path: Path) -> None:
    """Said "1 facts wait" before; lint's total said "1 advisories"."""
    mature(tmp_path, 3, 3)
    assert cli("fact", "archive", "fact-0", tmp_path, "--today", "2026-06-05").exit_code == 0
    (due,) = json.loads(cli("status", tmp_path, "--json").output)["summary"]["due"]
    assert due.startswith("1 fact waits to move to the archive")
    assert cli("lint", tmp_path).output.splitlines()[-1].startswith("0 errors, ")


def test_a_log_naming_a_fact_no_review_brings_back_makes_no_review_due(tmp_path: Path) -> None:
    """REVIEW.md § When: a log naming an archived id makes a review due because that fact waits
    to be reactivated. A retracted or superseded fact, or an expired one, never comes back: a
    session that names one (lint warns) made every session start run a review that said it
    "waits to be reactivated"."""
    mature(tmp_path, 3, 3)
    day = "2026-06-05"
    assert cli("fact", "archive", "fact-0", tmp_path, "--today", day).exit_code == 0
    assert cli("fact", "retract", "fact-1", tmp_path, "--reason", "gone", "--today", day)
    assert cli("fact", "expire", "fact-2", "2026-06-06", tmp_path, "--today", day).exit_code == 0
    assert "Archived: 2" in cli("review", tmp_path, "--today", "2026-06-07").output
    used = "# S\n\n## Memory References\n- Referenced: {}\n"
    build_tree(tmp_path, {"memory/sessions/2026-06-08-100000.md": used.format("fact-1, fact-2")})
    before = (tmp_path / "memory/archive/2026-Q2.md").read_bytes()
    review = cli("review", tmp_path, "--if-due", "--today", "2026-06-08")
    assert review.exit_code == 0 and review.output == ""
    assert (tmp_path / "memory/archive/2026-Q2.md").read_bytes() == before
    assert "review-due" not in cli("lint", tmp_path).output
    build_tree(tmp_path, {"memory/sessions/2026-06-09-100000.md": used.format("fact-0")})
    review = cli("review", tmp_path, "--if-due", "--today", "2026-06-09")
    assert "Reactivated: 1 (fact-0)" in review.output
    assert "waits to be reactivated (fact-0)" in review.output
