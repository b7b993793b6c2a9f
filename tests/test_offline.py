"""Every git the tool starts is told not to fetch and never to prompt (SECURITY.md): the focus
of a session start, replay's walk of history, explain's search, adoption's dates alike."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import PROJECT, cli, git_init


def test_every_git_the_tool_starts_is_told_to_stay_offline(tmp_path: Path) -> None:
    real = shutil.which("git")
    assert real is not None
    seen = tmp_path / "seen"
    wrapper = tmp_path / "bin/git"
    wrapper.parent.mkdir()
    wrapper.write_text(
        "#!/bin/sh\n"
        f'echo "$GIT_NO_LAZY_FETCH $GIT_TERMINAL_PROMPT ${{GIT_ALLOW_PROTOCOL-unset}}. $*"'
        f' >> "{seen}"\n'
        f'exec "{real}" "$@"\n'
    )
    wrapper.chmod(0o755)
    root = git_init(tmp_path / "repo")
    assert cli("enable", root, "--today", "2026-01-01").exit_code == 0
    for args in (
        ["add", "-A"],
        ["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "m"],
    ):
        subprocess.run(["git", "-C", str(root), *args], check=True)
    (root / "src.py").write_text("changed\n")  # the session's focus: one new file
    env = {**os.environ, "PATH": f"{wrapper.parent}{os.pathsep}{os.environ['PATH']}"}
    payload = json.dumps({"cwd": str(root), "session_id": "s", "hook_event_name": "SessionStart"})
    for args, stdin in (
        (["hook", "session-start"], payload),
        (["replay", str(root)], None),
        (["explain", "no-such-fact", str(root)], None),
    ):
        subprocess.run(
            [sys.executable, "-m", "agent_memory", *args],
            input=stdin, capture_output=True, text=True, cwd=root, env=env, check=False,
        )  # fmt: skip
    runs = seen.read_text().splitlines()
    assert any(" status " in f" {run} " or "diff" in run for run in runs), runs  # focus ran git
    assert any(" log " in f" {run} " for run in runs), runs  # replay's walk
    assert runs and all(run.startswith("1 0 . ") for run in runs), runs  # no protocol allowed


def _blobs(root: Path) -> int:
    listed = subprocess.run(
        ["git", "-C", str(root), "cat-file", "--batch-all-objects", "--batch-check"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    return sum(line.split()[1] == "blob" for line in listed.splitlines())


def test_a_partial_clone_fetches_nothing_whatever_the_git(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A real blobless clone, whose older blobs its remote only promises: adopting a hand-run
    memory (each line dated by ``git log -p``) and ``explain`` (git's pickaxe over every version
    of the memory) read old blobs. They run, and git fetches none, even where git does not heed
    GIT_NO_LAZY_FETCH (before 2.44 and its backports; here a git that never sees it): every
    transport is refused."""
    real = shutil.which("git")
    assert real is not None
    deaf = tmp_path / "bin/git"  # a git that does not know GIT_NO_LAZY_FETCH
    deaf.parent.mkdir()
    deaf.write_text(f'#!/bin/sh\nunset GIT_NO_LAZY_FETCH\nexec "{real}" "$@"\n')
    deaf.chmod(0o755)
    monkeypatch.setenv("PATH", f"{deaf.parent}{os.pathsep}{os.environ['PATH']}")
    source = tmp_path / "source"
    shutil.copytree(PROJECT / "examples/handrun-4x-repo/before", source)
    continuity = source / "memory/continuity.md"
    whole = continuity.read_text()
    continuity.write_text(whole.split("## Stack & Tools")[0])
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@e", "-C"]
    subprocess.run(["git", "init", "-q", str(source)], check=True)
    for message in ("first", "second"):
        subprocess.run([*git, str(source), "add", "-A"], check=True)
        subprocess.run([*git, str(source), "commit", "-qm", message], check=True)
        continuity.write_text(whole)
    subprocess.run([*git, str(source), "config", "uploadpack.allowFilter", "true"], check=True)
    part = tmp_path / "part"
    url = source.as_uri()
    subprocess.run(["git", "clone", "-q", "--filter=blob:none", url, str(part)], check=True)
    held = _blobs(part)
    assert held < _blobs(source)  # the first commit's continuity.md is only promised
    enabled = cli("enable", part, "--vendor", "none", "--today", "2026-09-01")
    assert enabled.exit_code == 0, enabled.output
    assert _blobs(part) == held
    explained = cli("explain", "stack-java21-spring", part)
    assert explained.exit_code == 0, explained.output
    assert "stack-java21-spring" in explained.output
    assert _blobs(part) == held
