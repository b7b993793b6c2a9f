"""Running git: the only place a process is started. User text never reaches git as an option."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import AgentMemoryError
from ..layout import MEMORY_DIR
from ..records import NamedTuple
from .files import read_regular

if TYPE_CHECKING:
    import subprocess

# Every git run is bounded in time: a FIFO for a config file or a hung mount never hangs us.
_QUICK = 10.0  # seconds: questions about the repository and its config
_SLOW = 120.0  # seconds: diffs, blobs and text merges of files up to 512 MiB
_PATHS_PER_CALL = 500  # paths on one git command line, far below the system's limit
_FOCUS_SECONDS = 3.0  # each question a session start asks: the hook's budget is 30 s
_FOCUS_BYTES = 1 << 18  # output read of each (names of about 5,000 files)
FOCUS_PATHS = 1000  # changed paths a session start passes on at most
TASK_MAX = 2000  # characters of the first prompt passed on as the task
# The branch a feature branch is compared with: the remote's default, else a local main.
_BASES = ("refs/remotes/origin/HEAD", "refs/heads/main", "refs/heads/master")
# What a session is about is the repo but its memory: the memory's own files (a captured log,
# continuity.md) say nothing of the task, and leaving them out spares git a stat of every
# session log (13 ms against 4 at 10,000 logs, a quarter of --version).
_CODE = ("--", ".", f":(exclude){MEMORY_DIR}")
_NOT_MEMORY = f"--exclude=/{MEMORY_DIR}/"
_PACKED_BYTES = 1 << 22  # packed-refs read to find a base; a larger one: every base is asked


def changed_paths(root: Path, base: str, folder: str) -> list[tuple[str, str]]:
    """(status letter, path) of each file under ``folder`` that differs from revision ``base``
    (the error names no path: the report names the repo, as the user gave it)."""
    args = ["diff", "--name-status", "--no-renames", "--relative", "--end-of-options", base]
    done = _run(root, [*args, "--", folder])
    if done.returncode != 0:
        raise AgentMemoryError(f"{_last_error(done)}; run inside a git repo that has that revision")
    rows = []
    for line in done.stdout.decode(errors="replace").splitlines():
        status, _, name = line.partition("\t")
        rows.append((status, name))
    return rows


def blob(root: Path, base: str, path: str) -> bytes:
    """The bytes of ``path`` (relative to ``root``) at revision ``base``."""
    done = _run(root, ["cat-file", "blob", "--end-of-options", f"{base}:./{path}"])
    if done.returncode != 0:
        raise AgentMemoryError(f"git cat-file: {_last_error(done)}", path)
    return done.stdout


class Entry(NamedTuple):
    """A path of a revision's tree, as ``git ls-tree -l`` lists it."""

    mode: str
    kind: str  # blob, tree, commit
    object: str
    size: int | None  # a blob's bytes


def entries(root: Path, rev: str, paths: Sequence[str]) -> dict[str, Entry]:
    """The tree entries of ``paths`` (relative to ``root``) at revision ``rev``; a path missing
    there is absent. Paths are literal (no pathspec magic) and never read as options."""
    found: dict[str, Entry] = {}
    for first in range(0, len(paths), _PATHS_PER_CALL):
        chunk = paths[first : first + _PATHS_PER_CALL]
        args = ["--literal-pathspecs", "ls-tree", "-z", "-l", "--end-of-options", rev, "--"]
        done = _run(root, [*args, *chunk])
        if done.returncode != 0:
            raise AgentMemoryError(
                f"git ls-tree: {_last_error(done)}; pass a revision of this repo (git log "
                "shows them)",
                rev,
            )
        for record in done.stdout.split(b"\0"):
            head, tab, name = record.partition(b"\t")
            parts = head.split()
            if not tab or len(parts) != 4:
                continue
            size = int(parts[3]) if parts[3].isdigit() else None
            entry = Entry(parts[0].decode(), parts[1].decode(), parts[2].decode(), size)
            found[name.decode("utf-8", errors="replace")] = entry
    return found


def blobs(root: Path, objects: Sequence[str]) -> dict[str, bytes]:
    """The bytes of each blob object (ids from ``entries``), read by one ``git cat-file``."""
    if not objects:
        return {}
    done = _run(root, ["cat-file", "--batch"], stdin="".join(f"{o}\n" for o in objects).encode())
    if done.returncode != 0:
        raise AgentMemoryError(f"git cat-file: {_last_error(done)}")
    found, out, at = {}, done.stdout, 0
    for wanted in objects:
        end = out.find(b"\n", at)
        header = out[at:end].split() if end != -1 else []
        if len(header) != 3 or header[1] != b"blob" or not header[2].isdigit():
            raise AgentMemoryError(f"git cat-file: {wanted} is not a blob")
        size = int(header[2])
        found[wanted] = out[end + 1 : end + 1 + size]
        at = end + 1 + size + 1
    return found


def file_before(root: Path, moment: str, path: str) -> bytes | None:
    """``path`` as committed at ``moment`` (ISO time): its last commit before then, or None when
    there is none, or no git, or no repository (the caller then has no start state)."""
    try:
        listed = _run(root, ["rev-list", "-1", f"--before={moment}", "HEAD", "--", path])
        rev = listed.stdout.decode(errors="replace").strip() if listed.returncode == 0 else ""
        if not rev:
            return None
        done = _run(root, ["show", "--end-of-options", f"{rev}:{path}"])
    except AgentMemoryError:  # no git at all
        return None
    return done.stdout if done.returncode == 0 else None


def text_merge(ours: Path, base: Path, theirs: Path) -> tuple[bytes, int]:
    """git's own three-way text merge of three files: (merged bytes, conflicts), nothing written.

    The merge driver's fallback for input it cannot read by fact id; the paths come after
    ``--``, so none of them is ever taken for an option.
    """
    labels = ["-L", "ours", "-L", "base", "-L", "theirs"]
    done = _run(None, ["merge-file", "-p", *labels, "--", str(ours), str(base), str(theirs)])
    if done.returncode < 0 or done.returncode > 127:
        raise AgentMemoryError(f"git merge-file: {_last_error(done)}", str(ours))
    return done.stdout, done.returncode


def local_config(root: Path, key: str, value: str | None = None) -> str | None:
    """Read (``value`` None) or set a key of the repo's own git config, never the global one."""
    args = ["config", "--local", *(["--get", key] if value is None else [key, value])]
    done = _run(root, args, timeout=_QUICK)
    if value is not None and done.returncode != 0:
        raise AgentMemoryError(f"{_last_error(done)}; could not set {key}", str(root))
    return done.stdout.decode(errors="replace").strip() if done.returncode == 0 else None


def unset_local_config(root: Path, key: str) -> None:
    """Remove a key from the repo's own git config (``disable``: what ``enable`` set)."""
    done = _run(root, ["config", "--local", "--unset", key], timeout=_QUICK)
    if done.returncode not in (0, 5):  # 5: the key was not set
        raise AgentMemoryError(f"{_last_error(done)}; could not unset {key}", str(root))


def git_dirs(root: Path) -> tuple[Path, Path, Path] | None:
    """The real paths of the work tree's top, the git folder and the common git folder git
    finds from ``root``; None outside a work tree (or with no git at all)."""
    args = ["rev-parse", "--show-toplevel", "--absolute-git-dir", "--git-common-dir"]
    try:
        done = _run(root, args, timeout=_QUICK)
    except AgentMemoryError:
        return None
    lines = done.stdout.decode(errors="surrogateescape").splitlines()
    if done.returncode != 0 or len(lines) != 3 or not all(lines):
        return None
    top, git_dir, common = ((root / line).resolve() for line in lines)  # relative: to root
    return top, git_dir, common


class Introduced(NamedTuple):
    """The commit that first wrote a fact's footer."""

    commit: str
    author: str
    date: str  # the author date, ISO 8601
    subject: str


def introduced(root: Path, fact_id: str, paths: Sequence[str]) -> Introduced | None:
    """The oldest commit whose change to ``paths`` added or removed a footer naming
    ``fact_id`` (pickaxe: the count of ``id: <fact_id>`` in a file changed), or None: no such
    commit, no history, no git, or an id that is not one (it becomes a regular expression).
    Diff and text-conversion drivers are not run; bounded in time."""
    if _NOT_AN_ID.search(fact_id) or (not (root / ".git").exists() and not _in_work_tree(root)):
        return None
    pattern = "id:[[:space:]]*" + fact_id.replace(".", "[.]") + "([^a-z0-9.-]|$)"
    args = [
        "--literal-pathspecs", "log", "--no-ext-diff", "--no-textconv", "--no-color",
        "--pickaxe-regex", f"-S{pattern}", "--format=%H%x00%an%x00%aI%x00%s%x00", "--", *paths,
    ]  # fmt: skip
    try:
        done = _run(root, args, timeout=_QUICK)
    except AgentMemoryError:  # no git, or no answer in time
        return None
    records = done.stdout.decode("utf-8", errors="replace").split("\0")
    if done.returncode != 0 or len(records) < 5:
        return None
    commit, author, date, subject = records[-5:-1]  # git lists the newest first
    return Introduced(commit.strip(), author, date, subject)


_NOT_AN_ID = re.compile(r"[^a-z0-9.-]|^$")


def _in_work_tree(root: Path) -> bool:
    return any((folder / ".git").exists() for folder in root.parents)


def _run(
    root: Path | None,
    args: Sequence[str],
    timeout: float = _SLOW,
    stdin: bytes | None = None,
) -> subprocess.CompletedProcess[bytes]:
    # Imported here: subprocess (with signal, selectors) costs 3-4 ms, a twentieth of the tool's
    # start-up, and the merge driver imports this module for a fallback it rarely runs.
    import subprocess

    try:
        return subprocess.run(
            ["git", *args],
            cwd=root,
            input=stdin,
            capture_output=True,
            check=False,
            timeout=timeout,
        )
    except FileNotFoundError:
        raise AgentMemoryError("git: not found; this command runs git") from None
    except subprocess.TimeoutExpired:
        raise AgentMemoryError(
            f"git {args[0]}: no answer in {timeout:.0f} s (a FIFO or a hung file system in the "
            "repository?); stopped it",
            str(root or "."),
        ) from None


def _last_error(done: subprocess.CompletedProcess[bytes]) -> str:
    return (done.stderr.decode(errors="replace").strip().splitlines() or ["git failed"])[-1]


def recorded(root: Path, rel: str) -> bool:
    """Whether git holds ``rel``: in the commit HEAD names or staged for the next one (a staged
    file is what the next commit records). False outside git, and for a file git does not know."""
    if not any((folder / ".git").exists() for folder in (root, *root.parents)):
        return False  # not in a work tree: no process to start (the MCP server asks often)
    try:  # --with-tree: a file staged for removal still counts as HEAD's
        args = ["--literal-pathspecs", "ls-files", "--error-unmatch", "--with-tree=HEAD"]
        done = _run(root, [*args, "--", rel], timeout=_QUICK)
        if done.returncode not in (0, 1):  # no HEAD yet: only the index can hold it
            done = _run(root, ["--literal-pathspecs", "ls-files", "--", rel], timeout=_QUICK)
            return done.returncode == 0 and bool(done.stdout.strip())
    except AgentMemoryError:  # no git at all
        return False
    return done.returncode == 0


class Focus(NamedTuple):
    """What a session is about, as far as git and the hook's payload tell (DESIGN §22)."""

    paths: tuple[str, ...]  # changed on the branch since its merge base, or in the work tree
    task: str | None  # the first prompt, where the payload carries one


def focus(root: Path, prompt: str | None) -> Focus:
    """The paths (relative to ``root``) that the branch changed against its merge base with
    the default branch, plus the work tree's changes and new files; none outside git. Every
    git call is bounded in time and output, and a name read from git goes back after
    ``--end-of-options``: a branch may be called anything."""
    task = (prompt.strip()[:TASK_MAX] or None) if prompt else None
    diff = ["diff", "--name-only", "-z", "--no-renames", "--relative"]
    # The work tree against the merge base with the first default branch there is, in one
    # process (git 2.30's --merge-base); none (or an older git): against HEAD.
    asked = ([*diff, "--merge-base", "--end-of-options", base, *_CODE] for base in _bases(root))
    changed = next((out for args in asked if (out := _bounded(root, args)) is not None), None)
    if changed is None:
        changed = _bounded(root, [*diff, "--end-of-options", "HEAD", *_CODE])
    paths = set(_names(changed))
    # The memory left out as an ignored folder too: git then does not walk its 10,000 logs to
    # find the untracked ones (2.4 ms against 6.4); the pattern is anchored at the work tree's
    # top, which is ``root`` when the memory is the repo's own.
    untracked = ["ls-files", "-z", "--others", "--exclude-standard", _NOT_MEMORY, *_CODE]
    paths.update(_names(_bounded(root, untracked)))
    return Focus(tuple(sorted(paths)[:FOCUS_PATHS]), task)


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
    whole = names[:-1] if len(out) < _FOCUS_BYTES else names[:-2]
    return [name.decode("utf-8", errors="replace") for name in whole if name]


def _bounded(root: Path, args: Sequence[str]) -> bytes | None:
    """git's stdout, at most ``_FOCUS_BYTES`` of it within ``_FOCUS_SECONDS``; None when git
    fails, is missing, or does not answer in time (the question is then unanswered). Where the
    system has ``posix_spawn``, git is started with it and read with ``select``: importing
    subprocess (with threading, selectors and signal) is 17M instructions, a twelfth of a
    session start."""
    if not hasattr(os, "posix_spawnp"):  # Windows
        return _bounded_portably(root, args)
    import select

    out, into = os.pipe()
    devnull = os.open(os.devnull, os.O_RDWR)
    # the child gets these three; no other descriptor of ours (os.pipe and os.open close on exec)
    actions = [(os.POSIX_SPAWN_DUP2, fd, n) for n, fd in enumerate((devnull, into, devnull))]
    try:
        pid = os.posix_spawnp(
            "git", ["git", "-C", str(root), *args], os.environ, file_actions=actions
        )
    except OSError:
        os.close(out)
        return None
    finally:
        os.close(into)
        os.close(devnull)
    chunks: list[bytes] = []
    size, deadline, done = 0, time.monotonic() + _FOCUS_SECONDS, False
    try:
        while size < _FOCUS_BYTES and (left := deadline - time.monotonic()) > 0:
            if not select.select([out], [], [], left)[0]:
                break
            chunk = os.read(out, _FOCUS_BYTES - size)
            if not chunk:
                done = True
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(out)
        if not done:
            os.kill(pid, 9)  # SIGKILL: the rest is not read (bound), or no answer in time
        code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    data = b"".join(chunks)
    return data if (done and code == 0) or size >= _FOCUS_BYTES else None


def _bounded_portably(root: Path, args: Sequence[str]) -> bytes | None:
    """``_bounded`` with subprocess, where there is no ``posix_spawn``."""
    import subprocess
    import threading

    try:
        child = subprocess.Popen(
            ["git", *args], cwd=root, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
    except OSError:
        return None
    timer = threading.Timer(_FOCUS_SECONDS, child.kill)
    timer.start()
    try:
        assert child.stdout is not None
        out = child.stdout.read(_FOCUS_BYTES)
        if len(out) == _FOCUS_BYTES:
            child.kill()  # the rest is not read: the bound is the answer's size
        code = child.wait()
        child.stdout.close()
    finally:
        timer.cancel()
    return out if code == 0 or len(out) == _FOCUS_BYTES else None
