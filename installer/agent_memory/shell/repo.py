"""A target repository as the commands see it: path-safe reads, and plans applied under a lock.

This package is the only code that touches the disk. ``Repo`` reads only the paths asked for
(it never walks the tree), refuses paths that lead outside the repo, and applies a plan through
the journal while it holds the lock.
"""

import contextlib
import datetime as dt
import errno
import functools
import os
import stat
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import NamedTuple

from ..core.plan import FileEdit, Plan
from ..errors import AgentMemoryError, RefusedError
from ..layout import JOURNAL_DIR, OWN_PATHS
from . import clock
from .discovery import named_folder
from .files import MAX_FILE_BYTES, no_symlink_on_the_way, os_error, read_fd, read_regular
from .journal import Journal, RolledBack
from .journal_format import safe_path
from .lock import Lock, stop_if_called_off

# Logs are opened without following links and without blocking (a FIFO must not hang a run).
_LOG_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


class FileKey(NamedTuple):
    """One version of one file: a change of any field means the contents may have changed. The
    change time counts too: a same-size edit in place whose mtime was set back (``touch -d``)
    changes no other field, but no one can set the change time."""

    path: str
    size: int
    mtime_ns: int
    ctime_ns: int
    inode: int


def _key(path: Path, info: os.stat_result) -> FileKey:
    return FileKey(str(path), info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino)


class Repo:
    def __init__(
        self, root: Path, shown: str | None = None, now: dt.datetime | None = None
    ) -> None:
        if not root.is_dir():
            raise RefusedError("not a directory; pass the path of the repo to work on", str(root))
        self.root = root.resolve()
        self.shown = str(root) if shown is None else shown  # how reports name it
        # The run's time and date, which the runner works out once (``clock``) and every
        # command reads: a log is named by ``now``, a footer stamped with ``today``.
        self.now = now if now is not None else clock.now()
        self.today = self.now.date()
        self._lock = Lock(self.root)
        self._journal = Journal(self.root)
        self._rolled_back: RolledBack | None = None  # what taking the lock last rolled back

    # -- reading -------------------------------------------------------------------------------

    def real(self, rel: str) -> Path:
        """The real path of ``rel``, refusing anything that resolves outside the repo, or into
        git's own folder through a link."""
        path = self.root / rel
        try:
            resolved = path.resolve()
        except (OSError, RuntimeError):  # RuntimeError: a symlink loop, before Python 3.13
            raise RefusedError(
                "is a symlink loop (or under one); replace it with a real file or directory", rel
            ) from None
        if resolved != self.root and self.root not in resolved.parents:
            raise RefusedError(
                f"is a symlink (or under one) that leads outside the repo, to {resolved}; "
                "refusing to read or write through it — replace it with a real file or directory",
                rel,
            )
        target = resolved.relative_to(self.root).as_posix()
        if target != rel and self._in_git(resolved):  # a link's way in: git's config, a hook
            raise RefusedError(
                f"is a symlink to {target}, inside git's own folder; agent-memory never reads or "
                "writes git's files through a link — replace the link with a real file, then run "
                "again",
                rel,
            )
        return resolved

    def read(self, rel: str, limit: int = MAX_FILE_BYTES) -> bytes | None:
        return read_regular(self.real(rel), rel, limit=limit)

    def links(self, paths: Iterable[str]) -> dict[str, str]:
        """Each of ``paths`` that is a symlink (or under one) → the in-repo path it leads to.

        The core plans with this instead of resolving anything: a link is never written
        through, and two paths that are one file get one managed block. A link that leads
        outside the repo is refused, as for any read.
        """
        found = {}
        for rel in paths:
            if not os.path.lexists(self.root / rel):
                continue
            resolved = self.real(rel)
            target = resolved.relative_to(self.root).as_posix()
            if target == rel:
                continue
            if _own(target) and not _own(rel):
                raise RefusedError(
                    f"is a symlink to {target}, a file agent-memory writes itself; replace the "
                    "link with a real file, then run again",
                    rel,
                )
            found[rel] = target
        return found

    def _in_git(self, resolved: Path) -> bool:
        """Whether the real path ``resolved`` is in a git folder: one named ``.git`` anywhere, or
        the one this work tree's ``.git`` leads to (a link, or a file naming a folder)."""
        parts = resolved.relative_to(self.root).parts if resolved != self.root else ()
        if any(part.lower() == ".git" for part in parts):
            return True
        return any(folder == resolved or folder in resolved.parents for folder in self._git)

    @functools.cached_property
    def _git(self) -> tuple[Path, ...]:
        dot_git = self.root / ".git"
        try:
            found = [dot_git.resolve()]
            if dot_git.is_file() and (named := named_folder(self.root)) is not None:
                found.append(named)
        except (OSError, RuntimeError):  # a loop, a FIFO: nothing of git's can be reached there
            return ()
        return tuple(found)

    def read_known(self, paths: Iterable[str]) -> tuple[dict[str, bytes | None], dict[str, str]]:
        """The bytes of ``paths`` and of the files their links lead to, and the links."""
        files = {rel: self.read(rel) for rel in paths}
        links = self.links(files)
        for target in links.values():
            if target not in files:
                files[target] = self.read(target)
        return files, links

    def stat_key(self, rel: str) -> FileKey | None:
        """The key ``read_keyed`` would give the file now at ``rel``, without reading it."""
        path = self.real(rel)
        try:
            info = path.stat()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise AgentMemoryError(f"cannot be read ({exc.strerror})", rel) from None
        return _key(path, info)

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
        return _key(path, info), data

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
                    fd = os.open(name, _LOG_FLAGS, dir_fd=base)
                except OSError as exc:
                    if exc.errno != errno.ELOOP:
                        raise AgentMemoryError(
                            f"cannot be read ({exc.strerror})", f"{directory}/{name}"
                        ) from None
                    yield name, self.read(f"{directory}/{name}") or b""
                    continue
                try:
                    data = read_fd(fd, f"{directory}/{name}")
                finally:
                    os.close(fd)
                yield name, data
        finally:
            if base is not None:
                os.close(base)

    def exists(self, rel: str) -> bool:
        return os.path.lexists(self.root / rel)

    def is_dir(self, rel: str) -> bool:
        return self.real(rel).is_dir()

    def list_dir(self, rel: str, *, ordered: bool = True) -> tuple[str, ...]:
        """Names in a directory, sorted (file system order never leaks into output) unless the
        caller only takes their maximum."""
        path = self.real(rel)
        try:
            # os.listdir, not Path.iterdir: a sessions folder may hold 100,000 names.
            names = os.listdir(path)  # noqa: PTH208
            return tuple(sorted(names) if ordered else names)
        except (FileNotFoundError, NotADirectoryError):
            return ()
        except OSError as exc:
            raise os_error(exc, rel) from None

    # -- locking, recovery, applying -----------------------------------------------------------

    @contextlib.contextmanager
    def locked(self, wait: float = 0.0) -> Iterator[None]:
        """Hold the repo's lock (re-entrant); an interrupted plan is rolled back first."""
        if self._lock.held:
            yield
            return
        self._lock.acquire(wait)
        try:
            self._rolled_back = self._journal.roll_back()
            yield
        finally:
            self._lock.release()

    def interrupted(self) -> bool:
        """Whether a journal (of a run writing now, or of an interrupted one) is present."""
        return self._journal.pending()

    def refuse_if_interrupted(self, wait: float = 0.0) -> None:
        """What a read-only command does about a journal: never roll it back (a read-only run
        writes nothing, and a journal in a fresh clone is input like any other), only wait up to
        ``wait`` seconds for a run that is writing to finish, then refuse."""
        deadline = time.monotonic() + wait
        while self._journal.pending():
            if time.monotonic() >= deadline:
                raise RefusedError(
                    "exists: a run is writing, or one was interrupted mid-plan; wait for it, or "
                    "roll it back with `agent-memory recover`, then run again",
                    JOURNAL_DIR,
                )
            time.sleep(0.02)

    def recover(self, wait: float = 0.0) -> RolledBack | None:
        """Roll back a plan an earlier run left half-applied, and clear a dead run's lock; what
        was rolled back (None: no journal).

        A live run that has not started writing is left alone; one that is writing makes us wait
        (or fail naming it), since its files are in flux.
        """
        self._lock.is_live()  # clears a dead run's lock file
        self._rolled_back = None
        if self._journal.pending():
            with self.locked(wait):
                pass
        return self._rolled_back

    def crash_point(self) -> None:
        """A durable step outside the journal (the git config), counted with the journal's."""
        self._journal.step()

    def apply(self, plan: Plan, wait: float = 0.0) -> None:
        """Apply every write of ``plan`` or none; refuses if a file changed since it was read."""
        writes = plan.writes
        if not writes:
            return
        with self.locked(wait):
            seen: set[Path] = set()
            targets = [self._check_writable(edit, seen) for edit in writes]
            stop_if_called_off()  # the last moment a run may stop with nothing written
            self._journal.apply(writes, targets)

    def check_writes(self, plan: Plan) -> None:
        """Refuse what ``apply`` would refuse of where ``plan`` writes — a link on the way, two
        paths that are one file, a file that is not regular or is read-only — without the lock
        and without comparing contents: --dry-run and --check run this, so they never promise
        what the real run refuses."""
        seen: set[Path] = set()
        for edit in plan.writes:
            self._reachable(edit, seen)

    def _reachable(self, edit: FileEdit, seen: set[Path]) -> tuple[Path, bool]:
        """The target of ``edit`` once it is known to be reached without a symlink, to be a
        regular writable file or nothing, and not to be written twice; and whether it exists."""
        resolved = self.real(edit.path)  # a link leading outside says so first
        if not safe_path(edit.path) or self._in_git(resolved):
            raise RefusedError(
                "is in git's folder, or is agent-memory's lock or journal: nothing writes "
                "there; nothing was written",
                edit.path,
            )
        target = self.root / edit.path
        exists = no_symlink_on_the_way(self.root, edit.path)
        if target in seen:
            raise RefusedError(
                "is the same file as another path of this plan; nothing was written", edit.path
            )
        seen.add(target)
        if exists and not os.lstat(target).st_mode & stat.S_IWUSR:
            raise RefusedError(
                "is read-only; make it writable (chmod u+w) and run again", edit.path
            )
        return target, exists

    def _check_writable(self, edit: FileEdit, seen: set[Path]) -> Path:
        """The target of ``edit``, reachable (``_reachable``) and holding what the plan read."""
        target, _exists = self._reachable(edit, seen)
        current = read_regular(target, edit.path, follow=False)
        if current != edit.before:
            raise AgentMemoryError(
                "changed while this run was planning; run the command again", edit.path
            )
        return target


def _own(path: str) -> bool:
    """Whether ``path`` is one the tool writes in its own right (``layout.OWN_PATHS``)."""
    return any(path == own or path.startswith(f"{own}/") for own in OWN_PATHS)
