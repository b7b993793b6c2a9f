"""How much of what each real session used its start showed in full, over a repo's history.

    python benchmarks/context_replay.py CLONE [--max-bytes 8192] [--query none|firstline|log]
                                              [--prompt-recall [--prompt firstline|previous]]
                                              [--first-of-commit] [--replay] [--json]

CLONE is a git clone of a repo that keeps its memory in memory/ (full history). For each session
log, in the order history added them, the memory is read as it stood in the commit before the
one that added the log (continuity.md, the one-file threads, vision.md and the archive, and what
the latest logs then in memory/sessions/ used, straight from git: nothing is written), and the
context is rendered at --max-bytes with the task --query gives, from what a session start could
know:
  none       no task (the default)
  firstline  the log's first body line with every fact id removed: a stand-in for a one-line
             prompt written before the session
  log        the whole log, its ids included: an UPPER BOUND no session start has
--prompt-recall also runs the prompt hook's selection (``prompt_recall.shown``) once, against the
start view's facts in full, with the prompt --prompt gives: firstline (the default, as above:
written after the session) or previous, the first body line of the log before it in history,
ids removed: a line the session start already had. Of the ids the log lists as used that
existed then:
  full     the fact's text is in the view (``View.full``: an excerpt or one line is not)
  named    the view names it (in full, by excerpt or by its one line)
  prompt   in full in the view or in the prompt hook's lines (--prompt-recall)
--first-of-commit counts only the first log each commit adds: a commit that adds several logs
holds the state before the first session only (the later ones started from memory files that
sessions before them, in the same commit, had changed, which git never saw). --replay also runs
``agent-memory replay``'s own count on the clone's work tree (enabled, at the version of this
checkout) and gives its in full on the same logs, and its headline over all of them.
Nothing of the clone is written or kept.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import NamedTuple

from agent_memory.commands.replay import replayed
from agent_memory.commands.settle import memory_of
from agent_memory.core.agents import context as viewing
from agent_memory.core.agents import prompt_recall
from agent_memory.core.agents import recall as searching
from agent_memory.core.agents.relevance import RECENT_SESSIONS
from agent_memory.core.replay import tally
from agent_memory.errors import AgentMemoryError
from agent_memory.layout import CONTINUITY, VISION
from agent_memory.parse import facts
from agent_memory.parse.lognames import LogNames
from agent_memory.parse.sessions import read_refs
from agent_memory.parse.sidefiles import parse_thread, parse_vision
from agent_memory.shell.repo import Repo

SESSIONS = "memory/sessions/"
_LOG = re.compile(r"^memory/sessions/\d{4}-\d{2}-\d{2}-\d{6}(?:-[^/]*)?\.md$")
_FIELD = re.compile(r"^\s*(?:[-*]\s+)?\*\*[^*]+:\*\*")  # **Agent:** Claude Code
_AROUND = "`*_[](){}<>\"',.;:!?"  # what may stand around an id in a line


class Git:
    """Blobs and trees of one clone, through one ``git cat-file --batch``."""

    def __init__(self, clone: Path) -> None:
        self.clone = clone
        self._batch = subprocess.Popen(
            ["git", "-C", str(clone), "cat-file", "--batch"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )

    def run(self, *args: str) -> str:
        return subprocess.run(
            ["git", "-C", str(self.clone), *args], check=True, capture_output=True, text=True
        ).stdout

    def blob(self, spec: str) -> bytes | None:
        assert self._batch.stdin is not None and self._batch.stdout is not None
        self._batch.stdin.write(spec.encode() + b"\n")
        self._batch.stdin.flush()
        header = self._batch.stdout.readline().split()
        if len(header) < 3:
            return None
        data = self._batch.stdout.read(int(header[2]) + 1)[:-1]
        return data if header[1] == b"blob" else None

    def files(self, commit: str, under: str) -> list[str]:
        return self.run("ls-tree", "-r", "--name-only", commit, "--", under).splitlines()


def logs_in_order(git: Git) -> list[tuple[str, str]]:
    """(commit that added it, path) for each session log, in the order history added them."""
    out = git.run(
        "log",
        "--reverse",
        "--topo-order",
        "--diff-filter=A",
        "--format=@%H",
        "--name-only",
        "--",
        SESSIONS,
    )
    seen: dict[str, str] = {}
    commit = ""
    for line in out.splitlines():
        if line.startswith("@"):
            commit = line[1:]
        elif _LOG.match(line) and line not in seen:
            seen[line] = commit
    return [(c, p) for p, c in seen.items()]


class State(NamedTuple):
    live: tuple[facts.Document, ...]  # continuity.md, then the one-file threads and vision.md
    archive: tuple[facts.Document, ...]
    recent: tuple[frozenset[str], ...]  # the ids the latest logs used, newest first


def state_at(git: Git, commit: str) -> State | None:
    paths = git.files(commit, "memory/")
    if CONTINUITY not in paths:
        return None

    def read(path: str) -> bytes:
        return git.blob(f"{commit}:{path}") or b""

    live = [facts.parse(CONTINUITY, read(CONTINUITY))]
    threads = sorted(p for p in paths if p.startswith("memory/open-threads/") and p.endswith(".md"))
    live += [parse_thread(p, read(p)) for p in threads]
    if VISION in paths:
        live.append(parse_vision(read(VISION)))
    archive = [
        facts.parse(p, read(p))
        for p in sorted(paths)
        if p.startswith("memory/archive/") and p.endswith(".md") and not p.endswith("INDEX.md")
    ]
    logs = list(LogNames(p.removeprefix(SESSIONS) for p in paths if p.startswith(SESSIONS)).logs)
    recent = tuple(read_refs(read(SESSIONS + n)).used for n in reversed(logs[-RECENT_SESSIONS:]))
    return State(tuple(live), tuple(archive), recent)


def first_line(text: str, known: set[str]) -> str:
    """The log's first body line (not a heading, not a ``**Key:** value`` line), less every
    word that is an id of ``known`` (lowered)."""
    for line in text.splitlines():
        if line.strip() and not line.startswith("#") and not _FIELD.match(line):
            kept = (w for w in line.split() if w.strip(_AROUND).lower() not in known)
            return " ".join(kept)
    return ""


def replay(
    clone: Path,
    budget: int,
    query: str,
    recall: bool,
    first: bool = False,
    asked: str = "firstline",
) -> Iterator[dict[str, object]]:
    git = Git(clone)
    cache: dict[str, State | None] = {}
    done: set[str] = set()  # the commits whose first log was read
    before = ""  # the text of the log before, in history's order
    for commit, path in logs_in_order(git):
        data = git.blob(f"{commit}:{path}") or b""
        earlier, before = before, data.decode("utf-8", "replace")
        if first and commit in done:
            continue
        done.add(commit)
        parent = git.run("rev-list", "--parents", "-n1", commit).split()[1:2]
        if not parent:
            continue
        if parent[0] not in cache:
            try:
                cache.clear()
                cache[parent[0]] = state_at(git, parent[0])
            except AgentMemoryError:
                cache[parent[0]] = None
        state = cache[parent[0]]
        if state is None:
            continue
        docs = (*state.live, *state.archive)
        known = {f.id for d in docs for f in d.facts if f.id}
        used = sorted(read_refs(data).used & known)
        text = data.decode("utf-8", "replace")
        prompt = first_line(text, {i.lower() for i in known})
        task = {"log": text, "none": "", "firstline": prompt}[query]
        seen = viewing.view(state.live, task, None, budget, recent=state.recent)
        full = set(seen.full)
        row: dict[str, object] = {
            "log": path.rsplit("/", 1)[-1],
            "used": used,
            "full": [i for i in used if i in full],
            "named": [i for i in used if i in full or i in seen.named],
            "bytes": len(seen.text.encode()),
        }
        if recall:
            said = (
                prompt if asked == "firstline" else first_line(earlier, {i.lower() for i in known})
            )
            brought, size = prompt_hook(said, docs, frozenset(full))
            row["prompt"] = [i for i in used if i in full or i in brought]
            row["prompt_bytes"] = size
        yield row


def replayed_in_full(clone: Path, budget: int, logs: set[str]) -> tuple[int, int, float | None]:
    """``agent-memory replay``'s count on the clone's work tree, no task: the uses in full and
    of facts that existed then over ``logs``, and its headline over every log."""
    repo = Repo(clone)
    memory, _ = memory_of(repo)
    steps = replayed(repo, memory, [memory.policy], [budget], "none").run().steps
    counted = tally.totals(tuple(step for step in steps if step.log in logs))
    return counted.outcomes[tally.SHOWN], counted.existing, tally.totals(steps).in_full_rate


def prompt_hook(
    prompt: str, docs: Sequence[facts.Document], full: frozenset[str]
) -> tuple[set[str], int]:
    """The ids the prompt hook brings in full for ``prompt``, the start having shown ``full``,
    and the bytes of its lines."""
    by_path = {d.path: d.render() for d in docs}
    indexes = [searching.index(d) for d in docs]
    hook = prompt_recall.shown(prompt, indexes, lambda: full, by_path.get)
    brought = {hit.id for hit, shown in hook if ", in full:" in shown.split("\n", 1)[0]}
    return brought, len("\n".join(prompt_recall.lines(hook)).encode())


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("clone", type=Path)
    parser.add_argument("--max-bytes", type=int, default=8192)
    parser.add_argument("--query", choices=("none", "firstline", "log"), default="none")
    parser.add_argument("--prompt-recall", action="store_true")
    parser.add_argument("--prompt", choices=("firstline", "previous"), default="firstline")
    parser.add_argument("--first-of-commit", action="store_true")
    parser.add_argument("--replay", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    rows = list(
        replay(
            args.clone,
            args.max_bytes,
            args.query,
            args.prompt_recall,
            args.first_of_commit,
            args.prompt,
        )
    )
    used = sum(len(r["used"]) for r in rows)  # type: ignore[arg-type]
    totals = {
        key: sum(len(r[key]) for r in rows if key in r)  # type: ignore[arg-type]
        for key in ("full", "named", "prompt")
        if any(key in r for r in rows)
    }
    sizes = sorted(int(r["bytes"]) for r in rows)  # type: ignore[call-overload]
    label = " (upper bound: the log names the ids)" if args.query == "log" else ""
    summary = {
        "repo": args.clone.name,
        "query": args.query + label,
        "sessions": len(rows),
        "used": used,
        **{k: round(100 * v / used, 1) if used else 0.0 for k, v in totals.items()},
        "median_bytes": sizes[len(sizes) // 2] if sizes else 0,
    }
    if args.replay:
        full, existing, headline = replayed_in_full(
            args.clone, args.max_bytes, {str(r["log"]) for r in rows}
        )
        summary["replay_used"] = existing
        summary["replay_full"] = round(100 * full / existing, 1) if existing else 0.0
        summary["replay_headline"] = round(100 * headline, 1) if headline is not None else 0.0
    if args.json:
        json.dump({"summary": summary, "sessions": rows}, sys.stdout, indent=1)
    else:
        print(" ".join(f"{k}={v}" for k, v in summary.items()))


if __name__ == "__main__":
    main()
