"""Two agents' servers and a command-line review on one repo at once: nothing lost, nothing torn."""

from __future__ import annotations

import json
import os
import random
import subprocess
import threading
import time
from collections import defaultdict
from pathlib import Path

import anyio
import pytest

from agent_memory.cli.mcp.tools import McpSession, call
from agent_memory.errors import LockedError
from agent_memory.parse.facts import parse
from agent_memory.parse.sessions import read_refs
from agent_memory.shell.lock import Lock
from conftest import PROJECT, cli, tree
from mcp_client import IDS, RawServer, connect, console_command, enabled_repo, today
from mcp_client import call as call_tool


def test_two_servers_and_a_review_at_once_lose_no_write(tmp_path: Path) -> None:
    root = enabled_repo(tmp_path / "repo")
    made: dict[str, set[str]] = defaultdict(set)  # log -> ids the servers said they wrote there
    reviews: list[subprocess.CompletedProcess[str]] = []
    stop = threading.Event()
    review = [*console_command(), "review", str(root), "--today", today(), "--wait", "30"]
    env = {**os.environ, "PYTHONPATH": str(PROJECT / "installer")}

    def reviewer() -> None:
        while not stop.is_set():
            reviews.append(subprocess.run(review, capture_output=True, text=True, env=env))

    async def agent(seed: int) -> None:
        chooser = random.Random(seed)
        async with connect(root, "--wait", "30") as client:
            for _ in range(25):
                ids = chooser.sample(IDS, chooser.randint(1, 3))
                error, result = await call_tool(client, "memory_reference", ids=ids)
                assert not error, result
                made[result["log"]].update(ids)
                error, found = await call_tool(client, "memory_recall", query="outbox")
                assert not error and found["facts"], found

    async def agents() -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(agent, 1)
            group.start_soon(agent, 2)

    thread = threading.Thread(target=reviewer)
    thread.start()
    try:
        anyio.run(agents)
    finally:
        stop.set()
        thread.join()
    assert len(reviews) >= 2, "the review did not run alongside the servers"
    assert all(r.returncode == 0 for r in reviews), [r.stderr for r in reviews]
    logs = sorted((root / "memory/sessions").glob("*.md"))
    # Every write the servers reported is in its log, and each log holds exactly those ids.
    assert {f"memory/sessions/{p.name}" for p in logs} == set(made)
    for path in logs:
        refs = read_refs(path.read_bytes())
        assert refs.used == made[f"memory/sessions/{path.name}"] and not refs.warnings
    assert cli("lint", root).exit_code == 0
    assert cli("review", root, "--full", "--today", today()).exit_code == 0
    doc = parse("memory/continuity.md", (root / "memory/continuity.md").read_bytes())
    counted = {f.id: int(f.field("uses") or 0) for f in doc.facts}
    assert counted == {i: 1 + sum(i in ids for ids in made.values()) for i in IDS}


def test_a_lock_held_too_long_is_a_tool_error_naming_the_holder(tmp_path: Path) -> None:
    root = enabled_repo(tmp_path / "repo").resolve()
    lock = Lock(root)
    lock.acquire(0)
    try:
        started = time.monotonic()
        done = call(McpSession(root, wait=0.3), "memory_reference", {"ids": ["fact-1"]})
        waited = time.monotonic() - started
    finally:
        lock.release()
    assert 0.3 <= waited < 3
    assert isinstance(done.error, LockedError)
    assert done.err.startswith(
        f"agent-memory: .agent-memory.lock: another agent-memory run (pid {os.getpid()} on "
    )
    assert not list((root / "memory/sessions").glob("*.md"))
    session = McpSession(root, wait=0.3)
    done = call(session, "memory_reference", {"ids": ["fact-1"]})
    assert done.result is not None and done.result.report.summary["outcome"] == "changed"


@pytest.mark.parametrize(
    "tool, arguments",
    [("memory_reference", {"ids": ["fact-1"]}), ("memory_fact_add", {"text": "Cancelled fact"})],
)
def test_a_call_cancelled_while_it_waits_for_the_lock_writes_nothing(
    tmp_path: Path, tool: str, arguments: dict[str, object]
) -> None:
    """notifications/cancelled for a call that waits for the repo's lock: once the lock is
    free it must not write (the client was told nothing happened), and it gets no answer."""
    root = enabled_repo(tmp_path / "repo").resolve()
    before = tree(root)
    lock = Lock(root)
    lock.acquire(0)
    server = RawServer(root, "--wait", "30")
    try:
        params = {"name": tool, "arguments": arguments}
        server.send(
            json.dumps(
                {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params}
            ).encode()
            + b"\n"
        )
        time.sleep(0.5)  # the call is waiting for the lock
        cancel = {"requestId": 7, "reason": "the user pressed escape"}
        server.send(
            json.dumps(
                {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": cancel}
            ).encode()
            + b"\n"
        )
        time.sleep(0.5)
        lock.release()
        answer = server.ask(
            {
                "jsonrpc": "2.0",
                "id": 8,
                "method": "tools/call",
                "params": {"name": "memory_status", "arguments": {}},
            }
        )
        assert answer["id"] == 8 and not answer["result"].get("isError"), answer
        time.sleep(0.5)
    finally:
        lock.release()
        assert server.close() == 0
    assert server.answers.empty()  # the cancelled call was never answered
    assert tree(root) == before
