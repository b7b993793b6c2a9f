"""lint through the real CLI: each check fires on its case, and a clean repo is clean."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import build_tree, cli, stats

FOOT = "<!-- id: {} | created: 2026-06-08 | last_used: 2026-06-08 | uses: 1 | tier: working -->"


def enabled(repo: Path) -> Path:
    assert cli("enable", repo, "--today", "2026-06-08").exit_code == 0
    return repo


def add_facts(repo: Path, text: str) -> None:
    path = repo / "memory/continuity.md"
    path.write_text(path.read_text().replace("## Key Decisions\n", "## Key Decisions\n" + text))


def test_fresh_repo_is_clean_and_lint_writes_nothing(repo: Path) -> None:
    enabled(repo)
    before = stats(repo)
    result = cli("lint", repo)
    assert result.exit_code == 0
    assert result.output == "0 errors, 0 warnings, 0 advisories\n"
    assert stats(repo) == before


@pytest.mark.parametrize(
    ("facts", "files", "expected"),
    [
        (f"- a\n  {FOOT.format('x')}\n- b\n  {FOOT.format('x')}\n", {}, "error [duplicate-id]"),
        (
            f"- a\n  {FOOT.format('x')}\n",
            {"memory/archive/2026-Q2.md": f"# Archive\n\n## Facts\n- old\n  {FOOT.format('x')}\n"},
            "error [id-in-both]",
        ),
        ("- a\n  <!-- id: x | created: 2026-06-08\n", {}, "error [footer-unclosed]"),
        ("- a\n  <!-- id: Not_Kebab -->\n", {}, "error [id-invalid]"),
        ("- a\n  <!-- id: x | created: 2026-13-45 | uses: many -->\n", {}, "error [footer-value]"),
        ("<<<<<<< HEAD\n- a\n=======\n- b\n>>>>>>> main\n", {}, "error [conflict-marker]"),
        ("- a\n", {}, "warning [fact-no-id]"),
        (  # an archived item swept by hand, without a footer: recall would never find it
            "",
            {"memory/archive/2026-Q2.md": "# Archive\n\n## 2026-06-15 — swept\n- [x] old\n"},
            "memory/archive/2026-Q2.md:4: warning [fact-no-id]",
        ),
        ("- a\n  <!-- id: x | colour: red -->\n", {}, "warning [footer-unknown-field]"),
        ("", {"memory/sessions/2026-06-20.md": "# oops\n"}, "warning [session-name]"),
        (
            "",
            {"memory/sessions/2026-06-20-101500.md": "## Memory References\n- Referenced: ghost\n"},
            "warning [unknown-id]",
        ),
        (
            f"- a\n  {FOOT.format('x')}\n",
            {
                "memory/sessions/2026-06-20-101500.md": "## Memory References\n- Created: x\n",
                "memory/sessions/2026-06-21-101500.md": "## Memory References\n- Created: x\n",
            },
            "warning [created-twice]",
        ),
        (
            "",
            {"memory/decay-policy.md": "- active_window: 30\n- archive_window: 20\n"},
            "error [policy-invalid]",
        ),
        ("", {".agent/version.md": ""}, "error [manifest-invalid]"),
    ],
)
def test_each_check(repo: Path, facts: str, files: dict[str, str], expected: str) -> None:
    enabled(repo)
    add_facts(repo, facts)
    build_tree(repo, files)
    result = cli("lint", repo)
    assert expected in result.output, result.output
    assert result.exit_code == (1 if expected.startswith("error") else 0)
    assert "Traceback" not in result.output


def test_setext_underline_is_not_a_conflict_marker(repo: Path) -> None:
    enabled(repo)
    add_facts(repo, "\nTitle\n=======\n\n")
    assert "conflict-marker" not in cli("lint", repo).output


def test_overdue_review_is_advisory_and_json_has_the_common_shape(repo: Path) -> None:
    enabled(repo)
    build_tree(repo, {f"memory/sessions/2026-06-{d:02d}-101500.md": "# s\n" for d in range(1, 12)})
    result = cli("lint", repo, "--json")
    assert result.exit_code == 0
    doc = json.loads(result.output)
    assert set(doc) == {"command", "version", "repo", "outcome", "plan", "findings", "summary"}
    assert [f["check"] for f in doc["findings"]] == ["review-due"]
    assert doc["findings"][0]["severity"] == "advisory"


def test_misnamed_logs_are_named_and_dot_files_are_not(repo: Path) -> None:
    enabled(repo)
    names = [".DS_Store", "-draft.md", "notes.md", "2026-06-20-101500.md", "2026-06-20.md"]
    build_tree(repo, {f"memory/sessions/{name}": "# S\n" for name in names})
    result = cli("lint", repo)
    strays = [line.split(":")[0] for line in result.output.splitlines() if "[session-name]" in line]
    assert strays == [f"memory/sessions/{n}" for n in ("-draft.md", "2026-06-20.md", "notes.md")]


def test_misspelt_ids_are_warned_with_the_nearest_id(tmp_path: Path) -> None:
    """A new user's log counted one id of three and said nothing about the other two."""
    foot = "<!-- id: {} | created: 2026-01-01 | last_used: 2026-01-01 | uses: 1 | tier: working -->"
    facts = "".join(
        f"- {name}\n  {foot.format(name)}\n"
        for name in ("bun-tooling", "proxy-aware-fetch", "snapshot-update")
    )
    build_tree(
        tmp_path,
        {
            "memory/continuity.md": f"# C\n\n## Key Decisions\n{facts}",
            "memory/sessions/2026-01-02-100000.md": (
                "# S\n\n## Memory References\n"
                "- Referenced: bun-tooling, Proxy-Aware-Fetch, snapshot_update\n"
                "- Referenced: proxy aware fetch\n"
            ),
        },
    )
    out = cli("lint", tmp_path).output
    log = "memory/sessions/2026-01-02-100000.md"
    assert (
        f"{log}:4: warning [id-misspelt] 'Proxy-Aware-Fetch' is not an id (ids are lowercase "
        "kebab-case) and does not count; did you mean 'proxy-aware-fetch'?"
    ) in out
    assert "'snapshot_update' is not an id" in out and "did you mean 'snapshot-update'?" in out
    assert (
        f"{log}:5: warning [unknown-id] references 'proxy', which exists nowhere; "
        "did you mean 'proxy-aware-fetch'?"
    ) in out


def test_a_reviewed_log_gets_one_note_with_its_line_not_warnings_forever(tmp_path: Path) -> None:
    """Logs cannot be edited: lint warned about them on every run, without a line."""
    foot = "<!-- id: kept | created: 2026-01-01 | last_used: 2026-01-01 | uses: 1 -->"
    log = "# S\n\n## Memory References\n- Used: kept\n- Referenced: gone-one, gone-two\n"
    build_tree(
        tmp_path,
        {
            "memory/continuity.md": (
                "# C\n\n## Project State\n- last_review: 2026-01-02 | through 2026-01-02-100000\n"
                f"\n## Key Decisions\n- Kept\n  {foot}\n"
            ),
            "memory/sessions/2026-01-02-100000.md": log,
            "memory/sessions/2026-01-03-100000.md": log,
        },
    )
    out = cli("lint", tmp_path).output.splitlines()
    old = [line for line in out if "2026-01-02-100000" in line]
    assert old == [
        "memory/sessions/2026-01-02-100000.md:4: advisory [reviewed-log] label 'Used' counts as "
        "a use; prefer Referenced: (and 2 more notes); this log was already reviewed and is "
        "never edited — write references correctly in the next log"
    ]
    new = [line for line in out if "2026-01-03-100000" in line]
    assert (
        "memory/sessions/2026-01-03-100000.md:5: warning [unknown-id] references 'gone-one', "
        "which exists nowhere" in new
    )
    assert len(new) == 3
