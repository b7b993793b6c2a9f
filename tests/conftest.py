"""Shared test helpers: real directories, the real CLI, and tree snapshots."""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import stat
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Mapping
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from agent_memory.cli.app import main

PROJECT = Path(__file__).resolve().parents[1]

# A shell without job control starts a background command with SIGINT ignored, and every process
# it starts inherits that: a suite run so (as CI may run it) would see the ui's Ctrl-C test wait
# in vain. The test processes take Python's own handler back, so the commands they start do too.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def build_tree(root: Path, files: Mapping[str, str | bytes]) -> Path:
    """Create ``files`` under ``root``; str is written as UTF-8, byte for byte."""
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return root


def tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` (including dotfiles), by POSIX relative path; a symlink (to a
    file or a folder) is its target, anything else that is not a regular file its kind, so a
    hostile tree (a FIFO, a link loop) never hangs the snapshot."""
    out: dict[str, bytes] = {}
    for dirpath, dirs, names in os.walk(root):
        for name in [*names, *dirs]:
            path = Path(dirpath) / name
            rel = path.relative_to(root)
            if ".git" in rel.parts[:1]:
                continue
            mode = path.lstat().st_mode
            if stat.S_ISLNK(mode):
                out[rel.as_posix()] = b"-> " + os.fsencode(path.readlink())
            elif stat.S_ISREG(mode):
                out[rel.as_posix()] = path.read_bytes()
            elif not stat.S_ISDIR(mode):
                out[rel.as_posix()] = f"<special {stat.S_IFMT(mode):o}>".encode()
    return out


def stats(root: Path) -> dict[str, tuple[bytes, int]]:
    return {rel: (data, (root / rel).lstat().st_mtime_ns) for rel, data in tree(root).items()}


def cli(*args: str | os.PathLike[str]) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def children_cpu() -> float:
    """CPU seconds (user + system) of the subprocesses this test process has waited for: a
    bound on work that a loaded machine does not stretch, as it stretches wall time."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def run_console(
    *args: str | os.PathLike[str], cwd: Path, **env: str
) -> subprocess.CompletedProcess[str]:
    """The installed console script as a subprocess (falls back to ``python -m``)."""
    return subprocess.run(
        [sys.executable, "-m", "agent_memory", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        check=False,
    )


def run_fresh(
    *args: str | os.PathLike[str], cwd: Path, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """``python -m agent_memory ARGS`` in a process of its own, forked from this one: its own
    folder, streams, exit code and state, without paying an interpreter's start and imports
    each time, for a test that asks hundreds of runs whether one leaves the next another
    answer (no module keeps a run's state: the store is opened by each run). Not for what the
    interpreter's start decides: its encoding, what a run imports."""
    with contextlib.ExitStack() as stack:
        files = [stack.enter_context(tempfile.TemporaryFile()) for _ in range(3)]
        files[0].write((stdin or "").encode())
        files[0].seek(0)
        pid = os.fork()
        if pid == 0:  # pragma: no cover - runs in the child
            _fresh_child([str(a) for a in args], cwd, [f.fileno() for f in files])
        _, status = os.waitpid(pid, 0)
        for f in files:
            f.seek(0)
        out, err = (f.read().decode() for f in files[1:])
    code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
    return subprocess.CompletedProcess(["agent-memory", *map(str, args)], code, out, err)


def _fresh_child(args: list[str], cwd: Path, fds: list[int]) -> None:  # pragma: no cover
    """The child of ``run_fresh``: the streams a console gives a process, then the entry."""
    code = 3
    try:
        os.chdir(cwd)
        for fd, target in zip(fds, (0, 1, 2), strict=True):
            os.dup2(fd, target)
        real = sys.__stdout__
        encoding, errors = (real.encoding, real.errors) if real else ("utf-8", "strict")
        sys.stdin = open(0, encoding=encoding, closefd=False)  # noqa: SIM115
        sys.stdout = open(1, "w", encoding=encoding, errors=errors, closefd=False)  # noqa: SIM115
        sys.stderr = open(2, "w", encoding=encoding, errors="backslashreplace", closefd=False)  # noqa: SIM115
        sys.argv = ["agent-memory", *args]
        from agent_memory.cli import entry

        try:
            entry()
            code = 0
        except SystemExit as exc:
            if isinstance(exc.code, str):
                sys.stderr.write(exc.code + "\n")
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except BaseException:
            traceback.print_exc()  # as the interpreter would, and its exit code
            code = 1
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code)


def run_forked(args: list[str], env: dict[str, str], kill_after: float | None = None) -> int:
    """Run the CLI in a forked child (fast, and a real process that can be SIGKILLed)."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child
        os.environ.update(env)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        try:
            main.main(args, prog_name="agent-memory", standalone_mode=False)
        except SystemExit as exc:
            os._exit(exc.code if isinstance(exc.code, int) else 1)
        except BaseException:
            os._exit(3)
        os._exit(0)
    if kill_after is not None:
        time.sleep(kill_after)
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    return -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)


def git_init(root: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    return git_init(root)
