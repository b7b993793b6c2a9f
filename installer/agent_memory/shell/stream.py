"""Reading a file from outside the repo (an agent's transcript) one bounded line at a time."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

from ..errors import AgentMemoryError, RefusedError
from ..parse.untrusted import one_line

_SKIP = 1 << 16  # bytes read at a time while skipping the rest of a line over the bound


def lines(path: Path, longest: int) -> Iterator[bytes | None]:
    """The file's lines with their endings, read through a buffer: a 50 MB transcript never sits
    in memory whole, and a line over ``longest`` bytes is never held (it is read past in small
    pieces and given as None). Only a regular file is read (a FIFO would block the hook)."""
    shown = one_line(str(path))
    try:  # O_NONBLOCK: opening a FIFO must not wait for a writer
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        raise AgentMemoryError(f"cannot be read ({exc.strerror})", shown) from None
    except (ValueError, UnicodeEncodeError):  # a NUL or a lone surrogate: no file has that name
        raise AgentMemoryError("is not a path a file can have", shown) from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise RefusedError("is not a regular file; pass the transcript's path", shown)
    with os.fdopen(fd, "rb") as handle:
        try:
            while line := handle.readline(longest + 1):
                if len(line) <= longest or line.endswith(b"\n"):
                    yield line
                    continue
                while (rest := handle.readline(_SKIP)) and not rest.endswith(b"\n"):
                    pass
                yield None
        except OSError as exc:
            raise AgentMemoryError(f"cannot be read ({exc.strerror})", shown) from None
