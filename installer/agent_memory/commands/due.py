"""Whether a review is due, for the commands that say so (``status``, ``review --if-due``)."""

from __future__ import annotations

from collections.abc import Mapping

from ..core.triggers import due_reasons, pending_reactivations
from ..parse.memory import Memory
from ..parse.sessions import SessionRefs
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
    refs = references(repo, unread(memory))
    reactivating = pending_reactivations(memory.archives, refs.values())
    return due_reasons(memory.continuity, memory.logs, memory.policy, reactivating), refs
