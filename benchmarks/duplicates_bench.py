"""`fact add` with its duplicate check (DECAY.md § Duplicates), against `--version` measured in
the same run.

  python benchmarks/duplicates_bench.py [--live 1000] [--archived 10000] [--runs 9]

The repo holds --live facts in continuity.md and --archived in ten archive quarters, each fact
six to eighteen words drawn from a vocabulary of 30,000, so that a new fact shares words with
some facts and is similar to few, as in a real memory.
  new     = `fact add` of a text like no fact           / `agent-memory --version`  (goal: 1.5x)
  similar = `fact add` of a text much like an archived one (its quarter parsed, the fact listed)
                                                         / `agent-memory --version`
Each run writes: continuity.md is put back (untimed) before it. Medians of wall and CPU time.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import tempfile
from pathlib import Path

from measure import byte_compile, interleaved, print_ratios
from review_bench import TOOL

SYLLABLES = ("ka", "to", "ri", "men", "sal", "po", "ver", "di", "na", "lu", "ex", "or", "tan")
FOOTER = "created: 2020-01-01 | last_used: 2020-01-01 | uses: 1 | tier: working"
ARCHIVED = (
    "created: 2019-01-01 | last_used: 2019-01-01 | uses: 1 | tier: archived | "
    "from: Key Decisions | archived: 2019-06-01"
)
TODAY = ("--today", "2020-02-01")


def build(root: Path, live: int, archived: int) -> str:
    """The repo; returns the text of one archived fact (a similar one is added)."""
    command = [*TOOL, "enable", str(root), *TODAY, "--vendor", "none"]
    subprocess.run(command, check=True, capture_output=True)
    rng = random.Random(7)
    vocabulary = sorted(
        {"".join(rng.choice(SYLLABLES) for _ in range(rng.randint(1, 4))) for _ in range(30_000)}
    )

    def sentence() -> str:
        return " ".join(rng.choice(vocabulary) for _ in range(rng.randint(6, 18))).capitalize()

    body = "".join(f"- {sentence()}\n  <!-- id: f-{n} | {FOOTER} -->\n" for n in range(live))
    continuity = root / "memory/continuity.md"
    text = continuity.read_text().replace("## Key Decisions\n", f"## Key Decisions\n{body}")
    continuity.write_text(text)
    archive = root / "memory/archive"
    archive.mkdir(exist_ok=True)
    texts = [sentence() for _ in range(archived)]
    per = -(-archived // 10)
    for quarter in range(10):
        name = f"{2010 + quarter // 4}-Q{quarter % 4 + 1}"
        facts = "".join(
            f"- {texts[n]}\n  <!-- id: a-{n} | {ARCHIVED} -->\n"
            for n in range(quarter * per, min(archived, (quarter + 1) * per))
        )
        (archive / f"{name}.md").write_text(f"# Archive {name}\n\n## Facts\n{facts}")
    return texts[archived // 2]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--live", type=int, default=1_000)
    parser.add_argument("--archived", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    byte_compile()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "repo"
        root.mkdir()
        old = build(root, args.live, args.archived)
        continuity = root / "memory/continuity.md"
        saved = continuity.read_bytes()
        add = [*TOOL, "fact", "add"]
        commands = {
            "version": [*TOOL, "--version"],
            "new": [*add, "Deploys go through the staging cluster first", str(root), *TODAY],
            "similar": [*add, f"{old} again", str(root), *TODAY],
        }
        wall, cpu = interleaved(commands, args.runs, lambda _name: continuity.write_bytes(saved))
    print(f"fact add, {args.live} live and {args.archived} archived facts, runs={args.runs}")
    labels = {
        "version": "agent-memory --version",
        "new": "fact add (like no fact)",
        "similar": "fact add (like an archived fact)",
    }
    print_ratios(labels, wall, cpu)


if __name__ == "__main__":
    main()
