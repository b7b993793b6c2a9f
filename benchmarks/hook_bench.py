"""Hook benchmark: each hook command with nothing (or little) to do, as a ratio against
`agent-memory --version` measured in the same run.

    python benchmarks/hook_bench.py [--logs 10000] [--facts 1000] [--runs 11]

The repo is review_bench's (--facts facts, --logs logs), reviewed once and widened so that no
review is due, with an archive quarter of 10,000 more facts, committed to git (the session start
asks git what the branch changed). Each hook reads its payload on
stdin, as an agent passes it:
  context       = `context`, and 5.0.0's session-start entry (`sh -c "review --if-due; context
                  --hook"`), for reference; `context --task`
  session-start = `hook session-start` (no review due: the context as JSON, and git asked
                  what the branch changed)
  pre-compact   = `hook pre-compact` on a transcript already captured
  prompt, none  = `hook prompt` whose words no fact holds (prints nothing)
  prompt, held  = `hook prompt` whose words most facts hold, none rare enough to clear the
                  floor (prints nothing)
  prompt, hits  = `hook prompt` that names an archived fact (prints it)
  prompt, live  = `hook prompt` whose hits include a live fact, which the start context listed
                  (laid out again to know it; prints the archived ones)
  prompt, made  = the same prompt when the derived store holds no memory file's rows yet (the
                  first prompt after a review changed them): each file's are made
The prompts keep the derived store in the repo's .git/agent-memory.
Each command is timed as wall time and as CPU time (the figure to trust on a busy machine).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from context_bench import widen
from measure import byte_compile, interleaved, print_ratios
from review_bench import TOOL, repo_arguments, reviewed_repo

FOOT = "<!-- id: old-{0} | created: 2020-01-01 | last_used: 2020-01-01 | uses: 1 | tier: archived"
# Words every archived fact holds, and "the" a tenth of the facts: none can reach the floor
HELD = "what about the module decision"
TRANSCRIPT = Path(__file__).parent.parent / "tests/fixtures/transcripts/claude/session-basic.jsonl"


def archive(root: Path, count: int) -> None:
    body = "".join(
        f"- Old decision {i} about subsystem {i % 97} and module m{i}\n  {FOOT.format(i)} -->\n"
        for i in range(count)
    )
    (root / "memory/archive/2020-Q1.md").write_text("# Archive 2020-Q1\n\n## Facts\n" + body)


def committed(root: Path) -> None:
    """The reviewed repo as the hook benchmarks time it: 1,000 live facts, 10,000 archived, and
    the whole committed (git's paths are a session's focus)."""
    widen(root)
    archive(root, 10_000)
    for git in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "memory"]):
        env = ["-c", "user.name=b", "-c", "user.email=b@b"]
        subprocess.run(["git", *env, *git], cwd=root, check=True, capture_output=True)


def main() -> None:
    args = repo_arguments(runs=11)
    byte_compile()
    with reviewed_repo(args.logs, args.facts) as root:
        committed(root)
        (root / "src.py").write_text("changed\n")  # the session's focus: one new file
        where = {"cwd": str(root), "session_id": "b"}
        # The session came after the last review, as a hook's does (the fixture's dates are
        # older than the repo's logs: its log would sort before the review's mark, as a merged
        # one does, and every command would sort all 10,000 names to count it)
        transcript = root.parent / "session.jsonl"
        transcript.write_text(TRANSCRIPT.read_text().replace('"2026-11-20T', '"2030-01-02T'))
        capture = {**where, "transcript_path": str(transcript)}
        subprocess.run([*TOOL, "session", "capture", str(root), "--transcript", str(transcript)],
                       check=True, capture_output=True)  # fmt: skip
        payloads = {
            "start": {**where, "hook_event_name": "SessionStart"},
            "compact": {**capture, "hook_event_name": "PreCompact"},
            "none": {**where, "hook_event_name": "UserPromptSubmit", "prompt": "please fix it"},
            "held": {**where, "hook_event_name": "UserPromptSubmit", "prompt": HELD},
            "hits": {**where, "hook_event_name": "UserPromptSubmit", "prompt": "module m4242"},
            "live": {**where, "hook_event_name": "UserPromptSubmit", "prompt": "check the release"},
        }
        tool = " ".join(TOOL)
        old = f"{tool} review --if-due {root} >&2; {tool} context --hook {root}"
        commands = {
            "version": [*TOOL, "--version"],
            "context": [*TOOL, "context", str(root)],
            "task": [*TOOL, "context", str(root), "--task", "please fix module m4242"],
            "old": ["sh", "-c", old],
            "start": [*TOOL, "hook", "session-start"],
            "compact": [*TOOL, "hook", "pre-compact"],
            "none": [*TOOL, "hook", "prompt"],
            "held": [*TOOL, "hook", "prompt"],
            "hits": [*TOOL, "hook", "prompt"],
            "live": [*TOOL, "hook", "prompt"],
            "made": [*TOOL, "hook", "prompt"],
        }
        stdin = {name: json.dumps(p).encode() for name, p in payloads.items()}
        stdin["made"] = stdin["hits"]
        hit = subprocess.run(commands["hits"], input=stdin["hits"], capture_output=True)
        assert b"old-4242" in hit.stdout, hit.stdout + hit.stderr
        held = subprocess.run(commands["held"], input=stdin["held"], capture_output=True)
        assert held.returncode == 0 and not held.stdout, held.stdout + held.stderr
        print(f"logs={args.logs} facts={args.facts} archived=10000 runs={args.runs}, run in turn")

        def prepare(name: str) -> None:
            if name == "made":  # last in each round: the others find the rows it makes
                shutil.rmtree(root / ".git/agent-memory", ignore_errors=True)

        wall, cpu = interleaved(commands, args.runs, prepare, stdin)
        labels = {
            "version": "agent-memory --version",
            "context": "context (for reference)",
            "task": "context --task",
            "old": "5.0.0's session-start entry",
            "start": "hook session-start (not due)",
            "compact": "hook pre-compact (captured)",
            "none": "hook prompt (no word held)",
            "held": "hook prompt (common words)",
            "hits": "hook prompt (an archived hit)",
            "live": "hook prompt (a live hit)",
            "made": "hook prompt (hit, rows made)",
        }
        print_ratios(labels, wall, cpu)


if __name__ == "__main__":
    main()
