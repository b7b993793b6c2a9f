"""Replay and report benchmark: `replay` and `report --html` against `review --full` on the same
repo, in the same run (not part of the test suite).

    python benchmarks/replay_bench.py [--logs 10000] [--facts 1000] [--runs 3]

The repo is review_bench's (references drawn from a Zipf-like distribution; no log records a
first prompt, so no view has a task). All three read every log; replay also judges a fact again
whenever what its tier decides may change, and asks `context`'s own view of the memory as it
stood before every log (core/replay/states.py: no layout of its own), so its ratio says what
that costs on top of the reading (the goal: at most 3x). The report replays at three budgets
and writes its page: the goals are 2 s and a page under 1 MB.
"""

from __future__ import annotations

from measure import byte_compile, interleaved, print_ratios
from review_bench import TODAY, TOOL, repo_arguments, reviewed_repo


def main() -> None:
    args = repo_arguments(runs=3)
    byte_compile()
    with reviewed_repo(args.logs, args.facts) as root:
        page = root.parent / "report.html"
        commands = {
            "full": [*TOOL, "review", str(root), "--full", "--check", *TODAY],
            "replay": [*TOOL, "replay", str(root)],
            "report": [*TOOL, "report", str(root), "--html", str(page), *TODAY],
        }
        wall, cpu = interleaved(commands, args.runs)
        print(f"logs={args.logs} facts={args.facts} runs={args.runs}")
        labels = {"full": "review --full", "replay": "replay", "report": "report --html"}
        print_ratios(labels, wall, cpu)
        print(f"page: {page.stat().st_size} bytes")


if __name__ == "__main__":
    main()
