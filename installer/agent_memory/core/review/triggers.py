"""When a review is due (REVIEW.md § When): a pure function of the memory as read."""

from __future__ import annotations

import bisect
import datetime as dt
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from ...parse.continuity import LastReview, cursor, last_review
from ...parse.facts import Document, Fact
from ...parse.lognames import LogNames
from ...parse.policy import Policy
from .tiers import SUPERSEDED, by_hand, decays, decide, expired

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


def logs_since(logs: Sequence[str]) -> Callable[[str], int]:
    """``since(day)`` as the review counts: the logs (sorted, correctly named) after that day.
    Those of the day are "<day>-…", which sorts before "<day>." ("-" < "."), and every later
    day's sort after it; each day is looked up once (facts share their days)."""
    asked: dict[str, int] = {}

    def since(day: str) -> int:
        found = asked.get(day)
        if found is None:
            found = asked[day] = len(logs) - bisect.bisect_right(logs, day + ".")
        return found

    return since


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


def pending_reactivations(
    archives: Iterable[Document], unread: Iterable[SessionRefs], day: dt.date | None = None
) -> list[str]:
    """Archived ids that logs the review has not read yet name: the next review brings them back
    (DECAY.md § Archive membership), so it should not wait for ``review_every`` logs. A fact no
    log brings back — superseded or retracted, or expired on ``day`` — waits for nothing."""
    today = day.isoformat() if day else ""
    named: set[str] = set()
    for refs in unread:
        named |= refs.used
    return sorted(
        f.id
        for doc in archives
        for f in doc.facts
        if f.id is not None and f.id in named and _may_return(dict(f.fields), today)
    )


def _may_return(fields: Mapping[str, str], today: str) -> bool:
    """DECAY.md § Supersession and § Expiry: neither a superseded fact nor an expired one is
    ever reactivated, whatever logs name it."""
    return fields.get("tier") != SUPERSEDED and not expired(fields, today)


def due_reasons(
    continuity: Document | None,
    names: LogNames,
    policy: Policy,
    reactivating: Sequence[str] = (),
    day: dt.date | None = None,
) -> list[str]:
    """Why a review is due (REVIEW.md § When); ``reactivating`` are ``pending_reactivations``,
    ``day`` the review date (none: no fact has expired)."""
    if continuity is None:
        return []
    today = day.isoformat() if day else ""
    reasons = []
    leaving = leaving_by_hand(continuity, today)
    if leaving:
        reasons.append(
            f"{len(leaving)} {'fact waits' if len(leaving) == 1 else 'facts wait'} to move to "
            "the archive: archived by hand, superseded, "
            f"retracted or past valid-until ({', '.join(leaving)})"
        )
    if reactivating:
        reasons.append(
            f"{len(reactivating)} archived {'fact' if len(reactivating) == 1 else 'facts'} "
            f"named by unread session logs {'waits' if len(reactivating) == 1 else 'wait'} to be "
            f"reactivated ({', '.join(reactivating)})"
        )
    pending = unread(last_review(continuity), names)
    if pending >= policy.review_every:
        reasons.append(
            f"{pending} session logs since the last review (review_every: {policy.review_every})"
        )
    size = _oversize(continuity, policy)
    if size and _archivable(continuity, names.logs, policy, today):
        reasons.extend(size)
    return reasons


def leaving_by_hand(continuity: Document, today: str) -> list[str]:
    """The facts of continuity.md the next review moves to the archive whatever the logs say:
    archived by hand, superseded or retracted, or past ``valid-until`` on ``today``."""
    return [fact.id for fact in continuity.facts if fact.id is not None and _leaves(fact, today)]


def _leaves(fact: Fact, today: str) -> bool:
    """DECAY.md § Tiers, the rules before the windows (``tiers.by_hand``) send it away."""
    found = by_hand(dict(fact.fields), False, today)
    return found is not None and found.tier != "core"


def advice(
    continuity: Document | None, names: LogNames, policy: Policy, day: dt.date | None = None
) -> list[str]:
    """A size trigger a review cannot act on (REVIEW.md § When): continuity.md is over a limit
    but no fact is old enough to archive, so a review would change nothing. It is advice for a
    person, not a reason to run the review at every session start."""
    if continuity is None:
        return []
    size = _oversize(continuity, policy)
    if not size or _archivable(continuity, names.logs, policy, day.isoformat() if day else ""):
        return []
    return [
        f"continuity.md is over a limit — {'; '.join(size)} — but no fact is old enough to "
        "archive, so a review would not shrink it: merge or archive facts by hand, or raise "
        "the limit in memory/decay-policy.md"
    ]


def _oversize(continuity: Document, policy: Policy) -> list[str]:
    """The size triggers that hold: decaying facts and lines over the policy's limits."""
    found = []
    decaying = sum(1 for fact in continuity.facts if decays(fact))
    if decaying > policy.continuity_max_facts:
        found.append(
            f"{decaying} decaying facts (continuity_max_facts: {policy.continuity_max_facts})"
        )
    lines = len(continuity.text.lines)
    if lines > policy.continuity_max_lines:
        found.append(f"{lines} lines (continuity_max_lines: {policy.continuity_max_lines})")
    return found


def _archivable(continuity: Document, logs: Sequence[str], policy: Policy, today: str) -> bool:
    """Whether a review would move a fact of continuity.md to the archive: one whose footer,
    counted against the logs there are, is past its window (DECAY.md § Tiers, rules 7 and the
    sweep). Logs the last review has not read can only make a fact younger, so this is what a
    review would do at most; an unread log that names such a fact changes its footer instead."""
    since = logs_since(logs)
    for fact in continuity.facts:
        fields = dict(fact.fields)
        needed = ("created", "last_used", "uses", *(("done",) if fact.task == "x" else ()))
        if not decays(fact) or fact.id is None or any(k not in fields for k in needed):
            continue  # a footer the review would fill or refuse: lint reports it
        uses = fields["uses"]
        if not (uses.isascii() and uses.isdigit() and len(uses) <= 10):
            continue
        decision = decide(fields, fact.section, fact.task, since, policy, today=today)
        if decision.tier in ("archived", SUPERSEDED):
            return True
    return False
