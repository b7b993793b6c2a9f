"""Which logs a review reads (REVIEW.md § Incremental and full): the window, or all of them.

The window is "logs not yet read", not "logs named after the mark" (a merge can bring a log that
sorts before the mark). When the state cannot say which logs were read, the review reads them all
and says why; a full rebuild is right on every history, so that is always safe.
"""

from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

from ...parse.continuity import LastReview, cursor, last_review
from ...parse.facts import Document
from ...parse.sessions import EMPTY, SessionRefs
from .triggers import logs_read, window


class Reading(NamedTuple):
    names: Sequence[str]  # the logs to read
    full: bool
    reason: str  # why a full rebuild nobody asked for; "" otherwise


def reading(continuity: Document, logs: Sequence[str], full: bool) -> Reading:
    """The logs a review reads, before reading any: the window, unless the mark is stale."""
    review = last_review(continuity)
    through = cursor(review, logs)
    reason = "" if full else _stale(review, through, logs)
    if full or reason:
        return Reading(logs, True, reason)
    return Reading(window(logs, through), False, "")


def _stale(review: LastReview, through: str | None, logs: Sequence[str]) -> str:
    if review.merged:
        return "last_review says merged (two branches' reviews met), so every log was read again"
    if through is None:
        return ""  # never reviewed: the window is every log already
    if review.read is None:
        return "last_review did not say how many logs it had read, so every log was read again"
    read = logs_read(logs, through)
    if read != review.read:
        return (
            f"{read} logs sort at or before {through}, where the last review read {review.read}"
            " (a merge brought older logs), so every log was read again"
        )
    return ""


def recreated(
    continuity: Document,
    documents: Iterable[Document],
    refs: Mapping[str, SessionRefs],
    names: Sequence[str],
) -> str:
    """Why the window alone cannot count a fact it lists under Created, or "" (``documents``:
    every file that holds facts, the one-file threads too).

    DECAY.md § Events: the birth event exists only while no log lists the id under Created. The
    window can tell for a fact created after the last review (no log it read could name it);
    one that existed then may already have lost its birth event to a log read before.
    """
    made: set[str] = set()
    for name in names:
        made |= refs.get(name, EMPTY)[1]
    reviewed = last_review(continuity).date
    if not made or reviewed is None:
        return ""
    for doc in documents:
        for fact in doc.facts:
            if fact.id not in made or fact.field("base_uses") is not None:
                continue
            created = fact.field("created")
            if created is not None and created <= reviewed:
                return (
                    f"a new log lists {fact.id} under Created, but it existed at the last review"
                    f" ({reviewed}), so every log was read again"
                )
    return ""
