"""report: one self-contained page (and its Markdown twin) on whether the memory works."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from agent_memory.core.replay import periods
from agent_memory.parse.proposed import unaccepted
from conftest import build_tree, cli, git_init, run_console, tree

POLICY = "## Windows\n- working_window: 1\n- active_window: 2\n- archive_window: 3\n"


def history(root: Path) -> Path:
    """Two quarters of sessions: a fact archived by the windows and needed again (a miss), one
    used throughout, a fact with a valid-until, one citing a file that changed since, one no
    session needs (the review archives it), and an unread log with two proposals."""
    git_init(root)
    assert cli("enable", root, "--today", "2026-01-01").exit_code == 0
    (root / "memory/decay-policy.md").write_text(POLICY)
    (root / "src.txt").write_text("one\ntwo\n")
    for text, fact_id, more in (
        ("Old <decision> & `quoted`", "old", ()),
        ("Busy decision | piped", "busy", ("--cite", "src.txt:1-2")),
        ("Freeze until December", "freeze", ("--until", "2026-12-31")),
        ("Never needed again", "gone", ()),
    ):
        added = cli("fact", "add", text, root, "--id", fact_id, "--today", "2026-01-01", *more)
        assert added.exit_code == 0, added.output
    (root / "src.txt").write_text("one\nchanged\n")
    logs = {}
    for n, day in enumerate(("01-02", "01-05", "01-09", "01-20", "02-02", "03-03", "04-04")):
        used = "busy, freeze, old" if n in (0, 6) else "busy, freeze"
        logs[f"memory/sessions/2026-{day}-100000.md"] = (
            f"## Memory References\n- Referenced: {used}\n"
        )
    build_tree(root, logs)
    assert cli("review", root, "--today", "2026-04-04").exit_code == 0
    build_tree(
        root,
        {
            "memory/sessions/2026-04-05-100000.md": "## Proposed Facts\n1. remember: one\n"
            "2. decision: two\nnot one\n## Memory References\n- Referenced: busy\n"
        },
    )
    return root


def test_the_page_shows_a_folder_name_s_control_characters_escaped(tmp_path: Path) -> None:
    """The folder's name went into the page's title and heading with its controls raw."""
    root = history(tmp_path / "r\x1b[31m\x1b]0;t\x07")
    out = tmp_path / "report.html"
    assert cli("report", root, "--html", out, "--today", "2026-04-06").exit_code == 0
    page = out.read_text()
    assert "\x1b" not in page and "\x07" not in page
    assert "<title>Memory report: r\\x1b[31m\\x1b]0;t\\x07</title>" in page


def test_the_page_is_one_file_with_charts_and_tables_and_nothing_to_fetch(tmp_path: Path) -> None:
    root = history(tmp_path / "repo")
    before = tree(root)
    out = tmp_path / "report.html"
    result = cli("report", root, "--html", out, "--today", "2026-04-06", "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)["summary"]
    assert summary["pending_proposals"] == 2
    assert [e["id"] for e in summary["stale"]] == ["busy"]
    assert summary["expiring"] == [{"id": "freeze", "valid_until": "2026-12-31", "past": False}]
    assert summary["most_missed"] == [{"id": "old", "missed": 1, "named": 0, "archived": 1}]
    assert [b["max_bytes"] for b in summary["budgets"]] == [8192, 4096, 16384]
    page = out.read_text()
    assert page.count("<svg") == 3 and "<script" not in page
    assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", page)
    assert "Old &lt;decision&gt; &amp; `quoted`" in page
    assert tree(root) == before


def test_same_repo_and_date_same_bytes_under_any_hash_seed(tmp_path: Path) -> None:
    root = history(tmp_path / "repo")
    pages = set()
    for seed in ("0", "1", "777"):
        out = tmp_path / f"r{seed}.html"
        done = run_console(
            "report",
            root,
            "--html",
            out,
            "--today",
            "2026-04-06",
            cwd=tmp_path,
            PYTHONHASHSEED=seed,
        )
        assert done.returncode == 0, done.stderr
        pages.add(out.read_bytes())
    assert len(pages) == 1


def test_the_markdown_says_what_the_page_says(tmp_path: Path) -> None:
    root = history(tmp_path / "repo")
    result = cli("report", root, "--format", "md", "--today", "2026-04-06")
    assert result.exit_code == 0
    text = result.output
    for heading in (
        "Hit rate over time",
        "Facts per tier over time",
        "Archive growth",
        "Most used facts",
        "Stale facts",
        "Expiring facts",
    ):
        assert f"## {heading}" in text
    assert "Busy decision \\| piped" in text
    assert "Pending proposals" in text and ": 2" in text


@pytest.mark.parametrize("where", ["memory/report.html", "memory/sessions/r.html"])
def test_the_report_is_refused_inside_memory_in_one_line(tmp_path: Path, where: str) -> None:
    root = history(tmp_path / "repo")
    before = tree(root)
    done = run_console("report", root, "--html", root / where, cwd=tmp_path)
    assert done.returncode == 1 and done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1 and "memory/" in done.stderr
    assert tree(root) == before


def test_the_report_never_writes_through_a_link_into_memory(tmp_path: Path) -> None:
    root = history(tmp_path / "repo")
    (tmp_path / "out").symlink_to(root / "memory")
    before = tree(root)
    done = run_console("report", root, "--html", tmp_path / "out/r.html", cwd=tmp_path)
    assert done.returncode == 1
    link = tmp_path / "page.html"
    link.symlink_to(root / "memory/continuity.md")
    done = run_console("report", root, "--html", link, cwd=tmp_path)
    assert done.returncode == 1 and len(done.stderr.strip().splitlines()) == 1
    assert tree(root) == before


def test_proposals_are_counted_under_their_heading_only() -> None:
    """The report counts what `context` and `fact accept` read (DECAY.md § Proposals)."""

    def proposals(log: bytes) -> int:
        return len(unaccepted([("2026-04-05-100000.md", log)], {}))

    log = (
        b"## Proposed Facts\n1. remember: a\n2. decision: b\n  - detail\n## Next\n3. remember: c\n"
    )
    assert proposals(log) == 2
    assert proposals(b"## Proposed Facts\n1. saved (project): x\n") == 1
    assert proposals(b"1. remember: x\n") == 0


def test_an_accepted_proposal_is_no_longer_pending_in_the_report(tmp_path: Path) -> None:
    root = history(tmp_path / "repo")
    assert (
        cli("fact", "accept", "2026-04-05-100000#1", root, "--today", "2026-04-06").exit_code == 0
    )
    result = cli("report", root, "--today", "2026-04-06", "--json")
    assert json.loads(result.output)["summary"]["pending_proposals"] == 1


def test_the_periods_fit_the_history_s_length() -> None:
    def cut(first: str, last: str) -> str:
        return periods.fitting([f"{first}-100000.md", f"{last}-100000.md"])(f"{last}-100000.md")

    assert cut("2026-06-01", "2026-08-30") == "2026-W35"
    assert cut("2025-01-01", "2026-08-30") == "2026-08"
    assert cut("2020-01-01", "2026-08-30") == "2026-Q3"
    assert periods.fitting([])("2026-08-30-100000.md") == "2026-Q3"


def test_a_short_history_is_charted_by_week(tmp_path: Path) -> None:
    root = history(tmp_path / "repo")
    result = cli("report", root, "--today", "2026-04-06", "--json")
    weeks = [p["period"] for p in json.loads(result.output)["summary"]["hits_over_time"]]
    assert weeks[0] == "2026-W01" and all("-W" in w for w in weeks)


def test_whether_a_review_is_due_is_judged_on_the_reports_date(tmp_path: Path) -> None:
    """`freeze` is valid until 2026-12-31: on a later --today the page says it waits to leave,
    whatever the machine's clock says (same repo and date, same bytes)."""
    root = history(tmp_path / "repo")
    later = json.loads(cli("report", root, "--today", "2027-01-05", "--json").output)
    assert any("(freeze)" in reason for reason in later["summary"]["due"])
    before = json.loads(cli("report", root, "--today", "2026-04-06", "--json").output)
    assert not any("freeze" in reason for reason in before["summary"]["due"])


def test_the_report_shows_in_full_by_budget_so_a_team_can_pick_its_own(tmp_path: Path) -> None:
    """A fact of 2.5 KB that every session uses: in full at 8 and 16 KiB; at 4 KiB named only
    in the first session (past two fifths of that budget, with no session before that used it:
    HOOKS.md § Session start) and in full in the two after; the headline is the default
    budget's share in full, named beside it."""
    root = git_init(tmp_path / "repo")
    assert cli("enable", root, "--today", "2026-01-01").exit_code == 0
    big = "Deploys go through the staging gate " + "g" * 2500
    assert cli("fact", "add", big, root, "--id", "gate", "--today", "2026-01-01").exit_code == 0
    build_tree(
        root,
        {
            f"memory/sessions/2026-01-0{d}-100000.md": "## Memory References\n- Referenced: gate\n"
            for d in (2, 3, 4)
        },
    )
    text = cli("report", root, "--format", "md", "--today", "2026-01-05").output
    table = text.split("## In full by budget\n\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert [row.split(" | ")[:3] for row in table[2:]] == [
        ["| 8192", "100.0 %", "100.0 %"],
        ["| 4096", "66.7 %", "100.0 %"],
        ["| 16384", "100.0 %", "100.0 %"],
    ]
    assert "**100.0 % of the facts sessions used were in full" in text
    missed = cli("report", root, "--json", "--today", "2026-01-05")
    assert json.loads(missed.output)["summary"]["most_missed"] == []
    assert json.loads(missed.output)["summary"]["logs_found_in_git"] == 0  # none committed
    assert "before each session: 0 of 3 session logs; on the memory the review's" in text
    commit = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", "commit"]
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    subprocess.run([*commit, "-qm", "the memory and three logs"], check=True)  # no parent
    log = "## Memory References\n- Referenced: gate\n"
    build_tree(root, {"memory/sessions/2026-01-05-100000.md": log})
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    subprocess.run([*commit, "-qm", "a fourth log"], check=True)  # its start is in git
    build_tree(root, {"memory/sessions/2026-01-05-110000.md": log})  # not committed
    again = cli("report", root, "--format", "md", "--today", "2026-01-05").output
    assert "the other 4 (REVIEW.md § Replay)" in again and "session: 1 of 5 session logs;" in again
