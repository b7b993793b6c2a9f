"""When a review is due (REVIEW.md § When): a pure function of the memory as read."""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from ...parse.continuity import LastReview, cursor, last_review
from ...parse.facts import Document
from ...parse.lognames import LogNames
from ...parse.policy import Policy
from .tiers import decays

if TYPE_CHECKING:  # a type only: fact add and status import this without the log reader
    from ...parse.sessions import SessionRefs


def stem(name: str) -> str:
    return name[:-3] if name.endswith(".md") else name


def window(logs: Sequence[str], through: str | None) -> Sequence[str]:
    """The logs after the one named ``through`` (all of them before a first review).

    Logs are ordered by file name, so the window is cut by file name too: a stem compared as a
    stem would put ``…-101500.md`` and ``…-101500-slug.md`` in the other order.
    """
    if through is None:
        return logs
    return logs[bisect.bisect_right(logs, through + ".md") :]


def logs_read(logs: Sequence[str], through: str | None) -> int:
    """How many logs sort at or before ``through``: a bisect on the names, no log is opened."""
    return 0 if through is None else bisect.bisect_right(logs, through + ".md")


def unread_logs(review: LastReview, names: LogNames) -> tuple[str, ...]:
    """The logs after the last review's mark (every log before a first review)."""
    if review.through is None:  # never reviewed, or a hand-run mark of a date only
        return tuple(window(names.logs, cursor(review, names.logs)))
    return names.after(review.through + ".md")


def unread(review: LastReview, names: LogNames) -> int:
    """The logs the last review has not read: those after its mark, plus any a merge brought in
    before it (the mark's count says how many it read there)."""
    after = len(unread_logs(review, names))
    if review.read is None:
        return after
    through = cursor(review, names.logs) if review.through is None else review.through
    return after + (0 if through is None else names.beyond(through + ".md", review.read))


def pending_reactivations(archives: Iterable[Document], unread: Iterable[SessionRefs]) -> list[str]:
    """Archived ids that logs the review has not read yet name: the next review brings them back
    (DECAY.md § Archive membership), so it should not wait for ``review_every`` logs."""
    named: set[str] = set()
    for refs in unread:
        named |= refs.used
    return sorted(f.id for doc in archives for f in doc.facts if f.id is not None and f.id in named)


def due_reasons(
    continuity: Document | None,
    names: LogNames,
    policy: Policy,
    reactivating: Sequence[str] = (),
) -> list[str]:
    """Why a review is due (REVIEW.md § When); ``reactivating`` are ``pending_reactivations``."""
    if continuity is None:
        return []
    reasons = []
    if reactivating:
        reasons.append(
            f"{len(reactivating)} archived facts named by unread session logs wait to be "
            f"reactivated ({', '.join(reactivating)})"
        )
    pending = unread(last_review(continuity), names)
    if pending >= policy.review_every:
        reasons.append(
            f"{pending} session logs since the last review (review_every: {policy.review_every})"
        )
    decaying = sum(1 for fact in continuity.facts if decays(fact))
    if decaying > policy.continuity_max_facts:
        reasons.append(
            f"{decaying} decaying facts (continuity_max_facts: {policy.continuity_max_facts})"
        )
    lines = len(continuity.text.lines)
    if lines > policy.continuity_max_lines:
        reasons.append(f"{lines} lines (continuity_max_lines: {policy.continuity_max_lines})")
    return reasons
