"""How much of what each real session used its start context showed, over a repo's history.

    python benchmarks/context_replay.py CLONE [--max-bytes 8192] [--query log|body|none] [--json]

CLONE is a git clone of a repo that keeps its memory in memory/ (full history). For each session
log, in the order history added them, the memory is read as it stood in the commit before the
one that added the log (continuity.md, the one-file threads, vision.md and the archive, straight
from git: nothing is written), and the context is rendered at --max-bytes with the log's own
text as the task (``--query body``: without its `## Memory References` and `## Memory Review`
sections, which list the very ids measured). Of the ids the log lists as used that existed then:
  named   the id is in the context (in full or in its one-line index)
  full    the fact is shown in full
  recall  recall's top 5 for the same text holds it; bm25: rank_bm25's BM25Okapi's top 5 over
          the same words (needs rank_bm25, a measurement-only dependency).
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

from agent_memory.core.agents import context as viewing
from agent_memory.core.agents import ranking
from agent_memory.core.agents import recall as searching
from agent_memory.errors import AgentMemoryError
from agent_memory.layout import CONTINUITY, VISION
from agent_memory.parse import facts
from agent_memory.parse.sessions import read_refs
from agent_memory.parse.sidefiles import parse_thread, parse_vision

SESSIONS = "memory/sessions/"
_LOG = re.compile(r"^memory/sessions/\d{4}-\d{2}-\d{2}-\d{6}(?:-[^/]*)?\.md$")
_CUT = re.compile(r"^## (Memory References|Memory Review)\b.*?(?=^## |\Z)", re.M | re.S)


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
    return State(tuple(live), tuple(archive))


class Tally(NamedTuple):
    sessions: int
    used: int
    named: int
    full: int
    recall: int
    bm25: int
    context_bytes: list[int]


def _bm25_top(docs: Sequence[list[str]], ids: Sequence[str], query: list[str], k: int) -> list[str]:
    from rank_bm25 import BM25Okapi

    scores = BM25Okapi(list(docs)).get_scores(query)
    order = sorted(range(len(ids)), key=lambda i: (-scores[i], ids[i]))
    return [ids[i] for i in order[:k] if scores[i] > 0]


def replay(clone: Path, budget: int, query: str, bm25: bool) -> Iterator[dict[str, object]]:
    git = Git(clone)
    cache: dict[str, State | None] = {}
    for commit, path in logs_in_order(git):
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
        data = git.blob(f"{commit}:{path}") or b""
        if state is None:
            continue
        docs = (*state.live, *state.archive)
        known = {f.id for d in docs for f in d.facts if f.id}
        used = sorted(read_refs(data).used & known)
        text = data.decode("utf-8", "replace")
        task = {"log": text, "body": _CUT.sub("", text), "none": ""}[query]
        seen = viewing.view(state.live, task, None, budget)
        rendered, full = seen.text, set(seen.full)
        named = full | set(seen.named)
        indexes = [searching.index(d) for d in docs]
        top = {h.id for h in ranking.search(text, indexes, 5)}
        row: dict[str, object] = {
            "log": path.rsplit("/", 1)[-1],
            "used": used,
            "named": [i for i in used if i in named],
            "full": [i for i in used if i in full],
            "recall": [i for i in used if i in top],
            "bytes": len(rendered.encode()),
        }
        if bm25:
            ids = [i for ix in indexes for i in ix.ids]
            terms = [t for ix in indexes for t in ix._terms]
            best = set(_bm25_top(terms, ids, searching.words(text), 5)) if ids else set()
            row["bm25"] = [i for i in used if i in best]
        yield row


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("clone", type=Path)
    parser.add_argument("--max-bytes", type=int, default=8192)
    parser.add_argument("--query", choices=("log", "body", "none"), default="log")
    parser.add_argument("--no-bm25", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    rows = list(replay(args.clone, args.max_bytes, args.query, not args.no_bm25))
    used = sum(len(r["used"]) for r in rows)  # type: ignore[arg-type]
    totals = {
        key: sum(len(r[key]) for r in rows if key in r)  # type: ignore[arg-type]
        for key in ("named", "full", "recall", "bm25")
    }
    sizes = sorted(int(r["bytes"]) for r in rows)  # type: ignore[call-overload]
    summary = {
        "repo": args.clone.name,
        "sessions": len(rows),
        "used": used,
        **{k: round(100 * v / used, 1) if used else 0.0 for k, v in totals.items()},
        "median_bytes": sizes[len(sizes) // 2] if sizes else 0,
    }
    if args.json:
        json.dump({"summary": summary, "sessions": rows}, sys.stdout, indent=1)
    else:
        print(" ".join(f"{k}={v}" for k, v in summary.items()))


if __name__ == "__main__":
    main()
