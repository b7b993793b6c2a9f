"""Adopting repos enabled by hand (DESIGN §12, HANDRUN.md, UPGRADE.md § Adopting …)."""

from __future__ import annotations

import re
import shutil
import time
from collections import Counter
from pathlib import Path

from agent_memory.parse import facts, manifest
from agent_memory.resources import version
from conftest import PROJECT, cli, stats, tree

EXAMPLE = PROJECT / "examples/handrun-4x-repo"
FIXTURES = PROJECT / "tests/fixtures/handrun"
TODAY = "2026-08-25"
# The hand-run memory-lint's check of the stamp (HANDRUN.md: CI runs it).
HANDRUN_LINT_VERSION = re.compile(r"^- \*\*version:\*\*\s*(\d+\.\d+\.\d+)", re.MULTILINE)

CURRENT = version()  # the release this tool stamps


def adopted(tmp_path: Path, source: Path = EXAMPLE / "before", today: str = TODAY) -> Path:
    repo = tmp_path / "after"
    shutil.copytree(source, repo)
    result = cli("enable", repo, "--today", today)
    assert result.exit_code == 0, result.output
    return repo


def fact_ids(root: Path) -> set[str]:
    found = set()
    for rel, data in tree(root).items():
        if not rel.startswith("memory/") or rel.startswith("memory/sessions/"):
            continue
        if rel.startswith("memory/open-threads/"):
            found |= {f.id for f in facts.parse(rel, data, "Open Threads").facts if f.id}
        elif rel == "memory/continuity.md" or re.search(r"archive/\d{4}-Q\d\.md$", rel):
            found |= {f.id for f in facts.parse(rel, data).facts if f.id}
        elif rel == "memory/vision.md":
            found |= set(re.findall(r"<!-- id: ([a-z0-9.-]+)", data.decode()))
    return found


def text_lines(root: Path) -> Counter[str]:
    """Every line of the memory files that is not a footer, the derived index or a log."""
    found: Counter[str] = Counter()
    for rel, data in tree(root).items():
        if rel.startswith("memory/") and not rel.startswith("memory/sessions/"):
            if rel.endswith("INDEX.md"):
                continue
            found.update(
                line
                for line in data.decode().splitlines()
                if "<!-- id:" not in line and line and "last_review:" not in line
            )
    return found


def test_the_example_is_byte_exact_and_documented(tmp_path: Path) -> None:
    repo = adopted(tmp_path)
    check = cli("enable", EXAMPLE / "before", "--check").output
    assert "would upgrade" in check and "from 4.38.0, enabled by hand (mode B)" in check
    review = cli("review", repo, "--full", "--today", TODAY)
    assert review.exit_code == 0, review.output
    assert "Reactivated: 2 (console-feature-flags-env, local-dev-docker-compose)" in review.output
    assert "Swept threads: 1 (ot-outbox-relay-lag)" in review.output
    assert tree(repo) == tree(EXAMPLE / "after")
    readme = (EXAMPLE / "README.md").read_text()
    assert f"agent-memory enable after --today {TODAY}" in readme
    assert f"agent-memory review after --full --today {TODAY}" in readme


def test_adoption_loses_nothing_touches_no_log_and_is_idempotent(tmp_path: Path) -> None:
    before = EXAMPLE / "before"
    repo = adopted(tmp_path)
    cli("review", repo, "--full", "--today", TODAY)
    old, new = tree(before), tree(repo)
    logs = [p for p in old if p.startswith("memory/sessions/")]
    assert all(new[p] == old[p] for p in logs)
    assert fact_ids(before) == fact_ids(repo)
    assert not text_lines(before) - text_lines(repo)
    for rel in old:  # nothing of theirs deleted; what was replaced is kept verbatim
        assert rel in new or new[f".agent/backup/{CURRENT}/{rel}"] == old[rel]
    assert new[f".agent/backup/{CURRENT}/.agent/schema.md"] == old[".agent/schema.md"]
    snapshot = stats(repo)
    again = cli("enable", repo, "--today", "2026-09-01")
    assert "up to date" in again.output and stats(repo) == snapshot
    assert "nothing to change" in cli("review", repo, "--full", "--today", TODAY).output
    lint = cli("lint", repo)
    assert lint.exit_code == 0 and "\n0 errors" in lint.output


def test_the_report_names_the_backup_of_a_hand_run_file_not_a_2x_original(
    tmp_path: Path,
) -> None:
    repo = tmp_path / "after"
    shutil.copytree(EXAMPLE / "before", repo)
    dry = cli("enable", repo, "--dry-run", "--today", TODAY).output
    assert "AGENTS.md would be " in dry and "AGENTS.md is now " not in dry
    output = cli("enable", repo, "--today", TODAY).output
    line = next(
        line
        for line in output.splitlines()
        if line.endswith(f"untouched; the original is in .agent/backup/{CURRENT}/CLAUDE.md)")
    )
    assert "CLAUDE.md" in line and "2.x" not in output
    assert "AGENTS.md is now " in output


def test_the_stamp_keeps_its_style_and_passes_the_hand_run_lint(tmp_path: Path) -> None:
    stamp = (adopted(tmp_path) / ".agent/version.md").read_text()
    assert HANDRUN_LINT_VERSION.search(stamp).group(1) == CURRENT  # type: ignore[union-attr]
    assert "- **enabled_with:**  4.14.1\n" in stamp and "- **vendors:**       claude\n" in stamp
    assert stamp.startswith((EXAMPLE / "before/.agent/version.md").read_text().split("- **")[0])
    assert "- 2026-08-25: 4.38.0 → 5.0.0 (rung 5.0.0: adoption of a repo enabled by hand)" in stamp
    assert manifest.parse(stamp.encode()).ours


def test_an_unstamped_3x_layer_is_adopted_not_taken_for_2x(tmp_path: Path) -> None:
    before = cli("status", FIXTURES / "unstamped-3x").output.splitlines()[0]
    assert before.startswith("installed an unstamped layer enabled by hand (agent-memory enable")
    dry = cli("enable", FIXTURES / "unstamped-3x", "--dry-run", "--today", "2026-06-21").output
    assert "would upgrade" in dry and "from an unstamped layer enabled by hand (mode B)" in dry
    assert "3.0.0" not in dry.splitlines()[0]
    repo = adopted(tmp_path, FIXTURES / "unstamped-3x", "2026-06-21")
    stamp = (repo / ".agent/version.md").read_text()
    assert HANDRUN_LINT_VERSION.search(stamp) is not None
    assert "3.0.0 → 5.0.0 (rung 5.0.0: adoption" in stamp
    archive = (repo / "memory/archive/2026-Q2.md").read_text()
    assert "tier: archived | from: Key Decisions | archived: 2026-06-18" in archive
    assert (
        "tier: archived | done: 2026-06-11 | from: Open Threads | archived: 2026-06-18" in archive
    )
    review = cli("review", repo, "--full", "--today", "2026-06-21")
    assert "Reactivated: 0" in review.output
    assert "Archived: 1 (sanitizer-allowlist-walker)" in review.output


def test_a_future_hand_run_version_is_adopted_with_a_warning(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURES / "future-4.99", repo)
    result = cli("enable", repo, "--today", "2026-10-06")
    assert result.exit_code == 0, result.output
    assert "4.99.0 is newer than any hand-run version known (4.40.1)" in result.output
    for what in ("memory/playbooks.md", "'last_distill'", "'distill_every'"):
        assert what in result.output
    assert (repo / "memory/playbooks.md").read_bytes() == (
        FIXTURES / "future-4.99/memory/playbooks.md"
    ).read_bytes()


def test_our_own_newer_stamp_is_still_refused(tmp_path: Path) -> None:
    (tmp_path / ".agent").mkdir()
    stamp = "# agent-memory install manifest\n- version: 7.0.0\n\n## Managed files\n"
    (tmp_path / ".agent/version.md").write_text(stamp)
    result = cli("enable", tmp_path)
    assert result.exit_code == 1 and "newer than this tool" in result.output


def test_read_only_commands_work_before_adoption_and_a_writing_review_asks_first(
    tmp_path: Path,
) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE / "before", repo)
    snapshot = stats(repo)
    for args in (("lint",), ("status",), ("recall", "vision"), ("review", "--dry-run")):
        result = cli(*args[:1], *args[1:], repo) if args[0] != "recall" else cli(*args, repo)
        assert result.exit_code == 0, (args, result.output)
    refused = cli("review", repo, "--today", TODAY)
    assert refused.exit_code == 1
    assert refused.output.strip().splitlines() == [
        "agent-memory: .agent/version.md:6: stamped 4.38.0 by hand (no '## Managed files'); "
        "run agent-memory enable first to adopt it"
    ]
    assert stats(repo) == snapshot


def test_our_3_0_0_repo_climbs_one_rung_and_changes_no_memory_file(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    assert cli("enable", repo, "--today", "2026-06-01").exit_code == 0
    stamp = repo / ".agent/version.md"
    stamp.write_text(stamp.read_text().replace(CURRENT, "3.0.0"))
    memory = {p: d for p, d in tree(repo).items() if p.startswith("memory/")}
    result = cli("enable", repo, "--today", "2026-06-13")
    assert "from 3.0.0 (mode B)" in result.output
    assert {p: d for p, d in tree(repo).items() if p.startswith("memory/")} == memory
    assert (
        "- 2026-06-13: 3.0.0 → 5.0.0 (rung 5.0.0: supersession, ids with dots, one-file "
        "threads, vision)" in stamp.read_text()
    )


def test_a_hand_stamped_2x_repo_gets_what_our_ladder_gives_it(tmp_path: Path) -> None:
    """A hand-run stamp may say 2.0.0: adoption then also does the 2.x → 3.0.0 steps, and every
    file but the stamp ends as our own 2.x → 3.0.0 → 5.0.0 climb leaves it."""
    legacy = PROJECT / "examples/legacy-2x-repo"
    repo = tmp_path / "repo"
    shutil.copytree(legacy / "before", repo)
    stamp = "# agent-memory install manifest\n\n- **version:** 2.0.0\n- **mode:** A\n"
    (repo / ".agent/version.md").write_text(stamp)
    result = cli("enable", repo, "--today", "2026-06-13")
    assert "from 2.0.0, enabled by hand (mode B)" in result.output
    ours, adopted_tree = tree(legacy / "after"), tree(repo)
    assert {p for p in ours if p != ".agent/version.md"} == {
        p for p in adopted_tree if p != ".agent/version.md"
    }
    assert all(adopted_tree[p] == ours[p] for p in ours if p != ".agent/version.md")
    assert HANDRUN_LINT_VERSION.search((repo / ".agent/version.md").read_text()) is not None


def test_hand_written_index_lines_and_footerless_archived_items_are_kept_and_found(
    tmp_path: Path,
) -> None:
    """The protocol's own repo (HANDRUN.md): threads swept by hand in groups, without footers,
    indexed by a name of the group's own. Adoption keeps every INDEX summary in a file and in
    INDEX.md, the hand-written INDEX verbatim in the backup, and makes every archived item a
    fact recall, explain and lint see — and the review leaves them archived."""
    source = FIXTURES / "protocol-repo"
    repo = adopted(tmp_path, source, "2026-06-30")
    index = (source / "memory/archive/INDEX.md").read_text()
    assert (repo / ".agent/backup/5.0.0/memory/archive/INDEX.md").read_text() == index
    summaries = [line.split(" — ")[1] for line in index.splitlines() if line.startswith("- ")]
    archive = (repo / "memory/archive/2026-Q2.md").read_text()
    for summary in summaries[:2]:  # the groups' lines: their own facts now
        assert f"\n- {summary}\n" in archive
    new_index = (repo / "memory/archive/INDEX.md").read_text()
    for fact_id in ("first-deploy-staging-2026-06-12", "early-milestones-v1-v2", "cairo-backend"):
        assert f"\n- {fact_id} — " in new_index
    doc = facts.parse("memory/archive/2026-Q2.md", archive.encode())
    assert doc.problems == () and all(f.id for f in doc.facts) and len(doc.facts) == 8
    healthz = next(f for f in doc.facts if "/healthz" in f.first_line)
    assert healthz.field("archived") == "2026-06-12" and healthz.field("done") == "2026-06-12"
    assert healthz.field("tier") == "archived" and healthz.field("from") == "Open Threads"
    found = cli("recall", "healthz", repo).output
    assert found.startswith(f"{healthz.id}  [archived]")
    assert "first-deploy-staging-2026-06-12" in found
    assert "tier archived" in cli("explain", healthz.id, repo).output
    review = cli("review", repo, "--full", "--today", "2026-06-30")
    assert "Reactivated: 0" in review.output and "Archived: 0" in review.output
    assert "early-milestones-v1-v2 — completed swept threads: v1 Markdown to HTML" in (
        (repo / "memory/archive/INDEX.md").read_text()
    )
    lint = cli("lint", repo)
    assert lint.exit_code == 0 and lint.output.endswith("0 errors, 0 warnings, 2 advisories\n")
    assert lint.output.count("[handrun-protocol]") == 2  # the pointers, below
    assert not text_lines(source) - text_lines(repo)


def test_an_index_of_thousands_of_lines_naming_no_fact_is_adopted_in_one_pass(
    tmp_path: Path,
) -> None:
    """Each INDEX line naming no fact becomes a fact of its quarter file: the file is written
    once with all of them (it was parsed again after each line: 3,000 lines took minutes)."""
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURES / "protocol-repo", repo)
    index = repo / "memory/archive/INDEX.md"
    rows = "".join(
        f"- group-{n} — swept group {n} — swept by hand — 2026-Q2.md\n" for n in range(3000)
    )
    index.write_text(index.read_text() + rows)
    started = time.perf_counter()
    result = cli("enable", repo, "--today", "2026-06-30")
    assert result.exit_code == 0, result.output
    assert time.perf_counter() - started < 60
    doc = facts.parse("2026-Q2.md", (repo / "memory/archive/2026-Q2.md").read_bytes())
    kept = [f for f in doc.facts if f.id is not None and f.id.startswith("group-")]
    assert [f.id for f in kept] == [f"group-{n}" for n in range(3000)]
    assert kept[-1].first_line == "swept group 2999" and kept[0].field("reason") == "swept by hand"


def test_an_index_line_that_cannot_become_a_fact_stops_adoption_in_one_line(
    tmp_path: Path,
) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURES / "protocol-repo", repo)
    index = repo / "memory/archive/INDEX.md"
    index.write_text(index.read_text().replace("v2 HTML to PDF", "v2 <!-- HTML to PDF"))
    before = stats(repo)
    result = cli("enable", repo, "--today", "2026-06-30")
    assert result.exit_code == 1
    assert result.output.startswith("agent-memory: memory/archive/INDEX.md:6: the line of ")
    assert len(result.output.strip().splitlines()) == 1 and stats(repo) == before


def test_instruction_files_still_pointing_at_the_hand_run_protocol_are_reported(
    tmp_path: Path,
) -> None:
    """.cursorrules and copilot-instructions.md say "Follow memory/PROTOCOL.md first": adoption
    keeps their lines and says so, at each line, in its report and in lint — not for AGENTS.md,
    whose block of ours says it wins — until the line points at AGENTS.md."""
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURES / "protocol-repo", repo)
    dry = cli("enable", repo, "--dry-run", "--today", "2026-06-30").output
    output = cli("enable", repo, "--today", "2026-06-30").output
    flagged = [".cursorrules:3: advisory [handrun-protocol]", ".github/copilot-instructions.md:3:"]
    for where in flagged:
        assert where in dry and where in output
    assert "AGENTS.md:1: advisory" not in output
    assert (repo / ".cursorrules").read_bytes() == (
        FIXTURES / "protocol-repo/.cursorrules"
    ).read_bytes()
    lint = cli("lint", repo)
    assert lint.exit_code == 0 and all(where in lint.output for where in flagged)
    rules = repo / ".cursorrules"
    rules.write_text(
        rules.read_text().replace("Follow memory/PROTOCOL.md first.", "Read AGENTS.md.")
    )
    again = cli("lint", repo).output
    assert ".cursorrules" not in again and flagged[1] in again
    (repo / "memory/PROTOCOL.md").unlink()
    assert "[handrun-protocol]" not in cli("lint", repo).output
