"""The daily loop's commands against start-up, as ratios measured in the same run.

  python benchmarks/daily_bench.py [--logs 10000] [--facts 1000] [--runs 15]

On the review benchmark's repo (--facts facts, --logs logs, then reviewed, as a repo is between
two sessions):
  fact add = `agent-memory fact add TEXT` / `agent-memory --version`
  explain  = `agent-memory explain ID`    / `agent-memory --version`
Both must stay within 1.5x: an agent runs them many times a session. The three commands are
run in turn, so a machine busy with something else slows all three alike; medians of wall and
of CPU time (user + system, which a busy machine disturbs less) are shown. fact add's wall time
includes the fsyncs of a durable write.
"""

from __future__ import annotations

import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from measure import byte_compile
from review_bench import build, repo_arguments


def interleaved(
    commands: dict[str, list[str]], runs: int
) -> tuple[dict[str, float], dict[str, float]]:
    """Median wall time and median CPU time (user + system) of each command."""
    wall: dict[str, list[float]] = {name: [] for name in commands}
    cpu: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, command in commands.items():
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            subprocess.run(command, check=True, capture_output=True)
            wall[name].append(time.perf_counter() - started)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            used = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
            cpu[name].append(used)
    return (
        {name: statistics.median(values) for name, values in wall.items()},
        {name: statistics.median(values) for name, values in cpu.items()},
    )


def main() -> None:
    args = repo_arguments(runs=15)
    byte_compile()
    tool = [sys.executable, "-m", "agent_memory"]
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp)
        build(repo, args.logs, args.facts)
        review = [*tool, "review", str(repo), "--full", "--today", "2030-01-01"]
        subprocess.run(review, check=True, capture_output=True)
        times, cpu = interleaved(
            {
                "version": [*tool, "--version"],
                "add": [*tool, "fact", "add", "A fact", str(repo), "--today", "2030-01-01"],
                "explain": [*tool, "explain", "fact-0", str(repo)],
            },
            args.runs,
        )
    print(f"{'':31} {'wall':>9}   {'ratio':>6}   {'cpu':>9}   {'ratio':>6}")
    for name, label in (
        ("version", "agent-memory --version"),
        ("add", "fact add"),
        ("explain", "explain fact-0"),
    ):
        print(
            f"{label:<31} {times[name]:8.4f}s   {times[name] / times['version']:5.2f}x"
            f"   {cpu[name]:8.4f}s   {cpu[name] / cpu['version']:5.2f}x"
        )


if __name__ == "__main__":
    main()
