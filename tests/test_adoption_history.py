"""Adoption dates what it gives a footer from the repo's history, never from the adoption day
(UPGRADE.md § Adopting a repo enabled by hand, ENABLE.md § Mode C): the newest log naming a
fact's id, else the commit that added its first line; without git, the oldest log. Real git
repos, commits dated by hand."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_memory.parse import facts
from agent_memory.shell.git import line_dates
from agent_memory.upgrade.history import NO_HISTORY, History, dates, history, line_key
from conftest import PROJECT, cli

EXAMPLE = PROJECT / "examples/handrun-4x-repo/before"
TODAY = "2026-09-30"
CONTINUITY = "memory/continuity.md"
BACKLOG = (
    "- Try the courier heat map on the ops console\n"
    "- [ ] Ask ops whether night shifts need their own zones\n"
    "- [x] Drop the legacy `/v1/eta` alias\n"
    "- Named by a log, footer half written\n"
    "  <!-- id: named-by-a-log | created: 2026-07-01 | uses: 2 -->\n"
)


def _git(root: Path, *args: str, day: str | None = None) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t"}
    env |= {"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    if day is not None:
        env |= {"GIT_AUTHOR_DATE": f"{day}T12:00:00+02:00", "GIT_COMMITTER_DATE": f"{day}T12:00"}
    done = subprocess.run(["git", "-C", str(root), *args], env=env, capture_output=True, check=True)
    return done.stdout.decode()


def _commit(root: Path, day: str) -> None:
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", f"work of {day}", day=day)


def _with_backlog(repo: Path) -> None:
    """The backlog bullets, without footers, at the end of Key Decisions."""
    path = repo / CONTINUITY
    text = path.read_text()
    decisions = text.index("## Key Decisions")
    end = text.index("\n## ", decisions + 1) + 1
    path.write_text(text[:end] + BACKLOG + "\n" + text[end:])


def _log(repo: Path, name: str, ids: str) -> None:
    (repo / "memory/sessions" / name).write_text(
        f"# Session {name[:-3]}\n\n## Memory References\n- Referenced: {ids}\n"
    )


def _footers(repo: Path) -> dict[str, dict[str, str]]:
    doc = facts.parse(CONTINUITY, (repo / CONTINUITY).read_bytes())
    return {f.first_line: dict(f.fields) for f in doc.facts}


def _adopt(repo: Path) -> dict[str, dict[str, str]]:
    done = cli("enable", repo, "--today", TODAY)
    assert done.exit_code == 0, done.output
    return _footers(repo)


@pytest.fixture
def handrun(tmp_path: Path) -> Path:
    """The hand-run example as a git repo: its files committed on 2026-06-22, the backlog
    added on 2026-07-15, and a log of 2026-08-20 naming the half-written fact."""
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo)
    _git(repo, "init", "-q")
    _commit(repo, "2026-06-22")
    _with_backlog(repo)
    _commit(repo, "2026-07-15")
    _log(repo, "2026-08-20-101500.md", "named-by-a-log, outbox-for-courier-events")
    _commit(repo, "2026-08-20")
    return repo


def test_an_adopted_fact_is_dated_from_git_and_the_logs(handrun: Path) -> None:
    found = _adopt(handrun)
    heat = found["Try the courier heat map on the ops console"]
    assert (heat["created"], heat["last_used"]) == ("2026-07-15", "2026-07-15")
    zones = found["Ask ops whether night shifts need their own zones"]
    assert (zones["created"], zones["last_used"], zones["tier"]) == (
        "2026-07-15", "2026-07-15", "active",
    )  # fmt: skip
    alias = found["Drop the legacy `/v1/eta` alias"]
    assert (alias["last_used"], alias["done"]) == ("2026-07-15", "2026-07-15")
    named = found["Named by a log, footer half written"]
    assert (named["created"], named["last_used"]) == ("2026-07-01", "2026-08-20")
    # A fact that had its dates keeps them; nothing is dated the adoption day.
    kept = next(f for line, f in found.items() if line.startswith("Courier events leave"))
    assert kept["last_used"] == "2026-08-10"
    assert all(TODAY not in (f["created"], f["last_used"]) for f in found.values())
    again = cli("enable", handrun, "--today", "2026-10-31")
    assert "up to date" in again.output


def test_without_git_the_oldest_log_dates_them(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo)
    _with_backlog(repo)
    oldest = sorted((repo / "memory/sessions").iterdir())[0].name[:10]
    heat = _adopt(repo)["Try the courier heat map on the ops console"]
    assert (heat["created"], heat["last_used"]) == (oldest, oldest)


def test_a_shallow_clone_has_no_history_to_ask(handrun: Path, tmp_path: Path) -> None:
    """Its oldest commit adds every line it holds, on its own date: not when they were added."""
    clone = tmp_path / "clone"
    url = handrun.as_uri()
    subprocess.run(["git", "clone", "-q", "--depth", "1", url, str(clone)], check=True)
    assert line_dates(clone, [CONTINUITY]) is None
    assert line_dates(handrun, [CONTINUITY]) is not None
    heat = _adopt(clone)["Try the courier heat map on the ops console"]
    assert heat["last_used"] == "2026-06-22"  # the oldest log (2026-06-22-093012-enable.md)


def test_line_dates_takes_the_oldest_commit_of_each_line(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    assert line_dates(repo, ["a.md"]) is None  # no git
    _git(repo, "init", "-q")
    assert line_dates(repo, ["a.md"]) is None  # no commit yet
    (repo / "a.md").write_text("- one\n+++ two\n")
    _commit(repo, "2026-01-05")
    (repo / "a.md").write_text("- one, reworded\n+++ two\n- three\n")
    _commit(repo, "2026-02-10")
    (repo / "a.md").write_text("- three\n- one\n")  # one comes back, three moves
    _commit(repo, "2026-03-15")
    assert line_dates(repo, ["a.md"]) == {
        "- one": "2026-01-05", "+++ two": "2026-01-05", "- one, reworded": "2026-02-10",
        "- three": "2026-02-10",
    }  # fmt: skip


def test_mode_c_dates_imported_facts_from_the_stores_history(repo: Path) -> None:
    """Cline's memory bank, its lines committed on two days, becomes facts of those days."""
    bank = repo / "memory-bank/systemPatterns.md"
    bank.parent.mkdir()
    bank.write_text("# System Patterns\n\n- Use pnpm, never npm.\n")
    _commit(repo, "2026-03-03")
    bank.write_text("# System Patterns\n\n* Use pnpm, never npm.\n- Tabs, not spaces.\n")
    _commit(repo, "2026-04-04")
    found = _adopt(repo)
    dated = {line: (f["created"], f["last_used"]) for line, f in found.items()}
    assert dated["Use pnpm, never npm."] == ("2026-03-03", "2026-03-03")
    assert dated["Tabs, not spaces."] == ("2026-04-04", "2026-04-04")


def test_history_looks_up_in_order() -> None:
    known = history({"- a rule": "2026-02-01", "* a rule": "2026-01-01"}, {"x": "2026-05-05"}, [])
    assert known.lines == {"a rule": "2026-01-01"}
    assert dates(known, "x", "  - [ ] a rule\n", TODAY) == ("2026-01-01", "2026-05-05")
    assert dates(known, None, "- a rule", TODAY) == ("2026-01-01", "2026-01-01")
    logs = ["2026-04-01-000000.md", "2026-06-01-000000.md"]
    assert dates(history(None, {}, logs), None, "- a rule", TODAY) == ("2026-04-01",) * 2
    assert dates(NO_HISTORY, None, "- a rule", TODAY) == (TODAY, TODAY)
    assert dates(History({}, {"x": "2026-01-01"}), "x", "- b", TODAY) == ("2026-01-01",) * 2


@given(st.text(max_size=60), st.from_regex(r"[A-Za-z`(][^\n]{0,40}", fullmatch=True))
def test_a_line_key_is_the_text_of_an_item(line: str, text: str) -> None:
    """Matched the same in a vendor's file (any list marker, a task box) and as a fact."""
    key = line_key(line)
    assert key == key.strip() and len(key) <= len(line)
    for item in (f"- {text}", f"  * [x] {text}\n", f"12. {text}", text):
        assert line_key(item) == text.strip()
