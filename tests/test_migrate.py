"""Mode C: detection, consolidation, pointers, memory stores, and nothing lost."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_memory.core.vendors.table import TABLE, matches
from agent_memory.parse import manifest
from conftest import PROJECT, build_tree, cli, stats, tree

EXAMPLE = PROJECT / "examples/vendor-repo"
TODAY = "2026-06-13"


def migrated(tmp_path: Path) -> tuple[dict[str, bytes], dict[str, bytes]]:
    repo = tmp_path / "after"
    shutil.copytree(EXAMPLE / "before", repo)
    before = tree(repo)
    result = cli("enable", repo, "--today", TODAY)
    assert result.exit_code == 0, result.output
    assert "(mode C)" in result.output
    return before, tree(repo)


def assert_nothing_lost(before: dict[str, bytes], after: dict[str, bytes]) -> None:
    """Every non-empty line of every source is in AGENTS.md, continuity.md or .agent/migrated/."""
    kept = "\n".join(
        data.decode()
        for path, data in after.items()
        if path in ("AGENTS.md", "memory/continuity.md") or path.startswith(".agent/migrated/")
    )
    for path, data in before.items():
        if after.get(path) == data:
            continue  # left as it was
        for line in data.decode().splitlines():
            assert line.strip() in kept, (path, line)


def test_vendor_example_is_byte_exact_and_then_up_to_date(tmp_path: Path) -> None:
    _, after = migrated(tmp_path)
    assert after == tree(EXAMPLE / "after")
    repo = tmp_path / "after"
    before = stats(repo)
    again = cli("enable", repo, "--today", "2026-07-01")
    assert "up to date" in again.output and stats(repo) == before
    assert manifest.parse(after[".agent/version.md"]).mode == "C"


def test_nothing_is_lost_and_originals_are_verbatim(tmp_path: Path) -> None:
    before, after = migrated(tmp_path)
    assert_nothing_lost(before, after)
    for path, data in before.items():
        if after[path] != data:
            assert after[f".agent/migrated/{path}"] == data


def test_a_rule_written_three_times_is_kept_once(tmp_path: Path) -> None:
    _, after = migrated(tmp_path)
    agents = after["AGENTS.md"].decode()
    assert agents.count("Use pnpm for everything; never run npm or yarn.") == 1
    assert agents.count("Money is stored as integer cents.") == 1


def test_imports_survive_where_claude_reads_them_and_scoped_rules_stay(tmp_path: Path) -> None:
    before, after = migrated(tmp_path)
    claude = after["CLAUDE.md"].decode()
    assert "@AGENTS.md" in claude
    assert claude.rstrip().endswith("@docs/architecture.md\n@docs/runbook.md")
    for scoped in (".cursor/rules/react.mdc", ".github/instructions/migrations.instructions.md"):
        assert after[scoped] == before[scoped]
    assert after[".cursor/rules/money.mdc"].startswith(b"---\ndescription: Money handling\n")
    assert b"memory-bank/techContext.md" in after["memory/continuity.md"]
    assert all(after[p] == before[p] for p in before if p.startswith("memory-bank/"))


def test_a_review_right_after_the_migration_changes_no_footer(tmp_path: Path) -> None:
    _, after = migrated(tmp_path)
    repo = tmp_path / "after"
    result = cli("review", repo, "--today", TODAY)
    assert "Tier changes: 0" in result.output
    footers = [
        line for line in after["memory/continuity.md"].decode().splitlines() if "id:" in line
    ]
    now = (repo / "memory/continuity.md").read_text().splitlines()
    assert footers == [line for line in now if "id:" in line]


def test_keep_vendor_files_only_adds_pointer_blocks(repo: Path) -> None:
    build_tree(repo, {"CLAUDE.md": "Be terse.", ".windsurfrules": "Tabs.\n"})
    assert cli("enable", repo, "--keep-vendor-files", "--today", TODAY).exit_code == 0
    files = tree(repo)
    # No blank line after a last line without a newline: disable knows to take the newline out.
    assert files["CLAUDE.md"].startswith(b"Be terse.\n<!-- agent-memory:begin -->")
    assert files[".windsurfrules"] == b"Tabs.\n"
    assert not any(p.startswith(".agent/migrated/") for p in files)


def test_malformed_frontmatter_or_context_yaml_is_one_error_and_nothing_written(
    repo: Path,
) -> None:
    for bad in (
        {".cursor/rules/x.mdc": "---\nalwaysApply: [true\n---\nbody\n"},
        {"CONTEXT.yaml": "core:\n  - id: a\n    content: [unclosed\n"},
    ):
        build_tree(repo, {"CLAUDE.md": "Be terse.\n", **bad})
        before = stats(repo)
        result = cli("enable", repo)
        assert result.exit_code == 1
        (path,) = bad
        assert re.match(rf"agent-memory: {re.escape(path)}:\d+: YAML is malformed", result.output)
        assert len(result.output.strip().splitlines()) == 1
        assert stats(repo) == before
        (repo / path).unlink()


def test_a_glob_written_unquoted_as_cursor_and_windsurf_write_it_is_read_as_text(
    tmp_path: Path,
) -> None:
    # Cursor's editor writes `globs: *.rs` unquoted; YAML alone reads it as an alias of no anchor.
    scoped = {
        ".cursor/rules/rust.mdc": "---\nglobs: *.rs\nalwaysApply: false\n---\n\n# Rust\n",
        ".windsurf/rules/py.md": "---\r\ntrigger: glob\r\nglobs: *.py, **/*.pyi\r\n---\r\nTab.\r\n",
    }
    always = {".cursor/rules/all.mdc": "---\nglobs: *\nalwaysApply: true\n---\nBe terse.\n"}
    repo = build_tree(tmp_path / "cursor", {**scoped, **always})
    result = cli("enable", repo, "--today", TODAY)
    assert result.exit_code == 0, result.output
    after = tree(repo)
    assert all(after[path] == text.encode() for path, text in scoped.items())
    assert "Be terse." in after["AGENTS.md"].decode()
    # An alias of an anchor the header sets is still YAML's, and a list repeated so still refused.
    aliased = {".cursor/rules/x.mdc": "---\na: &l [1]\nglobs: *l\n---\nbody\n"}
    refused = cli("enable", build_tree(tmp_path / "aliased", aliased), "--today", TODAY)
    assert refused.exit_code == 1 and "repeats a list or mapping by an alias" in refused.output


def test_a_kiro_steering_file_included_auto_is_scoped(repo: Path) -> None:
    # Kiro reads `inclusion: auto` only when a request matches its description, as Windsurf
    # reads `trigger: model_decision`: the file stays, and AGENTS.md does not take its rules.
    auto = "---\ninclusion: auto\ndescription: API routes\n---\n\n- Routes return JSON.\n"
    always = "---\ninclusion: always\n---\n\n- Strict TypeScript.\n"
    build_tree(repo, {".kiro/steering/api.md": auto, ".kiro/steering/ts.md": always})
    result = cli("enable", repo, "--today", TODAY)
    assert result.exit_code == 0, result.output
    after = tree(repo)
    assert after[".kiro/steering/api.md"] == auto.encode()
    assert "Routes return JSON." not in after["AGENTS.md"].decode()
    assert "Strict TypeScript." in after["AGENTS.md"].decode()


def test_the_detection_table_in_code_and_in_migrate_md_agree() -> None:
    doc = (PROJECT / "MIGRATE.md").read_text()
    rows = re.findall(r"^\| `([^`]+)` \| ([a-z-]+) \|", doc, flags=re.MULTILINE)
    assert rows == [(source.pattern, source.kind) for source in TABLE]


def test_patterns_match_only_their_own_folder() -> None:
    assert matches(".cursor/rules/**/*.mdc", ".cursor/rules/a/b/x.mdc")
    assert matches(".roo/rules/*", ".roo/rules/x.md")
    assert not matches(".roo/rules/*", ".roo/rules/sub/x.md")
    assert not matches("CLAUDE.md", "docs/CLAUDE.md")


paragraph = st.text(alphabet="abc de\n#-*`", min_size=1, max_size=40).filter(str.strip)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(paragraph, min_size=1, max_size=6),
    st.lists(paragraph, max_size=6),
    st.lists(paragraph, max_size=4),
)
def test_nothing_lost_over_generated_sources(
    tmp_path_factory, claude: list[str], rules: list[str], bank: list[str]
) -> None:
    repo = tmp_path_factory.mktemp("repo")
    files = {"CLAUDE.md": "\n\n".join(claude) + "\n", ".cursorrules": "\n\n".join(rules) + "\n"}
    if bank:
        files["memory-bank/activeContext.md"] = "\n".join(f"- {b}" for b in bank) + "\n"
    build_tree(repo, files)
    before = tree(repo)
    result = cli("enable", repo, "--today", TODAY)
    assert result.exit_code == 0, result.output
    after = tree(repo)
    assert_nothing_lost(before, after)
    again = cli("enable", repo)
    assert "up to date" in again.output


def test_same_bytes_whatever_the_creation_order_and_hash_seed(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    sources = sorted(p for p in (EXAMPLE / "before").rglob("*") if p.is_file())
    results = []
    for seed, order in (("1", 1), ("98765", -1)):
        repo = tmp_path / f"r{seed}"
        for path in sources[::order]:
            target = repo / path.relative_to(EXAMPLE / "before")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(path.read_bytes())
        subprocess.run(
            [sys.executable, "-m", "agent_memory", "enable", str(repo), "--today", TODAY],
            check=True,
            capture_output=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        )
        results.append(tree(repo))
    assert results[0] == results[1] == tree(EXAMPLE / "after")


def test_a_file_already_in_migrated_is_never_written_over(tmp_path: Path) -> None:
    """The plan never read .agent/migrated/, so a file there made every Mode C enable fail
    "changed while this run was planning". A file of other text is kept and the original goes
    beside it (-2, -3, before the extension); a copy of the very bytes is the copy."""
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE / "before", repo)
    theirs = {
        ".agent/migrated/CLAUDE.md": "my own notes\n",
        ".agent/migrated/CLAUDE-2.md": "older notes\n",
        ".agent/migrated/.cursorrules": "a copy of something else\n",
        ".agent/migrated/memory-bank/progress.md": "kept by hand\n",
    }
    build_tree(
        repo, {**theirs, ".agent/migrated/CONVENTIONS.md": (repo / "CONVENTIONS.md").read_bytes()}
    )
    before = tree(repo)
    result = cli("enable", repo, "--today", TODAY)
    assert result.exit_code == 0, result.output
    after = tree(repo)
    assert all(after[path] == text.encode() for path, text in theirs.items())
    copies = {
        ".agent/migrated/CLAUDE-3.md": "CLAUDE.md",
        ".agent/migrated/.cursorrules-2": ".cursorrules",
        ".agent/migrated/memory-bank/progress-2.md": "memory-bank/progress.md",
        ".agent/migrated/CONVENTIONS.md": "CONVENTIONS.md",
    }
    assert all(after[copy] == before[source] for copy, source in copies.items())
    assert "original in .agent/migrated/CLAUDE-3.md" in result.output
    assert "unchanged  .agent/migrated/CONVENTIONS.md" in result.output
    assert_nothing_lost(before, after)
    assert "up to date" in cli("enable", repo, "--today", TODAY).output


def test_a_source_linking_to_a_file_elsewhere_is_read_there(repo: Path, tmp_path: Path) -> None:
    """MIGRATE.md § Symlinks: the target's text is consolidated (or imported) as the source's;
    the link stays a link and its target keeps every byte."""
    build_tree(repo, {"docs/rules.txt": "- rule from docs\n", "x/progress.md": "- x fact\n"})
    (repo / ".cursorrules").symlink_to("docs/rules.txt")
    (repo / "memory-bank").symlink_to("x")
    result = cli("enable", repo, "--today", TODAY)
    assert result.exit_code == 0, result.output
    files = tree(repo)
    assert b"rule from docs" in files["AGENTS.md"]
    assert b"x fact" in files["memory/continuity.md"]
    assert files[".agent/migrated/.cursorrules"] == b"- rule from docs\n"
    assert (repo / ".cursorrules").is_symlink() and files["docs/rules.txt"] == b"- rule from docs\n"
    # A link leading out of the repo is still refused, with nothing written.
    (repo / ".cursorrules").unlink()
    (tmp_path / "outside.txt").write_text("- secret\n")
    (repo / ".cursorrules").symlink_to(tmp_path / "outside.txt")
    (repo / "AGENTS.md").unlink()
    before = stats(repo)
    result = cli("enable", repo, "--today", TODAY)
    assert result.exit_code == 1 and "leads outside the repo" in result.output
    assert stats(repo) == before


def test_migrate_md_gives_the_bytes_of_a_new_agents_md_and_its_sections(tmp_path: Path) -> None:
    """MIGRATE.md step 2 as a person follows it: the lines a missing AGENTS.md starts with, and
    each section's heading, blank line and lines (their opening and closing blank lines left
    out), one blank line apart. The page said only "created if missing"."""
    page = (PROJECT / "MIGRATE.md").read_text()
    head = re.search(
        r"when it is missing it starts as these lines.*?```markdown\n(.*?)```", page, re.S
    )
    assert head is not None
    lines = head.group(1).rstrip().splitlines()
    start = "".join(line.removeprefix("   ") + "\n" for line in lines)
    build_tree(tmp_path, {"CLAUDE.md": "\n\nUse tabs.\n\n\n", ".cursorrules": "Cursor rule"})
    assert cli("enable", tmp_path, "--today", "2026-01-01").exit_code == 0
    text = (tmp_path / "AGENTS.md").read_text()
    begin, end = text.index("<!-- agent-memory:begin -->"), text.index("<!-- agent-memory:end -->")
    without_block = text[:begin] + text[end + len("<!-- agent-memory:end -->\n\n") :]
    assert without_block == (
        f"{start}\n## From `CLAUDE.md`\n\nUse tabs.\n\n## From `.cursorrules`\n\nCursor rule\n"
    )
