"""What a review reads of a repo, for ``review``, ``explain`` and the curation commands alike.

The logs it counts (REVIEW.md § Incremental and full, and the blocks auto-core looks back over)
and what they reference: explain judges a fact from exactly what the review would read, so its
answer is the review's verdict.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Mapping, Sequence

from .. import resources
from ..core.review.inputs import Inputs
from ..core.review.window import Reading, reading, recreated
from ..parse.facts import Document
from ..parse.memory import Memory, known_ids
from ..parse.sessions import SessionRefs
from ..shell.load import archives_naming, load_archives
from ..shell.logs import references
from ..shell.repo import Repo

Progress = Callable[[Sequence[str]], Iterable[str]] | None


def read_logs(
    repo: Repo,
    memory: Memory,
    continuity: Document,
    full: bool,
    early: Mapping[str, SessionRefs],
    progress: Progress = None,
) -> tuple[Reading, dict[str, SessionRefs]]:
    """The logs the review counts and what every log it reads references; ``early`` are logs
    already read (the due-check's), not read again."""
    plan = reading(continuity, memory.logs, full)
    wanted: Sequence[str] = plan.names
    if memory.policy.enabled:
        span = memory.policy.review_every * memory.policy.core_min_reviews
        wanted = sorted(set(wanted) | set(memory.logs[-span:]))
    return plan, {**early, **_read(repo, [name for name in wanted if name not in early], progress)}


def review_inputs(
    repo: Repo,
    memory: Memory,
    continuity: Document,
    logs: tuple[Reading, Mapping[str, SessionRefs]],
    day: dt.date,
    progress: Progress = None,
) -> Inputs:
    """The review's inputs from ``read_logs``'s answer: a window that cannot count a fact it
    lists under Created (``recreated``) becomes a reading of every log."""
    plan, read = logs
    refs = dict(read)
    if not plan.full:
        why = recreated(continuity, memory.documents, refs, plan.names)
        if why:
            plan = Reading(memory.logs, True, why)
            refs.update(_read(repo, [n for n in memory.logs if n not in refs], progress))
    return Inputs(
        continuity=continuity,
        archives=memory.archives,
        archive_index=memory.archive_index,
        index_template=resources.data("templates/memory/archive/INDEX.md"),
        policy=memory.policy,
        logs=memory.logs,
        refs=refs,
        full=plan.full,
        today=day,
        reason=plan.reason,
        threads=memory.threads,
        vision=memory.vision,
    )


def _read(repo: Repo, names: Sequence[str], progress: Progress) -> Mapping[str, SessionRefs]:
    return references(repo, progress(names) if progress else names)


def judged(
    repo: Repo, memory: Memory, fact_id: str, full: bool, day: dt.date
) -> tuple[Memory, Inputs]:
    """What the review's rules need to judge one fact now, as a review would read it: the logs
    it would read (every one with ``full``), and of the archive only what the fact's verdict
    depends on (``memory`` may come without its archive). ``explain`` and the curation commands
    that give a fact its tier back ask the same question."""
    continuity = memory.continuity
    assert continuity is not None, "the callers refuse a repo without continuity.md"
    logs = read_logs(repo, memory, continuity, full, {})
    memory = _with_archives(repo, memory, fact_id, logs[1])
    return memory, review_inputs(repo, memory, continuity, logs, day)


def _with_archives(
    repo: Repo, memory: Memory, fact_id: str, refs: Mapping[str, SessionRefs]
) -> Memory:
    """``memory`` with the archive files the fact's verdict depends on: those holding its id, or
    an id a log read pairs it with in a ``Superseded:`` line, when the live files do not. The
    archive may hold thousands of facts; the other files are not parsed."""
    live = memory.known_ids
    paired = {
        i for found in refs.values() for pair in found.superseded if fact_id in pair for i in pair
    }
    wanted = ({fact_id} | paired) - live
    if not wanted:
        return memory
    held = archives_naming(repo, wanted)
    if fact_id not in known_ids(held) | live:
        return memory._replace(archives=load_archives(repo))  # to suggest a near id
    return memory._replace(archives=held)
