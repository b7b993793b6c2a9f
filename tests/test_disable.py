"""``agent-memory disable``: takes out what enable installed, keeps memory/ and the user's text."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agent_memory.core.blocks import HTML_MARKERS
from agent_memory.core.install.disable import without_block
from conftest import PROJECT, build_tree, cli, git_init, tree

EXAMPLES = PROJECT / "examples"
OURS = (
    ".agent/",
    "AGENTS.md",
    "CLAUDE.md",
    "GEMINI.md",
    ".github/",
    ".cursor/",
    ".gitignore",
    ".gitattributes",
)
BLOCK_FILES = ("AGENTS.md", "CLAUDE.md", "GEMINI.md", ".github/copilot-instructions.md")


def outside(path: str, data: bytes) -> bytes | None:
    """The file's text outside our block."""
    return without_block(path, data, HTML_MARKERS)


def test_disable_takes_out_exactly_what_enable_put_in(tmp_path: Path) -> None:
    build_tree(tmp_path, {"AGENTS.md": "# My project\n\nUse tabs.\n", "src/app.py": "x = 1\n"})
    before = tree(tmp_path)
    assert cli("enable", tmp_path, "--today", "2026-01-01").exit_code == 0
    enabled = tree(tmp_path)
    memory = {p: d for p, d in enabled.items() if p.startswith("memory/")}
    result = cli("disable", tmp_path, "--today", "2026-01-02")
    assert result.exit_code == 0, result.output
    after = tree(tmp_path)
    folder = ".agent/backup/disable-2026-01-02/"
    copies = {p.removeprefix(folder): d for p, d in after.items() if p.startswith(folder)}
    assert set(after) == set(before) | set(memory) | {folder + p for p in copies}
    assert all(after[p] == before[p] for p in before)  # AGENTS.md is the user's again, exactly
    assert all(after[p] == memory[p] for p in memory)  # memory/ is kept
    # Every file it removed or changed is copied as it was, and nothing else.
    assert copies == {p: d for p, d in enabled.items() if after.get(p) != d}
    assert "disabled" in result.output and "block removed  AGENTS.md" in result.output


@pytest.mark.parametrize(
    ("files", "options"),
    [
        ({"AGENTS.md": "# Agents\n- existing\n"}, ("--vendor", "none")),
        ({"AGENTS.md": "---\na: 1\n---\r\n# Agents\r\n- existing\r\n"}, ("--vendor", "none")),
        ({"AGENTS.md": "# Agents\n", "CLAUDE.md": "# C\n- rule"}, ("--keep-vendor-files",)),
    ],
)
def test_disable_gives_back_the_bytes_enable_found(
    repo: Path, files: dict[str, str], options: tuple[str, ...]
) -> None:
    """No blank line or final newline that enable added is left behind."""
    build_tree(repo, files)
    before = tree(repo)
    assert cli("enable", repo, *options, "--today", "2026-01-01").exit_code == 0
    assert cli("disable", repo, "--today", "2026-01-02").exit_code == 0
    after = tree(repo)
    assert {path: after[path] for path in files} == {path: before[path] for path in files}


@pytest.mark.parametrize("example", ["legacy-2x-repo", "vendor-repo", "handrun-4x-repo"])
def test_round_trip_on_the_examples_gives_back_every_byte(tmp_path: Path, example: str) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLES / example / "after", repo)
    enabled = tree(repo)
    assert cli("disable", repo, "--today", "2026-06-14").exit_code == 0
    disabled = tree(repo)
    for path, data in enabled.items():
        if not path.startswith(OURS):
            assert disabled[path] == data, path  # memory/ and the user's files: untouched
    result = cli("enable", repo, "--today", "2026-06-15")
    assert result.exit_code == 0, result.output
    again = tree(repo)
    copies = {p for p in again if p.startswith(".agent/backup/disable-2026-06-14/")}
    assert {p: d for p, d in again.items() if p not in copies} == enabled
    assert "restored" in result.output


def test_an_edited_managed_file_is_backed_up_before_it_goes(tmp_path: Path) -> None:
    cli("enable", tmp_path, "--today", "2026-01-01")
    schema = tmp_path / ".agent/schema.md"
    schema.write_text(schema.read_text() + "\nOur team's note.\n")
    edited = schema.read_bytes()
    agents = tmp_path / "AGENTS.md"
    agents.write_text(agents.read_text().replace("### Before you start", "### Start here"))
    result = cli("disable", tmp_path, "--today", "2026-01-02")
    assert result.exit_code == 0
    folder = tmp_path / ".agent/backup/disable-2026-01-02"
    assert (folder / ".agent/schema.md").read_bytes() == edited
    assert "### Start here" in (folder / "AGENTS.md").read_text()
    assert not schema.exists() and not agents.exists()


def test_dry_run_writes_nothing_and_outside_a_repo_it_refuses(tmp_path: Path) -> None:
    cli("enable", tmp_path, "--today", "2026-01-01")
    before = tree(tmp_path)
    dry = cli("disable", tmp_path, "--dry-run", "--today", "2026-01-02")
    assert dry.exit_code == 0 and "-<!-- agent-memory:begin -->" in dry.output
    assert tree(tmp_path) == before
    assert cli("disable", tmp_path, "--today", "2026-01-02").exit_code == 0
    again = cli("disable", tmp_path, "--today", "2026-01-02")
    assert again.exit_code == 1 and len(again.output.splitlines()) == 1
    empty = tmp_path / "empty"
    empty.mkdir()
    assert cli("disable", empty).exit_code == 1 and tree(empty) == {}


def _enabled_with_logs(root: Path) -> Path:
    """An enabled repo whose memory has a session log, an archive quarter and a nested folder."""
    build_tree(root, {"README.md": "# App\n", "src/app.py": "x = 1\n"})
    assert cli("enable", root, "--today", "2026-01-01").exit_code == 0
    build_tree(
        root,
        {
            "memory/sessions/2026-01-01-090000-setup.md": "# Session\n\n## Memory References\n",
            "memory/archive/2026-Q1.md": "# Archive 2026-Q1\n",
            "memory/notes/deep/what-we-tried.md": "Bytes \xe9 kept\r\nexactly\n",
        },
    )
    return root


def test_remove_memory_takes_memory_out_and_copies_every_file_first(tmp_path: Path) -> None:
    repo = _enabled_with_logs(tmp_path / "repo")
    before = {p: d for p, d in tree(repo).items() if p in ("README.md", "src/app.py")}
    memory = {p: d for p, d in tree(repo).items() if p.startswith("memory/")}
    assert len(memory) >= 7
    result = cli("disable", repo, "--remove-memory", "--today", "2026-01-02")
    assert result.exit_code == 0, result.output
    assert "(memory/ removed; copies in .agent/backup/disable-2026-01-02/)" in result.output
    after = tree(repo)
    folder = ".agent/backup/disable-2026-01-02/"
    assert not any(p.startswith("memory/") for p in after)
    assert {p: after[folder + p] for p in memory} == memory  # verbatim, every one
    assert {p for p in after if not p.startswith(folder)} == set(before)
    assert all(after[p] == d for p, d in before.items())
    # The folders it emptied went with their files; none is left behind, empty.
    assert not (repo / "memory").exists() and not (repo / ".agent/schema.md").exists()


def test_remove_memory_dry_run_and_check_write_nothing(tmp_path: Path) -> None:
    repo = _enabled_with_logs(tmp_path)
    before = tree(repo)
    dry = cli("disable", repo, "--remove-memory", "--dry-run", "--today", "2026-01-02")
    assert dry.exit_code == 0 and "removed  memory/continuity.md" in dry.output
    assert "+++ b/.agent/backup/disable-2026-01-02/memory/notes/deep/what-we-tried.md" in (
        dry.output
    )
    check = cli("disable", repo, "--remove-memory", "--check", "--today", "2026-01-02")
    assert check.exit_code == 1
    assert tree(repo) == before and (repo / "memory/sessions").is_dir()


def test_keep_memory_is_the_default_and_can_be_said(tmp_path: Path) -> None:
    repo = _enabled_with_logs(tmp_path)
    memory = {p: d for p, d in tree(repo).items() if p.startswith("memory/")}
    result = cli("disable", repo, "--keep-memory", "--today", "2026-01-02", "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["summary"] == {
        "memory": "kept",
        "backup": ".agent/backup/disable-2026-01-02",
        "merge_driver": "",  # not a git repo: nothing to unset
    }
    after = tree(repo)
    assert {p: d for p, d in after.items() if p.startswith("memory/")} == memory
    assert not any(p.startswith(".agent/backup/disable-2026-01-02/memory/") for p in after)
    # Disabled with memory kept: --remove-memory later takes the kept memory out, copied.
    again = cli("disable", repo, "--remove-memory", "--today", "2026-01-03", "--json")
    assert again.exit_code == 0 and json.loads(again.stdout)["summary"]["memory"] == "removed"
    final = tree(repo)
    assert {p: final[".agent/backup/disable-2026-01-03/" + p] for p in memory} == memory


def test_a_memory_folder_that_is_not_ours_is_never_taken_out(tmp_path: Path) -> None:
    build_tree(tmp_path, {"memory/allocator.c": "int x;\n"})
    before = tree(tmp_path)
    result = cli("disable", tmp_path, "--remove-memory")
    assert result.exit_code == 1 and "not enabled" in result.output
    assert tree(tmp_path) == before


def test_remove_memory_refuses_a_link_in_memory_and_writes_nothing(tmp_path: Path) -> None:
    repo = _enabled_with_logs(tmp_path / "repo")
    (repo / "memory/notes/link.md").symlink_to(repo / "memory/continuity.md")
    before = tree(repo)
    result = cli("disable", repo, "--remove-memory", "--today", "2026-01-02")
    assert result.exit_code == 1 and "memory/notes/link.md" in result.output
    assert len(result.output.splitlines()) == 1 and "Traceback" not in result.output
    assert tree(repo) == before


def test_dry_run_says_what_would_happen_and_status_says_disabled(tmp_path: Path) -> None:
    """A dry run is worded as one; after disable, status names no installed version."""
    assert cli("enable", tmp_path, "--today", "2026-01-01").exit_code == 0
    enabled = tree(tmp_path)
    dry = cli("disable", tmp_path, "--dry-run", "--today", "2026-01-02")
    heading = dry.output.splitlines()[0]
    assert dry.exit_code == 0 and tree(tmp_path) == enabled
    assert ": would disable " in heading and "disabled" not in heading
    assert "copies would go to .agent/backup/disable-2026-01-02/" in heading
    done = cli("disable", tmp_path, "--today", "2026-01-02")
    assert ": disabled " in done.output.splitlines()[0]
    status = cli("status", tmp_path, "--json")
    installed = json.loads(status.output)["summary"]["installed"]
    assert installed.startswith("none (disabled; agent-memory enable gives the repo back")
    assert "2.x" not in cli("status", tmp_path).output


# A CLAUDE.md as a new user has one: rules, an import, a fenced command (issue 39, item 1).
CLAUDE_RULES = (
    "# Widgets\n\n@docs/style.md\n\n## Build\n\n- Run `make test` before every commit.\n"
    "- Never push to main.\n\n```sh\nmake lint\n```\n"
)


def test_disable_after_a_migration_gives_the_vendor_file_its_text_back(tmp_path: Path) -> None:
    """Mode C left CLAUDE.md a pointer; disable gives back the user's text, not nothing, and
    enable after it still gives the enabled repo back byte for byte."""
    build_tree(tmp_path, {"CLAUDE.md": CLAUDE_RULES, "docs/style.md": "Tabs.\n"})
    assert cli("enable", tmp_path, "--today", "2026-01-01").exit_code == 0
    enabled = tree(tmp_path)
    assert b"make test" not in enabled["CLAUDE.md"]  # a pointer now
    result = cli("disable", tmp_path, "--today", "2026-01-02")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "CLAUDE.md").read_text() == CLAUDE_RULES
    assert "original text given back from .agent/migrated/CLAUDE.md" in result.output
    again = cli("enable", tmp_path, "--today", "2026-01-03")
    assert again.exit_code == 0 and "restored" in again.output, again.output
    folder = ".agent/backup/disable-2026-01-02/"
    assert {p: d for p, d in tree(tmp_path).items() if not p.startswith(folder)} == enabled


def test_disable_names_the_copy_when_the_pointer_was_written_to(tmp_path: Path) -> None:
    """A pointer the user added to since is not replaced: the block goes, and the report says
    where the text before enable is."""
    build_tree(tmp_path, {"CLAUDE.md": CLAUDE_RULES})
    assert cli("enable", tmp_path, "--today", "2026-01-01").exit_code == 0
    with (tmp_path / "CLAUDE.md").open("a") as pointer:
        pointer.write("\nAsk before deleting files.\n")
    result = cli("disable", tmp_path, "--today", "2026-01-02")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "CLAUDE.md").read_text() == "@docs/style.md\n\nAsk before deleting files.\n"
    assert "its text before enable is in .agent/migrated/CLAUDE.md" in result.output
    assert (tmp_path / ".agent/migrated/CLAUDE.md").read_text() == CLAUDE_RULES


def test_a_driver_git_will_not_unset_fails_the_run_after_its_report(repo: Path) -> None:
    """disable takes its files out, then unsets the driver: when git cannot write its config the
    report still lists what went, and one error line gives the command that finishes it."""
    assert cli("enable", repo, "--today", "2026-06-13").exit_code == 0
    (repo / ".git/config.lock").write_text("")
    done = cli("disable", repo, "--today", "2026-06-14")
    assert done.exit_code == 1
    assert "removed  .agent/version.md" in done.output
    failed = [line for line in done.output.splitlines() if "[merge-driver]" in line]
    assert len(failed) == 1 and "could not unset merge.agent-memory.driver" in failed[0]
    assert failed[0].endswith("run git config --local --unset merge.agent-memory.driver")
    assert not (repo / ".agent/version.md").exists()


def test_disable_says_it_leaves_the_search_store(tmp_path: Path) -> None:
    """The derived store in git's folder is no file enable wrote: disable leaves it, and says so
    (HOOKS.md § Recall on each prompt), so a person knows it is there to delete."""
    root = git_init(tmp_path / "repo")
    assert cli("enable", root, "--today", "2026-01-01").exit_code == 0
    assert cli("recall", "memory", root).exit_code in (0, 1)  # the store is made
    store = root / ".git/agent-memory/store.sqlite3"
    assert store.is_file()
    result = cli("disable", root, "--today", "2026-01-02")
    assert result.exit_code == 0, result.output
    assert "left: .git/agent-memory/store.sqlite3 (recall's cache" in result.output
    assert store.is_file()
    shutil.rmtree(root / ".git/agent-memory")
    assert cli("enable", root, "--today", "2026-01-03").exit_code == 0
    assert "left:" not in cli("disable", root, "--today", "2026-01-04").output
