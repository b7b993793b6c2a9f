"""Applying a plan all-or-nothing, and rolling back one that a killed run left half-applied.

The original of every path the plan touches is copied into a journal before the first write;
each file is replaced atomically (temp file, fsync, rename); the journal is deleted last. A run
that finds a journal rolls the interrupted plan back before it does anything else, so the repo
is always either before or after a plan. The caller holds the lock.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from ..core.plan import FileEdit
from ..errors import AgentMemoryError
from ..layout import JOURNAL_DIR

_TMP_SUFFIX = ".agent-memory-tmp"
_ENTRIES = "entries"
# The crash matrix's seam: SIGKILL this process before the N-th durable step of applying a plan
# (the journal's commit, each file replaced, the final commit), so that tests can stop a run
# between any two writes.
_FAULT_ENV = "AGENT_MEMORY_FAULT_AT_STEP"


class _Entry(NamedTuple):
    """One path of a plan being applied, as the journal records it."""

    path: str
    existed: bool
    created_dirs: list[str]  # deepest first, the order to remove them in
    size: int  # of its original in the journal (0 when it did not exist)


class Journal:
    """The journal of the repo at ``root``."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.path = root / JOURNAL_DIR
        self._steps = 0

    def pending(self) -> bool:
        return self.path.exists()

    def apply(self, writes: Sequence[FileEdit], targets: Sequence[Path]) -> None:
        """Write every edit to its (checked) target, or roll back and raise."""
        self.path.mkdir()
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
        _write_synced(self.path / (_ENTRIES + ".tmp"), header.encode() + b"\n" + originals)
        self._step()
        (self.path / (_ENTRIES + ".tmp")).replace(self.path / _ENTRIES)
        _fsync_dir(self.path)
        try:
            self._write_all(writes, targets)
        except OSError as exc:
            self.roll_back()
            raise AgentMemoryError(
                f"write failed ({exc.strerror}); nothing was changed", exc.filename or "repo"
            ) from None
        self._step()
        (self.path / _ENTRIES).unlink()
        _fsync_dir(self.path)
        self._step()
        shutil.rmtree(self.path)

    def roll_back(self) -> None:
        """Restore every original the journal holds, newest write first, then drop it."""
        if not self.path.exists():
            return
        entries_file = self.path / _ENTRIES
        if entries_file.exists():
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
            _fsync_dir(self.path)
        shutil.rmtree(self.path)

    def _step(self) -> None:
        self._steps += 1
        if os.environ.get(_FAULT_ENV) == str(self._steps):
            import signal  # the crash matrix only

            os.kill(os.getpid(), signal.SIGKILL)

    def _write_all(self, writes: Sequence[FileEdit], targets: Sequence[Path]) -> None:
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
