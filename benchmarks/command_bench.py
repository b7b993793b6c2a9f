"""The commands an agent runs most, each through the package's entry and through click alone, as
CPU ratios to `agent-memory --version` (which goes through click) measured in the same run.

    python benchmarks/command_bench.py [--logs 10000] [--facts 1000] [--runs 7]

The repo is hook_bench's: review_bench's (--facts facts, --logs logs), reviewed once, widened so
that no review is due, with 10,000 archived facts, committed to git. Each command runs twice:
  entry = `python -m agent_memory ...` (the quick path answers it before click is imported)
  click = click's group called at once (`agent_memory.cli.app.main`), the quick path skipped
The budget (issue 37) is 1.5x `--version` for each hook, `status`, `context` and `recall`: a
speed twin stays only where the click column misses it.
"""

from __future__ import annotations

import json
import subprocess
import sys

from hook_bench import committed
from measure import byte_compile, interleaved
from review_bench import TOOL, repo_arguments, reviewed_repo

CLICK = [
    sys.executable,
    "-c",
    "import gc, sys; gc.disable(); from agent_memory.cli.app import main; "
    "main(sys.argv[1:], prog_name='agent-memory')",
]


def main() -> None:
    args = repo_arguments(runs=7)
    byte_compile()
    with reviewed_repo(args.logs, args.facts) as root:
        committed(root)
        where = {"cwd": str(root), "session_id": "b"}
        start = {**where, "hook_event_name": "SessionStart"}
        prompt = {**where, "hook_event_name": "UserPromptSubmit", "prompt": "module m4242"}
        words = {
            "hook session-start": (["hook", "session-start"], start),
            "hook prompt": (["hook", "prompt"], prompt),
            "status": (["status", str(root)], None),
            "context": (["context", str(root)], None),
            "context --task": (["context", str(root), "--task", "fix module m4242"], None),
            "recall": (["recall", "module m4242", str(root)], None),
        }
        commands = {"--version": [*TOOL, "--version"]}
        stdin: dict[str, bytes] = {}
        for label, (argv, payload) in words.items():
            for way, tool in (("entry", TOOL), ("click", CLICK)):
                commands[f"{label} ({way})"] = [*tool, *argv]
                if payload is not None:
                    stdin[f"{label} ({way})"] = json.dumps(payload).encode()
        for name, command in commands.items():  # warm: each file's derived data made once
            subprocess.run(command, capture_output=True, input=stdin.get(name), check=True)
        print(f"logs={args.logs} facts={args.facts} archived=10000 runs={args.runs}, run in turn")
        _wall, cpu = interleaved(commands, args.runs, None, stdin)
    base = cpu["--version"]
    print(f"{'':34} {'cpu':>9}   {'ratio':>6}")
    for name, seconds in cpu.items():
        print(f"{name:<34} {seconds:8.4f}s   {seconds / base:5.2f}x")


if __name__ == "__main__":
    main()
