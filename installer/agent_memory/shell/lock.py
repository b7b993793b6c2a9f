"""The repo's lock: one run at a time writes, and a run's lock dies with it.

An OS lock (flock) on ``.agent-memory.lock``, which the kernel releases when its holder dies
however it dies, so a lock file left behind by a killed run is simply taken over; the file's
text only names the holder for the error message.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from pathlib import Path

from ..errors import CalledOffError, LockedError, RefusedError
from ..layout import LOCK_FILE
from .files import kind, os_error, read_regular

# Never follow a link (a committed symlink would point the lock at a file elsewhere), never block
# on a FIFO put in its place.
_FLAGS = os.O_CREAT | os.O_RDWR | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


# Whether the caller of this run has called it off (the MCP server's cancelled call): asked while
# the run waits for the lock and just before it writes, so that a run called off writes nothing.
_CALLED_OFF: ContextVar[Callable[[], bool]] = ContextVar("called_off", default=lambda: False)


@contextlib.contextmanager
def unless_called_off(called_off: Callable[[], bool]) -> Iterator[None]:
    """Runs in this block stop, writing nothing, once ``called_off()`` is true."""
    token = _CALLED_OFF.set(called_off)
    try:
        yield
    finally:
        _CALLED_OFF.reset(token)


def stop_if_called_off() -> None:
    if _CALLED_OFF.get()():
        raise CalledOffError


class Lock:
    """The lock of the repo at ``root`` (re-entrant through ``held``)."""

    def __init__(self, root: Path) -> None:
        self.path = root / LOCK_FILE
        self.fd: int | None = None  # while this run holds it

    @property
    def held(self) -> bool:
        return self.fd is not None

    def acquire(self, wait: float) -> None:
        deadline = time.monotonic() + wait
        while True:
            stop_if_called_off()
            fd = self._try()
            if fd is not None:
                break
            if time.monotonic() >= deadline:
                raise LockedError(LOCK_FILE, self._holder())
            time.sleep(0.05)
        os.ftruncate(fd, 0)
        os.write(fd, f"pid {os.getpid()} on {os.uname().nodename}\n".encode())
        self.fd = fd

    def release(self) -> None:
        fd, self.fd = self.fd, None
        if fd is not None:
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()
            os.close(fd)

    def is_live(self) -> bool:
        """Whether another live run holds the lock; a dead run's lock file is cleared."""
        fd = self._try() if os.path.lexists(self.path) else None
        if fd is None:
            return os.path.lexists(self.path)
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()  # a dead run's lock: ours now, and released at once
        os.close(fd)
        return False

    def _try(self) -> int | None:
        """An fd holding the lock, or None when a live run holds it."""
        try:
            fd = os.open(self.path, _FLAGS, 0o644)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise _not_a_file("a symlink") from None
            if exc.errno == errno.EISDIR:
                raise _not_a_file("a directory") from None
            raise os_error(exc, LOCK_FILE) from None
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            os.close(fd)
            raise _not_a_file(kind(mode))
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return None
        try:
            same = os.fstat(fd).st_ino == os.lstat(self.path).st_ino
        except FileNotFoundError:
            same = False
        if not same:  # the file was released (unlinked) between our open and our lock
            os.close(fd)
            return self._try()
        return fd

    def _holder(self) -> str:
        """Who holds the lock, as its file says.

        A holder writes its name just after taking the lock, so an empty file is read again for
        a moment (runs started together meet exactly there) before settling for "starting".
        """
        for _ in range(20):
            try:
                data = read_regular(self.path, LOCK_FILE, follow=False)
            except RefusedError:
                data = None
            if data is None:
                return "finishing"
            text = " ".join(data[:200].decode("utf-8", errors="replace").split())
            if text:
                return text
            time.sleep(0.005)
        return "starting"


def _not_a_file(what: str) -> RefusedError:
    return RefusedError(
        f"is {what}, not the lock file agent-memory writes; remove it and run again", LOCK_FILE
    )
