"""The one module that touches the disk: it reads a repo's known paths and applies plans.

A plan is applied all-or-nothing. Under a lock file, the original of every path the plan touches
is copied into a journal before the first write; each file is replaced atomically (temp file,
fsync, rename); the journal is deleted last. A run that finds a journal rolls the interrupted plan
back before it does anything else, so the repo is always either before or after a plan.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import marshal
import os
import shutil
import stat
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import NamedTuple, TypeVar

from .errors import AgentMemoryError, LockedError, RefusedError
from .layout import JOURNAL_DIR, LOCK_FILE
from .plan import FileEdit, Plan

_TMP_SUFFIX = ".agent-memory-tmp"
_ENTRIES = "entries"
# Test hook for the crash matrix: SIGKILL this process before the N-th durable step of applying
# a plan (each journal copy, the journal's commit, each file replaced, the final commit), so that
# tests can stop a run between any two writes.
_FAULT_ENV = "AGENT_MEMORY_FAULT_AT_STEP"
# Below this many files, forking a worker costs more than it saves.
PARALLEL_MIN = 2000
_Row = TypeVar("_Row")
_Other = TypeVar("_Other")


class _Entry(NamedTuple):
    """One path of a plan being applied, as the journal records it."""

    path: str
    existed: bool
    created_dirs: list[str]  # deepest first, the order to remove them in
    size: int  # of its original in the journal (0 when it did not exist)


class Repo:
    """A target repository: reads only the paths asked for, never walks the tree."""

    def __init__(self, root: Path) -> None:
        if not root.is_dir():
            raise RefusedError(f"{root}: not a directory; pass the path of the repo to work on")
        self.root = root.resolve()
        self._held: int | None = None  # the lock's fd while this run holds it
        self._steps = 0

    # -- reading -------------------------------------------------------------------------------

    def real(self, rel: str) -> Path:
        """The real path of ``rel``, refusing anything that resolves outside the repo."""
        path = self.root / rel
        resolved = path.resolve()
        if resolved != self.root and self.root not in resolved.parents:
            raise RefusedError(
                f"{rel}: is a symlink (or under one) that leads outside the repo, to {resolved}; "
                "refusing to read or write through it — replace it with a real file or directory"
            )
        return resolved

    def read(self, rel: str) -> bytes | None:
        path = self.real(rel)
        try:
            return path.read_bytes()
        except FileNotFoundError:
            return None
        except IsADirectoryError:
            raise RefusedError(f"{rel}: is a directory where a file is expected") from None
        except OSError as exc:
            raise AgentMemoryError(f"{rel}: cannot be read ({exc.strerror})") from None

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
                            f"{directory}/{name}: cannot be read ({exc.strerror})"
                        ) from None
                    yield name, self.read(f"{directory}/{name}") or b""
                    continue
                chunks = []
                try:
                    while chunk := os.read(fd, 1 << 16):
                        chunks.append(chunk)
                except OSError as exc:
                    raise AgentMemoryError(
                        f"{directory}/{name}: cannot be read ({exc.strerror})"
                    ) from None
                finally:
                    os.close(fd)
                yield name, b"".join(chunks)
        finally:
            if base is not None:
                os.close(base)

    def map_each(
        self,
        directory: str,
        names: Sequence[str],
        parse: Callable[[bytes], _Row],
        meanwhile: Callable[[], _Other],
        progress: Callable[[Sequence[str]], Iterable[str]] | None = None,
    ) -> tuple[list[_Row], _Other]:
        """``parse`` of each file's bytes in the order of ``names``, and what ``meanwhile`` gives.

        A full review reads every session log, and reading and parsing are per-file work that a
        second CPU halves: with enough files, a forked worker takes the second half and sends its
        results back marshalled (so ``parse`` returns plain values: tuples, sets, strings), while
        this process runs ``meanwhile`` (the review parses the archive) and then reads the first
        half. ``meanwhile`` always runs first, so its errors come first; results, and the first
        unreadable file reported, are the same as a serial read.
        """
        if len(names) < PARALLEL_MIN or _cpus() < 2 or not hasattr(os, "fork"):
            other = meanwhile()
            shown = progress(names) if progress else names
            return [parse(data) for _, data in self.read_each(directory, shown)], other
        half = len(names) // 2
        theirs, ours = names[half:], names[:half]
        receive, send = os.pipe()
        pid = os.fork()
        if pid == 0:  # the worker: it must never return into the caller's code
            status = 1
            try:
                os.close(receive)
                if self._held is not None:
                    os.close(self._held)  # the lock stays with the caller, and dies with it
                try:
                    rows = [parse(data) for _, data in self.read_each(directory, theirs)]
                    message = b"+" + marshal.dumps(rows)
                except AgentMemoryError as exc:
                    message = b"-" + str(exc).encode()
                with os.fdopen(send, "wb") as out:
                    out.write(message)
                status = 0
            except KeyboardInterrupt:
                pass  # Ctrl-C reached both processes; the caller's is the one that reports it
            except BrokenPipeError:
                pass  # the caller was stopped: nobody is left to report to
            except BaseException:  # a bug: show it, as the serial run would
                import traceback

                traceback.print_exc()
            finally:
                os._exit(status)
        os.close(send)
        with os.fdopen(receive, "rb") as incoming:
            try:
                other = meanwhile()
                shown = progress(ours) if progress else ours
                mine = [parse(data) for _, data in self.read_each(directory, shown)]
                message = incoming.read()
                _, status = os.waitpid(pid, 0)
            except BaseException:
                import signal

                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                raise
        if status != 0 or not message:
            raise AgentMemoryError(f"{directory}: the worker reading its second half failed")
        if message.startswith(b"-"):
            raise AgentMemoryError(message[1:].decode())
        theirs_parsed: list[_Row] = marshal.loads(message[1:])
        return [*mine, *theirs_parsed], other

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

    # -- locking -------------------------------------------------------------------------------

    @contextlib.contextmanager
    def locked(self, wait: float = 0.0) -> Iterator[None]:
        """Hold the repo's lock (re-entrant).

        The lock is an OS lock (flock) on ``.agent-memory.lock``, which the kernel releases when
        its holder dies however it dies, so a lock file left behind by a killed run is simply
        taken over; the file's text only names the holder for the error message.
        """
        if self._held is not None:
            yield
            return
        lock = self.root / LOCK_FILE
        deadline = time.monotonic() + wait
        while True:
            fd = self._try_lock(lock)
            if fd is not None:
                break
            if time.monotonic() >= deadline:
                raise LockedError(LOCK_FILE, _holder(lock))
            time.sleep(0.05)
        os.ftruncate(fd, 0)
        os.write(fd, f"pid {os.getpid()} on {os.uname().nodename}\n".encode())
        self._held = fd
        try:
            self._recover()
            yield
        finally:
            self._held = None
            with contextlib.suppress(FileNotFoundError):
                lock.unlink()
            os.close(fd)

    def _try_lock(self, lock: Path) -> int | None:
        """An fd holding the lock, or None when a live run holds it."""
        try:
            fd = os.open(lock, os.O_CREAT | os.O_RDWR, 0o644)
        except PermissionError:
            raise AgentMemoryError(
                f"{LOCK_FILE}: cannot create the lock file (permission denied); "
                "make the repo writable"
            ) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return None
        try:
            same = os.fstat(fd).st_ino == lock.stat().st_ino
        except FileNotFoundError:
            same = False
        if not same:  # the file was released (unlinked) between our open and our lock
            os.close(fd)
            return self._try_lock(lock)
        return fd

    def _lock_is_live(self) -> bool:
        lock = self.root / LOCK_FILE
        fd = self._try_lock(lock) if lock.exists() else None
        if fd is None:
            return lock.exists()
        with contextlib.suppress(FileNotFoundError):
            lock.unlink()  # a dead run's lock: ours now, and released at once
        os.close(fd)
        return False

    # -- recovery ------------------------------------------------------------------------------

    def recover(self, wait: float = 0.0) -> None:
        """Roll back a plan an earlier run left half-applied, and clear a dead run's lock.

        A live run that has not started writing is left alone; one that is writing makes us wait
        (or fail naming it), since its files are in flux.
        """
        self._lock_is_live()  # clears a dead run's lock file
        if (self.root / JOURNAL_DIR).exists():
            with self.locked(wait):
                pass

    def _recover(self) -> None:
        journal = self.root / JOURNAL_DIR
        if not journal.exists():
            return
        entries_file = journal / _ENTRIES
        if entries_file.exists():
            import json

            header, _, originals = entries_file.read_bytes().partition(b"\n")
            entries = [_Entry(**e) for e in json.loads(header)]
            offsets = [0]
            for entry in entries:
                offsets.append(offsets[-1] + entry.size)
            for index, entry in reversed(list(enumerate(entries))):
                target = self.root / entry.path
                _remove(_tmp_for(target))
                if entry.existed:
                    _atomic_write(target, originals[offsets[index] : offsets[index + 1]])
                else:
                    _remove(target)
                for directory in entry.created_dirs:
                    with contextlib.suppress(OSError):
                        (self.root / directory).rmdir()
            entries_file.unlink()
            _fsync_dir(journal)
        shutil.rmtree(journal)

    # -- applying ------------------------------------------------------------------------------

    def apply(self, plan: Plan, wait: float = 0.0) -> None:
        """Apply every write of ``plan`` or none; refuses if a file changed since it was read."""
        writes = plan.writes
        if not writes:
            return
        import json

        with self.locked(wait):
            targets = [self._check_writable(edit) for edit in writes]
            journal = self.root / JOURNAL_DIR
            journal.mkdir()
            _fsync_dir(self.root)
            # One journal file, one fsync: a header line naming every path, then the originals.
            entries = [
                _Entry(
                    edit.path,
                    edit.before is not None,
                    _missing_dirs(self.root, target),
                    len(edit.before or b""),
                )
                for edit, target in zip(writes, targets, strict=True)
            ]
            header = json.dumps([e._asdict() for e in entries], separators=(",", ":"))
            originals = b"".join(edit.before or b"" for edit in writes)
            _write_synced(journal / (_ENTRIES + ".tmp"), header.encode() + b"\n" + originals)
            self._step()
            (journal / (_ENTRIES + ".tmp")).replace(journal / _ENTRIES)
            _fsync_dir(journal)
            try:
                self._write_all(writes, targets)
            except OSError as exc:
                self._recover()
                raise AgentMemoryError(
                    f"{exc.filename or 'repo'}: write failed ({exc.strerror}); nothing was changed"
                ) from None
            self._step()
            (journal / _ENTRIES).unlink()
            _fsync_dir(journal)
            self._step()
            shutil.rmtree(journal)

    def _step(self) -> None:
        self._steps += 1
        if os.environ.get(_FAULT_ENV) == str(self._steps):
            import signal

            os.kill(os.getpid(), signal.SIGKILL)

    def _check_writable(self, edit: FileEdit) -> Path:
        target = self.real(edit.path)
        current: bytes | None
        try:
            current = target.read_bytes()
        except FileNotFoundError:
            current = None
        if current != edit.before:
            raise AgentMemoryError(
                f"{edit.path}: changed while this run was planning; run the command again"
            )
        if current is not None and not target.stat().st_mode & stat.S_IWUSR:
            raise RefusedError(
                f"{edit.path}: is read-only; make it writable (chmod u+w) and run again"
            )
        return target

    def _write_all(self, writes: tuple[FileEdit, ...], targets: list[Path]) -> None:
        for edit, target in zip(writes, targets, strict=True):
            self._step()
            if edit.after is None:
                target.unlink()
                _fsync_dir(target.parent)
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                _atomic_write(target, edit.after)


def _missing_dirs(root: Path, target: Path) -> list[str]:
    """Directories a write to ``target`` creates, deepest first (the order to remove them in)."""
    missing = []
    parent = target.parent
    while parent != root and not parent.exists():
        missing.append(parent.relative_to(root).as_posix())
        parent = parent.parent
    return missing


def _tmp_for(target: Path) -> Path:
    return target.with_name(target.name + _TMP_SUFFIX)


def _write_synced(path: Path, data: bytes) -> None:
    with path.open("wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())


def _atomic_write(target: Path, data: bytes) -> None:
    tmp = _tmp_for(target)
    _write_synced(tmp, data)
    with contextlib.suppress(FileNotFoundError):
        tmp.chmod(stat.S_IMODE(target.stat().st_mode))
    tmp.replace(target)
    _fsync_dir(target.parent)


def _remove(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        path.unlink()


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError as exc:  # pragma: no cover - platforms without directory fds
        if exc.errno in (errno.EISDIR, errno.EACCES):
            return
        raise
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _cpus() -> int:
    """CPUs this process may run on (its affinity, where the platform tells)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def _holder(lock: Path) -> str:
    """Who holds the lock, as its file says.

    A holder writes its name just after taking the lock, so an empty file is read again for a
    moment (runs started together meet exactly there) before settling for "starting".
    """
    for _ in range(20):
        try:
            text = lock.read_text(encoding="utf-8", errors="replace").strip()
        except FileNotFoundError:
            return "finishing"
        if text:
            return text
        time.sleep(0.005)
    return "starting"
