"""``disable`` then ``enable``: the repo given back byte for byte, from disable's copies.

Real directories through the real CLI: repos shaped as modes A, B and C leave them, hooks
installed, files the user edited; and backups that are hostile input.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_memory.resources import version
from agent_memory.shell.merge_driver import installing_command, merge_driver
from conftest import PROJECT, build_tree, cli, git_init, run_console, tree

EXAMPLES = PROJECT / "examples"
COPIES = ".agent/backup/disable-"
CLAUDE_SETTINGS = """{
    "permissions": {"allow": ["Bash(npm test)"]},
    "hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "./check.sh"}]}
        ]
    }
}
"""

CURRENT = version()  # the release this tool stamps


def without_copies(state: dict[str, bytes]) -> dict[str, bytes]:
    return {path: data for path, data in state.items() if not path.startswith(COPIES)}


def round_trip(repo: Path, *disable_flags: str) -> tuple[dict[str, bytes], dict[str, bytes]]:
    """The tree before disable and after the enable that follows it (copies left out)."""
    before = tree(repo)
    done = cli("disable", repo, "--today", "2026-04-02", *disable_flags)
    assert done.exit_code == 0, done.output
    assert without_copies(tree(repo)) != before
    again = cli("enable", repo, "--today", "2026-04-03")
    assert again.exit_code == 0 and "Traceback" not in again.output, again.output
    return before, without_copies(tree(repo))


def mode_a(repo: Path) -> None:
    build_tree(repo, {"README.md": "# Shop\n", "AGENTS.md": "# Shop\n\nUse tabs.\n"})


def mode_b(repo: Path) -> None:
    shutil.copytree(EXAMPLES / "legacy-2x-repo/before", repo, dirs_exist_ok=True)


def mode_c(repo: Path) -> None:
    shutil.copytree(EXAMPLES / "vendor-repo/before", repo, dirs_exist_ok=True)


SHAPES: dict[str, Callable[[Path], None]] = {"A": mode_a, "B": mode_b, "C": mode_c}


@pytest.mark.slow  # 30 repos enabled, disabled and enabled again: the slow stage of .ci/run
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    shape=st.sampled_from(sorted(SHAPES)),
    vendors=st.lists(st.sampled_from(["claude", "gemini", "cursor", "copilot"]), unique=True),
    agents=st.lists(st.sampled_from(["claude", "codex", "gemini"]), unique=True),
    settings_there=st.booleans(),
    edit_managed=st.booleans(),
    user_words=st.text(st.characters(codec="utf-8", exclude_categories=("Cc",)), max_size=40),
)
def test_enable_after_disable_gives_back_every_byte(
    shape: str,
    vendors: list[str],
    agents: list[str],
    settings_there: bool,
    edit_managed: bool,
    user_words: str,
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        repo = git_init(Path(tmp) / "repo")
        SHAPES[shape](repo)
        if settings_there:
            build_tree(repo, {".claude/settings.json": CLAUDE_SETTINGS})
        flags = [f"--vendor={v}" for v in vendors]
        assert cli("enable", repo, "--today", "2026-04-01", *flags).exit_code == 0
        for agent in agents:
            assert cli("hooks", "install", repo, "--agent", agent).exit_code == 0
        if edit_managed:
            with (repo / ".agent/schema.md").open("a") as schema:
                schema.write("\nOur team's own note.\n")
        agents_md = repo / "AGENTS.md"
        agents_md.write_bytes(agents_md.read_bytes() + f"\n{user_words}\n".encode())
        before, after = round_trip(repo)
        assert after == before


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_hooks_go_with_disable_and_come_back_with_enable(tmp_path: Path, shape: str) -> None:
    repo = git_init(tmp_path / "repo")
    SHAPES[shape](repo)
    build_tree(repo, {".claude/settings.json": CLAUDE_SETTINGS})
    assert cli("enable", repo, "--today", "2026-04-01").exit_code == 0
    assert cli("hooks", "install", repo, "--agent", "claude").exit_code == 0
    assert cli("hooks", "install", repo, "--agent", "codex").exit_code == 0
    installed = tree(repo)
    assert cli("disable", repo, "--today", "2026-04-02").exit_code == 0
    # The user's settings exactly as before install; the file install created is gone, and so
    # is the folder it made.
    assert (repo / ".claude/settings.json").read_text() == CLAUDE_SETTINGS
    assert not (repo / ".codex").exists()
    assert cli("enable", repo, "--today", "2026-04-03").exit_code == 0
    assert without_copies(tree(repo)) == installed


def test_a_managed_file_the_user_edited_comes_back_edited(tmp_path: Path) -> None:
    repo = git_init(tmp_path / "repo")
    mode_a(repo)
    assert cli("enable", repo, "--today", "2026-04-01").exit_code == 0
    schema = repo / ".agent/schema.md"
    schema.write_text(schema.read_text() + "\nOur team's note.\n")
    before, after = round_trip(repo)
    assert after == before and b"Our team's note." in after[".agent/schema.md"]
    assert after[".agent/version.md"] == before[".agent/version.md"]  # history and all


def test_restore_says_where_from_and_dry_run_and_check_write_nothing(tmp_path: Path) -> None:
    repo = git_init(tmp_path / "repo")
    mode_a(repo)
    cli("enable", repo, "--today", "2026-04-01")
    cli("disable", repo, "--today", "2026-04-02")
    disabled = tree(repo)
    dry = cli("enable", repo, "--dry-run", "--today", "2026-04-03")
    assert dry.exit_code == 0 and "would restore" in dry.output
    assert ".agent/version.md; --full-diff shows them)" in dry.output
    assert cli("enable", repo, "--check", "--today", "2026-04-03").exit_code == 1
    assert tree(repo) == disabled
    done = cli("enable", repo, "--today", "2026-04-03", "--json")
    doc = json.loads(done.stdout)
    assert doc["summary"]["restored_from"] == ".agent/backup/disable-2026-04-02"
    assert doc["summary"]["mode"] == "B" and doc["outcome"] == "changed"
    again = cli("enable", repo, "--today", "2026-04-03")
    assert again.exit_code == 0 and "up to date" in again.output  # restored: nothing to do


def test_remove_memory_then_enable_is_a_fresh_mode_a(tmp_path: Path) -> None:
    repo = git_init(tmp_path / "repo")
    build_tree(repo, {"README.md": "# Shop\n"})
    first = json.loads(cli("enable", repo, "--today", "2026-04-01", "--json").stdout)
    assert first["summary"]["mode"] == "A"
    build_tree(repo, {"memory/sessions/2026-04-01-100000.md": "# Session\n"})
    assert cli("disable", repo, "--remove-memory", "--today", "2026-04-02").exit_code == 0
    done = cli("enable", repo, "--today", "2026-04-03", "--json")
    doc = json.loads(done.stdout)
    assert doc["summary"]["mode"] == "A" and doc["summary"]["restored_from"] is None
    assert not (repo / "memory/sessions/2026-04-01-100000.md").exists()
    copy = repo / ".agent/backup/disable-2026-04-02/memory/sessions/2026-04-01-100000.md"
    assert copy.read_text() == "# Session\n"  # the old memory waits in the backup
    assert b"2026-04-03" in (repo / ".agent/version.md").read_bytes()


def test_a_file_changed_since_disable_is_kept_and_the_rest_restored(tmp_path: Path) -> None:
    repo = git_init(tmp_path / "repo")
    mode_a(repo)
    cli("enable", repo, "--today", "2026-04-01")
    enabled = tree(repo)
    cli("disable", repo, "--today", "2026-04-02")
    agents = repo / "AGENTS.md"
    agents.write_text(agents.read_text() + "\nWritten after disable.\n")
    result = cli("enable", repo, "--today", "2026-04-03")
    assert result.exit_code == 0, result.output
    assert "AGENTS.md changed since disable: kept as it is" in result.output
    after = without_copies(tree(repo))
    assert "Written after disable." in after["AGENTS.md"].decode()
    assert "<!-- agent-memory:begin -->" in after["AGENTS.md"].decode()  # the block is back
    # Everything else as it was (the repair that put the block back copied AGENTS.md first).
    rest = {p: d for p, d in after.items() if p != "AGENTS.md"}
    assert rest == {p: d for p, d in enabled.items() if p != "AGENTS.md"} | {
        f".agent/backup/{CURRENT}/AGENTS.md": b"# Shop\n\nUse tabs.\n\nWritten after disable.\n"
    }
    assert cli("enable", repo, "--check", "--today", "2026-04-03").exit_code == 0


def test_the_newest_copies_are_restored_and_a_second_disable_of_a_day_never_mixes(
    tmp_path: Path,
) -> None:
    repo = git_init(tmp_path / "repo")
    mode_a(repo)
    cli("enable", repo, "--today", "2026-04-01")
    cli("disable", repo, "--today", "2026-04-02")
    cli("enable", repo, "--today", "2026-04-02")
    assert cli("hooks", "install", repo, "--agent", "claude").exit_code == 0
    with_hooks = tree(repo)
    assert cli("disable", repo, "--today", "2026-04-02").exit_code == 0
    assert (repo / ".agent/backup/disable-2026-04-02-2/.claude/settings.json").exists()
    assert not (repo / ".agent/backup/disable-2026-04-02/.claude").exists()
    result = cli("enable", repo, "--today", "2026-04-03")
    assert "disable-2026-04-02-2/" in result.output
    assert without_copies(tree(repo)) == without_copies(with_hooks)


def test_copies_of_an_older_version_come_back_and_climb_the_ladder(tmp_path: Path) -> None:
    repo = git_init(tmp_path / "repo")
    mode_a(repo)
    cli("enable", repo, "--today", "2026-04-01")
    cli("disable", repo, "--today", "2026-04-02")
    stamp = repo / ".agent/backup/disable-2026-04-02/.agent/version.md"
    stamp.write_text(
        stamp.read_text().replace(f"- version:       {CURRENT}", "- version:       3.0.0")
    )
    result = cli("enable", repo, "--today", "2026-04-03")
    assert result.exit_code == 0, result.output
    assert f"(mode B: 3.0.0, upgraded to {CURRENT})" in result.output
    text = (repo / ".agent/version.md").read_text()
    assert f"- version:       {CURRENT}" in text and "2026-04-03" in text
    assert cli("enable", repo, "--check", "--today", "2026-04-03").exit_code == 0


def _disabled(tmp_path: Path) -> Path:
    repo = git_init(tmp_path / "repo")
    mode_a(repo)
    cli("enable", repo, "--today", "2026-04-01")
    cli("disable", repo, "--today", "2026-04-02")
    return repo


FOLDER = ".agent/backup/disable-2026-04-02"


def _replace_stamp(text: str) -> Callable[[Path, Path], None]:
    def tamper(repo: Path, _outside: Path) -> None:
        (repo / FOLDER / ".agent/version.md").write_text(text)

    return tamper


def _link_out(repo: Path, outside: Path) -> None:
    stamp = repo / FOLDER / ".agent/version.md"
    stamp.unlink()
    stamp.symlink_to(outside / "secret.md")


def _fifo(repo: Path, _outside: Path) -> None:
    os.mkfifo(repo / FOLDER / "AGENTS.md.tmp")
    (repo / FOLDER / "AGENTS.md").unlink()
    (repo / FOLDER / "AGENTS.md.tmp").rename(repo / FOLDER / "AGENTS.md")


def _future(repo: Path, _outside: Path) -> None:
    stamp = repo / FOLDER / ".agent/version.md"
    stamp.write_text(stamp.read_text().replace(CURRENT, "99.0.0"))


def _evil_vendor(repo: Path, _outside: Path) -> None:
    stamp = repo / FOLDER / ".agent/version.md"
    stamp.write_text(stamp.read_text().replace("claude, gemini", "claude, ../../evil"))


HOSTILE = {
    "garbage stamp": (_replace_stamp("\x00\x01 not a stamp\n"), "version.md"),
    "empty stamp": (_replace_stamp(""), "version.md"),
    "hand-written stamp": (_replace_stamp("# stamp\n- version: 5.0.0\n"), "version.md"),
    "stamp links outside": (_link_out, "version.md"),
    "copy is a FIFO": (_fifo, "AGENTS.md"),
    "newer stamp": (_future, "version.md"),
    "unknown vendor": (_evil_vendor, "version.md"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_hostile_backup_is_refused_in_one_line_and_nothing_is_written(
    tmp_path: Path, case: str
) -> None:
    repo = _disabled(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# agent-memory install manifest\n- version: 5.0.0\n")
    tamper, named = HOSTILE[case]
    tamper(repo, outside)
    before, outside_before = tree(repo), tree(outside)
    result = cli("enable", repo, "--today", "2026-04-03")
    assert result.exit_code == 1, result.output
    assert len(result.output.splitlines()) == 1 and "Traceback" not in result.output
    assert FOLDER in result.output and named in result.output
    assert "move .agent/backup/disable-2026-04-02 out of .agent/backup/" in result.output
    assert tree(repo) == before and tree(outside) == outside_before


def test_hooks_a_backup_stamp_records_are_only_ever_our_own_files(tmp_path: Path) -> None:
    repo = _disabled(tmp_path)
    stamp = repo / FOLDER / ".agent/version.md"
    stamp.write_text(
        stamp.read_text()
        + "\n## Agent hooks\n- claude: ../outside.json | original absent\n"
        + "- evil: .git/config | original absent\n"
    )
    result = cli("enable", repo, "--today", "2026-04-03")
    assert result.exit_code == 0 and "Traceback" not in result.output
    assert not (tmp_path / "outside.json").exists()
    written = {e for e in tree(repo) if not e.startswith(COPIES)}
    assert not any(p.startswith((".claude", ".git/")) for p in written)


def test_a_folder_that_is_not_a_disable_folder_is_never_read(tmp_path: Path) -> None:
    repo = _disabled(tmp_path)
    shutil.move(repo / FOLDER, repo / ".agent/backup/disable-2026-99-99")
    result = cli("enable", repo, "--today", "2026-04-03", "--json")
    assert json.loads(result.stdout)["summary"]["restored_from"] is None


def test_the_console_script_round_trips_too(tmp_path: Path) -> None:
    repo = git_init(tmp_path / "repo")
    mode_c(repo)
    assert run_console("enable", ".", "--today", "2026-04-01", cwd=repo).returncode == 0
    assert run_console("hooks", "install", "--agent", "gemini", cwd=repo).returncode == 0
    before = tree(repo)
    assert run_console("disable", "--today", "2026-04-02", cwd=repo).returncode == 0
    done = run_console("enable", "--today", "2026-04-03", cwd=repo)
    assert done.returncode == 0 and "restored" in done.stdout, done.stderr
    assert without_copies(tree(repo)) == before


def test_the_merge_driver_enable_set_goes_with_disable_and_comes_back(tmp_path: Path) -> None:
    repo = git_init(tmp_path / "repo")
    mode_a(repo)
    cli("enable", repo, "--today", "2026-04-01")
    config = (repo / ".git/config").read_bytes()
    assert b'[merge "agent-memory"]' in config
    dry = cli("disable", repo, "--dry-run", "--today", "2026-04-02")
    assert "merge.agent-memory.driver would be unset" in dry.output
    assert (repo / ".git/config").read_bytes() == config
    done = cli("disable", repo, "--today", "2026-04-02", "--json")
    assert json.loads(done.stdout)["summary"]["merge_driver"] == "unset"
    assert b"agent-memory" not in (repo / ".git/config").read_bytes()
    assert cli("enable", repo, "--today", "2026-04-03").exit_code == 0
    assert (repo / ".git/config").read_bytes() == config


def _driver(repo: Path) -> bytes:
    config = (repo / ".git/config").read_bytes()
    return config[config.find(b'[merge "agent-memory"]') :] if b"agent-memory" in config else b""


@pytest.mark.parametrize("last", ["disable", "enable"])
def test_recover_sets_the_driver_as_the_tree_says_after_a_kill_before_git_config(
    tmp_path: Path, last: str
) -> None:
    """A disable, or an enable restoring a disabled repo, killed after its plan landed and
    before its git config: the tree is after the run, the driver as before it (a kill there
    leaves exactly the state made here by hand); recover brought nothing back in line."""
    repo = git_init(tmp_path / "repo")
    mode_a(repo)
    assert cli("enable", repo, "--today", "2026-04-01").exit_code == 0
    set_by_enable = _driver(repo)
    assert cli("disable", repo, "--today", "2026-04-02").exit_code == 0
    if last == "enable":
        assert cli("enable", repo, "--today", "2026-04-03").exit_code == 0
        subprocess.run(
            ["git", "config", "--unset", "merge.agent-memory.driver"], cwd=repo, check=True
        )
    else:
        (repo / ".git/config").write_bytes((repo / ".git/config").read_bytes() + set_by_enable)
    state = tree(repo)
    done = cli("recover", repo, "--json")
    assert done.exit_code == 0
    assert _driver(repo) == (set_by_enable if last == "enable" else b"")
    assert json.loads(done.stdout)["summary"]["merge_driver"] == (
        f"set to {merge_driver(installing_command())!r}" if last == "enable" else "unset"
    )
    assert tree(repo) == state
    again = cli("recover", repo, "--json")  # in line now: nothing more to do
    assert json.loads(again.stdout)["summary"]["merge_driver"] == ""
