"""A target repository as the commands see it: path-safe reads, and plans applied under a lock.

This package is the only code that touches the disk. ``Repo`` reads only the paths asked for
(it never walks the tree), refuses paths that lead outside the repo, and applies a plan through
the journal while it holds the lock.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import NamedTuple

from ..core.plan import FileEdit, Plan
from ..errors import AgentMemoryError, RefusedError
from .journal import Journal
from .lock import Lock


class FileKey(NamedTuple):
    """One version of one file: a change of any field means the contents may have changed."""

    path: str
    size: int
    mtime_ns: int
    inode: int


class Repo:
    def __init__(self, root: Path) -> None:
        if not root.is_dir():
            raise RefusedError("not a directory; pass the path of the repo to work on", str(root))
        self.root = root.resolve()
        self._lock = Lock(self.root)
        self._journal = Journal(self.root)

    # -- reading -------------------------------------------------------------------------------

    def real(self, rel: str) -> Path:
        """The real path of ``rel``, refusing anything that resolves outside the repo."""
        path = self.root / rel
        resolved = path.resolve()
        if resolved != self.root and self.root not in resolved.parents:
            raise RefusedError(
                f"is a symlink (or under one) that leads outside the repo, to {resolved}; "
                "refusing to read or write through it — replace it with a real file or directory",
                rel,
            )
        return resolved

    def read(self, rel: str) -> bytes | None:
        path = self.real(rel)
        try:
            return path.read_bytes()
        except FileNotFoundError:
            return None
        except IsADirectoryError:
            raise RefusedError("is a directory where a file is expected", rel) from None
        except OSError as exc:
            raise AgentMemoryError(f"cannot be read ({exc.strerror})", rel) from None

    def stat_key(self, rel: str) -> FileKey | None:
        """The key ``read_keyed`` would give the file now at ``rel``, without reading it."""
        path = self.real(rel)
        try:
            info = path.stat()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise AgentMemoryError(f"cannot be read ({exc.strerror})", rel) from None
        return FileKey(str(path), info.st_size, info.st_mtime_ns, info.st_ino)

    def read_keyed(self, rel: str) -> tuple[FileKey, bytes] | None:
        """``read``, with the key that tells this version of the file from any later one.

        The key is taken from the open file itself, so it always belongs to the bytes read: a
        replace (a new inode), a write (size or mtime) after the read gets a new key.
        """
        path = self.real(rel)
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO must not block the open
        except FileNotFoundError:
            return None
        except IsADirectoryError:
            raise RefusedError("is a directory where a file is expected", rel) from None
        except OSError as exc:
            raise AgentMemoryError(f"cannot be read ({exc.strerror})", rel) from None
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise RefusedError("is not a regular file; replace it with one", rel)
            with os.fdopen(fd, "rb", closefd=False) as stream:
                data = stream.read()
        except OSError as exc:
            raise AgentMemoryError(f"cannot be read ({exc.strerror})", rel) from None
        finally:
            os.close(fd)
        return FileKey(str(path), info.st_size, info.st_mtime_ns, info.st_ino), data

    def read_each(self, directory: str, names: Iterable[str]) -> Iterator[tuple[str, bytes]]:
        """Read many files of one directory (the session logs), one at a time.

        The directory is checked once and opened once; each file is opened relative to it
        without following symlinks and read with bare system calls (a full review reads 100,000
        logs, and file objects cost more than the reading); only a symlink takes the slower path
        that checks where it leads.
        """
        base: int | None = None
        try:
            for name in names:
                try:
                    if base is None:
                        base = os.open(self.real(directory), os.O_RDONLY | os.O_DIRECTORY)
                    fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW, dir_fd=base)
                except OSError as exc:
                    if exc.errno != errno.ELOOP:
                        raise AgentMemoryError(
                            f"cannot be read ({exc.strerror})", f"{directory}/{name}"
                        ) from None
                    yield name, self.read(f"{directory}/{name}") or b""
                    continue
                chunks = []
                try:
                    while chunk := os.read(fd, 1 << 16):
                        chunks.append(chunk)
                except OSError as exc:
                    raise AgentMemoryError(
                        f"cannot be read ({exc.strerror})", f"{directory}/{name}"
                    ) from None
                finally:
                    os.close(fd)
                yield name, b"".join(chunks)
        finally:
            if base is not None:
                os.close(base)

    def exists(self, rel: str) -> bool:
        return os.path.lexists(self.root / rel)

    def is_dir(self, rel: str) -> bool:
        return self.real(rel).is_dir()

    def list_dir(self, rel: str) -> tuple[str, ...]:
        """Names in a directory, sorted (file system order never leaks into output)."""
        path = self.real(rel)
        try:
            # os.listdir, not Path.iterdir: a sessions folder may hold 100,000 names.
            return tuple(sorted(os.listdir(path)))  # noqa: PTH208
        except (FileNotFoundError, NotADirectoryError):
            return ()

    # -- locking, recovery, applying -----------------------------------------------------------

    @contextlib.contextmanager
    def locked(self, wait: float = 0.0) -> Iterator[None]:
        """Hold the repo's lock (re-entrant); an interrupted plan is rolled back first."""
        if self._lock.held:
            yield
            return
        self._lock.acquire(wait)
        try:
            self._journal.roll_back()
            yield
        finally:
            self._lock.release()

    def recover(self, wait: float = 0.0) -> None:
        """Roll back a plan an earlier run left half-applied, and clear a dead run's lock.

        A live run that has not started writing is left alone; one that is writing makes us wait
        (or fail naming it), since its files are in flux.
        """
        self._lock.is_live()  # clears a dead run's lock file
        if self._journal.pending():
            with self.locked(wait):
                pass

    def apply(self, plan: Plan, wait: float = 0.0) -> None:
        """Apply every write of ``plan`` or none; refuses if a file changed since it was read."""
        writes = plan.writes
        if not writes:
            return
        with self.locked(wait):
            targets = [self._check_writable(edit) for edit in writes]
            self._journal.apply(writes, targets)

    def _check_writable(self, edit: FileEdit) -> Path:
        target = self.real(edit.path)
        current: bytes | None
        try:
            current = target.read_bytes()
        except FileNotFoundError:
            current = None
        if current != edit.before:
            raise AgentMemoryError(
                "changed while this run was planning; run the command again", edit.path
            )
        if current is not None and not target.stat().st_mode & stat.S_IWUSR:
            raise RefusedError(
                "is read-only; make it writable (chmod u+w) and run again", edit.path
            )
        return target
