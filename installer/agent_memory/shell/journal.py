"""Applying a plan all-or-nothing, and rolling back one that a killed run left half-applied.

The original of every path the plan touches is copied into a journal before the first write;
each file is replaced atomically (temp file, fsync, rename); the journal is deleted last. A
writing run that finds a journal rolls the interrupted plan back before it does anything else,
so the repo is always either before or after a plan. The caller holds the lock.

A journal may also come from a hostile clone (DESIGN §15), so recovery trusts nothing in it: a
checksum over the whole journal, every path relative, normalised and inside the repo, no symlink
on the way to it, the recorded sizes adding up to exactly the stored bytes. Anything else is
refused with one line and never applied.
"""

import contextlib
import enum
import os
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from ..core.plan import FileEdit
from ..errors import AgentMemoryError
from ..layout import JOURNAL_DIR
from . import journal_format as fmt
from .files import (
    atomic_write,
    fsync_dir,
    kind,
    no_symlink_on_the_way,
    os_error,
    read_regular,
    remove_temps,
    write_synced,
)

_ENTRIES = "entries"
_UNCOMMITTED = "entries.tmp"
# The crash matrix's seam: SIGKILL this process before the N-th durable step of applying a plan
# (the journal's commit, each file replaced, the final commit), so that tests can stop a run
# between any two writes.
_FAULT_ENV = "AGENT_MEMORY_FAULT_AT_STEP"


class Found(enum.Enum):
    """What a roll-back found, so that recover says what state the repo is in."""

    UNCOMMITTED = enum.auto()  # killed before its commit: nothing was written
    EMPTY = enum.auto()  # an empty folder: killed before its commit, or after its last write
    COMMITTED = enum.auto()  # the originals of a plan cut short: restored


class RolledBack(NamedTuple):
    found: Found
    paths: tuple[str, ...] = ()  # the files restored


class Journal:
    """The journal of the repo at ``root``."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.path = root / JOURNAL_DIR
        self._steps = 0

    def pending(self) -> bool:
        return os.path.lexists(self.path)

    def apply(self, writes: Sequence[FileEdit], targets: Sequence[Path]) -> None:
        """Write every edit to its (checked) target, or roll back and raise."""
        try:
            self._commit(writes, targets)
        except OSError as exc:
            self._abandon()
            raise os_error(exc, _rel(self.root, exc.filename) or JOURNAL_DIR) from None
        try:
            self._write_all(writes, targets)
        except OSError as exc:
            rel = _rel(self.root, exc.filename) or "repo"
            try:
                self.roll_back()
            except (OSError, AgentMemoryError) as failed:
                raise _stuck(self.root, exc, rel, failed) from None
            raise os_error(exc, rel) from None
        _remove_emptied(self.root, [t for e, t in zip(writes, targets, strict=True) if not e.after])
        self.step()
        (self.path / _ENTRIES).unlink()
        fsync_dir(self.path)
        self.step()
        self.path.rmdir()  # empty now: the folder this run made holds nothing else

    def _commit(self, writes: Sequence[FileEdit], targets: Sequence[Path]) -> None:
        """The journal, made durable: one file, one fsync, renamed into place."""
        self.path.mkdir()
        fsync_dir(self.root)
        entries = [
            fmt.Entry(
                edit.path,
                edit.before is not None,
                _missing_dirs(self.root, target),
                len(edit.before or b""),
            )
            for edit, target in zip(writes, targets, strict=True)
        ]
        data = fmt.dump(entries, b"".join(edit.before or b"" for edit in writes))
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(self.path / _UNCOMMITTED, flags, 0o600)
        try:
            write_synced(fd, data)
        finally:
            os.close(fd)
        self.step()
        (self.path / _UNCOMMITTED).replace(self.path / _ENTRIES)
        fsync_dir(self.path)

    def _abandon(self) -> None:
        """Drop a journal that never committed (nothing was written to the repo yet)."""
        with contextlib.suppress(OSError):
            if not (self.path / _ENTRIES).exists():
                _remove_tree(self.path)

    def roll_back(self) -> RolledBack | None:
        """Restore every original the journal holds, newest write first, then drop it; what it
        found (None: no journal)."""
        try:
            info = os.lstat(self.path)
        except FileNotFoundError:
            return None
        if not stat.S_ISDIR(info.st_mode):
            raise _refused(f"is {kind(info.st_mode)}, not the folder agent-memory writes")
        names = sorted(p.name for p in self.path.iterdir())
        if names in ([], [_UNCOMMITTED]):  # nothing to restore: before its commit or after all
            for name in names:
                (self.path / name).unlink()
            self.path.rmdir()
            fsync_dir(self.root)
            return RolledBack(Found.UNCOMMITTED if names else Found.EMPTY)
        if names != [_ENTRIES]:
            raise _refused(f"holds files agent-memory never writes there ({', '.join(names)})")
        raw = read_regular(self.path / _ENTRIES, f"{JOURNAL_DIR}/{_ENTRIES}", follow=False)
        try:
            entries, originals = fmt.load(raw or b"")
        except ValueError as exc:
            raise _refused(str(exc)) from None
        # Every path is checked before the first write, so a bad entry restores nothing.
        exists = [no_symlink_on_the_way(self.root, entry.path) for entry in entries]
        offsets = [0]
        for entry in entries:
            offsets.append(offsets[-1] + entry.size)
        for index, entry in reversed(list(enumerate(entries))):
            target = self.root / entry.path
            remove_temps(target)
            original = originals[offsets[index] : offsets[index + 1]]
            if entry.existed and not (exists[index] and _holds(target, entry.path, original)):
                target.parent.mkdir(parents=True, exist_ok=True)
                atomic_write(target, original)
            elif not entry.existed and exists[index]:
                target.unlink()
            for directory in entry.created_dirs:
                with contextlib.suppress(OSError):
                    (self.root / directory).rmdir()
        (self.path / _ENTRIES).unlink()
        fsync_dir(self.path)
        self.path.rmdir()
        return RolledBack(Found.COMMITTED, tuple(entry.path for entry in entries))

    def step(self) -> None:
        """One durable step of this run (the crash matrix can stop the run just before it)."""
        self._steps += 1
        if os.environ.get(_FAULT_ENV) == str(self._steps):
            import signal  # the crash matrix only

            os.kill(os.getpid(), signal.SIGKILL)

    def _write_all(self, writes: Sequence[FileEdit], targets: Sequence[Path]) -> None:
        for edit, target in zip(writes, targets, strict=True):
            self.step()
            try:
                if edit.after is None:
                    target.unlink()
                    fsync_dir(target.parent)
                else:
                    target.parent.mkdir(parents=True, exist_ok=True)
                    atomic_write(target, edit.after)
            except OSError as exc:
                exc.filename = str(target)  # not its temp file; a full disk names no file at all
                raise


def _refused(why: str) -> AgentMemoryError:
    return AgentMemoryError(
        f"{why}; nothing was restored from it — it holds the originals of files an interrupted "
        f"run was changing: inspect it, then delete it (rm -r {JOURNAL_DIR}) to go on",
        JOURNAL_DIR,
    )


def _holds(target: Path, rel: str, original: bytes) -> bool:
    """Whether ``target`` still holds its original: a file the plan never got to (or could not
    write: an immutable one) is left alone, so a rollback after a clean failure never fails on
    it and the journal goes."""
    return read_regular(target, rel, follow=False) == original


def _stuck(root: Path, exc: OSError, rel: str, failed: Exception) -> AgentMemoryError:
    """A write failed and so did restoring what was written before it: the journal stays."""
    meaning = os.strerror(exc.errno) if exc.errno else str(exc)
    if isinstance(failed, OSError):
        where = _rel(root, failed.filename2 or failed.filename) or "the repo"
        failed_line = f"{os.strerror(failed.errno) if failed.errno else failed}: {where}"
    else:
        failed_line = str(failed)
    return AgentMemoryError(
        f"{meaning}; rolling back failed too ({failed_line}): the originals stay in "
        f"{JOURNAL_DIR} — fix that, then run agent-memory recover",
        rel,
    )


def _rel(root: Path, filename: object) -> str:
    if not isinstance(filename, str | os.PathLike):
        return ""
    path = Path(filename)
    with contextlib.suppress(ValueError):
        return path.relative_to(root).as_posix()
    return str(path)


def _remove_emptied(root: Path, removed: Sequence[Path]) -> None:
    """A folder the plan's removals left empty goes too (a folder holds nothing git keeps), up
    to the repo's root. Rolling back recreates it: restoring a file makes its folders."""
    for target in removed:
        parent = target.parent
        while parent != root:
            try:
                parent.rmdir()
            except OSError:  # not empty (or not ours to remove): the folders above are kept
                break
            parent = parent.parent


def _missing_dirs(root: Path, target: Path) -> list[str]:
    """Directories a write to ``target`` creates, deepest first (the order to remove them in)."""
    missing = []
    parent = target.parent
    while parent != root and not os.path.lexists(parent):
        missing.append(parent.relative_to(root).as_posix())
        parent = parent.parent
    return missing


def _remove_tree(path: Path) -> None:
    """Delete a journal's folder and all it holds."""
    import shutil  # 6M instructions (it loads bz2 and lzma): paid only by a run that writes

    shutil.rmtree(path)
