"""Capture benchmark: generated transcripts of --mb megabytes (not part of the tests).

    python benchmarks/capture_bench.py [--mb 50] [--runs 3]

Must hold (issue 26): `session capture` of a 50 MB transcript in at most 2 s and 30 MB of peak
memory. Claude Code's shape is a long real session: tool results (file reads, test output) are
most of the bytes, then the agent's edits and its messages, which name memory ids (and now and
then propose a fact: a marker line, a save to its own memory). Gemini CLI's holds the same, with
each agent message written twice (Gemini re-appends a message whenever it changes, so capture
folds them by id). Codex's runs its patches through exec_command, each followed by its
patch_apply_end event. "claude + subagents" splits the 50 MB between the session's transcript
and ten subagents' (<session>/subagents/agent-*.jsonl), which capture reads with it. The last is
Claude's with one 200 MB line added, which capture must skip without holding more than its 8 MiB
bound (it once took 2.5 GB): 250 MB read, outside the 30 MB goal.
Reports, as medians: wall time, CPU time, each run's own peak RSS, and a floor that only reads
every line.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from measure import byte_compile, median_process

FLOOR = "import sys\nfor name in sys.argv[1:]:\n    for _ in open(name, 'rb'): pass\n"
SESSION = "5e1f0c2a-77b3-4c1d-9a2e-3b4c5d6e7f80"
# One message in PROPOSE has a marker line, and one edit (Gemini: one call) in PROPOSE is a
# save to the agent's own memory: capture reads proposals all along the transcript.
PROPOSE = 200
MEMORY = "/home/dev/.claude/projects/-home-dev-src-app/memory"
WORDS = [
    *("the", "route", "handler", "returns", "a", "response", "and", "the", "test", "suite"),
    *("checks", "it", "again"),
]
# Runs the command in a child and prints that child's CPU time and peak RSS alone (the parent's
# RUSAGE_CHILDREN would also count every earlier child of the benchmark).
RUSAGE = (
    "import resource, subprocess, sys\n"
    "done = subprocess.run(sys.argv[1:], capture_output=True)\n"
    "use = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
    "print(done.returncode, use.ru_utime + use.ru_stime, use.ru_maxrss / 1024)\n"
    "sys.stderr.write(done.stderr.decode())\n"
)


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
    with path.open("w") as out:
        n = 0
        while out.tell() < megabytes << 20:
            n += 1
            said = " ".join(rng.choices(WORDS, k=60)) + f" per {rng.choice(ids)}."
            said += f"\nDecision: {' '.join(rng.choices(WORDS, k=8))}" * (n % PROPOSE == 0)
            out.write(_line("assistant", n, {"role": "assistant", "content": [
                {"type": "text", "text": said}]}))  # fmt: skip
            source = "\n".join(" ".join(rng.choices(WORDS, k=12)) for _ in range(40))
            folder = MEMORY if n % PROPOSE == 1 else "/home/dev/src/app/src"
            call = {"type": "tool_use", "id": f"t{n}", "name": rng.choice(["Edit", "Bash"]),
                    "input": {"file_path": f"{folder}/m{n % 50}.py",
                              "old_string": source[:800], "new_string": source[800:1600],
                              "command": "python -m pytest -q"}}  # fmt: skip
            out.write(_line("assistant", n, {"role": "assistant", "content": [call]}))
            result = {"type": "tool_result", "tool_use_id": f"t{n}", "content": source * 4}
            out.write(_line("user", n, {"role": "user", "content": [result]}))


def gemini(path: Path, megabytes: int, ids: list[str], seed: int = 11) -> None:
    """Gemini CLI's JSONL: a metadata line, then messages, each agent message written twice."""
    rng = random.Random(seed)
    meta = {"sessionId": SESSION, "projectHash": "0" * 64, "kind": "main"}
    meta["startTime"] = "2026-09-21T12:00:00.000Z"
    with path.open("w") as out:
        out.write(json.dumps(meta) + "\n")
        n = 0
        while out.tell() < megabytes << 20:
            n += 1
            stamp = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(1_790_000_000 + n))
            source = "\n".join(" ".join(rng.choices(WORDS, k=12)) for _ in range(40))
            asked = {"id": f"u{n}", "timestamp": stamp, "type": "user", "content": [source]}
            call = {"name": "replace", "status": "success", "result": [{"output": source * 3}]}
            if n % PROPOSE == 0:
                call["name"] = "save_memory"
            call["args"] = {"file_path": f"/home/dev/src/app/src/m{n % 50}.py",
                            "old_string": source[:800], "new_string": source[800:1600]}  # fmt: skip
            call["args"]["fact"] = " ".join(rng.choices(WORDS, k=8))
            said = " ".join(rng.choices(WORDS, k=60)) + f" per {rng.choice(ids)}."
            answer = {"id": f"g{n}", "timestamp": stamp, "type": "gemini", "content": said}
            answer["toolCalls"] = [call]
            for record in (asked, answer, answer, {"$set": {"lastUpdated": stamp}}):
                out.write(json.dumps(record) + "\n")


def codex(path: Path, megabytes: int, ids: list[str], seed: int = 11) -> None:
    """Codex 0.169's rollout: each turn a message, a patch run through exec_command, its
    patch_apply_end event and the command's output."""
    rng = random.Random(seed)
    cwd = "/home/dev/src/app"
    meta = {"id": SESSION, "timestamp": "2026-09-21T12:00:00.000Z", "cwd": cwd}
    with path.open("w") as out:
        out.write(json.dumps({"type": "session_meta", "payload": meta}) + "\n")
        n = 0
        while out.tell() < megabytes << 20:
            n += 1
            stamp = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(1_790_000_000 + n))
            source = "\n".join(" ".join(rng.choices(WORDS, k=12)) for _ in range(40))
            said = " ".join(rng.choices(WORDS, k=60)) + f" per {rng.choice(ids)}."
            text = [{"type": "output_text", "text": said}]
            patch = f"*** Begin Patch\n*** Update File: src/m{n % 50}.py\n@@\n-{source[:800]}"
            cmd = json.dumps({"cmd": f"apply_patch <<'EOF'\n{patch}\n*** End Patch\nEOF\n"})
            change = {"type": "update", "unified_diff": source[:800], "move_path": None}
            done = {"type": "patch_apply_end", "call_id": f"c{n}", "success": True}
            done["changes"] = {f"{cwd}/src/m{n % 50}.py": change}
            output = {"type": "function_call_output", "call_id": f"c{n}", "output": source * 4}
            for kind, payload in (
                ("response_item", {"type": "message", "role": "assistant", "content": text}),
                ("response_item", {"type": "function_call", "name": "exec_command",
                                   "arguments": cmd, "call_id": f"c{n}"}),
                ("event_msg", done),
                ("response_item", output),
            ):  # fmt: skip
                out.write(json.dumps({"timestamp": stamp, "type": kind, "payload": payload}))
                out.write("\n")


def subagents(path: Path, megabytes: int, ids: list[str]) -> None:
    """Claude Code's shape: three fifths in the session's transcript, the rest in ten subagents'."""
    transcript(path, megabytes - 10 * (megabytes // 20), ids)
    folder = path.with_suffix("") / "subagents"
    folder.mkdir(parents=True)
    for n in range(10):
        transcript(folder / f"agent-a{n:06x}.jsonl", max(1, megabytes // 20), ids, seed=n)


def long_line(path: Path, megabytes: int, ids: list[str]) -> None:
    """Claude Code's shape with one line of 200 MB (a tool input) after its first line."""
    transcript(path, megabytes, ids)
    lines = path.read_bytes().split(b"\n", 1)
    huge = {
        "type": "tool_use",
        "id": "t0",
        "name": "Write",
        "input": {"content": "x " * (100 << 20)},
    }
    with path.open("wb") as out:
        out.write(lines[0] + b"\n")
        out.write(_line("assistant", 0, {"role": "assistant", "content": [huge]}).encode())
        out.write(lines[1])


SHAPES = {
    "claude": transcript,
    "gemini": gemini,
    "codex": codex,
    "claude + subagents": subagents,
    "claude + one 200 MB line": long_line,
}


def one_run(command: list[str]) -> tuple[float, float, float]:
    """Wall time, CPU time and peak resident memory (MB) of one run of ``command``."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", RUSAGE, *command], capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    code, cpu, peak = done.stdout.split()
    if code != "0":
        raise SystemExit(done.stderr)
    return elapsed, float(cpu), float(peak)


def _memory_repo(tool: list[str], repo: Path, ids: list[str]) -> None:
    repo.mkdir()
    subprocess.run(
        [*tool, "enable", str(repo), "--vendor", "none"], check=True, capture_output=True
    )
    body = "".join(
        f"- Fact {i}\n  <!-- id: {i} | created: 2026-01-01 | last_used: 2026-01-01 | "
        "uses: 1 | tier: working -->\n"
        for i in ids
    )
    continuity = repo / "memory/continuity.md"
    text = continuity.read_text().replace("## Key Decisions\n", "## Key Decisions\n" + body)
    continuity.write_text(text)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=int, default=50)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    byte_compile()
    tool = [sys.executable, "-m", "agent_memory"]
    tmp = Path(tempfile.mkdtemp())
    try:
        ids = [f"fact-{i}" for i in range(200)]
        repo = tmp / "repo"
        _memory_repo(tool, repo, ids)
        for shape, write in SHAPES.items():
            shutil.rmtree(tmp / SESSION, ignore_errors=True)
            path = tmp / f"{SESSION}.jsonl"
            write(path, args.mb, ids)
            files = [str(path), *map(str, tmp.glob(f"{SESSION}/*/*"))]
            size = sum(Path(name).stat().st_size for name in files) / (1 << 20)
            floor = median_process([sys.executable, "-c", FLOOR, *files], args.runs)
            runs = []
            for _ in range(args.runs):
                shutil.rmtree(repo / "memory/sessions")
                (repo / "memory/sessions").mkdir()
                command = [*tool, "session", "capture", str(repo), "--transcript", str(path)]
                runs.append(one_run(command))
            wall, cpu, peak = (statistics.median(column) for column in zip(*runs, strict=True))
            print(f"{shape}: transcript {size:.1f} MB, runs={args.runs}")
            print(f"  floor (read every line)   {floor:7.3f}s")
            print(
                f"  session capture           {wall:7.3f}s   cpu {cpu:6.3f}s   "
                f"ratio {wall / floor:5.2f}x   (must be <= 2 s)"
            )
            print(f"  peak memory (max RSS)     {peak:7.1f} MB   (must be <= 30 MB)")
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
