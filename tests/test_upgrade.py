"""Mode B: the version ladder, re-sync and re-stamp, resume after a crash, the legacy example."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from packaging.version import Version

from agent_memory.core.install.ladder import Ladder, Rung
from agent_memory.core.plan import FileEdit, Outcome, Plan
from agent_memory.parse import facts, manifest
from agent_memory.resources import version
from agent_memory.upgrade.rungs import default_ladder
from conftest import PROJECT, build_tree, cli, run_console, run_forked, stats, tree

EXAMPLE = PROJECT / "examples/legacy-2x-repo"
TODAY = "2026-06-13"

CURRENT = version()  # the release this tool stamps


def legacy_copy(tmp_path: Path) -> Path:
    repo = tmp_path / "after"
    shutil.copytree(EXAMPLE / "before", repo)
    return repo


def test_legacy_example_upgrade_is_byte_exact_and_then_up_to_date(tmp_path: Path) -> None:
    repo = legacy_copy(tmp_path)
    result = cli("enable", repo, "--today", TODAY)
    assert result.exit_code == 0, result.output
    assert "upgraded" in result.output and "from 2.0.0 (mode B)" in result.output
    assert tree(repo) == tree(EXAMPLE / "after")
    before = stats(repo)
    again = cli("enable", repo, "--today", "2026-07-01")
    assert "up to date" in again.output and stats(repo) == before


def test_a_file_a_rung_changed_is_reported_changed_not_preserved(tmp_path: Path) -> None:
    """Two rungs: 3.0.0 adds footers to continuity.md, and the re-sync after 5.0.0 finds the
    file there ("preserved"); the report says what was done to it, dry run or not."""
    for extra in (("--dry-run",), ()):
        repo = legacy_copy(tmp_path / "dry" if extra else tmp_path / "real")
        output = cli("enable", repo, "--today", TODAY, *extra).output
        assert re.search(r"\n  updated +memory/continuity\.md  \(rung 3\.0\.0\)\n", output)


def test_upgrade_keeps_logs_and_fact_texts(tmp_path: Path) -> None:
    repo = legacy_copy(tmp_path)
    old = tree(repo)
    cli("enable", repo, "--today", TODAY)
    new = tree(repo)
    logs = {p for p in old if p.startswith("memory/sessions/")}
    assert all(new[p] == old[p] for p in logs)
    assert new["memory/instructions.md"] == old["memory/instructions.md"]
    # Removing the footers (and the two added sections) gives back the 2.x file exactly.
    lines = new["memory/continuity.md"].decode().splitlines(keepends=True)
    stripped = [
        line
        for line in lines
        if "<!-- id:" not in line
        and line not in ("## Architectural Invariants\n", "- **last_review:** (none yet)\n")
    ]
    original = old["memory/continuity.md"].decode()
    assert "".join(stripped) == original.replace("## Key Decisions", "\n## Key Decisions", 1)
    for path in ("AGENTS.md", "CLAUDE.md", "GEMINI.md", ".github/copilot-instructions.md"):
        # Every old line, in order (AGENTS.md gets the block at its top, after its title).
        kept = iter(new[path].splitlines(keepends=True))
        assert all(line in kept for line in old[path].splitlines(keepends=True))
        assert new[f".agent/backup/{CURRENT}/{path}"] == old[path]


def test_a_review_right_after_the_upgrade_changes_no_footer(tmp_path: Path) -> None:
    repo = legacy_copy(tmp_path)
    cli("enable", repo, "--today", TODAY)
    before = (repo / "memory/continuity.md").read_text()
    result = cli("review", repo, "--today", TODAY)
    assert "Tier changes: 0" in result.output
    after = (repo / "memory/continuity.md").read_text()
    footers = [line for line in before.splitlines() if "<!-- id:" in line]
    assert footers == [line for line in after.splitlines() if "<!-- id:" in line]


def test_dry_run_shows_the_diff_the_real_run_applies(tmp_path: Path) -> None:
    repo = legacy_copy(tmp_path)
    before = tree(repo)
    dry = cli("enable", repo, "--dry-run", "--full-diff", "--today", TODAY)
    assert dry.exit_code == 0 and tree(repo) == before
    cli("enable", repo, "--today", TODAY)
    after = tree(repo)
    applied = Plan.of(
        FileEdit(p, before.get(p), after.get(p), Outcome.UPDATED, "")
        for p in set(before) | set(after)
        if before.get(p) != after.get(p)
    )
    assert dry.output.endswith(applied.diff())
    assert cli("enable", repo, "--check").exit_code == 0


def test_killed_inside_a_rung_is_rolled_back_then_completes(tmp_path: Path) -> None:
    repo = legacy_copy(tmp_path)
    before = tree(repo)
    crashed = run_console(
        "enable", repo, "--today", TODAY, cwd=tmp_path, AGENT_MEMORY_FAULT_AT_STEP="3"
    )
    assert crashed.returncode == -9
    assert cli("enable", repo, "--check").exit_code == 1  # refused: a journal is present
    assert cli("recover", repo).exit_code == 0
    assert tree(repo) == before
    assert cli("enable", repo, "--check").exit_code == 1  # an upgrade is pending
    assert cli("enable", repo, "--today", TODAY).exit_code == 0
    assert tree(repo) == tree(EXAMPLE / "after")


TOY_LADDER = textwrap.dedent(
    """
    import os, signal, sys
    from pathlib import Path
    from packaging.version import Version
    from agent_memory.commands.enable import enable
    from agent_memory.commands.settle import Options
    from agent_memory.shell.repo import Repo
    from agent_memory.core.install.ladder import Ladder, Rung

    kill_at = sys.argv[2]

    def rung(version):
        def upgrade(files, today):
            if version == kill_at:
                os.kill(os.getpid(), signal.SIGKILL)
            log = files.get("memory/toy.log") or b""
            return {"memory/toy.log": log + f"rung {version}\\n".encode()}
        return Rung(Version(version), f"toy {version}", upgrade, ("memory/toy.log",))

    ladder = Ladder([rung("2.1.0"), rung("2.2.0"), rung("5.0.0")])
    # The runner dates the run; run without it, the repo is opened on the date.
    repo = Repo(Path(sys.argv[1]), now=__import__("datetime").datetime(2026, 6, 13))
    with repo.locked():
        result = enable(repo, (), Options(), ladder)
    print(result.report.outcome)
    """
)


def test_killed_between_rungs_resumes_at_the_next_rung(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE / "before", repo)
    script = tmp_path / "toy.py"
    script.write_text(TOY_LADDER)
    killed = subprocess.run(
        [sys.executable, str(script), str(repo), "2.2.0"], capture_output=True, text=True
    )
    assert killed.returncode == -9
    stamp = manifest.parse((repo / ".agent/version.md").read_bytes())
    assert str(stamp.version) == "2.1.0"
    assert (repo / "memory/toy.log").read_text() == "rung 2.1.0\n"
    done = subprocess.run(
        [sys.executable, str(script), str(repo), "none"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert (repo / "memory/toy.log").read_text() == "rung 2.1.0\nrung 2.2.0\nrung 5.0.0\n"
    stamp = manifest.parse((repo / ".agent/version.md").read_bytes())
    assert str(stamp.version) == CURRENT  # the last toy rung is below: the re-sync stamps the tool
    assert stamp.history == (
        "2026-06-13: 2.0.0 → 2.1.0 (rung 2.1.0: toy 2.1.0)",
        "2026-06-13: 2.1.0 → 2.2.0 (rung 2.2.0: toy 2.2.0)",
        "2026-06-13: 2.2.0 → 5.0.0 (rung 5.0.0: toy 5.0.0)",
    )
    assert not any(".agent-memory" in p for p in tree(repo))


def test_an_adoption_killed_at_any_step_ends_where_an_uninterrupted_one_does(
    tmp_path: Path,
) -> None:
    """An adoption killed between two rungs (or inside one) is resumed by the next run: its tree
    is the uninterrupted run's, byte for byte. The stamp of the adoption's step records the
    vendors found, which a resumed run cannot find again once the stamp is ours. (The crash
    matrix does the same for the 2.x example.)"""
    example, today = "handrun-4x-repo", "2026-08-25"
    clean = tmp_path / "clean"
    shutil.copytree(PROJECT / "examples" / example / "before", clean)
    assert run_forked(["enable", str(clean), "--today", today], {}) == 0
    between = 0
    for step in range(1, 200):
        repo = tmp_path / f"step-{step}"
        shutil.copytree(PROJECT / "examples" / example / "before", repo)
        args = ["enable", str(repo), "--today", today]
        if run_forked(args, {"AGENT_MEMORY_FAULT_AT_STEP": str(step)}) == 0:
            break
        if (repo / ".agent/version.md").exists():
            stamp = manifest.parse((repo / ".agent/version.md").read_bytes())
            between += stamp.ours and str(stamp.version) != CURRENT
        assert run_forked(args, {}) == 0
        assert tree(repo) == tree(clean), f"killed at step {step}"
        shutil.rmtree(repo)
    assert between >= 2  # kills that left the repo between two rungs were among them


def _stamped(repo: Path, version: str, schema: bytes, recorded: bytes, vendors: str) -> None:
    build_tree(
        repo,
        {
            ".agent/version.md": (
                f"# agent-memory install manifest\n- version: {version}\n- enabled_with: 2.5.0\n"
                f"- last_upgraded: 2026-01-01\n- mode: C\n- vendors: {vendors}\n\n"
                f"## Managed files\n- .agent/schema.md: {manifest.sha256(recorded)}\n\n"
                "## Upgrade history\n"
            ),
            ".agent/schema.md": schema,
            "memory/continuity.md": "# Continuity\n\n## Project State\n- last_review: (none yet)\n",
            "CLAUDE.md": "Be terse.\n",
        },
    )


def test_user_edited_managed_file_is_backed_up_before_it_is_replaced(repo: Path) -> None:
    _stamped(repo, "2.5.0", b"# my edited schema\n", b"# what 2.5.0 installed\n", "claude")
    result = cli("enable", repo, "--today", TODAY)
    assert result.exit_code == 0
    assert re.search(r"backed up and replaced +\.agent/schema\.md", result.output)
    assert (
        repo / f".agent/backup/{CURRENT}/.agent/schema.md"
    ).read_bytes() == b"# my edited schema\n"
    stamp = manifest.parse((repo / ".agent/version.md").read_bytes())
    assert (stamp.enabled_with, stamp.mode, str(stamp.version)) == ("2.5.0", "C", CURRENT)
    assert stamp.last_upgraded == TODAY


def test_unedited_managed_file_is_replaced_without_backup(repo: Path) -> None:
    _stamped(repo, "2.5.0", b"# what 2.5.0 installed\n", b"# what 2.5.0 installed\n", "claude")
    result = cli("enable", repo, "--today", TODAY)
    assert re.search(r"updated +\.agent/schema\.md", result.output)
    assert not (repo / ".agent/backup").exists()


def test_a_deleted_vendor_bootstrap_stays_deleted(repo: Path) -> None:
    _stamped(repo, "2.5.0", b"x\n", b"x\n", "claude, gemini")
    result = cli("enable", repo, "--today", TODAY, "--json")
    doc = json.loads(result.output)
    assert not (repo / "GEMINI.md").exists()
    assert manifest.parse((repo / ".agent/version.md").read_bytes()).vendors == ("claude",)
    assert any("gemini bootstrap deleted" in e["reason"] for e in doc["plan"])


def _enabled_by(repo: Path, old: str) -> None:
    """A repo as release ``old`` left it, as far as the re-sync can tell: its stamp and the
    heading of AGENTS.md's block name ``old``."""
    assert cli("enable", repo, "--vendor", "claude", "--today", TODAY).exit_code == 0
    for rel, key in ((".agent/version.md", r"version: +"), ("AGENTS.md", r"\(agent-memory ")):
        path = repo / rel
        text, count = re.subn(f"({key}){re.escape(CURRENT)}", rf"\g<1>{old}", path.read_text())
        path.write_text(text)
        assert count == 1


@pytest.mark.parametrize("rel", ["AGENTS.md", "CLAUDE.md"])
def test_an_upgrade_backs_up_a_block_someone_edited_before_it_replaces_it(
    repo: Path, rel: str
) -> None:
    """UPGRADE.md step 3: a block no release wrote holds a person's edit, and the upgrade's
    re-sync replaces it: the file is copied first, as a repair copies it."""
    _enabled_by(repo, "5.1.0")
    path = repo / rel
    begin = "<!-- agent-memory:begin -->\n"
    edited = path.read_text().replace(begin, f"{begin}0. TEAM LINE\n", 1)
    path.write_text(edited)
    result = cli("enable", repo, "--today", TODAY)
    assert result.exit_code == 0, result.output
    assert "upgraded" in result.output and "TEAM LINE" not in path.read_text()
    assert (repo / f".agent/backup/{CURRENT}/{rel}").read_text() == edited
    assert f"the file with your edit is in .agent/backup/{CURRENT}/{rel}" in result.output


@pytest.mark.parametrize(
    ("rel", "ours", "theirs"),
    [
        (".gitignore", "*.agent-memory-tmp\n", "/secrets.env\n"),
        (".gitattributes", "memory/rejected.md merge=union\n", "*.png binary\n"),
    ],
)
def test_an_upgrade_backs_up_an_ignore_or_attributes_block_someone_edited(
    repo: Path, rel: str, ours: str, theirs: str
) -> None:
    """A rule someone wrote inside our block of .gitignore or .gitattributes goes when an
    upgrade refreshes the block: the file is copied first, as a bootstrap's is (ENABLE.md §
    Managed blocks). Dropped unseen, a hidden secrets file would be git's to take."""
    _enabled_by(repo, "5.1.0")
    path = repo / rel
    edited = path.read_text().replace(ours, ours + theirs, 1)
    path.write_text(edited)
    result = cli("enable", repo, "--today", TODAY)
    assert result.exit_code == 0, result.output
    assert "upgraded" in result.output and theirs not in path.read_text()
    assert (repo / f".agent/backup/{CURRENT}/{rel}").read_text() == edited
    assert f"the file with your edit is in .agent/backup/{CURRENT}/{rel}" in result.output


def test_an_upgrade_from_before_the_personal_file_keeps_no_copy_of_an_unedited_ignore_block(
    repo: Path,
) -> None:
    """5.1.0's .gitignore block, as that release wrote it, is refreshed without a backup."""
    _enabled_by(repo, "5.1.0")
    path = repo / ".gitignore"
    personal = "# one person's own facts, never shared (DECAY.md § Personal facts)\n"
    path.write_text(path.read_text().replace(personal + "/memory/personal.md\n", "", 1))
    assert cli("enable", repo, "--today", TODAY).exit_code == 0
    assert "/memory/personal.md" in path.read_text()
    assert not (repo / ".agent/backup").exists()


def test_an_upgrade_refreshes_a_block_no_one_edited_without_a_backup(repo: Path) -> None:
    _enabled_by(repo, "5.1.0")
    result = cli("enable", repo, "--today", TODAY)
    assert result.exit_code == 0 and "upgraded" in result.output
    assert re.search(r"block updated +AGENTS\.md", result.output)
    assert not (repo / ".agent/backup").exists()


def test_every_block_this_release_writes_is_known_as_written() -> None:
    """The digests of written.WRITTEN must name every block this release's templates give; a
    template changed without its new digest would have every upgrade back up that file."""
    from agent_memory.core.blocks import block_of, worded
    from agent_memory.core.install.written import WRITTEN, digest, versioned
    from agent_memory.layout import (
        AGENTS_MD,
        AGENTS_TEMPLATE,
        GITATTRIBUTES,
        GITATTRIBUTES_TEMPLATE,
        GITIGNORE,
        GITIGNORE_BLOCK,
        GITIGNORE_MARKERS,
        VENDORS,
    )
    from agent_memory.resources import data

    blocks = {AGENTS_MD: [versioned(data(AGENTS_TEMPLATE), CURRENT)]}
    for path, template, kind in VENDORS.values():
        if kind == "block":
            own = worded(data(template), b"Text of the project's own.\n", path)
            blocks[path] = [data(template), own]
    missing = {
        path: digest(block_of(path, text))
        for path, texts in blocks.items()
        for text in texts
        if digest(block_of(path, text)) not in WRITTEN
    }
    # .gitignore and .gitattributes: the same # markers
    lines = {GITIGNORE: GITIGNORE_BLOCK.encode(), GITATTRIBUTES: data(GITATTRIBUTES_TEMPLATE)}
    for path, text in lines.items():
        if (found := digest(block_of(path, text, GITIGNORE_MARKERS))) not in WRITTEN:
            missing[path] = found
    assert not missing, f"add to written.WRITTEN: {missing}"


def test_stamp_newer_than_the_tool_is_refused(repo: Path) -> None:
    _stamped(repo, "9.0.0", b"x\n", b"x\n", "claude")
    before = stats(repo)
    result = cli("enable", repo)
    assert result.exit_code == 1 and "newer than this tool" in result.output
    assert "git pull in its clone" in result.output  # no package name no registry holds
    assert stats(repo) == before


def test_ladder_selects_by_version_and_rejects_two_rungs_for_one_version() -> None:
    def rung(v: str) -> Rung:
        return Rung(Version(v), v, lambda files, today: {})

    ladder = Ladder([rung("3.0.0"), rung("2.10.0"), rung("2.9.0")])
    assert [str(r.target) for r in ladder.between(Version("2.9.0"), Version("3.0.0"))] == [
        "2.10.0",
        "3.0.0",
    ]
    with pytest.raises(ValueError, match="two rungs"):
        Ladder([rung("3.0.0"), rung("3.0.0")])


def test_version_file_readme_table_registry_and_upgrade_doc_agree() -> None:
    version = (PROJECT / "VERSION").read_text().strip()
    readme = (PROJECT / "README.md").read_text()
    upgrade = (PROJECT / "UPGRADE.md").read_text()
    # The version table's rows: a first cell that reads as a version (other tables hold counts).
    rows = [
        cell
        for line in readme.splitlines()
        if line.startswith("| ")
        and re.fullmatch(r"\d+\.\d+(?:\.\d+)?|\d+\.x", cell := line.split("|")[1].strip())
    ]
    assert rows[-1] == version
    rungs = [str(r.target) for r in default_ladder().rungs]
    assert rungs[-1] == version
    for target in rungs:
        assert f"## 2.x → {target}" in upgrade or f"→ {target}" in upgrade
        assert target in rows
    # CHANGELOG.md: one section per release of the table, the newest first and this VERSION.
    changelog = (PROJECT / "CHANGELOG.md").read_text()
    released = re.findall(r"^## \[([0-9]+\.[0-9]+\.[0-9]+)\]", changelog, re.M)
    assert released[0] == version
    assert set(released) == {row for row in rows if not row.endswith(".x")}


def test_rung_ids_are_unique_and_stable() -> None:
    from agent_memory.parse.footer import slug, unique_ids

    assert slug("**Webhooks** are signed; see [the doc](x.md)") == "webhooks-are-signed-see-the-doc"
    assert slug("Café — naïve résumé") == "cafe-naive-resume"
    assert slug("—") == "fact"
    assert unique_ids(["a", "a", "b", "a"], {"b"}) == ["a", "a-2", "b-2", "a-3"]
    doc = facts.parse("c.md", (EXAMPLE / "after/memory/continuity.md").read_bytes())
    ids = [f.id for f in doc.facts]
    assert len(ids) == len(set(ids)) and None not in ids


def test_an_upgrade_lists_the_transient_files_in_gitignore_keeping_user_lines(
    tmp_path: Path,
) -> None:
    repo = legacy_copy(tmp_path)
    (repo / ".gitignore").write_bytes(b"node_modules/\n")
    cli("enable", repo, "--today", TODAY)
    ignore = (repo / ".gitignore").read_bytes()
    assert ignore.startswith(b"node_modules/\n")
    assert b"/.agent-memory.lock\n" in ignore and b"/.agent-memory.journal/\n" in ignore
    again = cli("enable", repo, "--today", TODAY)
    assert "up to date" in again.output and (repo / ".gitignore").read_bytes() == ignore


@pytest.mark.parametrize(
    "phrase",
    [
        "This project uses the **agent-memory** shared memory system.",
        "This project uses the `agent-memory` shared memory system.",
        "This project uses the [agent-memory](https://example.com/x) Shared Memory System.",
        "This project uses the _agent-memory_ shared\nmemory   system.",
        "This project uses the <b>agent-memory</b> shared memory system.",
        "THIS PROJECT USES THE AGENT\\-MEMORY SHARED MEMORY SYSTEM.",
    ],
)
def test_a_2x_file_is_recognised_whatever_its_markup(tmp_path: Path, phrase: str) -> None:
    """UPGRADE.md: a 2.x file we add our block to is copied to the backup first — a file that
    bolds the name, wraps the line or shouts is still one."""
    repo = legacy_copy(tmp_path)
    claude = repo / "CLAUDE.md"
    text = claude.read_text().replace(
        "This project uses the agent-memory shared memory system.", phrase
    )
    assert phrase in text
    claude.write_text(text)
    result = cli("enable", repo, "--today", TODAY)
    assert result.exit_code == 0, result.output
    assert (repo / f".agent/backup/{CURRENT}/CLAUDE.md").read_text() == text
    assert f"the original is in .agent/backup/{CURRENT}/CLAUDE.md" in result.output


def test_the_2x_phrase_reader_stays_linear_on_hostile_markup() -> None:
    from agent_memory.core.install.bootstrap import says_legacy

    for hostile in ("<" * 200_000, "](" * 200_000, "[" * 200_000 + "x"):
        assert not says_legacy(hostile)
    assert says_legacy("uses the\n**Agent-Memory** shared memory system")
    assert not says_legacy("uses the agent-memory memory system")
