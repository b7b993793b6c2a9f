"""Every git the tool starts is told not to fetch and never to prompt (SECURITY.md): the focus
of a session start, replay's walk of history, explain's search alike."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import cli, git_init


def test_every_git_the_tool_starts_is_told_to_stay_offline(tmp_path: Path) -> None:
    real = shutil.which("git")
    assert real is not None
    seen = tmp_path / "seen"
    wrapper = tmp_path / "bin/git"
    wrapper.parent.mkdir()
    wrapper.write_text(
        "#!/bin/sh\n"
        f'echo "$GIT_NO_LAZY_FETCH $GIT_TERMINAL_PROMPT $1 $2 $3" >> "{seen}"\n'
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
    assert runs and all(run.startswith("1 0 ") for run in runs), runs
