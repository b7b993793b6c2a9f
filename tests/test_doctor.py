"""``agent-memory doctor``: what is wired, and whether it would run, read from the agents' own
files; read-only, one line per finding, exit 1 when something would not run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent_memory.core.agents import hooks
from conftest import cli, run_console, tree

BIN = str(Path(sys.executable).parent)  # where agent-memory is installed in the test's venv


@pytest.fixture
def enabled(repo: Path) -> Path:
    assert cli("enable", repo, "--vendor", "none", "--today", "2026-01-01").exit_code == 0
    return repo


def _doctor(root: Path, home: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    env = {"HOME": str(home), "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}", **env}
    env.setdefault("CODEX_HOME", str(home / ".codex"))
    return run_console("doctor", root, *args, cwd=root, **env)


def _config(root: Path) -> str:
    listed = ["git", "-C", str(root), "config", "--local", "--list"]
    return subprocess.run(listed, capture_output=True, text=True, check=True).stdout


def test_nothing_wired_is_fine_and_doctor_writes_nothing(enabled: Path, tmp_path: Path) -> None:
    before, config = tree(enabled), _config(enabled)
    done = _doctor(enabled, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ok: claude: no hooks, no MCP entry (both opt-in)" in done.stdout
    assert "ok: merge driver: set; runs " in done.stdout
    assert tree(enabled) == before and _config(enabled) == config


def _trust_codex(home: Path, root: Path, keys: bool) -> None:
    codex = home / ".codex"
    codex.mkdir(parents=True, exist_ok=True)
    text = f'[projects."{root.resolve()}"]\ntrust_level = "trusted"\n'
    if keys:
        for label in ("session_start", "pre_compact", "session_end"):  # Codex's own labels
            key = f"{root.resolve() / hooks.AGENTS['codex'].path}:{label}:0:0"
            text += f'[hooks.state."{key}"]\ntrusted_hash = "sha256:x"\n'
    (codex / "config.toml").write_text(text)


def test_codex_hooks_need_the_project_trusted_and_the_hooks_reviewed(
    enabled: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    assert cli("hooks", "install", enabled, "--agent", "codex").exit_code == 0
    done = _doctor(enabled, home)
    assert done.returncode == 1
    assert "error: codex: the project is not trusted" in done.stdout
    _trust_codex(home, enabled, keys=False)
    done = _doctor(enabled, home)
    assert done.returncode == 1 and "error: codex: our hooks are not reviewed" in done.stdout
    _trust_codex(home, enabled, keys=True)
    done = _doctor(enabled, home)
    assert done.returncode == 0, done.stdout
    assert "ok: codex: our hooks are reviewed (/hooks)" in done.stdout
    assert "warning: codex: no session captured yet" in done.stdout


@pytest.mark.parametrize(
    ("rules", "code", "said"),
    [
        ({}, 1, "the folder is not yet trusted"),
        ({"{root}": "DO_NOT_TRUST"}, 1, "the folder is distrusted"),
        ({"{root}": "TRUST_FOLDER"}, 0, "the folder is trusted (TRUST_FOLDER"),
        ({"{root}/child": "TRUST_PARENT"}, 0, "the folder is trusted (TRUST_PARENT"),
        ({"{parent}": "TRUST_FOLDER", "{root}": "DO_NOT_TRUST"}, 1, "distrusted"),
    ],
)
def test_gemini_reads_project_settings_only_in_a_trusted_folder(
    enabled: Path, tmp_path: Path, rules: dict[str, str], code: int, said: str
) -> None:
    home = tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
    named = {
        k.format(root=enabled.resolve(), parent=enabled.resolve().parent): v
        for k, v in rules.items()
    }
    (home / ".gemini/trustedFolders.json").write_text("// mine\n" + json.dumps(named))
    assert cli("hooks", "install", enabled, "--agent", "gemini").exit_code == 0
    done = _doctor(enabled, home)
    assert done.returncode == code and said in done.stdout, done.stdout
    forced = _doctor(enabled, home, GEMINI_CLI_TRUST_WORKSPACE="true")
    assert "the folder is trusted (GEMINI_CLI_TRUST_WORKSPACE=true)" in forced.stdout


def test_the_command_off_path_and_5_0_0_entries_would_not_run(
    enabled: Path, tmp_path: Path
) -> None:
    where = enabled / ".claude/settings.json"
    where.parent.mkdir()
    where.write_text(hooks.install(None, "claude", hooks.AGENTS["claude"].legacy)[0])
    done = _doctor(enabled, tmp_path)
    assert done.returncode == 1 and "error: claude: .claude/settings.json holds 5.0.0's" in (
        done.stdout
    )
    where.unlink()
    assert cli("hooks", "install", enabled, "--agent", "claude").exit_code == 0
    env = {"HOME": str(tmp_path), "PATH": str(tmp_path / "empty")}
    done = run_console("doctor", enabled, cwd=enabled, **env)
    assert done.returncode == 1 and "error: claude: agent-memory is not on PATH" in done.stdout
    # The way on is this install's own command, never a package no registry holds.
    link = f"ln -s {Path(sys.executable).parent / 'agent-memory'} ~/.local/bin/"
    assert link in done.stdout and "pipx install agent-memory" not in done.stdout


def test_a_bad_settings_file_is_one_finding_never_a_traceback(
    enabled: Path, tmp_path: Path
) -> None:
    for rel, bad in ((".claude/settings.json", "{"), (".mcp.json", "[1]"),
                     (".gemini/settings.json", "{bad")):  # fmt: skip
        path = enabled / rel
        path.parent.mkdir(exist_ok=True)
        path.write_text(bad)
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    (home / ".codex/config.toml").write_text("[[[ not toml")
    (home / ".gemini").mkdir()
    (home / ".gemini/trustedFolders.json").write_bytes(b"\xff{")
    done = _doctor(enabled, home)
    assert done.returncode == 1 and "Traceback" not in done.stderr + done.stdout
    assert "error: claude: .claude/settings.json cannot be read" in done.stdout
    assert "error: claude: .mcp.json " in done.stdout
    # Gemini CLI keeps hooks and MCP servers in one file: said once, told once to fix it
    gemini = [line for line in done.stdout.splitlines() if ".gemini/settings.json" in line]
    assert [line.split(" cannot")[0] for line in gemini if "JSON" in line] == [
        "error: gemini: .gemini/settings.json"
    ]
    assert "run again — fix the file" not in done.stdout


def test_json_is_one_document_with_every_finding(enabled: Path, tmp_path: Path) -> None:
    assert cli("mcp", "install", enabled, "--agent", "claude").exit_code == 0
    done = _doctor(enabled, tmp_path, "--json")
    doc = json.loads(done.stdout)
    assert doc["command"] == "doctor" and doc["outcome"] in ("ok", "problems")
    scopes = {f["scope"] for f in doc["summary"]["findings"]}
    assert scopes == {"claude", "codex", "gemini", "merge driver"}
    assert done.returncode == (1 if any(f["severity"] == "error" for f in doc["findings"]) else 0)


def test_the_merge_driver_of_5_0_0_is_named(enabled: Path, tmp_path: Path) -> None:
    subprocess.run(
        ["git", "-C", str(enabled), "config", "merge.agent-memory.driver",
         "agent-memory merge-file %O %A %B %P"], check=True,
    )  # fmt: skip
    done = _doctor(enabled, tmp_path)
    assert "warning: merge driver: 5.0.0's bare command" in done.stdout


def test_files_git_ignores_are_named_with_their_rule_and_the_way_to_share(
    repo: Path, tmp_path: Path
) -> None:
    """A .gitignore that holds .claude/ (issue 39, item 2): hooks install, mcp install and
    doctor say no teammate gets the file, name the rule and `git add -f`; once git tracks it,
    nothing is said."""
    (repo / ".gitignore").write_text("node_modules/\n.claude/\n")
    assert cli("enable", repo, "--vendor", "none", "--today", "2026-01-01").exit_code == 0
    rule = "is ignored by git (.gitignore:2: .claude/)"
    installed = cli("hooks", "install", "--agent", "claude", repo)
    assert installed.exit_code == 0, installed.output
    assert f"warning: .claude/settings.json {rule}" in installed.output
    assert "git add -f .claude/settings.json" in installed.output
    registered = cli("mcp", "install", "--agent", "claude", "--agent", "codex", repo)
    assert ".mcp.json is ignored" not in registered.output  # not ignored: not named
    done = _doctor(repo, tmp_path)
    assert f"warning: claude: .claude/settings.json {rule}" in done.stdout, done.stdout
    assert "memory:" not in done.stdout
    subprocess.run(["git", "-C", str(repo), "add", "-f", ".claude/settings.json"], check=True)
    assert "is ignored by git" not in _doctor(repo, tmp_path).stdout


def test_an_ignored_memory_is_a_doctor_warning(enabled: Path, tmp_path: Path) -> None:
    (enabled / ".gitignore").write_text((enabled / ".gitignore").read_text() + "memory/\n")
    done = _doctor(enabled, tmp_path)
    assert "warning: memory: memory/continuity.md is ignored by git (.gitignore:" in done.stdout
    assert "or take the rule out" in done.stdout
