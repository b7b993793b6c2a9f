"""Merge driver benchmark: a ratio against a floor measured in the same run.

    python benchmarks/merge_bench.py [--facts 1000] [--runs 11]

driver = `agent-memory merge-file BASE OURS THEIRS memory/continuity.md` on a continuity.md of
--facts facts, each side having reviewed (every footer changed) and added facts of its own
         / `agent-memory --version`
in wall time and in CPU time (user + system; on a shared machine wall time also measures the
neighbours). The package is byte-compiled first (see measure.py).
"""

from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from measure import byte_compile, median, median_cpu, median_process


def continuity(facts: int, uses: int, mark: str, extra: str) -> bytes:
    body = "".join(
        f"- Fact {i} about the system, with a few words of context\n"
        f"  <!-- id: fact-{i} | created: 2020-01-01 | last_used: 2020-01-{1 + (i + uses) % 28:02d}"
        f" | uses: {uses + i % 7} | tier: active -->\n"
        for i in range(facts)
    )
    added = "".join(
        f"- {extra} fact {k}\n  <!-- id: {extra}-{k} | created: 2020-02-01 | "
        "last_used: 2020-02-01 | uses: 1 | tier: working -->\n"
        for k in range(5)
    )
    return (
        f"# Continuity\n\n## Project State\n- last_review: {mark}\n\n## Key Decisions\n"
        f"{body}{added}\n## Open Threads\n"
    ).encode()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--facts", type=int, default=1_000)
    parser.add_argument("--runs", type=int, default=11)
    args = parser.parse_args()
    byte_compile()
    tool = [sys.executable, "-m", "agent_memory"]
    tmp = Path(tempfile.mkdtemp())
    try:
        sides = {
            "base": continuity(
                args.facts, 1, "2020-01-30 | through 2020-01-30-100000 | 90 logs", "b"
            ),
            "ours": continuity(
                args.facts, 2, "2020-02-02 | through 2020-02-02-100000 | 95 logs", "o"
            ),
            "theirs": continuity(
                args.facts, 3, "2020-02-01 | through 2020-02-01-120000-t | 93 logs", "t"
            ),
        }
        for name, data in sides.items():
            (tmp / name).write_bytes(data)
        command = [*tool, "merge-file", "base", "work", "theirs", "memory/continuity.md"]

        def merge_once() -> None:
            shutil.copyfile(tmp / "ours", tmp / "work")
            subprocess.run(command, cwd=tmp, check=True, capture_output=True)

        def merge_cpu() -> float:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            merge_once()
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime

        merge_once()
        merged = (tmp / "work").read_bytes()
        assert b"| merged" in merged and b"<<<<<<<" not in merged
        version = median_process([*tool, "--version"], args.runs)
        driver = median(merge_once, args.runs)
        version_cpu = median_cpu([*tool, "--version"], args.runs)
        driver_cpu = statistics.median(merge_cpu() for _ in range(args.runs))
        print(f"facts={args.facts} runs={args.runs}")
        print(f"agent-memory --version     {version:8.4f}s wall {version_cpu:8.4f}s cpu")
        print(
            f"merge-file (1 file)        {driver:8.4f}s wall {driver_cpu:8.4f}s cpu   "
            f"ratio {driver / version:5.2f}x wall {driver_cpu / version_cpu:5.2f}x cpu"
        )
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
