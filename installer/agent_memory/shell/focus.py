"""What a session is about, as git tells it: the paths its branch and work tree changed.

The session-start hook asks git this on every session, so the questions are bounded in time
and output, started with ``posix_spawn`` (importing subprocess is 17M instructions, a twelfth
of a session start) and, where the caller can, started early (``ask``) to run while the memory
is read. A name read from git goes back after ``--end-of-options``: a branch may be called
anything.
"""

import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from ..errors import AgentMemoryError
from ..layout import MEMORY_DIR
from .files import read_regular
from .git import OFFLINE, SAFE

_SECONDS = 3.0  # each question: the hook's budget is 30 s
_BYTES = 1 << 18  # output read of each (names of about 5,000 files)
FOCUS_PATHS = 1000  # changed paths a session start passes on at most
TASK_MAX = 2000  # characters of the first prompt passed on as the task
# The branch a feature branch is compared with: the remote's default, else a local main.
_BASES = ("refs/remotes/origin/HEAD", "refs/heads/main", "refs/heads/master")
# What a session is about is the repo but its memory: the memory's own files (a captured log,
# continuity.md) say nothing of the task, and leaving them out spares git a stat of every
# session log (13 ms against 4 at 10,000 logs, a quarter of --version). Left out as an ignored
# folder too, git does not walk the logs to find the untracked files (2.4 ms against 6.4); that
# pattern is anchored at the work tree's top, which is the root when the memory is the repo's.
_CODE = ("--", ".", f":(exclude){MEMORY_DIR}")
_DIFF = ("diff", "--name-only", "-z", "--no-renames", "--relative")
_UNTRACKED = ("ls-files", "-z", "--others", "--exclude-standard", f"--exclude=/{MEMORY_DIR}/")
_PACKED_BYTES = 1 << 22  # packed-refs read to find a base; a larger one: every base is asked


class Focus(NamedTuple):
    """What a session is about, as far as git and the hook's payload tell (DESIGN §22)."""

    paths: tuple[str, ...]  # changed on the branch since its merge base, or in the work tree
    task: str | None  # the first prompt, where the payload carries one


class _Child(NamedTuple):
    pid: int
    out: int  # the read end of its stdout


class Asked(NamedTuple):
    """git's questions about a root, started: the diff against the first base, the untracked
    files (None: not started, as where Python has no ``posix_spawn``: PyPy, an older Android)."""

    root: Path
    bases: tuple[str, ...]
    diff: _Child | None
    untracked: _Child | None


def ask(root: Path) -> Asked:
    """Start git's two questions, to answer them (``focus``) or drop them (``drop``) later."""
    bases = _bases(root)
    if not hasattr(os, "posix_spawnp"):  # PyPy, an older Android: asked in turn, when answered
        return Asked(root, bases, None, None)
    diff = _started(root, _diff(bases[0])) if bases else None
    return Asked(root, bases, diff, _started(root, [*_UNTRACKED, *_CODE]))


def focus(root: Path, prompt: str | None, asked: Asked | None = None) -> Focus:
    """The paths (relative to ``root``) that the branch changed against its merge base with
    the default branch, plus the work tree's changes and new files; none outside git.
    ``asked``: the questions ``ask`` started for ``root``, answered (or dropped) here, once."""
    task = (prompt.strip()[:TASK_MAX] or None) if prompt else None
    asked = asked or Asked(root, _bases(root), None, None)
    try:
        # The work tree against the merge base with the first default branch there is, in one
        # process (git 2.30's --merge-base); none (or an older git): against HEAD.
        first, asked = asked.diff, asked._replace(diff=None)
        answers = (
            _answer(first) if n == 0 and first else _bounded(root, _diff(base))
            for n, base in enumerate(asked.bases)
        )
        changed = next((out for out in answers if out is not None), None)
        if changed is None:
            changed = _bounded(root, [*_DIFF, "--end-of-options", "HEAD", *_CODE])
        untracked, asked = asked.untracked, asked._replace(untracked=None)
        listed = _answer(untracked) if untracked else _bounded(root, [*_UNTRACKED, *_CODE])
    finally:
        drop(asked)  # what was started and not answered: an error came first
    paths = {*_names(changed), *_names(listed)}
    return Focus(tuple(sorted(paths)[:FOCUS_PATHS]), task)


def drop(asked: Asked) -> None:
    """Stop and reap the questions ``ask`` started that were not answered."""
    for child in (asked.diff, asked.untracked):
        if child is not None:
            _end(child, done=False)


def _diff(base: str) -> list[str]:
    return [*_DIFF, "--merge-base", "--end-of-options", base, *_CODE]


def _bases(root: Path) -> tuple[str, ...]:
    """The bases whose ref ``root``'s .git folder holds, loose or packed: asking git of one it
    lacks costs a process that fails (a repo with no remote has no origin/HEAD). Every base
    when the files cannot tell: a worktree's .git file, a reftable, GIT_DIR or GIT_COMMON_DIR,
    a commondir file, a packed-refs larger than a bound, or a memory below the work tree's
    top."""
    git = root / ".git"
    moved = any(name in os.environ for name in ("GIT_DIR", "GIT_COMMON_DIR"))
    if moved or not git.is_dir() or any((git / n).exists() for n in ("reftable", "commondir")):
        return _BASES
    try:
        packed = read_regular(git / "packed-refs", ".git/packed-refs", limit=_PACKED_BYTES)
    except AgentMemoryError:  # not a regular file, or too large to read for this
        return _BASES
    listed = packed or b""
    return tuple(
        base for base in _BASES if (git / base).is_file() or f" {base}\n".encode() in listed
    )


def _names(out: bytes | None) -> list[str]:
    """The NUL-separated names of ``out``; a last one cut by the output bound is dropped."""
    if not out:
        return []
    names = out.split(b"\0")
    whole = names[:-1] if len(out) < _BYTES else names[:-2]
    return [name.decode("utf-8", errors="replace") for name in whole if name]


def _bounded(root: Path, args: Sequence[str]) -> bytes | None:
    """git's stdout, at most ``_BYTES`` of it within ``_SECONDS``; None when git fails, is
    missing, or does not answer in time (the question is then unanswered)."""
    if not hasattr(os, "posix_spawnp"):  # PyPy, an older Android (they have fcntl: they run)
        return _bounded_portably(root, args)
    child = _started(root, args)
    return _answer(child) if child is not None else None


def _started(root: Path, args: Sequence[str]) -> _Child | None:
    """git started on ``args`` with ``posix_spawn``, its stdout a pipe; None when it cannot be
    (no git, or no descriptor left)."""
    try:
        out, into = os.pipe()
    except OSError:
        return None
    try:
        devnull = os.open(os.devnull, os.O_RDWR)
        try:  # the child gets these three; no other descriptor of ours (all close on exec)
            actions = [
                (os.POSIX_SPAWN_DUP2, fd, n) for n, fd in enumerate((devnull, into, devnull))
            ]
            pid = os.posix_spawnp(
                "git",
                ["git", *SAFE, "-C", str(root), *args],
                {**os.environ, **OFFLINE},
                file_actions=actions,
            )
        finally:
            os.close(devnull)
    except OSError:
        os.close(out)
        return None
    finally:
        os.close(into)
    return _Child(pid, out)


def _answer(child: _Child) -> bytes | None:
    """What a started git wrote, read with ``select`` for ``_SECONDS`` from now (git may have
    started long before: a review ran meanwhile) and up to the bound."""
    import select

    chunks: list[bytes] = []
    size, done, deadline = 0, False, time.monotonic() + _SECONDS
    try:
        while size < _BYTES and (left := deadline - time.monotonic()) > 0:
            if not select.select([child.out], [], [], left)[0]:
                break
            chunk = os.read(child.out, _BYTES - size)
            if not chunk:
                done = True
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        code = _end(child, done)
    data = b"".join(chunks)
    return data if (done and code == 0) or size >= _BYTES else None


def _end(child: _Child, done: bool) -> int:
    """Close the pipe and reap the child, killed unless it finished (``done``): its exit code."""
    os.close(child.out)
    if not done:
        os.kill(child.pid, 9)  # SIGKILL: the rest is not read (bound), or no answer in time
    return os.waitstatus_to_exitcode(os.waitpid(child.pid, 0)[1])


def _bounded_portably(root: Path, args: Sequence[str]) -> bytes | None:
    """``_bounded`` with subprocess, where there is no ``posix_spawn``."""
    import subprocess
    import threading

    try:
        child = subprocess.Popen(
            ["git", *SAFE, *args], cwd=root, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, env={**os.environ, **OFFLINE},
        )  # fmt: skip
    except OSError:
        return None
    timer = threading.Timer(_SECONDS, child.kill)
    timer.start()
    try:
        assert child.stdout is not None
        out = child.stdout.read(_BYTES)
        if len(out) == _BYTES:
            child.kill()  # the rest is not read: the bound is the answer's size
        code = child.wait()
        child.stdout.close()
    finally:
        timer.cancel()
    return out if code == 0 or len(out) == _BYTES else None
