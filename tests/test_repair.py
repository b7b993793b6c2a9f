"""Damage to the bootstrap layer: --check and lint see it, enable repairs it (with a backup)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from agent_memory.parse import manifest
from agent_memory.resources import version
from conftest import build_tree, cli, stats

TODAY = "2026-06-13"
BEGIN = "<!-- agent-memory:begin -->"

CURRENT = version()  # the release this tool stamps


def enabled(repo: Path) -> Path:
    build_tree(repo, {"README.md": "# demo\n"})
    assert cli("enable", repo, "--today", TODAY).exit_code == 0
    return repo


def assert_found_then_repaired(repo: Path, path: str, check: str) -> dict[str, object]:
    """--check fails, lint names the file, enable repairs, then all is quiet again."""
    before = stats(repo)
    assert cli("enable", repo, "--check").exit_code == 1
    lint = cli("lint", repo)
    assert f"{path}: " in lint.output and f"[{check}]" in lint.output, lint.output
    assert stats(repo) == before
    result = cli("enable", repo, "--json", "--today", TODAY)
    assert result.exit_code == 0, result.output
    doc: dict[str, object] = json.loads(result.output)
    after = stats(repo)
    assert "up to date" in cli("enable", repo).output and stats(repo) == after
    assert cli("enable", repo, "--check").exit_code == 0
    assert "[bootstrap]" not in cli("lint", repo).output
    return doc


def test_an_intact_repo_is_up_to_date_and_lint_clean(repo: Path) -> None:
    enabled(repo)
    before = stats(repo)
    assert "up to date" in cli("enable", repo).output and stats(repo) == before
    assert "[bootstrap]" not in cli("lint", repo).output


def test_agents_md_replaced_by_other_text_gets_its_block_back(repo: Path) -> None:
    enabled(repo)
    (repo / "AGENTS.md").write_text("# Rules\n\nSomeone rewrote this file.\n")
    assert_found_then_repaired(repo, "AGENTS.md", "bootstrap")
    text = (repo / "AGENTS.md").read_text()
    assert text.startswith("# Rules\n\n" + BEGIN) and text.endswith("Someone rewrote this file.\n")
    backup = repo / f".agent/backup/{CURRENT}/AGENTS.md"
    assert backup.read_text() == "# Rules\n\nSomeone rewrote this file.\n"


def test_a_damaged_block_is_repaired_and_the_file_backed_up(repo: Path) -> None:
    enabled(repo)
    claude = repo / "CLAUDE.md"
    damaged = claude.read_text().replace("@AGENTS.md", "@AGENTS.md.old")
    claude.write_text(damaged)
    assert_found_then_repaired(repo, "CLAUDE.md", "bootstrap")
    assert "@AGENTS.md\n" in claude.read_text()
    assert (repo / f".agent/backup/{CURRENT}/CLAUDE.md").read_text() == damaged


def test_a_doubled_block_is_made_one(repo: Path) -> None:
    enabled(repo)
    gemini = repo / "GEMINI.md"
    doubled = "Mine.\n\n" + gemini.read_text() + "\nMore of mine.\n\n" + gemini.read_text()
    gemini.write_text(doubled)
    assert_found_then_repaired(repo, "GEMINI.md", "bootstrap")
    text = gemini.read_text()
    assert text.count(BEGIN) == 1 and "Mine.\n" in text and "More of mine.\n" in text


def test_an_edited_managed_file_is_backed_up_and_replaced(repo: Path) -> None:
    enabled(repo)
    (repo / ".agent/schema.md").write_text("# my schema\n")
    assert_found_then_repaired(repo, ".agent/schema.md", "bootstrap")
    assert (repo / f".agent/backup/{CURRENT}/.agent/schema.md").read_text() == "# my schema\n"


@pytest.mark.parametrize(
    ("path", "copies"),
    [
        (".agent/DECAY.md", (".agent/DECAY.md", ".agent/DECAY-2.md", ".agent/DECAY-3.md")),
        ("AGENTS.md", ("AGENTS.md", "AGENTS-2.md", "AGENTS-3.md")),
        ("CLAUDE.md", ("CLAUDE.md", "CLAUDE-2.md", "CLAUDE-3.md")),
    ],
)
def test_a_later_repair_keeps_every_earlier_backup(
    repo: Path, path: str, copies: tuple[str, ...]
) -> None:
    """Each repair of other text backs it up under a name of its own (``-2``, ``-3``): no
    backup is written over, and a repair of text already backed up writes no second copy."""
    enabled(repo)
    folder = repo / f".agent/backup/{CURRENT}"
    damaged = []
    for note in ("note A", "note B", "note C"):
        block = re.compile(f"{BEGIN}.*<!-- agent-memory:end -->\n", re.DOTALL)
        text = block.sub("", (repo / path).read_text()) + f"{note}\n"
        damaged.append(text)
        (repo / path).write_text(text)
        assert_found_then_repaired(repo, path, "bootstrap")
    assert [(folder / copy).read_text() for copy in copies] == damaged
    (repo / path).write_text(damaged[0])
    assert_found_then_repaired(repo, path, "bootstrap")
    assert sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*.md")) == sorted(copies)


def test_a_missing_managed_file_is_put_back(repo: Path) -> None:
    enabled(repo)
    (repo / ".agent/DECAY.md").unlink()
    assert_found_then_repaired(repo, ".agent/DECAY.md", "bootstrap")
    assert (repo / ".agent/DECAY.md").exists()


def test_a_deleted_bootstrap_stays_deleted_and_the_stamp_says_so(repo: Path) -> None:
    enabled(repo)
    (repo / "GEMINI.md").unlink()
    doc = assert_found_then_repaired(repo, ".agent/version.md", "stamp")
    assert not (repo / "GEMINI.md").exists()
    stamp = manifest.parse((repo / ".agent/version.md").read_bytes())
    assert stamp.vendors == ("claude",)
    assert any("gemini bootstrap deleted" in e["reason"] for e in doc["plan"])  # type: ignore[attr-defined]
    # Deleted by accident: asking for it brings it back and lists it again.
    assert cli("enable", repo, "--vendor", "gemini", "--today", TODAY).exit_code == 0
    assert BEGIN in (repo / "GEMINI.md").read_text()
    stamp = manifest.parse((repo / ".agent/version.md").read_bytes())
    assert stamp.vendors == ("claude", "gemini")


def test_a_bootstrap_the_stamp_does_not_list_is_added_to_it(repo: Path) -> None:
    assert cli("enable", repo, "--vendor", "claude", "--today", TODAY).exit_code == 0
    build_tree(repo, {"GEMINI.md": (repo / "CLAUDE.md").read_text()})
    assert_found_then_repaired(repo, ".agent/version.md", "stamp")
    stamp = manifest.parse((repo / ".agent/version.md").read_bytes())
    assert stamp.vendors == ("claude", "gemini")


def test_markers_inside_a_code_fence_are_an_example_not_a_block(repo: Path) -> None:
    example = (
        f"# Docs\n\nOur installer writes:\n\n```markdown\n{BEGIN}\n...\n"
        "<!-- agent-memory:end -->\n```\n"
    )
    build_tree(repo, {"AGENTS.md": example})
    assert cli("enable", repo, "--today", TODAY).exit_code == 0
    text = (repo / "AGENTS.md").read_text()
    assert text.count(BEGIN) == 2 and text.endswith(example[len("# Docs\n") :])
    assert text.index(BEGIN) < text.index("```")
    before = stats(repo)
    assert "up to date" in cli("enable", repo).output and stats(repo) == before


def test_an_agents_md_over_codex_budget_is_warned_about_with_the_numbers(repo: Path) -> None:
    big = "# Big\n\n" + "".join(
        f"- rule number {i} says something long enough\n" for i in range(900)
    )
    build_tree(repo, {"AGENTS.md": big})
    result = cli("enable", repo, "--today", TODAY)
    size = (repo / "AGENTS.md").stat().st_size
    assert size > 32 * 1024
    assert f"is {size:,} bytes, over Codex's default budget of 32,768" in result.output
    assert "block ends at byte" in result.output and "past the budget" not in result.output
    assert "[agents-size]" in cli("lint", repo).output


def test_enable_md_names_every_installed_path_and_the_codex_budget() -> None:
    from agent_memory.core.install.repair import CODEX_BUDGET
    from agent_memory.layout import FULLY_MANAGED, USER_DATA, VENDORS
    from conftest import PROJECT

    enable_md = (PROJECT / "ENABLE.md").read_text()
    step2 = enable_md.split("## Step 2", 1)[1].split("## Step 3", 1)[0]
    for path in [*FULLY_MANAGED, *USER_DATA, *(p for p, _t, _k in VENDORS.values())]:
        assert f"`{path}`" in step2, path
    kib = f"{CODEX_BUDGET // 1024} KiB"
    assert kib in enable_md and kib in (PROJECT / "MIGRATE.md").read_text()
    assert "project_doc_max_bytes" in enable_md


def test_lint_names_an_unclosed_block_in_one_line_and_enable_refuses(repo: Path) -> None:
    enabled(repo)
    claude = repo / "CLAUDE.md"
    claude.write_text(claude.read_text().replace("<!-- agent-memory:end -->\n", ""))
    lint = cli("lint", repo)
    assert lint.exit_code == 1
    assert "CLAUDE.md:1: error [bootstrap] has an agent-memory block that is not closed" in (
        lint.output
    )
    before = stats(repo)
    result = cli("enable", repo)
    assert result.exit_code == 1 and len(result.output.strip().splitlines()) == 1
    assert stats(repo) == before


def test_a_memory_file_no_command_can_read_is_named_with_its_line_by_enable(repo: Path) -> None:
    """5.0.0's MCP fact add could write ``## Notes\\0x``; enable then said the file was kept,
    exit 0, while every other command refused it. Enable still leaves memory bytes to their
    authors, but says which line to fix, the way the other commands do."""
    enabled(repo)
    continuity = repo / "memory/continuity.md"
    continuity.write_bytes(continuity.read_bytes() + b"\n## Notes\x00x\n- a fact\n")
    before = stats(repo)
    result = cli("enable", repo, "--today", TODAY)
    assert result.exit_code == 0 and stats(repo) == before
    line = "memory/continuity.md:18: warning [input] contains a NUL byte (binary data); delete it"
    assert line in result.output, result.output
    status = cli("status", repo)
    assert status.exit_code == 1 and "memory/continuity.md:18: contains a NUL byte" in status.output
