"""``agent-memory context``: what an agent reads at session start.

It runs at every session start, so it reads only what it needs: continuity.md, the policy, the
one-file threads, vision.md, the session logs' names and the logs no review has read (for the
proposals pending). No lock: every write the tool makes is an atomic rename, so an unlocked read
sees a whole file.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .. import resources
from ..core.agents import context as viewing
from ..core.review.triggers import due_reasons, unread_logs
from ..layout import SESSIONS_DIR
from ..parse import proposed
from ..parse.continuity import last_review
from ..parse.dates import today
from ..parse.facts import Document
from ..parse.lognames import LogNames
from ..records import NamedTuple
from ..shell.cited import stale_marks
from ..shell.load import Live, extras, load_live
from ..shell.repo import Repo
from .report import Report, Result
from .settle import not_enabled


class Laid(NamedTuple):
    """The start context's view, and what it says beside it: the due review, the pending
    proposals and the note on them."""

    view: viewing.View
    due: list[str]
    pending: int
    note: str


def context(
    repo: Repo,
    max_bytes: int,
    hook: bool = False,
    task: str = "",
    paths: Sequence[str] | None = None,
    read: Callable[[Repo], Live] = load_live,
) -> Result:
    """With ``hook``, the view is wrapped as the JSON a SessionStart hook answers with (Claude
    Code, Codex and Gemini CLI all read ``hookSpecificOutput.additionalContext``). ``task`` and
    ``paths`` (None: not known) rank the facts (HOOKS.md § Session start); ``read``: how the
    live memory is read."""
    laid = lay_out(repo, max_bytes, task, paths, read)
    text = laid.view.text + laid.note
    summary = {"due": laid.due, "markdown": text, "proposals_pending": laid.pending}
    outcome = "due" if laid.due else "ok"
    report = Report("context", resources.version(), repo.shown, outcome, None, (), summary)
    shown = text.rstrip("\n")
    if hook:
        import json  # 3 ms to import, paid only by the hook's call

        answer = {"hookEventName": "SessionStart", "additionalContext": text}
        shown = json.dumps({"hookSpecificOutput": answer}, ensure_ascii=False)
    return Result(report._replace(heading=(shown,)), 0)


def lay_out(
    repo: Repo,
    max_bytes: int,
    task: str = "",
    paths: Sequence[str] | None = None,
    read: Callable[[Repo], Live] = load_live,
) -> Laid:
    """The context's view within ``max_bytes``, the note on pending proposals included."""
    live = read(repo)
    if live.continuity is None:
        raise not_enabled(repo)
    due = due_reasons(live.continuity, live.sessions, live.policy, (), today().isoformat())
    found = extras(repo)
    marks = stale_marks(repo, (live.continuity, *found))
    docs = (live.continuity, *found)
    pending = pending_proposals(repo, live.continuity, live.sessions, found)
    note = _pending_note(pending)
    view = viewing.view(docs, task, paths, max_bytes - len(note.encode()), due, marks)
    return Laid(view, due, pending, note)


def pending_proposals(
    repo: Repo, continuity: Document, sessions: LogNames, found: Sequence[Document]
) -> int:
    """Proposals in logs no review has read that no fact has as its origin (DECAY.md
    § Proposals): ``context``'s note and the report's count. An accepted fact stays in
    continuity.md until a review, which reads its log, so the live files (``continuity`` and
    the side files ``found``) are the only ones to look in."""
    unread = unread_logs(last_review(continuity), sessions)
    if not unread:
        return 0
    origins = {
        origin: fact.id or ""
        for doc in (continuity, *found)
        for fact in doc.facts
        if (origin := fact.field("origin"))
    }
    return len(proposed.unaccepted(repo.read_each(SESSIONS_DIR, unread), origins))


def _pending_note(count: int) -> str:
    if not count:
        return ""
    return (
        f"\n_{count} proposed facts wait in session logs no review has read: "
        "`agent-memory fact accept` lists them, `fact accept LOG#N` or `--all` accepts._\n"
    )
