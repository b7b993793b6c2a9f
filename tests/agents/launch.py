"""The real agents: installed from npm into a cache, run headless in a sandbox of our own.

Each agent runs with HOME (and CODEX_HOME) in a temporary directory, a fake key, its base URL
pointing at the scripted model on 127.0.0.1, telemetry and update checks off, stdin closed, in
a process group of its own that is killed when the run is over or its time is up. PATH holds
the interpreter's scripts directory first, so the hooks and the MCP server the agent starts are
the ``agent-memory`` under test.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import queue
import re
import shutil
import signal
import subprocess
import sysconfig
import threading
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

RUN_SECONDS = 120  # one agent run
INSTALL_SECONDS = 600  # one npm install, on a cold cache
GRACE_SECONDS = 5  # hooks an agent left running when it exited, before the group is killed


@dataclass(frozen=True)
class Agent:
    name: str  # claude | codex | gemini: what `hooks install --agent` takes
    package: str
    version: str
    command: str  # the package's bin

    @property
    def spec(self) -> str:
        return f"{self.package}@{self.version}"


AGENTS = {
    "claude": Agent("claude", "@anthropic-ai/claude-code", "2.1.197", "claude"),
    "codex": Agent("codex", "@openai/codex", "0.169.0", "codex"),
    "gemini": Agent("gemini", "@google/gemini-cli", "0.61.0", "gemini"),
}


def cache_dir() -> Path:
    """Where the packages go: ``$AGENT_MEMORY_E2E_CACHE``, else the user's cache directory."""
    chosen = os.environ.get("AGENT_MEMORY_E2E_CACHE")
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "agent-memory-e2e"


def node_missing() -> str | None:
    """Why the real agents cannot run here, or None."""
    for tool in ("node", "npm"):
        if shutil.which(tool) is None:
            return f"{tool} is not on PATH: the real-agent suite needs node >= 20 and npm"
    out = subprocess.run(["node", "--version"], capture_output=True, text=True, check=False)
    found = re.match(r"v(\d+)\.", out.stdout.strip())
    if not found or int(found.group(1)) < 20:
        return f"node {out.stdout.strip() or '?'} is too old: the agents need node >= 20"
    return None


def install(agent: Agent, cache: Path) -> Path:
    """The agent's executable, installed once per version into ``cache`` (a lock file keeps two
    test processes from installing it at once; a finished install leaves a stamp)."""
    home = cache / f"{agent.name}-{agent.version}"
    binary = home / "node_modules" / ".bin" / agent.command
    stamp = home / "installed"
    home.mkdir(parents=True, exist_ok=True)
    with (home / "lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if stamp.is_file() and binary.exists():
            return binary
        (home / "package.json").write_text('{"private": true}\n')
        done = subprocess.run(
            [
                "npm",
                "install",
                "--no-audit",
                "--no-fund",
                "--no-save",
                "--loglevel=error",
                agent.spec,
            ],
            cwd=home,
            capture_output=True,
            text=True,
            timeout=INSTALL_SECONDS,
            check=False,
            env={**os.environ, "npm_config_update_notifier": "false"},
        )
        if done.returncode != 0 or not binary.exists():
            tail = (done.stderr or done.stdout).strip().splitlines()[-5:]
            raise RuntimeError(f"npm install {agent.spec} failed: " + " | ".join(tail))
        stamp.write_text(agent.spec + "\n")
    return binary


@dataclass(frozen=True)
class Run:
    argv: tuple[str, ...]
    started: float  # seconds since the epoch
    cwd: Path
    returncode: int
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool

    def describe(self) -> str:
        return (
            f"{' '.join(self.argv[:1] + self.argv[1:6])} … in {self.cwd}: exit {self.returncode}"
            f"{' (timed out)' if self.timed_out else ''} after {self.seconds:.1f}s"
            f" (started at {self.started:.3f})\n"
            f"--- stdout\n{self.stdout[-3000:]}\n--- stderr\n{self.stderr[-3000:]}"
        )


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGTERM)
    deadline = time.monotonic() + 2
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except (ProcessLookupError, PermissionError):
            return
        time.sleep(0.05)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def run(
    argv: Sequence[str], cwd: Path, env: Mapping[str, str], timeout: float = RUN_SECONDS
) -> Run:
    """``argv`` in a process group of its own, stdin closed; the group is killed at ``timeout``,
    and whatever it left behind (a hook still running, an MCP server) after a short grace."""
    started, start = time.time(), time.monotonic()
    process = subprocess.Popen(
        list(argv),
        cwd=cwd,
        env=dict(env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    timed_out = False
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        _kill_group(process.pid)
        stdout, stderr = process.communicate()
    finally:
        deadline = time.monotonic() + GRACE_SECONDS
        while _group_alive(process.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        _kill_group(process.pid)
    seconds = time.monotonic() - start
    return Run(tuple(argv), started, cwd, process.returncode, stdout, stderr, seconds, timed_out)


# -- the sandbox ----------------------------------------------------------------------------


def agent_memory_command() -> Path:
    """The ``agent-memory`` this interpreter installed (not another one earlier on PATH)."""
    here = Path(sysconfig.get_path("scripts")) / "agent-memory"
    found = here if here.exists() else shutil.which("agent-memory")
    if found is None:
        raise RuntimeError("agent-memory is not installed: pip install -e '.[test]' first")
    return Path(found)


def base_env(home: Path) -> dict[str, str]:
    """What every agent gets: no variable of the machine's own but the locale and PATH."""
    node = shutil.which("node")
    path = [
        str(agent_memory_command().parent),
        *([str(Path(node).parent)] if node else []),
        "/usr/local/bin",
        "/usr/bin",
        "/bin",
    ]
    tmp = home / "tmp"
    tmp.mkdir(parents=True, exist_ok=True)
    return {
        "PATH": os.pathsep.join(dict.fromkeys(path)),
        "HOME": str(home),
        "TMPDIR": str(tmp),
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "NO_COLOR": "1",
        "CI": "1",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "e2e",
        "GIT_AUTHOR_EMAIL": "e2e@example.invalid",
        "GIT_COMMITTER_NAME": "e2e",
        "GIT_COMMITTER_EMAIL": "e2e@example.invalid",
    }


def new_session_id() -> str:
    return str(uuid.uuid4())


def write_json(path: Path, value: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2) + "\n")


def codex_hooks(
    binary: Path, env: Mapping[str, str], cwd: Path, timeout: float = 30
) -> list[dict[str, Any]]:
    """The hooks Codex finds for ``cwd``, as its app server lists them (``hooks/list``): each
    with its ``key``, ``currentHash`` and ``trustStatus``. This is what Codex's ``/hooks``
    review reads before it records the user's trust."""
    requests = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"clientInfo": {"name": "e2e", "version": "1"}},
        },
        {"jsonrpc": "2.0", "method": "initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "hooks/list", "params": {"cwds": [str(cwd)]}},
    ]
    process = subprocess.Popen(
        [str(binary), "app-server"],
        cwd=cwd,
        env=dict(env),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    lines: queue.Queue[str] = queue.Queue()
    assert process.stdin is not None and process.stdout is not None
    reader = threading.Thread(target=_lines, args=(process.stdout, lines), daemon=True)
    reader.start()
    try:
        # It answers only while its stdin is open: at end of input it exits first.
        process.stdin.write("".join(json.dumps(r) + "\n" for r in requests))
        process.stdin.flush()
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = lines.get(timeout=left)
            except queue.Empty:
                break
            with contextlib.suppress(ValueError, AttributeError):
                message = json.loads(line)
                if message.get("id") == 2:
                    entries = message.get("result", {}).get("data", [])
                    return [hook for entry in entries for hook in entry.get("hooks", [])]
        raise RuntimeError(f"codex app-server listed no hooks within {timeout:.0f}s")
    finally:
        _kill_group(process.pid)
        process.wait()


def _lines(stream: IO[str], into: queue.Queue[str]) -> None:
    for line in stream:
        into.put(line)
