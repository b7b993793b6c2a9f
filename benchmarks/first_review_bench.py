"""First-review benchmark: an absolute bound, since the issue states one (not part of the suite).

    python benchmarks/first_review_bench.py [--facts 50000] [--runs 3] [--limit 3.0]

The review a repo gets right after adoption, when every fact changes tier at once: --facts
facts, nine in ten in continuity.md (half of them unused for 25 logs: archived and listed as
"working_window passed without a use"; half used 11 logs ago: archive-candidate) and one in ten
in the archive, each from a section of its own and referenced again (reactivated into as many
new sections). 50,000 is what one continuity.md can hold (100,000 lines). Reports the medians
over --runs of `agent-memory review` on a fresh copy, wall and CPU time (user + system), and
fails (exit 1) when the median wall time is over --limit seconds: the bound is 3 s on 2 cores.
The package is byte-compiled first (see measure.py).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from measure import byte_compile

TOOL = [sys.executable, "-m", "agent_memory"]
LOGS = 25  # 2020-01-02 to 2020-01-26: more than archive_window (20) after 2020-01-01


def footer(fid: str, last_used: str, uses: int, tier: str, more: str = "") -> str:
    return (
        f"  <!-- id: {fid} | created: 2020-01-01 | last_used: {last_used} | uses: {uses} | "
        f"tier: {tier}{more} -->\n"
    )


def build(root: Path, facts: int) -> None:
    subprocess.run(
        [*TOOL, "enable", str(root), "--today", "2020-01-01", "--vendor", "none"],
        check=True,
        capture_output=True,
    )
    archived = facts // 10
    live = facts - archived
    body = "".join(
        f"- Fact {i} about the system\n"
        + (footer(f"fact-{i}", "2020-01-01", 1, "working") if i % 2 else "")
        + (footer(f"fact-{i}", "2020-01-15", 2, "working") if i % 2 == 0 else "")
        for i in range(live)
    )
    continuity = root / "memory/continuity.md"
    text = continuity.read_text().replace("## Key Decisions\n", "## Key Decisions\n" + body)
    continuity.write_text(text)
    old = "".join(
        f"- Old fact {i}\n"
        + footer(
            f"old-{i}", "2019-12-01", 1, "archived", f" | from: Topic {i} | archived: 2019-12-02"
        )
        for i in range(archived)
    )
    archive = root / "memory/archive"
    archive.mkdir(exist_ok=True)
    (archive / "2019-Q4.md").write_text(f"# Archive 2019-Q4\n\n## Facts\n{old}")
    for k in range(LOGS):  # the last five logs use the archived facts again: active
        used = (
            ", ".join(f"old-{i}" for i in range(k - LOGS + 5, archived, 5)) if k >= LOGS - 5 else ""
        )
        (root / f"memory/sessions/2020-01-{2 + k:02d}-000000.md").write_text(
            f"# Session\n\n## Memory References\n- Referenced: {used or 'none'}\n"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--facts", type=int, default=50_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--limit", type=float, default=3.0)
    args = parser.parse_args()
    byte_compile()
    wall, cpu = [], []
    with tempfile.TemporaryDirectory() as tmp:
        built = Path(tmp) / "built"
        built.mkdir()
        build(built, args.facts)
        for run in range(args.runs):
            work = Path(tmp) / f"run{run}"
            shutil.copytree(built, work)
            os.sync()  # the copy's writes are the benchmark's, not the review's to flush
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            done = subprocess.run(
                [*TOOL, "review", str(work), "--today", "2020-02-01", "--json"],
                check=True,
                capture_output=True,
                text=True,
            )
            wall.append(time.perf_counter() - started)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
            changes = len(json.loads(done.stdout)["summary"]["tier_changes"])
            shutil.rmtree(work)
    median_wall = statistics.median(wall)
    print(f"facts={args.facts} tier changes={changes} runs={args.runs} cores={os.cpu_count()}")
    print(f"first review   wall {median_wall:7.3f}s   cpu {statistics.median(cpu):7.3f}s")
    print(
        f"limit          wall {args.limit:7.3f}s   {'ok' if median_wall <= args.limit else 'OVER'}"
    )
    if median_wall > args.limit:
        sys.exit(1)


if __name__ == "__main__":
    main()
