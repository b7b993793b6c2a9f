"""Reading a file from outside the repo (an agent's transcript) one line at a time."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

from ..errors import AgentMemoryError, RefusedError


def lines(path: Path) -> Iterator[bytes]:
    """The file's lines with their endings, read through a buffer: a 50 MB transcript never sits
    in memory whole. Only a regular file is read (a FIFO would block the hook forever)."""
    try:  # O_NONBLOCK: opening a FIFO must not wait for a writer
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        raise AgentMemoryError(f"cannot be read ({exc.strerror})", str(path)) from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise RefusedError("is not a regular file; pass the transcript's path", str(path))
    with os.fdopen(fd, "rb") as handle:
        try:
            yield from handle
        except OSError as exc:
            raise AgentMemoryError(f"cannot be read ({exc.strerror})", str(path)) from None
