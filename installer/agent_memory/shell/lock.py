"""The repo's lock: one run at a time writes, and a run's lock dies with it.

An OS lock (flock) on ``.agent-memory.lock``, which the kernel releases when its holder dies
however it dies, so a lock file left behind by a killed run is simply taken over; the file's
text only names the holder for the error message.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from pathlib import Path

from ..errors import AgentMemoryError, LockedError
from ..layout import LOCK_FILE


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
        fd = self._try() if self.path.exists() else None
        if fd is None:
            return self.path.exists()
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()  # a dead run's lock: ours now, and released at once
        os.close(fd)
        return False

    def _try(self) -> int | None:
        """An fd holding the lock, or None when a live run holds it."""
        try:
            fd = os.open(self.path, os.O_CREAT | os.O_RDWR, 0o644)
        except PermissionError:
            raise AgentMemoryError(
                "cannot create the lock file (permission denied); make the repo writable",
                LOCK_FILE,
            ) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return None
        try:
            same = os.fstat(fd).st_ino == self.path.stat().st_ino
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
                text = self.path.read_text(encoding="utf-8", errors="replace").strip()
            except FileNotFoundError:
                return "finishing"
            if text:
                return text
            time.sleep(0.005)
        return "starting"
