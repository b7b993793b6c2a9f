"""Gates for CI and pre-commit: append-only logs in real git, one JSON shape, the hook file."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from conftest import PROJECT, build_tree, cli

SHAPE = {"command", "version", "repo", "outcome", "plan", "findings", "summary"}


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


def committed(repo: Path) -> Path:
    cli("enable", repo, "--vendor", "none", "--today", "2026-06-01")
    build_tree(repo, {"memory/sessions/2026-06-01-100000.md": "# one\n"})
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "memory")
    return repo


def test_check_logs_fails_on_a_modified_or_deleted_log(repo: Path) -> None:
    committed(repo)
    log = repo / "memory/sessions/2026-06-01-100000.md"
    build_tree(repo, {"memory/sessions/2026-06-02-100000.md": "# two\n"})
    assert cli("check-logs", repo).exit_code == 0  # a new log is fine
    log.write_text("# one, rewritten\n")
    result = cli("check-logs", repo)
    assert result.exit_code == 1
    assert "memory/sessions/2026-06-01-100000.md: error [session-log-changed] modified" in (
        result.output
    )
    log.unlink()
    git(repo, "add", "-A")
    assert "deleted since HEAD" in cli("check-logs", repo).output


def test_check_logs_outside_git_is_one_clear_line(tmp_path: Path) -> None:
    cli("enable", tmp_path)
    result = cli("check-logs", tmp_path)
    assert result.exit_code == 1 and result.output.count("\n") == 1
    assert "git" in result.output and "Traceback" not in result.output


@pytest.mark.parametrize(
    "args",
    [
        ["enable", "--check"],
        ["review", "--check", "--today", "2026-06-20"],
        ["status"],
        ["lint"],
        ["recall", "anything"],
        ["check-logs"],
    ],
)
def test_every_command_prints_one_json_shape(repo: Path, args: list[str]) -> None:
    committed(repo)
    result = cli(*args, repo, "--json")
    doc = json.loads(result.output)
    assert set(doc) == SHAPE
    assert doc["command"] == args[0]
    assert isinstance(doc["plan"], list) and isinstance(doc["findings"], list)


def test_session_new_json_and_no_progress_bar_when_piped(repo: Path) -> None:
    committed(repo)
    doc = json.loads(cli("session", "new", repo, "--json", "--now", "2026-06-02T00:00:00").output)
    assert set(doc) == SHAPE and doc["summary"]["path"].startswith("memory/sessions/")
    build_tree(repo, {f"memory/sessions/2026-06-03-{n:06d}.md": "# s\n" for n in range(600)})
    assert "reading session logs" not in cli("review", repo, "--today", "2026-06-20").output


def test_pre_commit_hooks_name_real_commands() -> None:
    hooks = YAML(typ="safe").load((PROJECT / ".pre-commit-hooks.yaml").read_text())
    assert {h["id"] for h in hooks} == {
        "agent-memory-lint",
        "agent-memory-review-check",
        "agent-memory-immutable-logs",
        "agent-memory-secrets",
    }
    for hook in hooks:
        words = hook["entry"].split()
        assert words[0] == "agent-memory"
        assert cli(*words[1:], "--help").exit_code == 0
    guide = (PROJECT / "docs/teams.md").read_text()
    assert "agent-memory check-logs --base" in guide and ".pre-commit-hooks.yaml" in guide


def test_check_logs_accepts_exactly_the_summary_review_session_appends(repo: Path) -> None:
    committed(repo)
    log = repo / "memory/sessions/2026-06-01-100000.md"
    original = log.read_bytes()
    assert cli("review", repo, "--session", log, "--today", "2026-06-02").exit_code == 0
    assert log.read_bytes().startswith(original + b"\n## Memory Review (2026-06-02)\n")
    result = cli("check-logs", repo)
    assert result.exit_code == 0, result.output
    assert "but for 1 review summary" in result.output
    # Anything more, or anything else, is a change.
    for changed in (
        log.read_bytes() + b"\n## Notes\n- added later\n",
        original.replace(b"one", b"uno") + b"\n## Memory Review (2026-06-02)\n- Archived: 0\n",
        original + b"\n## Decisions Made\n- none\n",
        original + b"- one more line\n",
        b"",
    ):
        log.write_bytes(changed)
        assert cli("check-logs", repo).exit_code == 1, changed
    # A second summary is not what review --session writes either.
    log.write_bytes(original + b"\n## Memory Review (2026-06-02)\n- Archived: 0\n")
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "reviewed")
    log.write_bytes(log.read_bytes() + b"\n## Memory Review (2026-06-03)\n- Archived: 0\n")
    assert cli("check-logs", repo).exit_code == 1


@pytest.mark.parametrize(
    ("old", "new", "accepted"),
    [
        (b"# S\n", b"# S\n\n## Memory Review (2026-06-02)\n- Reactivated: 0\n", True),
        (b"# S", b"# S\n\n## Memory Review (2026-06-02)\n", True),
        (b"# S\r\n", b"# S\r\n\r\n## Memory Review (2026-06-02)\r\n- Archived: 0\r\n", True),
        (b"", b"## Memory Review (2026-06-02)\n", True),
        (b"# S", b"# S## Memory Review (2026-06-02)\n", False),
        (b"# S\n", b"# S\n\nprose\n## Memory Review (2026-06-02)\n", False),
        (b"# S\n", b"# S\n\n## Memory Review (2026-06-02)\n# Injected\n", False),
        (b"# S\n", b"# S\n", False),
    ],
)
def test_the_append_rule(old: bytes, new: bytes, accepted: bool) -> None:
    from agent_memory.core.merge.log_append import is_review_append

    assert is_review_append(old, new) is accepted
