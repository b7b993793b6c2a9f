"""``agent-memory proposals``: what waits for a person (DECAY.md § The review gate): each pending
proposal of the logs no review has read, not accepted, not rejected, with the facts it is much
like. Writes nothing."""

from __future__ import annotations

from collections import Counter

from ..core.agents.inbox import pending, rejections
from ..core.facts.accept import origins_in
from ..core.review.triggers import unread_logs
from ..layout import REJECTED, SESSIONS_DIR
from ..parse.continuity import last_review
from ..shell.repo import Repo
from .report import Report, Result
from .settle import memory_of


def proposals(repo: Repo) -> Result:
    memory, continuity = memory_of(repo, archives=False)
    live = [continuity, *memory.threads, *([memory.vision] if memory.vision else [])]
    origins = origins_in(live)
    rejected = rejections((repo.read(REJECTED) or b"").decode("utf-8", errors="replace"))
    unread = unread_logs(last_review(continuity), memory.sessions)
    waiting = pending(repo.read_each(SESSIONS_DIR, unread), origins, rejected, live)
    lines = [
        f"{w.address}  {w.kind}: {w.text}"
        + (f"  (similar: {', '.join(w.similar)})" if w.similar else "")
        for w in waiting
    ]
    counts = Counter(w.address for w in waiting)
    lines += [
        f"{address} is the number of {n} proposals: renumber one in its log (fact accept and "
        "fact reject refuse it until then)"
        for address, n in counts.items()
        if n > 1
    ]
    said = (
        f"{len(waiting)} proposals wait: agent-memory fact accept LOG#N lands one, "
        "agent-memory fact reject LOG#N --reason TEXT refuses it"
        if waiting
        else "no proposals wait"
    )
    summary = {"proposals": [{**w._asdict(), "similar": list(w.similar)} for w in waiting]}
    report = Report("proposals", repo.shown, "listed", None, (), summary)
    return Result(report._replace(heading=(*lines, said)), 0)
