"""Review benchmark: ratios against floors measured in the same run (not part of the test suite).

    python benchmarks/review_bench.py [--logs 10000] [--facts 1000] [--runs 5]

Builds a seeded repo (references drawn from a Zipf-like distribution, as real use is skewed) and
reports, as medians over --runs (the floor, the full review and --version run in turn):
  full   = `agent-memory review --full`   / a Python process that only reads every log's bytes
  incr   = incremental review of 10 new logs / `agent-memory --version`
each as wall time and as CPU time (user + system): on a shared, busy machine the wall time
measures the neighbours too, and the floor's wall time moves by a third from one run to the next.
The package is byte-compiled first (see measure.py).
"""

from __future__ import annotations

import argparse
import calendar
import contextlib
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from measure import byte_compile, interleaved

FLOOR = (
    "import os, sys\n"
    "d = sys.argv[1]\n"
    "for n in sorted(os.listdir(d)):\n"
    "    open(os.path.join(d, n), 'rb').read()\n"
)


def build(root: Path, logs: int, facts: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "agent_memory",
            "enable",
            str(root),
            "--today",
            "2020-01-01",
            "--vendor",
            "none",
        ],
        check=True,
        capture_output=True,
    )
    # Every tenth id has dots, as hand-run repos name releases (release-1.2.0-…).
    ids = [f"release-{i}.{i % 7}.0-fact" if i % 10 == 5 else f"fact-{i}" for i in range(facts)]
    weights = [1 / (i + 1) for i in range(facts)]
    threads = ids[-20:]  # the last twenty are one-file open threads (DESIGN §13)
    body = "".join(
        f"- Fact {i} about the system\n  <!-- id: {fid} | created: 2020-01-01 | "
        f"last_used: 2020-01-01 | uses: 1 | tier: working -->\n"
        for i, fid in enumerate(ids[:-20])
    )
    cont = root / "memory/continuity.md"
    cont.write_text(cont.read_text().replace("## Key Decisions\n", "## Key Decisions\n" + body))
    (root / "memory/open-threads").mkdir()
    for fid in threads:
        (root / f"memory/open-threads/thread-{fid}.md").write_text(
            f"- [ ] Thread {fid}\n  <!-- id: {fid} | created: 2020-01-01 | "
            f"last_used: 2020-01-01 | uses: 1 | tier: active -->\n"
        )
    sessions = root / "memory/sessions"
    # The history spans 2020-01-02 to 2029-12, whatever its length, so the new logs of the
    # incremental run (2029-12-31) always come after it.
    start = calendar.timegm((2020, 1, 2, 0, 0, 0))
    step = (calendar.timegm((2029, 12, 1, 0, 0, 0)) - start) // logs
    for n in range(logs):
        stamp = time.strftime("%Y-%m-%d-%H%M%S", time.gmtime(start + n * step))
        used = sorted(set(rng.choices(ids, weights, k=rng.randint(1, 6))))
        # One log in a hundred supersedes a fact by a newer one.
        old, new = rng.sample(ids[100:-20], 2) if n % 100 == 50 else ("", "")
        superseded = f"- Superseded: {old} → {new}\n" if old else ""
        (sessions / f"{stamp}.md").write_text(
            f"# Session {stamp}\n\n## What We Did\n- work item {n}\n- more notes here\n\n"
            f"## Decisions Made\n- none\n\n## Memory References\n- Referenced: {', '.join(used)}\n"
            + superseded
        )


TOOL = [sys.executable, "-m", "agent_memory"]
TODAY = ["--today", "2030-01-01"]


def repo_arguments(runs: int) -> argparse.Namespace:
    """--logs, --facts and --runs: the options of every benchmark run on this repo."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--logs", type=int, default=10_000)
    parser.add_argument("--facts", type=int, default=1_000)
    parser.add_argument("--runs", type=int, default=runs)
    return parser.parse_args()


@contextlib.contextmanager
def reviewed_repo(logs: int, facts: int) -> Iterator[Path]:
    """The benchmark repo, built and reviewed once, in a temporary folder removed afterwards
    (its parent is the benchmark's own to use)."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        root.mkdir()
        build(root, logs, facts)
        subprocess.run([*TOOL, "review", str(root), *TODAY], check=True, capture_output=True)
        yield root


def main() -> None:
    args = repo_arguments(runs=5)
    byte_compile()
    with reviewed_repo(args.logs, args.facts) as root:
        tool, today, tmp = TOOL, TODAY, root.parent
        floor_command = [sys.executable, "-c", FLOOR, str(root / "memory/sessions")]
        full_command = [*tool, "review", str(root), "--full", "--check", *today]
        wall, cpu = interleaved(
            {"floor": floor_command, "full": full_command, "version": [*tool, "--version"]},
            args.runs,
        )
        floor, full, version = wall["floor"], wall["full"], wall["version"]
        floor_cpu, full_cpu, version_cpu = cpu["floor"], cpu["full"], cpu["version"]
        incr_samples, incr_cpu = [], []
        for r in range(args.runs):
            work = tmp / f"incr{r}"
            shutil.copytree(root, work)
            for k in range(10):
                (work / "memory/sessions" / f"2029-12-31-{k:02d}0000.md").write_text(
                    "## Memory References\n- Referenced: fact-0, fact-3\n"
                )
            os.sync()  # the copy's writes are the benchmark's, not the review's to flush
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            subprocess.run([*tool, "review", str(work), *today], check=True, capture_output=True)
            incr_samples.append(time.perf_counter() - started)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            incr_cpu.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
            shutil.rmtree(work)
        incr = statistics.median(incr_samples)
        print(f"logs={args.logs} facts={args.facts} runs={args.runs}")
        print(f"floor (read every log)     {floor:8.3f}s")
        print(f"review --full              {full:8.3f}s   ratio {full / floor:5.2f}x")
        print(f"agent-memory --version     {version:8.3f}s")
        print(f"incremental (10 new logs)  {incr:8.3f}s   ratio {incr / version:5.2f}x")
        icpu = statistics.median(incr_cpu)
        print(f"cpu time: floor {floor_cpu:.3f}s, review --full {full_cpu:.3f}s", end="")
        print(f"   ratio {full_cpu / floor_cpu:5.2f}x")
        print(f"cpu time: --version {version_cpu:.3f}s, incremental {icpu:.3f}s", end="")
        print(f"   ratio {icpu / version_cpu:5.2f}x")


if __name__ == "__main__":
    main()
