"""The uses of a session counted against the memory its start really found (REVIEW.md § Replay):
where git holds that memory, the replay counts on it rather than on the state it projects."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import NamedTuple

from ...parse.facts import Document
from ...parse.memory import known_ids
from ...parse.sessions import SessionRefs
from ..agents import context
from .run import ARCHIVED, HIDDEN, NEW, UNKNOWN, Step
from .states import Seen


class Start(NamedTuple):
    """The memory a session start found."""

    live: tuple[Document, ...]  # continuity.md, the one-file threads, vision.md
    archived: frozenset[str]  # the ids the archive held (of those asked about)
    recent: tuple[frozenset[str], ...]  # what the latest logs then used, newest first


def seen(start: Start, task: str, budgets: Sequence[int]) -> tuple[Seen, ...]:
    """``context``'s own view of ``start`` at each of ``budgets``, as the replay's are asked
    (no paths known, no review due)."""
    views = context.views(start.live, task, None, budgets, recent=start.recent)
    return tuple(Seen(view) for view in views)


def steps(
    start: Start, views: Sequence[Seen], log: str, found: SessionRefs, known: Collection[str]
) -> tuple[Step, ...]:
    """Log ``log``'s uses (``found``) as the ``views`` of ``start`` showed them, one step per
    view; ``known``: the ids today's memory holds (an id ``start`` lacks is the session's own,
    or made later, when today's memory holds it, else unknown)."""
    live = known_ids(start.live)
    made = []
    for view in views:
        where = view.outcomes([i for i in found.used if i in live])
        uses = tuple(
            (i, where.get(i, HIDDEN))
            if i in live
            else (i, ARCHIVED if i in start.archived else NEW if i in known else UNKNOWN)
            for i in sorted(found.used)
        )
        made.append(Step(log, uses, view.size))
    return tuple(made)
