"""A file the user names for a command's output (the report's page): written outside the repo's
memory, never through a link, whole or not at all."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ..errors import RefusedError
from .files import atomic_write, kind, os_error, remove_temps
from .repo import Repo


def write_output(repo: Repo, target: Path, data: bytes) -> Path:
    """Write ``data`` to ``target`` and return where it went; refused inside the repo's
    ``memory/`` (what the tool reads must never hold what it writes about it)."""
    shown = str(target)
    try:
        folder = target.absolute().parent.resolve(strict=True)
    except (OSError, RuntimeError):
        raise RefusedError(
            "its folder does not exist; create it or name another file", shown
        ) from None
    final = folder / target.name
    memory = repo.root / "memory"
    if final == memory or memory in final.parents or memory.resolve() in final.parents:
        raise RefusedError(
            "is inside the repo's memory/, which holds only memory files; write the report "
            "elsewhere (e.g. outside the repo, or in a folder git ignores)",
            shown,
        )
    try:
        mode = os.lstat(final).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise os_error(exc, shown) from None
    if mode is not None and not stat.S_ISREG(mode):
        raise RefusedError(f"is {kind(mode)}; agent-memory writes only a regular file", shown)
    try:
        remove_temps(final)  # what a report killed at its fsync or rename left
        atomic_write(final, data)
    except OSError as exc:
        raise os_error(exc, shown) from None
    return final
