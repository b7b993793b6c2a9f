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


def text_merge(ours: Path, base: Path, theirs: Path) -> tuple[bytes, int]:
    """git's own three-way text merge of three files: (merged bytes, conflicts), nothing written.

    The merge driver's fallback for input it cannot read by fact id; the paths come after
    ``--``, so none of them is ever taken for an option.
    """
    labels = ["-L", "ours", "-L", "base", "-L", "theirs"]
    command = ["git", "merge-file", "-p", *labels, "--", str(ours), str(base), str(theirs)]
    try:
        done = subprocess.run(command, capture_output=True, check=False)
    except FileNotFoundError:
        raise AgentMemoryError("git: not found; the text merge needs it") from None
    if done.returncode < 0 or done.returncode > 127:
        problem = (done.stderr.decode(errors="replace").strip().splitlines() or ["failed"])[-1]
        raise AgentMemoryError(f"git merge-file: {problem}", str(ours))
    return done.stdout, done.returncode


def inside_work_tree(root: Path) -> bool:
    """Whether ``root`` is inside a git work tree (False when git is missing)."""
    try:
        done = subprocess.run(
            ["git", "rev-parse", "--is-inside-work-tree"],
            cwd=root,
            capture_output=True,
            text=True,
            check=False,
        )
    except (FileNotFoundError, NotADirectoryError):
        return False
    return done.returncode == 0 and done.stdout.strip() == "true"


def local_config(root: Path, key: str, value: str | None = None) -> str | None:
    """Read (``value`` None) or set a key of the repo's own git config, never the global one."""
    args = ["--get", key] if value is None else [key, value]
    done = subprocess.run(
        ["git", "config", "--local", *args], cwd=root, capture_output=True, text=True, check=False
    )
    if value is not None and done.returncode != 0:
        problem = (done.stderr.strip().splitlines() or ["git config failed"])[-1]
        raise AgentMemoryError(f"{problem}; could not set {key}", str(root))
    return done.stdout.strip() if done.returncode == 0 else None
