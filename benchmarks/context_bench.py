"""Session-start benchmark: ratios against `agent-memory --version` measured in the same run.

    python benchmarks/context_bench.py [--logs 10000] [--facts 1000] [--runs 11]

An agent's session-start hook runs `context` and `review --if-due`, so both must cost about what
starting the tool costs. The repo is review_bench's (--facts facts, --logs logs), reviewed once,
as a repo in use is: the live facts in continuity.md, the rest in the archive; the fact and line
limits are raised so that the review is not due.
  context = `agent-memory context`              / `agent-memory --version`
  task    = `agent-memory context --task TEXT --paths P` (a prompt's words, two paths)
  if-due  = `agent-memory review --if-due` (not due) / `agent-memory --version`
each as wall time and as CPU time (the figure to trust on a busy machine).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from measure import byte_compile, interleaved, print_ratios
from review_bench import TODAY, TOOL, repo_arguments, reviewed_repo

TASK = [
    "--task",
    "Fix the flaky retry of the webhook worker and add a test for the outbox cache",
    "--paths",
    "src/worker/retry.py",
    "--paths",
    "tests/test_outbox.py",
]


def widen(root: Path) -> None:
    """Limits above what the reviewed repo holds: the review is not due."""
    policy = root / "memory/decay-policy.md"
    text = policy.read_text()
    for key, value in (
        ("continuity_max_facts", "100000"),
        ("continuity_max_lines", "100000"),
    ):
        text = re.sub(rf"(- {key}:\s*)\d+", rf"\g<1>{value}", text)
    policy.write_text(text)


def main() -> None:
    args = repo_arguments(runs=11)
    byte_compile()
    with reviewed_repo(args.logs, args.facts) as root:
        tool, today = TOOL, TODAY
        widen(root)
        if_due = [*tool, "review", str(root), "--if-due", *today]
        assert subprocess.run(if_due, check=True, capture_output=True).stdout == b""
        print(f"logs={args.logs} facts={args.facts} runs={args.runs}, run in turn")
        wall, cpu = interleaved(
            {
                "version": [*tool, "--version"],
                "context": [*tool, "context", str(root)],
                "task": [*tool, "context", str(root), *TASK],
                "if-due": if_due,
            },
            args.runs,
        )
        labels = {
            "version": "agent-memory --version",
            "context": "context",
            "task": "context --task --paths",
            "if-due": "review --if-due (not due)",
        }
        print_ratios(labels, wall, cpu)


if __name__ == "__main__":
    main()
