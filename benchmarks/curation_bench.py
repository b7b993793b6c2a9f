"""Keeping facts true, against floors measured in the same run (DECAY.md § Curating facts,
§ Citations).

  python benchmarks/curation_bench.py [--logs 10000] [--facts 1000] [--runs 9] [--files 10000]

  lint      = `agent-memory lint` with every fact citing lines of a 10,000-file repo
              / the same `lint` with no citation                         (goal: 2x)
  each curation command (edit, supersede, retract, archive, restore, pin, unpin, expire,
  relate, cite, recite, show), on the review benchmark's reviewed repo (--facts facts, --logs
  logs) / `agent-memory --version`                                       (goal: 1.5x)

Every writing command writes each time: the memory files are put back as they were (untimed)
before each run, and a command that undoes another (restore, unpin, recite) has that other run
first, untimed. Medians of wall and CPU time (user + system), the commands run in turn.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from agent_memory.parse.cites import cite
from measure import byte_compile, interleaved, print_ratios
from review_bench import TODAY, TOOL, build

SOURCE = "".join(f"def function_{n}(value):\n    return value + {n}\n\n" for n in range(14))


def _memory(root: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in (root / "memory").rglob("*.md") if "sessions" not in p.parts}


def _put_back(root: Path, saved: dict[Path, bytes]) -> None:
    for path in (root / "memory").rglob("*.md"):
        if "sessions" not in path.parts and path not in saved:
            path.unlink()
    for path, data in saved.items():
        path.write_bytes(data)


def cited_repo(root: Path, files: int, facts: int, logs: int) -> None:
    """The review benchmark's repo, with ``files`` source files, each fact citing lines of one."""
    build(root, logs, facts)
    for n in range(files):
        path = root / f"src/pkg{n % 100}/module_{n}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(SOURCE)


def _cite_all(root: Path, facts: int, files: int) -> None:
    """Every fact of continuity.md cites lines 4-5 of a file of its own, its footer written as
    `fact cite` writes it (the field in its canonical place, the tool's own hash)."""
    cont = root / "memory/continuity.md"
    lines = cont.read_text().splitlines(keepends=True)
    for index, line in enumerate(lines):
        found = re.match(r"  <!-- id: (\S+) \|", line)
        if found is None:
            continue
        n = index % files
        rel = f"src/pkg{n % 100}/module_{n}.py"
        citation = cite(rel, 4, 5, (root / rel).read_bytes()).render()
        lines[index] = line.replace(" -->", f" | cites: {citation} -->")
    cont.write_text("".join(lines))


def lint_ratio(args: argparse.Namespace, tmp: Path) -> None:
    plain, cited = tmp / "plain", tmp / "cited"
    plain.mkdir()
    cited_repo(plain, args.files, args.facts, args.logs)
    shutil.copytree(plain, cited)
    _cite_all(cited, args.facts, args.files)
    commands = {"plain": [*TOOL, "lint", str(plain)], "cited": [*TOOL, "lint", str(cited)]}
    wall, cpu = interleaved(commands, args.runs)
    print(f"lint, {args.facts} facts, {args.files} source files, {args.logs} logs")
    print_ratios({"plain": "lint, no citation", "cited": "lint, every fact citing"}, wall, cpu)


def curation_ratios(args: argparse.Namespace, tmp: Path) -> None:
    root = tmp / "reviewed"
    root.mkdir()
    cited_repo(root, 10, args.facts, args.logs)
    subprocess.run([*TOOL, "review", str(root), *TODAY], check=True, capture_output=True)
    saved = _memory(root)
    repo, day = str(root), TODAY

    def fact(*words: str) -> list[str]:
        return [*TOOL, "fact", *words, repo, *day]

    cite = fact("cite", "fact-1", "src/pkg1/module_1.py:4-5")
    commands = {
        "version": [*TOOL, "--version"],
        "edit": fact("edit", "fact-1", "Fact 1, said better"),
        "supersede": fact("supersede", "fact-1", "fact-2"),
        "retract": fact("retract", "fact-1", "--reason", "not true"),
        "archive": fact("archive", "fact-1"),
        "restore": fact("restore", "fact-1"),
        "pin": fact("pin", "fact-1"),
        "unpin": fact("unpin", "fact-1"),
        "expire": fact("expire", "fact-1", "2031-01-01"),
        "relate": fact("relate", "fact-1", "fact-2"),
        "cite": cite,
        "recite": fact("recite", "fact-1"),
        "show": [*TOOL, "fact", "show", "fact-1", repo],
    }
    # A command that undoes another has that other run first, untimed.
    first = {"restore": fact("archive", "fact-1"), "unpin": fact("pin", "fact-1"), "recite": cite}

    def prepare(name: str) -> None:
        _put_back(root, saved)
        if name in first:
            subprocess.run(first[name], check=True, capture_output=True)

    wall, cpu = interleaved(commands, args.runs, prepare)
    print(f"\ncuration commands, {args.facts} facts, {args.logs} logs (reviewed)")
    labels = {
        name: "agent-memory --version" if name == "version" else f"fact {name}" for name in commands
    }
    print_ratios(labels, wall, cpu)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--logs", type=int, default=10_000)
    parser.add_argument("--facts", type=int, default=1_000)
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    byte_compile()
    with tempfile.TemporaryDirectory() as folder:
        lint_ratio(args, Path(folder))
        curation_ratios(args, Path(folder))


if __name__ == "__main__":
    main()
