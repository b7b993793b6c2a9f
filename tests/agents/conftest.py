"""Fixtures of the real-agent suite: the agents installed once, a repo enabled as a user would,
and one sandbox (HOME, model server) per session under test."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from agents import launch
from agents.drivers import DRIVERS, Driver
from agents.launch import Run
from agents.model_server import ModelServer, Script

CANARY = "e2e-canary-fact"
CANARY_TEXT = "Widgets ship in cobalt blue, never teal."
SECOND = "e2e-second-fact"
SECOND_TEXT = "The release train leaves on Thursdays."


@pytest.fixture(scope="session")
def binaries() -> dict[str, Path]:
    """Each agent's executable, from npm into the cache (skips when node or npm is missing)."""
    missing = launch.node_missing()
    if missing:
        pytest.skip(missing)
    cache = launch.cache_dir()
    return {name: launch.install(agent, cache) for name, agent in launch.AGENTS.items()}


def agent_memory(*args: str, cwd: Path, env: dict[str, str] | None = None, code: int = 0) -> str:
    """The console script under test, as a user runs it; its output, when it exits ``code``."""
    command = str(launch.agent_memory_command())
    done = subprocess.run(
        [command, *args], cwd=cwd, capture_output=True, text=True, check=False, env=env
    )
    said = f"agent-memory {' '.join(args)}: exit {done.returncode}\n{done.stdout}{done.stderr}"
    assert done.returncode == code, said
    return said


def git(*args: str, cwd: Path) -> None:
    who = {"GIT_AUTHOR_NAME": "e2e", "GIT_AUTHOR_EMAIL": "e2e@example.invalid"}
    who |= {"GIT_COMMITTER_NAME": "e2e", "GIT_COMMITTER_EMAIL": "e2e@example.invalid"}
    subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, env={**os.environ, **who}
    )


def enabled_repo(root: Path, agent: str) -> Path:
    """A git repo enabled for ``agent`` the documented way, with two facts, committed."""
    root.mkdir(parents=True)
    git("init", "-q", cwd=root)
    (root / "src" / "app").mkdir(parents=True)
    (root / "src" / "app" / "main.py").write_text("print('hello')\n")
    agent_memory("enable", cwd=root)
    agent_memory("fact", "add", CANARY_TEXT, "--id", CANARY, cwd=root)
    agent_memory("fact", "add", SECOND_TEXT, "--id", SECOND, cwd=root)
    agent_memory("hooks", "install", "--agent", agent, cwd=root)
    agent_memory("mcp", "install", "--agent", agent, cwd=root)
    git("add", "-A", cwd=root)
    git("commit", "-q", "-m", "enable agent-memory", cwd=root)
    return root


@dataclass
class Sandbox:
    """One agent, one repo, one model server: what a session under test left behind."""

    driver: Driver
    repo: Path
    script: Script
    runs: list[Run] = field(default_factory=list)
    session: str = ""

    def check(self, done: Run) -> Run:
        self.runs.append(done)
        self.dump()
        assert done.returncode == 0 and not done.timed_out, done.describe()
        return done

    def dump(self) -> None:
        """Every run and every request the model saw, beside the repo, for whoever reads a
        failure."""
        runs = "\n\n".join(done.describe() for done in self.runs)
        (self.repo.parent / "runs.txt").write_text(runs + "\n")
        with (self.repo.parent / "requests.jsonl").open("w") as out:
            for seen in self.script.seen():
                answer = seen.answer and {"kind": seen.answer.kind, "text": seen.answer.text}
                record = {"at": seen.at, "api": seen.api, "path": seen.path, "answer": answer}
                record["body"] = seen.body
                out.write(json.dumps(record) + "\n")

    def logs(self) -> list[Path]:
        return sorted((self.repo / "memory" / "sessions").glob("*.md"))


Factory = Callable[..., Sandbox]


@pytest.fixture(scope="module")
def sandbox_factory(
    binaries: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Factory]:
    """``make(agent, script, name, **driver_settings)``: a repo enabled for ``agent``, a model
    server playing ``script``, and the agent's driver with its user-level set-up done; the
    servers stop with the module."""
    servers = contextlib.ExitStack()

    def make(agent: str, script: Script, name: str, **settings: object) -> Sandbox:
        base = tmp_path_factory.mktemp(f"{agent}-{name}")
        repo = enabled_repo(base / "repo", agent)
        server = servers.enter_context(ModelServer(script))
        home = base / "home"
        home.mkdir()
        driver = DRIVERS[agent](launch.AGENTS[agent], binaries[agent], home, server.url)
        for key, value in settings.items():  # the driver's class defaults, for this one
            setattr(driver, key, value)
        driver.prepare(repo)
        return Sandbox(driver, repo, script)

    with servers:
        yield make
