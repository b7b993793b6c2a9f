"""What a review reads of a repo, for ``review`` and ``explain`` alike.

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
from ..parse.memory import Memory
from ..parse.sessions import SessionRefs
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
