"""enable, Mode A and the up-to-date case of Mode B, through the real CLI on real directories."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from agent_memory.parse import manifest
from agent_memory.resources import version
from agent_memory.shell.merge_driver import installing_command, merge_driver
from conftest import PROJECT, build_tree, cli, run_console, stats, tree

VERSION = (PROJECT / "VERSION").read_text().strip()
TODAY = "2026-06-13"
CURRENT = version()  # the release this tool stamps

FRESH = {
    ".gitignore",
    ".gitattributes",
    ".agent/DECAY.md",
    ".agent/REVIEW.md",
    ".agent/schema.md",
    ".agent/version.md",
    "AGENTS.md",
    "CLAUDE.md",
    "GEMINI.md",
    "memory/archive/INDEX.md",
    "memory/continuity.md",
    "memory/decay-policy.md",
    "memory/sessions/.gitkeep",
}


def test_version_matches_the_version_file() -> None:
    result = cli("--version")
    assert result.output == f"agent-memory {VERSION}\n"


def test_mode_a_installs_the_exact_layout(repo: Path) -> None:
    result = cli("enable", repo, "--today", TODAY)
    assert result.exit_code == 0, result.output
    assert "(mode A)" in result.output
    files = tree(repo)
    assert set(files) == FRESH
    stamp = manifest.parse(files[".agent/version.md"])
    assert str(stamp.version) == VERSION
    assert stamp.enabled_with == VERSION
    assert stamp.last_upgraded == TODAY
    assert stamp.mode == "A"
    assert stamp.vendors == ("claude", "gemini")
    assert set(stamp.managed) == {".agent/schema.md", ".agent/DECAY.md", ".agent/REVIEW.md"}
    for path, digest in stamp.managed.items():
        assert manifest.sha256(files[path]) == digest
    for path in ("memory/continuity.md", "memory/decay-policy.md", ".agent/schema.md"):
        assert files[path] == (PROJECT / "templates" / path).read_bytes()
    assert files[".agent/DECAY.md"] == (PROJECT / "DECAY.md").read_bytes()
    assert files[".agent/REVIEW.md"] == (PROJECT / "REVIEW.md").read_bytes()
    assert b"@AGENTS.md" in files["CLAUDE.md"]


def test_second_run_is_up_to_date_and_writes_nothing(repo: Path) -> None:
    cli("enable", repo, "--today", TODAY)
    before = stats(repo)
    result = cli("enable", repo, "--today", "2027-01-01")
    assert result.exit_code == 0
    assert "up to date" in result.output
    assert stats(repo) == before
    assert cli("enable", repo, "--check").exit_code == 0


def test_dry_run_and_check_write_nothing(repo: Path) -> None:
    build_tree(repo, {"AGENTS.md": "# Mine\n"})
    before = stats(repo)
    dry = cli("enable", repo, "--dry-run", "--today", TODAY)
    assert dry.exit_code == 0
    assert "+++ b/memory/continuity.md" in dry.output
    assert "+<!-- agent-memory:begin -->" in dry.output
    assert stats(repo) == before
    check = cli("enable", repo, "--check")
    assert check.exit_code == 1
    assert stats(repo) == before


def test_dry_run_shows_a_summary_then_the_user_files_diff_and_names_ours(repo: Path) -> None:
    """The report's run printed 1,251 lines, ~830 of them our own .agent/*.md files, before the
    AGENTS.md diff, and ended with a 300-character shell line."""
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    claude = "# Project\n\n- Use pnpm, not npm.\n- Run `pnpm test` before pushing.\n"
    build_tree(repo, {"CLAUDE.md": claude, ".junie/guidelines.md": claude})
    before = stats(repo)
    lines = cli("enable", repo, "--dry-run", "--today", TODAY).output.splitlines()
    assert stats(repo) == before
    diff_at = lines.index("--- /dev/null")
    summary, diff = lines[:diff_at], lines[diff_at:]
    assert summary[0].startswith(f"agent-memory {VERSION}: would enable ")
    assert any(line.startswith("  updated  CLAUDE.md  (") for line in summary)
    assert (
        summary[-2]
        == "git config (local): merge.agent-memory.driver would be set (MERGE.md § Setup)"
    )
    assert re.fullmatch(r"AGENTS\.md would be [0-9,]+ bytes", summary[-1])
    assert "+++ b/AGENTS.md" in diff and "--- a/CLAUDE.md" in diff
    assert not any(line.startswith("+++ b/.agent/") for line in diff)
    assert diff[-1] == (
        "(not shown: .agent/DECAY.md, .agent/REVIEW.md, .agent/migrated/.junie/guidelines.md, "
        ".agent/migrated/CLAUDE.md, .agent/schema.md, .agent/version.md; --full-diff shows them)"
    )
    assert len(lines) < 250
    full = cli("enable", repo, "--dry-run", "--full-diff", "--today", TODAY).output.splitlines()
    assert "+++ b/.agent/DECAY.md" in full and "not shown" not in full[-1]
    assert full[:diff_at] == summary and stats(repo) == before
    done = cli("enable", repo, "--today", TODAY).output.splitlines()
    assert re.fullmatch(r"AGENTS\.md is now [0-9,]+ bytes", done[-1])
    assert not any("merge-file" in line for line in done)


def test_user_text_outside_the_block_is_kept_byte_for_byte(repo: Path) -> None:
    agents = "# Team rules\r\n\r\nUse tabs.\r\nNo trailing newline here"
    claude = "Claude: be terse.\n\n@docs/style.md"
    build_tree(repo, {"AGENTS.md": agents, "CLAUDE.md": claude})
    # Vendor files make this mode C; --keep-vendor-files keeps their text where it is.
    assert cli("enable", repo, "--today", TODAY, "--keep-vendor-files").exit_code == 0
    new_agents = (repo / "AGENTS.md").read_bytes()
    new_claude = (repo / "CLAUDE.md").read_bytes()
    # AGENTS.md: the block at the top, after the title, one blank line either side.
    begin = new_agents.index(b"<!-- agent-memory:begin -->")
    end = new_agents.index(b"<!-- agent-memory:end -->\r\n") + 27
    assert new_agents[:begin] + new_agents[end + 2 :] == agents.encode()
    assert new_agents[end : end + 2] == b"\r\n"
    assert new_claude.startswith(claude.encode())
    # Our block follows the file's own line endings.
    added = new_agents[begin:end]
    assert b"\r\n" in added and b"\n" not in added.replace(b"\r\n", b"")
    assert b"@AGENTS.md" in new_claude[len(claude) :]
    # Re-running changes nothing, and an edited block is replaced in place.
    before = stats(repo)
    assert "up to date" in cli("enable", repo).output
    assert stats(repo) == before


def test_vendor_choice_is_recorded(repo: Path) -> None:
    result = cli("enable", repo, "--vendor", "cursor", "--vendor", "copilot", "--today", TODAY)
    assert result.exit_code == 0
    files = tree(repo)
    assert "CLAUDE.md" not in files and "GEMINI.md" not in files
    assert ".cursor/rules/agent-memory.mdc" in files
    assert b"agent-memory:begin" in files[".github/copilot-instructions.md"]
    stamp = manifest.parse(files[".agent/version.md"])
    assert stamp.vendors == ("copilot", "cursor")  # canonical order, not argument order
    assert ".cursor/rules/agent-memory.mdc" in stamp.managed


def test_vendor_none_installs_no_bootstrap(repo: Path) -> None:
    assert cli("enable", repo, "--vendor", "none", "--today", TODAY).exit_code == 0
    files = tree(repo)
    assert "CLAUDE.md" not in files and "GEMINI.md" not in files
    assert manifest.parse(files[".agent/version.md"]).vendors == ()
    assert b"- vendors:       none" in files[".agent/version.md"]


def test_json_output_has_the_common_shape(repo: Path) -> None:
    result = cli("enable", repo, "--json", "--today", TODAY)
    doc = json.loads(result.output)
    assert set(doc) == {"command", "version", "repo", "outcome", "plan", "findings", "summary"}
    assert doc["command"] == "enable" and doc["outcome"] == "changed"
    assert {e["path"] for e in doc["plan"]} == FRESH
    assert doc["summary"]["mode"] == "A"


@pytest.mark.parametrize(
    ("stamp", "message"),
    [
        (
            "# agent-memory install manifest\n- version: 9.0.0\n\n## Managed files\n",
            "newer than this tool",
        ),
        ("", "is empty"),
        ("# agent-memory install manifest\n- version: banana\n", "'banana' is not a version"),
        ("# agent-memory install manifest\n- mode: A\n", "has no '- version"),
    ],
)
def test_bad_or_future_stamp_is_refused_without_writing(
    repo: Path, stamp: str, message: str
) -> None:
    build_tree(repo, {".agent/version.md": stamp, "memory/continuity.md": "# Continuity\n"})
    before = stats(repo)
    result = cli("enable", repo)
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and ".agent/version.md" in lines[0]
    assert "Traceback" not in result.output
    assert stats(repo) == before


def test_bold_keys_of_hand_written_stamps_are_read(repo: Path) -> None:
    cli("enable", repo, "--today", TODAY)
    stamp = repo / ".agent/version.md"
    bold = re.sub(r"^- (\w+):", r"- **\1:**", stamp.read_text(), count=5, flags=re.M)
    stamp.write_text(bold)
    before = stats(repo)
    result = cli("enable", repo)
    assert result.exit_code == 0 and "up to date" in result.output, result.output
    assert stats(repo) == before


def test_symlinked_memory_dir_outside_the_repo_is_refused(repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (repo / "memory").symlink_to(outside, target_is_directory=True)
    before = stats(repo)
    result = cli("enable", repo)
    assert result.exit_code == 1
    assert "outside the repo" in result.output
    assert list(outside.iterdir()) == []
    assert stats(repo) == before


def test_not_a_directory_is_a_usage_error(tmp_path: Path) -> None:
    result = cli("enable", tmp_path / "missing")
    assert result.exit_code == 1
    assert "not a directory" in result.output


def test_enable_lists_the_transient_files_in_gitignore_and_keeps_user_lines(repo: Path) -> None:
    build_tree(repo, {".gitignore": "node_modules/\r\n*.log\r\n"})
    assert cli("enable", repo, "--today", TODAY).exit_code == 0
    ignore = (repo / ".gitignore").read_bytes()
    assert ignore.startswith(b"node_modules/\r\n*.log\r\n\r\n# agent-memory:begin\r\n")
    for line in (b"/.agent-memory.lock", b"/.agent-memory.journal/", b"*.agent-memory-tmp"):
        assert line + b"\r\n" in ignore
    checked = subprocess.run(
        ["git", "-C", repo, "check-ignore", "-q", ".agent-memory.journal/entries"], check=False
    )
    assert checked.returncode == 0


def test_enable_md_gives_the_bytes_of_the_gitignore_and_gitattributes_blocks(repo: Path) -> None:
    """An agent enabling by hand writes what ENABLE.md shows: the .gitignore block, which no
    template holds, is in the page line for line, and the .gitattributes block is the template
    the page names."""
    assert cli("enable", repo, "--today", TODAY).exit_code == 0
    page = (PROJECT / "ENABLE.md").read_text()
    assert "```gitignore\n" + (repo / ".gitignore").read_text() + "```\n" in page
    assert "the whole of `templates/.gitattributes`" in page
    template = (PROJECT / "templates/.gitattributes").read_bytes()
    assert (repo / ".gitattributes").read_bytes() == template


@pytest.mark.parametrize("path", [".gitignore", ".gitattributes"])
def test_a_block_of_ours_someone_wrote_into_is_backed_up_before_enable_replaces_it(
    repo: Path, path: str
) -> None:
    """A fresh repo whose file already holds a block between our markers that no release wrote
    (copied from another repo, then added to): the file is kept before the block is replaced."""
    block = "# agent-memory:begin\n/.agent-memory.lock\n/secret.env\n# agent-memory:end\n"
    text = "node_modules/\n" + block
    build_tree(repo, {path: text})
    result = cli("enable", repo, "--today", TODAY)
    assert result.exit_code == 0, result.output
    assert "/secret.env" not in (repo / path).read_text()
    assert (repo / ".agent/backup" / CURRENT / path).read_text() == text
    assert f"the file with your edit is in .agent/backup/{CURRENT}/{path}" in result.output


@pytest.mark.parametrize("path", [".gitignore", ".gitattributes", "AGENTS.md"])
def test_a_short_crlf_file_without_a_final_newline_gets_crlf_lines(repo: Path, path: str) -> None:
    """A last line without an ending says nothing about the file's line ending: two lines, one
    CRLF and one unterminated, make a CRLF file, and every line we add ends in CRLF too."""
    build_tree(repo, {path: "a\r\nb"})
    assert cli("enable", repo, "--vendor", "none", "--today", TODAY).exit_code == 0
    data = (repo / path).read_bytes()
    assert b"a\r\n" in data and data.count(b"\n") == data.count(b"\r\n") > 2


def test_enable_sends_memory_files_to_the_merge_driver_in_this_repo_only(repo: Path) -> None:
    import subprocess

    build_tree(repo, {".gitattributes": "*.png binary\n"})
    result = cli("enable", repo, "--today", TODAY)
    assert result.exit_code == 0, result.output
    attributes = (repo / ".gitattributes").read_text()
    assert attributes.startswith("*.png binary\n\n# agent-memory:begin\n")
    assert "memory/continuity.md merge=agent-memory\n" in attributes
    assert "git config (local): merge.agent-memory.driver set (MERGE.md § Setup)" in result.output
    local = subprocess.run(
        ["git", "config", "--local", "--get", "merge.agent-memory.driver"],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    )
    assert local.stdout == MERGE_DRIVER + "\n"
    again = cli("enable", repo, "--today", TODAY)
    assert "up to date" in again.output and "driver" not in again.output  # set: nothing to say


def test_a_git_config_git_will_not_write_fails_the_run_after_its_report(repo: Path) -> None:
    """git's config is set once the files have landed: when git cannot write it (here another
    git holds its lock), the run still lists every file it wrote, then says what failed and
    what to do, and exits 1; run again once git can, and the driver is set."""
    build_tree(repo, {"CLAUDE.md": "- Run make check.\n"})
    (repo / ".git/config.lock").write_text("")
    done = run_console("enable", repo, "--today", TODAY, cwd=repo)
    assert done.returncode == 1 and done.stderr == "", done.stderr
    assert "created  memory/continuity.md  (template)" in done.stdout
    assert "updated  CLAUDE.md  (text moved to AGENTS.md" in done.stdout
    failed = [line for line in done.stdout.splitlines() if "[merge-driver]" in line]
    assert len(failed) == 1 and failed[0].startswith(f"{repo}: error [merge-driver] ")
    assert "could not set merge.agent-memory.driver" in failed[0]
    assert "the files are written; run enable again once git can write its config" in failed[0]
    assert (repo / "AGENTS.md").exists() and (repo / ".agent/version.md").exists()
    (repo / ".git/config.lock").unlink()
    again = cli("enable", repo, "--today", TODAY)
    assert again.exit_code == 0 and "merge.agent-memory.driver set" in again.output


def test_a_repo_git_will_not_work_in_says_the_driver_is_not_set_and_why(repo: Path) -> None:
    """A folder with a ``.git`` git refuses (a broken ``gitdir:``; or another user's repository,
    git's "dubious ownership") gets its files, and the report says the driver is not set."""
    shutil.rmtree(repo / ".git")
    (repo / ".git").write_text("gitdir: nowhere\n")
    result = cli("enable", repo, "--today", TODAY)
    assert result.exit_code == 0, result.output
    line = "git config (local): merge.agent-memory.driver not set: git will not work in this"
    assert f"{line} folder (fatal: not a git repository: {repo}/nowhere) — run enable" in (
        result.output
    )


def test_outside_git_enable_writes_the_attributes_and_no_config(tmp_path: Path) -> None:
    result = cli("enable", tmp_path, "--today", TODAY, "--vendor", "none")
    assert result.exit_code == 0 and "git config" not in result.output
    assert (tmp_path / ".gitattributes").read_bytes() == (
        PROJECT / "templates/.gitattributes"
    ).read_bytes()


def _git(cwd: Path, *args: str) -> str:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t"}
    done = subprocess.run(
        ["git", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, **env, "GIT_COMMITTER_EMAIL": "t@e", "GIT_ALLOW_PROTOCOL": "file"},
    )
    return done.stdout.strip() if done.returncode == 0 else f"<exit {done.returncode}>"


def _driver(git_dir: Path) -> str:
    return _git(git_dir.parent, "--git-dir", str(git_dir), "config", "--get", DRIVER_KEY)


DRIVER_KEY = "merge.agent-memory.driver"
MERGE_DRIVER = merge_driver(installing_command())  # this tool, then PATH's, then git's


def test_a_gitdir_file_naming_another_repository_gets_no_config(tmp_path: Path) -> None:
    """A .git file is `gitdir: <path>`, and git config --local writes into whatever repository
    it names: enable set the merge driver in another repository's config."""
    other = tmp_path / "other"
    _git(tmp_path, "init", "-q", str(other))
    config = (other / ".git/config").read_bytes()
    target = tmp_path / "target"
    build_tree(target, {".git": f"gitdir: {other / '.git'}\n"})
    result = cli("enable", target, "--vendor", "none", "--today", TODAY)
    assert result.exit_code == 0, result.output
    assert (other / ".git/config").read_bytes() == config
    assert f"{DRIVER_KEY} not set: {target / '.git'} points to {other / '.git'}" in result.output
    assert cli("disable", target, "--today", TODAY).exit_code == 0
    _git(other, "config", DRIVER_KEY, MERGE_DRIVER)
    config = (other / ".git/config").read_bytes()
    for command in (["enable", "--today", TODAY], ["disable", "--today", TODAY], ["recover"]):
        assert cli(command[0], target, *command[1:]).exit_code == 0
        assert (other / ".git/config").read_bytes() == config  # never unset there either
    # A worktree of the other repository, forged: its git folder names another .git file.
    assert _git(other, "commit", "-q", "--allow-empty", "-m", "x") == ""
    _git(other, "worktree", "add", "-q", str(tmp_path / "real-worktree"))
    forged = tmp_path / "forged"
    build_tree(forged, {".git": f"gitdir: {other / '.git/worktrees/real-worktree'}\n"})
    _git(other, "config", "--unset", DRIVER_KEY)
    result = cli("enable", forged, "--vendor", "none", "--today", TODAY)
    assert "a worktree of" in result.output and _driver(other / ".git") == "<exit 1>"


def test_a_worktree_and_a_submodule_get_the_config_they_share(tmp_path: Path) -> None:
    """`git worktree add` and `git submodule add` also leave a .git file; their config is
    theirs (a worktree shares the main repository's)."""
    main, sub = tmp_path / "main", tmp_path / "sub"
    for repo in (main, sub):
        _git(tmp_path, "init", "-q", str(repo))
        _git(repo, "commit", "-q", "--allow-empty", "-m", "x")
    _git(main, "worktree", "add", "-q", str(tmp_path / "wt"))
    result = cli("enable", tmp_path / "wt", "--vendor", "none", "--today", TODAY)
    assert "driver set (" in result.output and _driver(main / ".git") == MERGE_DRIVER
    _git(main, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub), "mod")
    result = cli("enable", main / "mod", "--vendor", "none", "--today", TODAY)
    assert "driver set (" in result.output
    assert _driver(main / ".git/modules/mod") == MERGE_DRIVER
    assert _driver(sub / ".git") == "<exit 1>"
    assert cli("disable", main / "mod", "--today", TODAY).exit_code == 0
    assert _driver(main / ".git/modules/mod") == "<exit 1>"


def test_the_block_heading_names_the_version_that_wrote_it(repo: Path) -> None:
    """A 5.1.0 install said "agent-memory 5.0.0" in AGENTS.md's block."""
    from agent_memory.core.install.written import versioned

    assert cli("enable", repo, "--today", TODAY).exit_code == 0
    agents = (repo / "AGENTS.md").read_text()
    assert f"## Shared memory (agent-memory {VERSION})\n" in agents
    template = (PROJECT / "templates/AGENTS.md").read_text()
    assert f"## Shared memory (agent-memory {VERSION})\n" in template  # what a person copies
    assert versioned(template.encode(), "9.9.9").decode() == template.replace(VERSION, "9.9.9", 1)
