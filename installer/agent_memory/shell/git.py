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


def committed(root: Path, rel: str) -> bool:
    """Whether ``rel`` is in the commit HEAD names; False outside git or before a first commit."""
    if not any((folder / ".git").exists() for folder in (root, *root.parents)):
        return False  # not in a work tree: no process to start (the MCP server asks often)
    command = ["git", "ls-tree", "--name-only", "--end-of-options", "HEAD", "--", rel]
    try:
        done = subprocess.run(command, cwd=root, capture_output=True, text=True, check=False)
    except FileNotFoundError:
        return False
    return done.returncode == 0 and bool(done.stdout.strip())
