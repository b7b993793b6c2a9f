"""Whether a review is due, for the commands that say so (``status``, ``review --if-due``)."""

from __future__ import annotations

from collections.abc import Collection, Mapping

from ..core.triggers import due_reasons, pending_reactivations
from ..parse import facts
from ..parse.memory import Memory
from ..parse.sessions import SessionRefs
from ..shell.load import archive_files
from ..shell.logs import references, unread
from ..shell.repo import Repo


def why_due(repo: Repo, memory: Memory) -> tuple[list[str], Mapping[str, SessionRefs]]:
    """Why a review is due, and the unread logs' references if it took reading them.

    A pending reactivation is only worth reading logs for when nothing else makes the review
    due; then the window is shorter than ``review_every`` logs, so the check stays cheap.
    """
    reasons = due_reasons(memory.continuity, memory.logs, memory.policy)
    if reasons or memory.continuity is None:
        return reasons, {}
    refs = references(repo, unread(memory.continuity, memory.logs))
    reactivating = pending_reactivations(memory.archives, refs.values())
    return due_reasons(memory.continuity, memory.logs, memory.policy, reactivating), refs


def reactivations(repo: Repo, live: facts.Document, unread: Collection[SessionRefs]) -> list[str]:
    """``pending_reactivations`` without parsing the whole archive: only the quarter files that
    hold the bytes of an id the logs name (and continuity.md does not hold) can hold its fact."""
    kept = {f.id for f in live.facts}
    named = {fact_id.encode() for refs in unread for fact_id in refs.used if fact_id not in kept}
    held = [
        facts.parse(rel, data)
        for rel, data in (archive_files(repo) if named else ())
        if any(needle in data for needle in named)
    ]
    return pending_reactivations(held, unread)
