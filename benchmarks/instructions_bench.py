"""The daily and curation commands in instructions, against `agent-memory --version` counted in
the same run: what a loaded, shared machine cannot move (valgrind's callgrind counts them).

  python benchmarks/instructions_bench.py [--logs 10000] [--facts 1000] [COMMAND ...]

On the review benchmark's repo (--facts facts, --logs logs), reviewed and widened as
context_bench's is, so that no review is due:
  status, recall, explain, context, context --hook, review --if-due   (goal: 1.3x)
  each curation command: edit, supersede, retract, archive, restore,
  pin, unpin, expire, relate, cite, recite, show                      (goal: 1.5x)
A writing command runs on a fresh copy of the repo, and one that undoes another (restore,
unpin, recite) on a copy where that other ran first. Without valgrind it says so and stops.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from context_bench import widen
from measure import byte_compile
from review_bench import TODAY, TOOL, build

DAILY = {
    "status": ["status"],
    "recall": ["recall", "fact", "--limit", "5"],
    "explain": ["explain", "fact-0"],
    "context": ["context"],
    "context --hook": ["context", "--hook"],
    "review --if-due": ["review", "--if-due", *TODAY],
}
CURATION = {
    "edit": ["fact", "edit", "fact-1", "Fact 1, said better"],
    "supersede": ["fact", "supersede", "fact-1", "fact-2"],
    "retract": ["fact", "retract", "fact-1", "--reason", "not true"],
    "archive": ["fact", "archive", "fact-1"],
    "restore": ["fact", "restore", "fact-1"],
    "pin": ["fact", "pin", "fact-1"],
    "unpin": ["fact", "unpin", "fact-1"],
    "expire": ["fact", "expire", "fact-1", "2031-01-01"],
    "relate": ["fact", "relate", "fact-1", "fact-2"],
    "cite": ["fact", "cite", "fact-1", "src/module.py:1-2"],
    "recite": ["fact", "recite", "fact-1"],
    "show": ["fact", "show", "fact-1"],
}
FIRST = {"restore": CURATION["archive"], "unpin": CURATION["pin"], "recite": CURATION["cite"]}
WRITES = {"review --if-due", *CURATION} - {"show"}


def instructions(command: list[str], folder: Path) -> int:
    """The instructions callgrind counts in one run of ``command`` (it must succeed)."""
    out = folder / "callgrind.out"
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *command],
        capture_output=True,
        text=True,
        check=True,
    )
    out.unlink(missing_ok=True)
    return int(re.findall(r"refs:\s+([\d,]+)", done.stderr)[-1].replace(",", ""))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--logs", type=int, default=10_000)
    parser.add_argument("--facts", type=int, default=1_000)
    parser.add_argument("names", nargs="*", default=[*DAILY, *CURATION])
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed: instruction counts need its callgrind tool")
    byte_compile()
    with tempfile.TemporaryDirectory() as tmp:
        base, work = Path(tmp) / "base", Path(tmp) / "work"
        base.mkdir()
        build(base, args.logs, args.facts)
        (base / "src").mkdir()
        (base / "src/module.py").write_text("def one():\n    return 1\n")
        subprocess.run([*TOOL, "review", str(base), *TODAY], check=True, capture_output=True)
        widen(base)
        floor = instructions([*TOOL, "--version"], Path(tmp))
        print(f"{'agent-memory --version':<24} {floor / 1e6:8.1f}M   1.00x")
        for name in args.names:
            words = {**DAILY, **CURATION}[name]
            repo = base
            if name in WRITES:
                shutil.rmtree(work, ignore_errors=True)
                shutil.copytree(base, work)
                repo = work
                if name in FIRST:
                    first = [*TOOL, *FIRST[name], str(work), *TODAY]
                    subprocess.run(first, check=True, capture_output=True)
            dated = [*TODAY] if name in CURATION and name != "show" else []
            count = instructions([*TOOL, *words, str(repo), *dated], Path(tmp))
            print(f"{name:<24} {count / 1e6:8.1f}M   {count / floor:.2f}x", flush=True)


if __name__ == "__main__":
    main()
