"""Capture benchmark: a generated Claude Code transcript of --mb megabytes (not part of the tests).

    python benchmarks/capture_bench.py [--mb 50] [--runs 3]

Must hold (issue 18): `session capture` of a 50 MB transcript in at most 2 s and 150 MB peak
memory. The transcript has the shape of a long real session: tool results (file reads, test
output) are most of the bytes, then the agent's edits and its messages, which name memory ids.
Reports, as medians: wall time, the child's peak RSS, and a floor that only reads every line.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from measure import byte_compile, median_process

FLOOR = "import sys\nfor _ in open(sys.argv[1], 'rb'): pass\n"
SESSION = "5e1f0c2a-77b3-4c1d-9a2e-3b4c5d6e7f80"


def _line(kind: str, n: int, message: dict[str, object]) -> str:
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(1_790_000_000 + n))
    record = {
        "parentUuid": f"u{n - 1}", "isSidechain": False, "userType": "external",
        "cwd": "/home/dev/src/app", "sessionId": SESSION, "version": "2.0.31",
        "gitBranch": "main", "type": kind, "message": message, "uuid": f"u{n}",
        "timestamp": stamp,
    }  # fmt: skip
    return json.dumps(record) + "\n"


def transcript(path: Path, megabytes: int, ids: list[str], seed: int = 11) -> None:
    rng = random.Random(seed)
    words = [
        "the",
        "route",
        "handler",
        "returns",
        "a",
        "response",
        "and",
        "the",
        "test",
        "suite",
        "checks",
        "it",
        "again",
    ]
    with path.open("w") as out:
        n = 0
        while out.tell() < megabytes << 20:
            n += 1
            said = " ".join(rng.choices(words, k=60)) + f" per {rng.choice(ids)}."
            out.write(_line("assistant", n, {"role": "assistant", "content": [
                {"type": "text", "text": said}]}))  # fmt: skip
            source = "\n".join(" ".join(rng.choices(words, k=12)) for _ in range(40))
            call = {"type": "tool_use", "id": f"t{n}", "name": rng.choice(["Edit", "Bash"]),
                    "input": {"file_path": f"/home/dev/src/app/src/m{n % 50}.py",
                              "old_string": source[:800], "new_string": source[800:1600],
                              "command": "python -m pytest -q"}}  # fmt: skip
            out.write(_line("assistant", n, {"role": "assistant", "content": [call]}))
            result = {"type": "tool_result", "tool_use_id": f"t{n}", "content": source * 4}
            out.write(_line("user", n, {"role": "user", "content": [result]}))


def peak_rss(command: list[str]) -> tuple[float, float]:
    """Wall time and peak resident memory (MB) of one run of ``command``."""
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(done.stderr.decode())
    return elapsed, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=int, default=50)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    byte_compile()
    tool = [sys.executable, "-m", "agent_memory"]
    tmp = Path(tempfile.mkdtemp())
    try:
        repo = tmp / "repo"
        repo.mkdir()
        subprocess.run(
            [*tool, "enable", str(repo), "--vendor", "none"], check=True, capture_output=True
        )
        ids = [f"fact-{i}" for i in range(200)]
        body = "".join(
            f"- Fact {i}\n  <!-- id: {i} | created: 2026-01-01 | last_used: 2026-01-01 | "
            "uses: 1 | tier: working -->\n"
            for i in ids
        )
        continuity = repo / "memory/continuity.md"
        text = continuity.read_text().replace("## Key Decisions\n", "## Key Decisions\n" + body)
        continuity.write_text(text)
        path = tmp / f"{SESSION}.jsonl"
        transcript(path, args.mb, ids)
        size = path.stat().st_size / (1 << 20)
        floor = median_process([sys.executable, "-c", FLOOR, str(path)], args.runs)
        times, peak = [], 0.0
        for _ in range(args.runs):
            shutil.rmtree(repo / "memory/sessions")
            (repo / "memory/sessions").mkdir()
            elapsed, peak = peak_rss(
                [*tool, "session", "capture", str(repo), "--transcript", str(path)]
            )
            times.append(elapsed)
        capture = statistics.median(times)
        print(f"transcript {size:.1f} MB, runs={args.runs}")
        print(f"floor (read every line)   {floor:7.3f}s")
        print(
            f"session capture           {capture:7.3f}s   ratio {capture / floor:5.2f}x"
            "   (must be <= 2 s)"
        )
        print(f"peak memory (max RSS)     {peak:7.1f} MB   (must be <= 150 MB)")
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
