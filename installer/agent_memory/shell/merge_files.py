"""The merge driver's three files: read whole, and the result written over OURS (git's %A).

Git makes these temporary files itself, next to the work tree; they are still opened without
following a symlink, and only regular files are read or written.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ..errors import AgentMemoryError


def read_version(path: Path) -> bytes:
    fd = _open(path, os.O_RDONLY)
    try:
        chunks = []
        while chunk := os.read(fd, 1 << 16):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def write_result(path: Path, data: bytes) -> None:
    fd = _open(path, os.O_WRONLY)
    try:
        os.ftruncate(fd, 0)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def _open(path: Path, flags: int) -> int:
    try:
        fd = os.open(path, flags | os.O_NOFOLLOW)
    except OSError as exc:
        raise AgentMemoryError(f"cannot be opened ({exc.strerror})", str(path)) from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise AgentMemoryError("is not a regular file", str(path))
    return fd
