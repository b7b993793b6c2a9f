"""The budgets of DESIGN §25: each read command and hook as a CPU ratio to `agent-memory
--version` measured in the same run, on a memory of 1,000 live facts, 10,000 archived and
10,000 logs.

    python benchmarks/budgets_bench.py [--logs 10000] [--facts 1000] [--runs 7]

The repo is review_bench's (--facts live facts, --logs logs), reviewed once and widened so that
no review is due, with an archive quarter of 10,000 more facts (hook_bench's), committed to git.
Each hook's payload names a transcript of 4 MiB, the most of one a hook reads (a prompt that
clears the floor reads it for what the agent holds of our context; a session start, on a
resume only), and none of our context in it: the worst case. `held view` is `live`'s prompt in
a session whose transcript holds the start's view, as a Claude Code or Codex session has it.
Budgets: each command <= 1.5x; `first` (a prompt naming an archived fact right after the archive
changed: its rows of the derived store made again) <= 5x. Medians of CPU time (user + system of
the child), the commands run in turn.

With BEFORE=DIR in the environment (DIR: the ``installer`` folder of another checkout, say the
code before a change), each command also runs with DIR first on PYTHONPATH, in the same rounds:
``name`` is this code, ``name~`` that one, each against its own ``version``, both from
PYTHONPATH.
"""

from __future__ import annotations

import compileall
import json
import os
import subprocess
from pathlib import Path

import agent_memory
from agent_memory.commands.hook_payload import TRANSCRIPT_TAIL
from hook_bench import HELD, TRANSCRIPT, committed
from measure import byte_compile, interleaved
from review_bench import TODAY, TOOL, repo_arguments, reviewed_repo

BUDGET, FIRST = 1.5, 5.0


def main() -> None:
    args = repo_arguments(runs=7)
    byte_compile()
    with reviewed_repo(args.logs, args.facts) as root:
        committed(root)
        quarter = root / "memory/archive/2020-Q1.md"
        original = quarter.read_bytes()
        # a session's transcript at the most a hook reads of one: its last TRANSCRIPT_TAIL
        transcript = root.parent / "session.jsonl"
        lines = TRANSCRIPT.read_bytes()
        transcript.write_bytes(lines * (TRANSCRIPT_TAIL // len(lines) + 1))
        where = {"cwd": str(root), "session_id": "b", "transcript_path": str(transcript)}
        prompt = {**where, "hook_event_name": "UserPromptSubmit"}
        payloads = {
            "start": {**where, "hook_event_name": "SessionStart", "source": "startup"},
            "common": {**prompt, "prompt": HELD},
            "archived": {**prompt, "prompt": "module m4242"},
            "live": {**prompt, "prompt": "check the release"},
        }
        # the same live hit in a session whose transcript holds the start's view, as Claude
        # Code keeps it (3 MiB after it): the prompt reads the facts it showed from that view
        started = subprocess.run(
            [*TOOL, "hook", "session-start"],
            input=json.dumps(payloads["start"]).encode(),
            capture_output=True,
            check=True,
        )
        view = json.loads(started.stdout)["hookSpecificOutput"]["additionalContext"]
        attachment = {"type": "hook_additional_context", "content": [view]}
        record = {"type": "attachment", "attachment": attachment, "sessionId": "b"}
        holding = root.parent / "session-held.jsonl"
        holding.write_bytes(json.dumps(record).encode() + b"\n" + lines * (3 * 2**20 // len(lines)))
        payloads["held view"] = {**payloads["live"], "transcript_path": str(holding)}
        stdin = {name: json.dumps(p).encode() for name, p in payloads.items()}
        stdin["first"] = stdin["archived"]
        repo = str(root)
        commands = {
            "version": [*TOOL, "--version"],
            "start": [*TOOL, "hook", "session-start"],
            "common": [*TOOL, "hook", "prompt"],
            "archived": [*TOOL, "hook", "prompt"],
            "live": [*TOOL, "hook", "prompt"],
            "held view": [*TOOL, "hook", "prompt"],
            "status": [*TOOL, "status", repo],
            "context": [*TOOL, "context", repo],
            "task": [*TOOL, "context", repo, "--task", "please fix module m4242"],
            "recall": [*TOOL, "recall", "module m4242", repo],
            "explain": [*TOOL, "explain", "fact-0", repo],
            "show": [*TOOL, "fact", "show", "fact-0", repo],
            "add": [*TOOL, "fact", "add", "A new fact", repo, "--dry-run", *TODAY],
            "first": [*TOOL, "hook", "prompt"],
        }
        hit = subprocess.run(commands["archived"], input=stdin["archived"], capture_output=True)
        assert b"old-4242" in hit.stdout, hit.stdout + hit.stderr
        said = [subprocess.run(commands[n], input=stdin[n], capture_output=True).stdout
                for n in ("live", "held view")]  # fmt: skip
        assert said[0] and said[0] == said[1], said  # the held view's path answers alike
        print(f"logs={args.logs} facts={args.facts} archived=10000 runs={args.runs}, in turn")

        def prepare(name: str) -> None:
            # ``first`` runs last in each round, after its quarter changed by one byte: its
            # rows are made again (and put back at the round's start, made again once more)
            if name.startswith("first"):
                quarter.write_bytes(original + (b"\n" if quarter.read_bytes() == original else b""))

        before = os.environ.get("BEFORE")
        if before:
            compileall.compile_dir(before, quiet=1)  # as pip installs it, like this code
            both, given, env = paired(commands, stdin, before)
            _, cpu = interleaved(both, args.runs, prepare, given, env)
        else:
            _, cpu = interleaved(commands, args.runs, prepare, stdin)
    print(f"{'command':<34} {'cpu':>8}   {'ratio':>6}   budget")
    for name, used in cpu.items():
        budget = FIRST if name.startswith("first") else BUDGET
        base = cpu["version~" if name.endswith("~") else "version"]
        mark = "" if name.startswith("version") or used / base <= budget else "  MISSED"
        print(f"{name:<34} {used:7.4f}s   {used / base:5.2f}x   {budget}x{mark}")


def paired(
    commands: dict[str, list[str]], stdin: dict[str, bytes], before: str
) -> tuple[dict[str, list[str]], dict[str, bytes], dict[str, dict[str, str]]]:
    """Each command twice, this code's (``name``) and ``before``'s (``name~``), both from
    PYTHONPATH so that both run alike (a folder there is looked in by every import)."""
    here = str(Path(agent_memory.__file__).parent.parent)
    both = {f"{name}{mark}": command for name, command in commands.items() for mark in ("", "~")}
    given = {f"{name}{mark}": data for name, data in stdin.items() for mark in ("", "~")}
    env = {name: {**os.environ, "PYTHONPATH": before if name.endswith("~") else here}
           for name in both}  # fmt: skip
    return both, given, env


if __name__ == "__main__":
    main()
