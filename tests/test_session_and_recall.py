"""session new and recall, through the real CLI."""

from __future__ import annotations

import json
from pathlib import Path

from agent_memory.parse.sessions import read_refs
from conftest import PROJECT, build_tree, cli, run_console, tree

EXAMPLE = PROJECT / "examples/evolving-memory-example/after"


def test_session_new_names_the_log_and_never_overwrites(repo: Path) -> None:
    cli("enable", repo, "--today", "2026-06-20")
    result = cli("session", "new", repo, "--slug", "Fix CI!", "--now", "2026-06-20T10:15:00")
    assert result.exit_code == 0
    log = repo / "memory/sessions/2026-06-20-101500-fix-ci.md"
    assert result.output == f"{log.resolve()}\n"  # from elsewhere: the path as it works there
    text = log.read_text()
    assert text.startswith("# Session 2026-06-20-101500-fix-ci\n")
    assert "\n## Memory References\n- Referenced:\n" in text
    assert read_refs(log.read_bytes()).used == frozenset()
    assert cli("lint", repo).exit_code == 0
    again = cli("session", "new", repo, "--slug", "fix ci", "--now", "2026-06-20T10:15:00")
    assert again.exit_code == 1 and "never overwritten" in again.output
    assert log.read_text() == text


def test_session_new_uses_utc_and_the_offset_given(repo: Path) -> None:
    cli("enable", repo)
    result = cli("session", "new", repo, "--now", "2026-06-20T12:00:00+02:00", "--json")
    assert json.loads(result.output)["summary"]["path"] == "memory/sessions/2026-06-20-100000.md"


def test_recall_finds_archived_and_live_facts_in_a_stable_order(tmp_path: Path) -> None:
    hits = cli("recall", "redis sessions ttl", EXAMPLE)
    assert hits.exit_code == 0
    first = hits.output.splitlines()[0]
    assert first.startswith("redis-sessions  [archived]  memory/archive/2026-Q2.md:")
    assert cli("recall", "redis sessions ttl", EXAMPLE).output == hits.output
    assert cli("recall", "zebra quasar", EXAMPLE).exit_code == 1


def test_recall_ties_go_to_core_then_by_id(tmp_path: Path) -> None:
    foot = "<!-- id: {} | created: 2026-01-01 | last_used: 2026-01-01 | uses: 1 | tier: {} -->"
    build_tree(
        tmp_path,
        {
            "memory/continuity.md": (
                "# C\n\n## Key Decisions\n"
                f"- cache layer\n  {foot.format('b-cache', 'active')}\n"
                f"- cache layer\n  {foot.format('a-cache', 'active')}\n"
                f"- cache layer\n  {foot.format('z-cache', 'core')}\n"
            )
        },
    )
    ids = [line.split()[0] for line in cli("recall", "cache", tmp_path).output.splitlines()]
    assert ids == ["z-cache", "a-cache", "b-cache"]


def test_recall_over_ten_thousand_archived_facts(tmp_path: Path) -> None:
    foot = "<!-- id: f-{0} | created: 2026-01-01 | last_used: 2026-01-01 | uses: 1 | tier: archived"
    body = "".join(
        f"- Archived fact {i} about subsystem {i % 97}\n  {foot.format(i)} -->\n"
        for i in range(10_000)
    )
    build_tree(
        tmp_path,
        {
            "memory/continuity.md": "# C\n",
            "memory/archive/2026-Q1.md": "# Archive\n\n## Facts\n" + body,
        },
    )
    before = tree(tmp_path)
    result = cli("recall", "subsystem 42", tmp_path, "--limit", "3")
    assert result.exit_code == 0 and len(result.output.splitlines()) == 3
    assert all(" about subsystem 42" in line for line in result.output.splitlines())
    assert tree(tmp_path) == before


def test_a_taken_name_suggests_slug_only_when_none_was_given(repo: Path) -> None:
    cli("enable", repo, "--today", "2026-06-20")
    for args in ((), ("--slug", "fix")):
        cli("session", "new", repo, *args, "--now", "2026-06-20T10:15:00")
        again = cli("session", "new", repo, *args, "--now", "2026-06-20T10:15:00")
        assert again.exit_code == 1 and len(again.output.splitlines()) == 1
        assert ("--slug" in again.output) == (not args)


def test_today_before_the_newest_log_is_refused_in_one_line(repo: Path) -> None:
    cli("enable", repo, "--today", "2026-06-20")
    cli("session", "new", repo, "--now", "2026-06-22T10:00:00")
    before = tree(repo)
    for args in (("review", repo), ("fact", "add", "A fact", repo)):
        result = cli(*args, "--today", "2026-06-21")
        assert result.exit_code == 1 and len(result.output.splitlines()) == 1
        assert (
            "memory/sessions/2026-06-22-100000.md: is dated 2026-06-22, after the review date "
            "2026-06-21; pass --today 2026-06-22 or later" in result.output
        )
    assert tree(repo) == before
    assert cli("review", repo, "--today", "2026-06-22").exit_code == 0


def test_recall_takes_unquoted_words_as_the_query(tmp_path: Path) -> None:
    """Issue 39, item 8: `recall bridge json` said "json: not a directory"."""
    root = tmp_path / "repo"
    build_tree(root, {"src/bridge.py": "", "docs/x.md": ""})
    assert cli("enable", root, "--today", "2026-12-01").exit_code == 0
    text = "The bridge speaks JSON over stdio"
    assert cli("fact", "add", text, root, "--today", "2026-12-01").exit_code == 0
    for args in (["bridge", "json"], ["bridge", "json", "stdio"]):
        done = run_console("recall", *args, cwd=root / "src")  # the quick path
        assert done.returncode == 0 and text in done.stdout, done.stderr
    clicked = cli("recall", "bridge", "json", "--json", root)  # click, PATH last
    assert clicked.exit_code == 0 and json.loads(clicked.output)["summary"]["query"] == (
        "bridge json"
    )
    # A last word that names a folder is PATH, whichever way the line is read.
    for line in (("recall", "bridge", "json", str(root)), ("recall", "bridge", str(root))):
        done = run_console(*line, cwd=tmp_path)
        assert done.returncode == 0 and text in done.stdout, done.stderr
    nothing = run_console("recall", "docs", "nowhere", cwd=root)
    assert nothing.returncode == 1 and "no fact matches 'docs nowhere'" in nothing.stdout


def test_a_front_matter_of_continuity_md_holds_no_fact(repo: Path) -> None:
    """DECAY.md § Facts and ids: recall, status and explain read no fact out of a leading front
    matter, plain, with a BOM or CRLF line ends; the store (a git repo) answers alike."""
    cli("enable", repo, "--today", "2026-06-20", "--vendor", "none")
    path = repo / "memory/continuity.md"
    original = path.read_text()
    matter = "---\ntitle: x\n## Key Decisions\n- Frontmatter fake kafkafm\n"
    matter += "  <!-- id: fm-fake -->\n---\n"
    counted = cli("status", repo).output.splitlines()[1]
    for bom, newline in (("", "\n"), ("\ufeff", "\n"), ("", "\r\n")):
        path.write_bytes((bom + (matter + original).replace("\n", newline)).encode())
        for _ in range(2):  # read, then from the store's rows
            found = cli("recall", "kafkafm", repo)
            assert "fm-fake" not in found.output, (bom, newline)
        assert cli("status", repo).output.splitlines()[1] == counted
        assert cli("explain", "fm-fake", repo).exit_code == 1
        assert cli("lint", repo).exit_code == 0
