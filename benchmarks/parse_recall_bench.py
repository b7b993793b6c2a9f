"""Parser and recall benchmark, as ratios against floors measured in the same run.

  python benchmarks/parse_recall_bench.py [--runs 7]

parse  = parsing a continuity.md of 5,000 facts / reading and decoding the same bytes
recall = `agent-memory recall` over 10,000 archived facts / `agent-memory --version`
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from agent_memory.parse import facts
from measure import byte_compile, median, median_process

FOOT = "<!-- id: f-{0} | created: 2026-01-01 | last_used: 2026-01-01 | uses: 1 | tier: {1} -->"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    byte_compile()
    body = "".join(
        f"- Fact {i} about the system\n  {FOOT.format(i, 'active')}\n" for i in range(5000)
    )
    data = ("# Continuity\n\n## Key Decisions\n" + body).encode()
    floor = median(lambda: data.decode("utf-8").split("\n"), args.runs)
    parse = median(lambda: facts.parse("c.md", data), args.runs)
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp)
        (repo / "memory/archive").mkdir(parents=True)
        (repo / "memory/continuity.md").write_text("# Continuity\n")
        archived = "".join(
            f"- Archived fact {i} about subsystem {i % 97}\n  {FOOT.format(i, 'archived')}\n"
            for i in range(10_000)
        )
        (repo / "memory/archive/2026-Q1.md").write_text("# Archive\n\n## Facts\n" + archived)
        tool = [sys.executable, "-m", "agent_memory"]
        version = median_process([*tool, "--version"], args.runs)
        recall = median_process([*tool, "recall", "subsystem 42", str(repo)], args.runs)
    print(f"decode 5,000 facts (floor)      {floor:8.4f}s")
    print(f"parse 5,000 facts               {parse:8.4f}s   ratio {parse / floor:6.1f}x")
    print(f"agent-memory --version          {version:8.4f}s")
    print(f"recall over 10,000 archived     {recall:8.4f}s   ratio {recall / version:6.1f}x")


if __name__ == "__main__":
    main()
