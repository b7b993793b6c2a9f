"""The daily loop's commands against start-up, as ratios measured in the same run.

  python benchmarks/daily_bench.py [--logs 10000] [--facts 1000] [--runs 15]

On the review benchmark's repo (--facts facts, --logs logs, then reviewed, as a repo is between
two sessions):
  fact add = `agent-memory fact add TEXT` / `agent-memory --version`
  explain  = `agent-memory explain ID`    / `agent-memory --version`
Both must stay within 1.5x: an agent runs them many times a session. The three commands are
run in turn, so a machine busy with something else slows all three alike; medians are shown.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from measure import byte_compile
from review_bench import build


def interleaved(commands: dict[str, list[str]], runs: int) -> dict[str, float]:
    samples: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, command in commands.items():
            started = time.perf_counter()
            subprocess.run(command, check=True, capture_output=True)
            samples[name].append(time.perf_counter() - started)
    return {name: statistics.median(values) for name, values in samples.items()}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--logs", type=int, default=10_000)
    parser.add_argument("--facts", type=int, default=1_000)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    byte_compile()
    tool = [sys.executable, "-m", "agent_memory"]
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp)
        build(repo, args.logs, args.facts)
        review = [*tool, "review", str(repo), "--full", "--today", "2030-01-01"]
        subprocess.run(review, check=True, capture_output=True)
        times = interleaved(
            {
                "version": [*tool, "--version"],
                "add": [*tool, "fact", "add", "A benchmark fact", str(repo)],
                "explain": [*tool, "explain", "fact-0", str(repo)],
            },
            args.runs,
        )
    version = times["version"]
    print(f"agent-memory --version          {version:8.4f}s")
    for name, label in (("add", "fact add"), ("explain", "explain fact-0")):
        print(f"{label:<31} {times[name]:8.4f}s   ratio {times[name] / version:5.2f}x")


if __name__ == "__main__":
    main()
