"""Whether a review is due, for the commands that say so (``status``, ``review --if-due``).

``review --if-due`` runs at every session start and nearly always has nothing to do, so
``not_due`` answers that without the review's imports, the way ``context`` reads: continuity.md,
the policy and the log names, plus the logs the last review did not read (fewer than
``review_every``) and, only if they name an id continuity.md does not hold, the archive files
holding it. No lock: every write the tool makes is an atomic rename.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence

from ..core.plan import Plan
from ..core.review.triggers import due_reasons, pending_reactivations
from ..errors import AgentMemoryError
from ..layout import MANIFEST
from ..parse import facts
from ..parse.manifest import written_by_us
from ..parse.memory import Memory, known_ids
from ..parse.sessions import SessionRefs
from ..shell.load import Live, archive_files, load_live, naming
from ..shell.logs import references, unread
from ..shell.repo import Repo
from .report import Report, Result


def why_due(
    repo: Repo, memory: Memory, archive: Sequence[tuple[str, bytes]] | None = None
) -> tuple[list[str], Mapping[str, SessionRefs]]:
    """Why a review is due, and the unread logs' references if it took reading them.

    A pending reactivation is only worth reading logs for when nothing else makes the review
    due; then the window is shorter than ``review_every`` logs, so the check stays cheap.
    ``archive``: the archive's files, when ``memory`` was read without them. Facts expire
    against the run's date (``Repo.today``).
    """
    when = repo.today
    reasons = due_reasons(memory.continuity, memory.sessions, memory.policy, (), when)
    if reasons or memory.continuity is None:
        return reasons, {}
    refs = references(repo, unread(memory.continuity, memory.sessions))
    named = {fact_id for found in refs.values() for fact_id in found.used}
    archives = memory.archives if archive is None else list(naming(archive, named))
    reactivating = pending_reactivations(archives, refs.values(), when)
    return due_reasons(memory.continuity, memory.sessions, memory.policy, reactivating, when), refs


def reactivations(repo: Repo, live: facts.Document, unread: Collection[SessionRefs]) -> list[str]:
    """``pending_reactivations`` without the archive files that hold no id the logs name (and
    continuity.md does not hold)."""
    kept = known_ids([live])
    named = {fact_id for refs in unread for fact_id in refs.used if fact_id not in kept}
    return pending_reactivations(
        naming(archive_files(repo) if named else [], named), unread, repo.today
    )


def not_due(repo: Repo, read: Callable[[Repo], Live] = load_live) -> Result | None:
    """The result of ``review --if-due`` when no review is due, read the session-start way;
    None whenever the full command has something to say or do (due, a pending reactivation, a
    policy error, no memory, a hand-run stamp to adopt, a journal),
    so that it runs and says it. A test checks both agree. ``read``: how the live memory is
    read (the session-start hook keeps it for its context)."""
    try:
        repo.refuse_if_interrupted()
        live = read(repo)
        stamp = repo.read(MANIFEST)
    except AgentMemoryError:
        return None
    if live.continuity is None or any(p.severity == "error" for p in live.policy_problems):
        return None
    if stamp is not None and not written_by_us(stamp):
        return None
    if due_reasons(live.continuity, live.sessions, live.policy, (), repo.today):
        return None
    refs = references(repo, unread(live.continuity, live.sessions))
    if reactivations(repo, live.continuity, refs.values()):
        return None
    return nothing_due(repo)


def nothing_due(repo: Repo) -> Result:
    """What ``review --if-due`` answers when no review is due, by either way of finding it."""
    report = Report("review", repo.shown, "not due", Plan(()), (), {"due": []})
    return Result(report, 0)


def held(repo: Repo, reasons: Sequence[str]) -> Result:
    """What ``review --if-due`` answers behind the review gate (``agent_writes: propose``, DECAY.md
    § The review gate): a review is due, and a person runs it; nothing is written."""
    summary = {"due": list(reasons), "held": "agent_writes is propose"}
    report = Report("review", repo.shown, "held", Plan(()), (), summary)
    said = "review due (" + "; ".join(reasons) + "): agent_writes is propose, so a person runs it"
    return Result(report._replace(closing=(said + ": agent-memory review",)), 0)
