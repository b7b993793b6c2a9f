"""The file system calls of the shell, made safe against a hostile tree (DESIGN §15).

Reads open regular files only (a FIFO, socket or device is one line, never a hang) and only up to
a size bound; writes never follow a symlink — every component of a target is checked with
``lstat`` under the lock, temp files get unpredictable names and are created exclusively — and
every ``OSError`` becomes one line naming the path and what the error means.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterable
from pathlib import Path

from ..errors import AgentMemoryError, RefusedError
from ..layout import TMP_SUFFIX

# No memory file is near this; a file past it is refused rather than read into memory.
MAX_FILE_BYTES = 512 * 1024 * 1024
_FIRST_READ = 1 << 16  # most memory files and logs are smaller: one read is the whole file
_TMP_RANDOM = 8  # random characters between a temp file's prefix and suffix
_TMP_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789_"
_NAME_MAX = 255  # bytes in one file name (Linux, macOS)
_READ_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC
_KINDS = (
    (stat.S_ISREG, "a regular file"),
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a device"),
    (stat.S_ISBLK, "a device"),
    (stat.S_ISLNK, "a symlink"),
)


def os_error(exc: OSError, rel: str) -> AgentMemoryError:
    """One line for any file system error: the path and the meaning of its errno."""
    meaning = os.strerror(exc.errno) if exc.errno else str(exc)
    return AgentMemoryError(f"{meaning}; nothing was changed — fix that and run again", rel)


def kind(mode: int) -> str:
    """What a non-regular file is, in words."""
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def read_regular(
    path: Path, rel: str, *, follow: bool = True, limit: int = MAX_FILE_BYTES
) -> bytes | None:
    """The bytes of the regular file at ``path``, None when there is none; a file larger than
    ``limit`` bytes is refused, unread."""
    flags = _READ_FLAGS if follow else _READ_FLAGS | os.O_NOFOLLOW
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP and not follow:
            raise RefusedError("is a symlink where agent-memory expects a real file", rel) from None
        raise os_error(exc, rel) from None
    try:
        return read_fd(fd, rel, limit)
    finally:
        os.close(fd)


def read_fd(fd: int, rel: str, limit: int = MAX_FILE_BYTES) -> bytes:
    """Everything an open file (opened with O_NONBLOCK) holds, if it is a regular file of
    bounded size.

    A full review reads 100,000 logs, so the common case costs one system call: a read that
    returns some bytes but fewer than asked is a whole regular file. An empty read, a full one,
    or an error is what a FIFO, a device or a directory gives too, so only then does fstat
    decide (a FIFO without a writer reads as empty at once: O_NONBLOCK never lets it hang).
    """
    try:
        first = os.read(fd, min(_FIRST_READ, limit + 1))
    except OSError:
        first = None
    if first and len(first) < min(_FIRST_READ, limit + 1):
        return first
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        if stat.S_ISDIR(info.st_mode):
            raise RefusedError("is a directory where a file is expected", rel)
        raise RefusedError(
            f"is {kind(info.st_mode)}, not a regular file; replace it with a file", rel
        )
    if info.st_size > limit:
        raise RefusedError(f"is larger than {_size(limit)}; refusing to read it", rel)
    try:
        # Read again from the start, the whole at once (and a failed first read says why): a
        # second part joined to the first would copy a 1.5 MB archive quarter twice, and a
        # fresh process pays each copy's page faults (about 1 ms of `explain`).
        os.lseek(fd, 0, os.SEEK_SET)
        chunks = [os.read(fd, info.st_size + 1)]
        total = len(chunks[0])
        while chunk := os.read(fd, max(info.st_size + 1 - total, _FIRST_READ)):
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:  # it grew while we read it
                raise RefusedError(f"grew past {_size(limit)} while read", rel)
    except OSError as exc:
        raise os_error(exc, rel) from None
    return b"".join(chunks)


def _size(limit: int) -> str:
    return f"{limit >> 20} MiB" if limit >= 1 << 20 else f"{limit} bytes"


def no_symlink_on_the_way(root: Path, rel: str) -> bool:
    """Refuse a write to ``rel`` when it or a folder on its way is a symlink or not what it
    must be; True when the target exists (a regular file)."""
    parts = rel.split("/")
    current = root
    for depth, part in enumerate(parts):
        current = current / part
        try:
            mode = os.lstat(current).st_mode
        except FileNotFoundError:
            return False
        except OSError as exc:
            raise os_error(exc, rel) from None
        last = depth == len(parts) - 1
        if stat.S_ISLNK(mode):
            where = rel if last else "/".join(parts[: depth + 1])
            raise RefusedError(
                "is a symlink; agent-memory never writes through a link — replace it with the "
                "file or folder it points to, then run again",
                where,
            )
        if last and not stat.S_ISREG(mode):
            raise RefusedError(f"is {kind(mode)} where a file is written; move it away", rel)
        if not last and not stat.S_ISDIR(mode):
            raise RefusedError(
                f"is {kind(mode)} where a folder is expected", "/".join(parts[: depth + 1])
            )
    return True


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def write_synced(fd: int, data: bytes) -> None:
    write_all(fd, data)
    os.fsync(fd)


def atomic_write(target: Path, data: bytes, synced: bool = True) -> None:
    """Replace ``target`` by ``data``: an exclusive temp file of unpredictable name beside it,
    fsync, the target's mode, rename, fsync of the folder. Without ``synced``, no fsync: for
    a file nothing is lost without (a cache's, checked before use)."""
    fd, tmp = _new_temp(target)
    try:
        try:
            mode = stat.S_IMODE(os.lstat(target).st_mode)
        except FileNotFoundError:
            mode = 0o666 & ~_umask()
        os.fchmod(fd, mode)
        (write_synced if synced else write_all)(fd, data)
        os.close(fd)
        fd = -1
        tmp.replace(target)
    except BaseException:
        if fd >= 0:
            os.close(fd)
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise
    if synced:
        fsync_dir(target.parent)


def _new_temp(target: Path) -> tuple[int, Path]:
    """A new temp file beside ``target``, created exclusively under a random name, as
    ``tempfile.mkstemp`` does (importing tempfile costs every command 6 ms at start-up)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    for _ in range(100):
        middle = "".join(_TMP_CHARS[byte % len(_TMP_CHARS)] for byte in os.urandom(_TMP_RANDOM))
        path = target.parent / f"{_temp_prefix(target)}{middle}{TMP_SUFFIX}"
        try:
            return os.open(path, flags, 0o600), path
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temp file name", str(target.parent))


def remove_temps(target: Path) -> None:
    """Remove the temp files a killed write to ``target`` left beside it (only names of ours)."""
    prefix = _temp_prefix(target)
    try:
        paths = list(target.parent.iterdir())
    except (FileNotFoundError, NotADirectoryError):
        return
    for path in paths:
        if path.name.startswith(prefix) and is_temp(path.name):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()  # unlink never follows a link


def is_temp(name: str) -> bool:
    """Whether ``name`` is one ``_new_temp`` gives: ``.<name>.<8 random>.agent-memory-tmp``."""
    stem = name.removesuffix(TMP_SUFFIX)
    middle = stem[-_TMP_RANDOM:]
    return (
        stem != name
        and name.startswith(".")
        and stem[-_TMP_RANDOM - 1 : -_TMP_RANDOM] == "."
        and len(stem) > _TMP_RANDOM + 2
        and all(char in _TMP_CHARS for char in middle)
    )


def remove_strays(root: Path, rels: Iterable[str]) -> int:
    """Remove the temp files of ours among ``rels`` (git's untracked files under ``root``, so
    never reached through a linked folder): what a write killed between its temp file and its
    rename left, such as a report's page, which no journal records. How many went."""
    gone = 0
    for rel in rels:
        if is_temp(rel.rpartition("/")[2]):
            with contextlib.suppress(FileNotFoundError):
                (root / rel).unlink()  # unlink never follows a link
                gone += 1
    return gone


def _temp_prefix(target: Path) -> str:
    """``.<name>.``, the name cut so that the temp file's stays within the 255 bytes a file
    name may have (a thread file named at length must still be writable)."""
    room = _NAME_MAX - len(".." + TMP_SUFFIX) - _TMP_RANDOM
    return "." + os.fsdecode(os.fsencode(target.name)[:room]) + "."


def fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    except OSError as exc:  # pragma: no cover - platforms without directory fds
        if exc.errno in (errno.EISDIR, errno.EACCES):
            return
        raise
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _umask() -> int:
    current = os.umask(0o022)
    os.umask(current)
    return current
