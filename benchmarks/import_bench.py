"""`import claude` of 400, 800 and 1,600 topic files, against `--version` measured in the same
run: import is linear in its entries (MIGRATE.md § Importing an agent's memory).

  python benchmarks/import_bench.py [--sizes 400 800 1600] [--runs 3]

Each topic file is a Claude Code auto-memory file (name, description, type front matter and a
sentence of six to eighteen words from a vocabulary of 30,000), imported into a freshly enabled
repo. continuity.md is put back (untimed) before each run. The per-entry figure should stay flat
as the sizes double: 5.1.0 parsed continuity.md again after each entry (400 entries 1.7 s,
1,600 20 to 24 s and half a gigabyte).
  import N = `import claude --from DIR` of N files / `agent-memory --version`
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
TODAY = ("--today", "2026-06-02")


def topics(folder: Path, count: int, rng: random.Random, vocabulary: list[str]) -> None:
    def sentence() -> str:
        return " ".join(rng.choice(vocabulary) for _ in range(rng.randint(6, 18))).capitalize()

    folder.mkdir()
    for n in range(count):
        (folder / f"topic-{n}.md").write_text(
            f"---\nname: Topic {n}\ndescription: {sentence()}\ntype: project\n---\n{sentence()}\n"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[400, 800, 1600])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    byte_compile()
    rng = random.Random(7)
    vocabulary = sorted(
        {"".join(rng.choice(SYLLABLES) for _ in range(rng.randint(1, 4))) for _ in range(30_000)}
    )
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "repo"
        root.mkdir()
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        enable = [*TOOL, "enable", str(root), "--vendor", "none", "--today", "2026-06-01"]
        subprocess.run(enable, check=True, capture_output=True)
        continuity = root / "memory/continuity.md"
        saved = continuity.read_bytes()
        commands = {"version": [*TOOL, "--version"]}
        for size in args.sizes:
            source = Path(folder) / f"topics-{size}"
            topics(source, size, rng, vocabulary)
            commands[str(size)] = [*TOOL, "import", "claude", str(root), "--from", str(source)]
            commands[str(size)] += TODAY
        wall, cpu = interleaved(commands, args.runs, lambda _name: continuity.write_bytes(saved))
    print(f"import claude, sizes={args.sizes}, runs={args.runs}")
    labels = {"version": "agent-memory --version"}
    labels |= {str(size): f"import of {size} topic files" for size in args.sizes}
    print_ratios(labels, wall, cpu)
    for size in args.sizes:
        print(f"  {size}: {cpu[str(size)] / size * 1000:.2f} ms of CPU per entry")


if __name__ == "__main__":
    main()
