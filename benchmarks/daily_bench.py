"""The daily loop's commands against start-up, as ratios measured in the same run.

  python benchmarks/daily_bench.py [--logs 10000] [--facts 1000] [--runs 15]

On the review benchmark's repo (--facts facts, --logs logs, then reviewed, as a repo is between
two sessions):
  fact add = `agent-memory fact add TEXT`   / `agent-memory --version`   (goal: 1.5x)
  explain  = `agent-memory explain ID`      / `agent-memory --version`   (goal: 1.3x)
  status   = `agent-memory status`          / `agent-memory --version`   (goal: 1.3x)
  recall   = `agent-memory recall QUERY`    / `agent-memory --version`   (goal: 1.3x)
An agent runs them many times a session. The commands are run in turn, so a machine busy with
something else slows all of them alike; medians of wall and of CPU time (user + system, which a
busy machine disturbs less) are shown. fact add's wall time includes the fsyncs of a durable
write.
"""

from __future__ import annotations

from measure import byte_compile, interleaved, print_ratios
from review_bench import TODAY, TOOL, repo_arguments, reviewed_repo


def main() -> None:
    args = repo_arguments(runs=15)
    byte_compile()
    tool = TOOL
    with reviewed_repo(args.logs, args.facts) as repo:
        times, cpu = interleaved(
            {
                "version": [*tool, "--version"],
                "add": [*tool, "fact", "add", "A fact", str(repo), *TODAY],
                "explain": [*tool, "explain", "fact-0", str(repo)],
                "status": [*tool, "status", str(repo)],
                "recall": [*tool, "recall", "fact", str(repo), "--limit", "5"],
            },
            args.runs,
        )
    labels = {
        "version": "agent-memory --version",
        "add": "fact add",
        "explain": "explain fact-0",
        "status": "status",
        "recall": "recall fact --limit 5",
    }
    print_ratios(labels, times, cpu)


if __name__ == "__main__":
    main()
