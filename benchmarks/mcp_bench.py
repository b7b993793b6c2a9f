"""MCP server benchmark, as a ratio against a floor measured in the same run.

  python benchmarks/mcp_bench.py [--calls 200] [--facts 10000]

recall = `memory_recall` over --facts archived facts, the server warm (one call made) /
         a call the server refuses before reading anything (the protocol's round trip)
Needs the extra: pip install 'agent-memory[mcp]'.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio
from mcp.client import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from measure import byte_compile

FOOT = "<!-- id: f-{0} | created: 2026-01-01 | last_used: 2026-01-01 | uses: 1 | tier: archived -->"


async def median_call(call: Callable[[], Awaitable[object]], runs: int) -> float:
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        await call()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


async def measure(repo: Path, calls: int) -> tuple[float, float, float]:
    # The SDK passes the server only a few safe variables: PYTHONPATH, for a checkout, by hand.
    env = {"PYTHONPATH": os.environ["PYTHONPATH"]} if "PYTHONPATH" in os.environ else None
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "agent_memory", "mcp", str(repo)], env=env
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        await session.list_tools()
        started = time.perf_counter()
        first = await session.call_tool("memory_recall", {"query": "subsystem 42"})
        cold = time.perf_counter() - started
        assert not first.is_error and first.structured_content["facts"], first

        async def recall() -> None:
            await session.call_tool("memory_recall", {"query": "subsystem 42"})

        async def refused() -> None:
            await session.call_tool("memory_recall", {"limit": 0})

        floor = await median_call(refused, calls)
        warm = await median_call(recall, calls)
    return cold, floor, warm


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--facts", type=int, default=10_000)
    args = parser.parse_args()
    byte_compile()
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp)
        (repo / "memory/archive").mkdir(parents=True)
        (repo / "memory/continuity.md").write_text("# Continuity\n")
        archived = "".join(
            f"- Archived fact {i} about subsystem {i % 97}\n  {FOOT.format(i)}\n"
            for i in range(args.facts)
        )
        (repo / "memory/archive/2026-Q1.md").write_text("# Archive\n\n## Facts\n" + archived)
        cold, floor, warm = anyio.run(measure, repo, args.calls)
    print(f"first memory_recall (cold)            {cold * 1000:8.2f} ms")
    print(f"refused call, round trip (floor)      {floor * 1000:8.2f} ms")
    print(
        f"memory_recall over {args.facts:,} archived  {warm * 1000:8.2f} ms   "
        f"ratio {warm / floor:5.2f}x   (target <= 20 ms)"
    )


if __name__ == "__main__":
    main()
