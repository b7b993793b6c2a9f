"""The README's snippets work as written: the daily-loop transcript, the pinned tag, completion."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from conftest import PROJECT

README = (PROJECT / "README.md").read_text()
VERSION = (PROJECT / "VERSION").read_text().strip()


def _transcript() -> list[tuple[str, list[str]]]:
    """(command, expected output lines) for each ``$`` line of the Daily loop console block."""
    section = README.split("## Daily loop", 1)[1]
    block = section.split("```console\n", 1)[1].split("```", 1)[0]
    steps: list[tuple[str, list[str]]] = []
    for line in block.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        else:
            steps[-1][1].append(line)
    return steps


def test_the_daily_loop_transcript_still_runs_as_shown(tmp_path: Path) -> None:
    steps = _transcript()
    assert any(command.startswith("agent-memory fact add") for command, _ in steps)
    tool = f"{sys.executable} -m agent_memory "
    env = {**os.environ, "PYTHONPATH": str(PROJECT / "installer")}
    for command, expected in steps:
        real = (
            tool + command[len("agent-memory ") :]
            if command.startswith("agent-memory ")
            else command
        )
        done = subprocess.run(
            ["bash", "-c", real], cwd=tmp_path, capture_output=True, text=True, env=env
        )
        assert (done.stdout + done.stderr).splitlines() == expected, command


def test_the_pinned_tag_is_the_version_and_the_convention_is_documented() -> None:
    pins = re.findall(r"rev: (\S+)|@(v[0-9][^\"\s]*)", README)
    tags = {a or b for a, b in pins}
    assert tags == {f"v{VERSION}"}
    assert "Releases are tagged `v<VERSION>`" in README


def test_completion_works_as_documented(tmp_path: Path) -> None:
    assert "_AGENT_MEMORY_COMPLETE=bash_source agent-memory" in README
    env = {
        **os.environ,
        "PYTHONPATH": str(PROJECT / "installer"),
        "_AGENT_MEMORY_COMPLETE": "bash_source",
    }
    done = subprocess.run(
        [sys.executable, "-m", "agent_memory"], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0 and "complete -o nosort -F" in done.stdout
    assert "agent-memory" in done.stdout
