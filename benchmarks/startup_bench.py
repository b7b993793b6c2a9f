"""Start-up and no-walk benchmark, as ratios against floors measured in the same run.

  python benchmarks/startup_bench.py [--runs 11] [--files 100000]

version = `agent-memory --version` / `python -c pass`             (lazy imports)
check   = `enable --check` on a repo with --files files / on an empty repo   (no tree walk)
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from measure import byte_compile, median_process


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--files", type=int, default=100_000)
    args = parser.parse_args()
    byte_compile()
    tool = [sys.executable, "-m", "agent_memory"]
    floor = median_process([sys.executable, "-c", "pass"], args.runs)
    version = median_process([*tool, "--version"], args.runs)
    with tempfile.TemporaryDirectory() as tmp:
        empty, big = Path(tmp, "empty"), Path(tmp, "big")
        for repo in (empty, big):
            repo.mkdir()
            subprocess.run(
                [*tool, "enable", str(repo), "--today", "2026-01-01"],
                check=True,
                capture_output=True,
            )
        for i in range(args.files):
            folder = big / "src" / f"d{i // 1000}"
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"f{i}.txt").touch()
        check_empty = median_process([*tool, "enable", str(empty), "--check"], args.runs)
        check_big = median_process([*tool, "enable", str(big), "--check"], args.runs)
    print(f"python -c pass                  {floor:8.4f}s")
    print(f"agent-memory --version          {version:8.4f}s   ratio {version / floor:5.2f}x")
    print(f"enable --check, empty repo      {check_empty:8.4f}s")
    print(
        f"enable --check, {args.files:,} files  {check_big:8.4f}s   ratio "
        f"{check_big / check_empty:5.2f}x"
    )


if __name__ == "__main__":
    main()
