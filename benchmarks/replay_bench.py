"""Replay benchmark: `replay` against `review --full` on the same repo, in the same run (not part
of the test suite).

    python benchmarks/replay_bench.py [--logs 10000] [--facts 1000] [--runs 3]

The repo is review_bench's (references drawn from a Zipf-like distribution). Both commands read
every log; replay also judges each fact again whenever its tier may move and asks the view for
every use, so the ratio says what that costs on top of the reading (the goal: at most 3x).
"""

from __future__ import annotations

from measure import byte_compile, interleaved, print_ratios
from review_bench import TODAY, TOOL, repo_arguments, reviewed_repo


def main() -> None:
    args = repo_arguments(runs=3)
    byte_compile()
    with reviewed_repo(args.logs, args.facts) as root:
        commands = {
            "full": [*TOOL, "review", str(root), "--full", "--check", *TODAY],
            "replay": [*TOOL, "replay", str(root)],
        }
        wall, cpu = interleaved(commands, args.runs)
        print(f"logs={args.logs} facts={args.facts} runs={args.runs}")
        print_ratios({"full": "review --full", "replay": "replay"}, wall, cpu)


if __name__ == "__main__":
    main()
