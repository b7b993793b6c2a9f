"""Input from outside the repo: an agent's transcript, one bounded line at a time, and the JSON
a hook receives on stdin, taken as soon as it is whole."""

from __future__ import annotations

import itertools
import os
import select
import stat
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from ..errors import AgentMemoryError, InputError, RefusedError
from ..parse.untrusted import one_line

_SKIP = 1 << 16  # bytes read at a time while skipping the rest of a line over the bound
_LISTED = 10_000  # entries of a folder looked at, at most


def lines(path: Path, longest: int) -> Iterator[bytes | None]:
    """The file's lines with their endings, read through a buffer: a 50 MB transcript never sits
    in memory whole, and a line over ``longest`` bytes is never held (it is read past in small
    pieces and given as None). Only a regular file is read (a FIFO would block the hook)."""
    shown = one_line(str(path))
    with os.fdopen(_regular(path, shown), "rb") as handle:
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


def tail(path: Path, most: int) -> bytes:
    """The file's last ``most`` bytes at most, in one read, from the start of a line: what is
    before them is not read. Only a regular file is read."""
    shown = one_line(str(path))
    with os.fdopen(_regular(path, shown), "rb") as handle:
        try:
            size = os.fstat(handle.fileno()).st_size
            handle.seek(max(0, size - most - 1))  # and the byte before: a line may start there
            data = handle.read(most + 1)
        except OSError as exc:
            raise AgentMemoryError(f"cannot be read ({exc.strerror})", shown) from None
    return data.partition(b"\n")[2] if size > most else data  # the first whole line on


def _regular(path: Path, shown: str) -> int:
    """A descriptor of the regular file at ``path``, opened to read."""
    try:  # O_NONBLOCK: opening a FIFO must not wait for a writer
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        raise AgentMemoryError(f"cannot be read ({exc.strerror})", shown) from None
    except (ValueError, UnicodeEncodeError):  # a NUL or a lone surrogate: no file has that name
        raise AgentMemoryError("is not a path a file can have", shown) from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise RefusedError("is not a regular file; pass the transcript's path", shown)
    return fd


def hook_input(
    stdin: IO[Any], whole: Callable[[bytes], bool], most: int, seconds: float, fix: str
) -> bytes:
    """What a hook's caller writes on stdin, up to the end of its JSON (``whole``) or of the
    input, at most ``most`` bytes and ``seconds`` of waiting: an agent may keep stdin open after
    its payload, and a hook must not wait for an end of file that never comes. ``fix``: what
    the user is told to do when none arrives whole."""
    try:
        fd = stdin.fileno()
    except (AttributeError, OSError, ValueError):  # not a file (a test's stream): read it
        data = stdin.read(most)
        return data.encode(errors="surrogatepass") if isinstance(data, str) else bytes(data)
    deadline = time.monotonic() + seconds
    data = bytearray()
    while len(data) < most and not whole(bytes(data)):
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            raise InputError(
                "<stdin>", None, f"no whole JSON object arrived within {seconds:g} s", fix
            )
        try:
            chunk = os.read(fd, most - len(data))
        except OSError as exc:
            raise AgentMemoryError(f"cannot be read ({exc.strerror})", "<stdin>") from None
        if not chunk:
            break
        data += chunk
    if len(data) >= most and not whole(bytes(data)):
        raise InputError("<stdin>", None, f"the hook's input is longer than {most:,} bytes", fix)
    return bytes(data)


def present(path: Path) -> bool:
    """Whether anything is at ``path``: a hook may name a transcript the agent never wrote
    (``claude mcp list`` does). A name no file can have is "present": reading it says why."""
    try:
        path.stat()  # a link that leads nowhere names nothing either
    except (FileNotFoundError, NotADirectoryError):
        return False
    except (OSError, ValueError):
        return True
    return True


def files_in(folder: Path, keep: Callable[[str], bool], most: int) -> list[Path]:
    """The regular files of ``folder`` whose names ``keep`` takes, sorted by name: at most
    ``most`` of them, from its first ``_LISTED`` entries (none when it is no folder)."""
    try:
        with os.scandir(folder) as entries:
            found = sorted(
                entry.name
                for entry in itertools.islice(entries, _LISTED)
                if keep(entry.name) and entry.is_file()
            )
    except (OSError, ValueError):
        return []
    return [folder / name for name in found[:most]]
