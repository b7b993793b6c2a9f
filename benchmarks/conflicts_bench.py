"""The `conflict` check (DECAY.md § Contradictions) on 1,000 live facts, against `--version`
measured in the same run.

  python benchmarks/conflicts_bench.py [--live 1000] [--archived 10000] [--runs 7]

The repo is duplicates_bench's (--live facts in continuity.md, --archived in ten quarters), with
every third fact leading a number (after its own last word) and every fifth negated, so that
facts lead values and negate words as real ones do. Each row is a CPU ratio to `agent-memory
--version`:
  lint      = `agent-memory lint --only conflict` (the whole lint runs; --only filters its output)
  check     = the conflict check alone, in this process, over the parsed live facts
  fact add  = `agent-memory fact add` of a live fact's text with its number changed: a conflict
  negated   = `agent-memory fact add` of a text that negates and leads a value, like no fact
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from agent_memory.core.facts.conflicts import problems
from agent_memory.parse import facts
from duplicates_bench import TODAY, build
from measure import byte_compile, interleaved, print_ratios
from review_bench import TOOL


def flavour(continuity: Path) -> None:
    """Every third fact gets a number, every fifth a negation."""
    lines = continuity.read_text().splitlines(keepends=True)
    out, n = [], 0
    for line in lines:
        if line.startswith("- ") and not line.startswith("- **"):
            n += 1
            line = line.rstrip("\n")
            line += f" {n % 7}0\n" if n % 3 == 0 else "\n"
            line = line.replace("- ", "- Never ", 1) if n % 5 == 0 else line
        out.append(line)
    continuity.write_text("".join(out))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--live", type=int, default=1_000)
    parser.add_argument("--archived", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    byte_compile()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "repo"
        root.mkdir()
        build(root, args.live, args.archived)
        continuity = root / "memory/continuity.md"
        flavour(continuity)
        saved = continuity.read_bytes()
        valued = next(f for f in facts.parse("c", saved).facts if f.first_line.endswith("0"))
        add = [*TOOL, "fact", "add"]
        commands = {
            "version": [*TOOL, "--version"],
            "lint": [*TOOL, "lint", str(root), "--only", "conflict"],
            "add": [*add, valued.first_line[:-2] + "99", str(root), *TODAY],
            "negated": [*add, "Never set the pool size to 90", str(root), *TODAY],
        }
        wall, cpu = interleaved(commands, args.runs, lambda _name: continuity.write_bytes(saved))
        doc = facts.parse("memory/continuity.md", saved)
        samples = []
        for _ in range(args.runs):
            started = time.process_time()
            found = problems([doc])
            samples.append(time.process_time() - started)
        cpu["check"] = wall["check"] = statistics.median(samples)
    print(f"conflict check, {args.live} live and {args.archived} archived facts, runs={args.runs}")
    print(f"pairs found: {len(found)}")
    labels = {
        "version": "agent-memory --version",
        "lint": "lint (whole, --only conflict)",
        "check": "the conflict check alone",
        "add": "fact add (a conflict, listed)",
        "negated": "fact add (negates, like no fact)",
    }
    print_ratios(labels, wall, cpu)


if __name__ == "__main__":
    main()
