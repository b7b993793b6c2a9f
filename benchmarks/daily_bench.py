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

import subprocess
import sys
import tempfile
from pathlib import Path

from measure import byte_compile, interleaved, print_ratios
from review_bench import build, repo_arguments


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
    labels = {"version": "agent-memory --version", "add": "fact add", "explain": "explain fact-0"}
    print_ratios(labels, times, cpu)


if __name__ == "__main__":
    main()
