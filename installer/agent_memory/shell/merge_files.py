"""The merge driver's three files, and the result written over OURS (git's %A).

Git writes the three versions to temporary files of its own (``.merge_file_XXXXXX`` in the work
tree's top folder), runs the driver, then opens %A again by its name, reads it as the merge's
result and deletes the three. So the versions are read like any file the shell reads (without
following a link, without blocking: regular files only, at most ``MAX_FILE_BYTES``), and the
result replaces OURS atomically — a driver killed at any moment leaves OURS whole, as it was or
as merged, never empty.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ..errors import AgentMemoryError
from .files import atomic_write, kind, read_fd

_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_UNTOUCHED = "nothing merged: OURS is left as it was, and git reports a conflict"


def read_version(path: Path) -> bytes:
    """One version's bytes; a FIFO, device, socket or folder, a symlink, or a file over
    ``MAX_FILE_BYTES`` is one line (git then keeps OURS and reports a conflict)."""
    try:
        fd = os.open(path, _FLAGS)
    except OSError as exc:
        raise AgentMemoryError(f"{_unopened(path, exc)}; {_UNTOUCHED}", str(path)) from None
    try:
        return read_fd(fd, str(path))
    except AgentMemoryError as exc:
        raise AgentMemoryError(f"{exc.message}; {_UNTOUCHED}", exc.path) from None
    finally:
        os.close(fd)


def _unopened(path: Path, exc: OSError) -> str:
    """Why ``path`` did not open: what it is when it is not a file (a socket, a link)."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        mode = stat.S_IFREG
    if not stat.S_ISREG(mode):
        return f"is {kind(mode)}, not a regular file"
    return f"cannot be opened ({exc.strerror})"


def write_result(path: Path, data: bytes) -> None:
    """Replace OURS with the merge: a temp file beside it with OURS's mode, renamed over it."""
    try:
        atomic_write(path, data)
    except OSError as exc:
        raise AgentMemoryError(
            f"cannot be written ({exc.strerror}); {_UNTOUCHED}", str(path)
        ) from None
