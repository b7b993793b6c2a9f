"""Running git: the only place a process is started. User text never reaches git as an option."""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from pathlib import Path

from ..errors import AgentMemoryError


def changed_paths(root: Path, base: str, folder: str) -> list[tuple[str, str]]:
    """(status letter, path) of each file under ``folder`` that differs from revision ``base``."""
    output = _git(root, ["diff", "--name-status", "--no-renames", "--end-of-options", base], folder)
    rows = []
    for line in output.splitlines():
        status, _, name = line.partition("\t")
        rows.append((status, name))
    return rows


def _git(root: Path, args: Sequence[str], folder: str) -> str:
    command = ["git", *args, "--", folder]
    try:
        done = subprocess.run(command, cwd=root, capture_output=True, text=True, check=False)
    except FileNotFoundError:
        raise AgentMemoryError(
            "git: not found; this command compares against git history"
        ) from None
    if done.returncode != 0:
        problem = (done.stderr.strip().splitlines() or ["git failed"])[-1]
        raise AgentMemoryError(
            f"{problem}; run inside a git repo that has that revision", str(root)
        )
    return done.stdout


def file_before(root: Path, moment: str, path: str) -> bytes | None:
    """``path`` as committed at ``moment`` (ISO time): its last commit before then, or None when
    there is none, or no git, or no repository (the caller then has no start state)."""
    try:
        rev = _git(root, ["rev-list", "-1", f"--before={moment}", "HEAD"], path).strip()
    except AgentMemoryError:
        return None
    if not rev:
        return None
    command = ["git", "show", "--end-of-options", f"{rev}:{path}"]
    try:
        done = subprocess.run(command, cwd=root, capture_output=True, check=False)
    except FileNotFoundError:
        return None
    return done.stdout if done.returncode == 0 else None
