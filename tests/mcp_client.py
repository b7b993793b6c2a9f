"""Talking to `agent-memory mcp` as an agent does: the server as a subprocess, the SDK's client."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import queue
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Any

from mcp import types
from mcp.client import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from conftest import PROJECT, build_tree, cli

FOOT = "<!-- id: {} | created: 2026-11-01 | last_used: 2026-11-01 | uses: 1 | tier: {} -->"
IDS = [f"fact-{n}" for n in range(12)]


def console_command() -> list[str]:
    """The installed console script (the one next to this Python), else ``python -m``."""
    script = Path(sys.executable).parent / "agent-memory"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "agent_memory"]


@contextlib.asynccontextmanager
async def connect(
    repo: Path, *options: str, client: str | None = None, env: Mapping[str, str] | None = None
) -> AsyncIterator[ClientSession]:
    """A session with the server; ``client``: the name it gives in ``initialize``; ``env``:
    more of the server's environment."""
    command, *args = console_command()
    info = types.Implementation(name=client, version="1.0") if client is not None else None
    params = StdioServerParameters(
        command=command,
        args=[*args, "mcp", str(repo), *options],
        env={"PYTHONPATH": str(PROJECT / "installer"), **(env or {})},
    )
    with Path(os.devnull).open("w") as quiet:
        async with (
            stdio_client(params, errlog=quiet) as (read, write),
            ClientSession(read, write, client_info=info) as session,
        ):
            await session.initialize()
            yield session


async def call(session: ClientSession, name: str, **arguments: Any) -> tuple[bool, Any]:
    """(is_error, structured result or the error's text)."""
    result = await session.call_tool(name, arguments)
    assert not isinstance(result, str)
    if result.is_error:
        return True, result.content[0].text  # type: ignore[union-attr]
    return False, result.structured_content


def enabled_repo(root: Path) -> Path:
    """An enabled repo whose continuity.md holds the facts ``IDS``, one per line of topic."""
    root.mkdir(parents=True, exist_ok=True)
    assert cli("enable", root, "--today", "2026-11-01").exit_code == 0
    facts = "".join(
        f"- Fact {n} about the outbox and subsystem {n % 3}\n  {FOOT.format(i, 'working')}\n"
        for n, i in enumerate(IDS)
    )
    text = (root / "memory/continuity.md").read_text()
    build_tree(
        root,
        {"memory/continuity.md": text.replace("## Key Decisions\n", f"## Key Decisions\n{facts}")},
    )
    return root


def today() -> str:
    return dt.datetime.now(tz=dt.timezone.utc).date().isoformat()


class RawServer:
    """``agent-memory mcp`` spoken to line by line, as a client that sends anything would."""

    def __init__(self, repo: Path, *options: str) -> None:
        self.process = subprocess.Popen(
            [*console_command(), "mcp", str(repo), *options],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "PYTHONPATH": str(PROJECT / "installer")},
        )
        self.answers: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._collect, daemon=True).start()
        hello = {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        }
        assert "result" in self.ask(
            {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello}
        )
        self.send(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')

    def _collect(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.answers.put(line)

    def send(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def receive(self, timeout: float = 20) -> dict[str, Any]:
        """The next line the server writes; a server that answers nothing fails the test."""
        answer = json.loads(self.answers.get(timeout=timeout))
        assert isinstance(answer, dict)
        return answer

    def ask(self, message: dict[str, Any]) -> dict[str, Any]:
        self.send(json.dumps(message).encode() + b"\n")
        return self.receive()

    def close(self) -> int:
        assert self.process.stdin is not None
        self.process.stdin.close()
        return self.process.wait(timeout=20)
