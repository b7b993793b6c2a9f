"""``agent-memory context``: what an agent reads at session start.

It runs at every session start, so it reads only what it needs: continuity.md, the policy, the
one-file threads, vision.md, the personal file, the session logs' names, the latest logs (what
they used ranks the view) and the logs no review has read (for the proposals pending). No lock:
every write the tool makes is an atomic rename, so an unlocked read sees a whole file.
"""

from collections.abc import Callable, Sequence
from typing import NamedTuple

from ..core.agents import context as viewing
from ..core.agents.forms import full_text, size
from ..core.agents.inbox import closed_to, rejected_as, rejections
from ..core.agents.relevance import RECENT_SESSIONS, uses_paths
from ..core.review.triggers import due_reasons, unread_logs
from ..layout import CONTEXT_BYTES, CONTINUITY, REJECTED, SESSIONS_DIR
from ..parse import facts, proposed, untrusted
from ..parse.continuity import last_review
from ..parse.facts import Document
from ..parse.lognames import LogNames
from ..parse.sessions import read_refs
from ..shell.load import Live, extras, load_live, load_personal
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
    live memory is read. The budget counts what is printed: a terminal's form writes a control
    character as its escape (``untrusted.shown``), so a view that holds some is laid out again
    with less room until it fits."""
    laid = lay_out(repo, max_bytes, task, paths, read)
    text, room = laid.view.text + laid.note, max_bytes
    while not hook and (over := size(untrusted.shown(text)) - max_bytes) > 0:
        room -= over
        laid = lay_out(repo, room, task, paths, read)
        text = laid.view.text + laid.note
    summary = {"due": laid.due, "markdown": text, "proposals_pending": laid.pending}
    outcome = "due" if laid.due else "ok"
    report = Report("context", repo.shown, outcome, None, (), summary)
    shown = text.rstrip("\n")
    if hook:
        shown = untrusted.hook_json("SessionStart", text)
    return Result(report._replace(heading=(shown,)), 0)


def lay_out(
    repo: Repo,
    max_bytes: int,
    task: str = "",
    paths: Sequence[str] | Callable[[], Sequence[str] | None] | None = None,
    read: Callable[[Repo], Live] = load_live,
    found: Sequence[Document] | None = None,
) -> Laid:
    """The context's view within ``max_bytes``, the note on pending proposals included.
    ``paths`` may be asked for (git): only when a fact's scope or citation can use them.
    ``found``: the one-file threads and vision.md, when already read."""
    live = read(repo)
    if live.continuity is None:
        raise not_enabled(repo)
    due = due_reasons(live.continuity, live.sessions, live.policy, (), repo.today)
    found = extras(repo) if found is None else found
    docs = _live_docs(repo, live.continuity, found)
    marks = _stale_marks(repo, docs)
    if callable(paths):
        paths = paths() if uses_paths(docs) else None
    pending = pending_proposals(repo, live.continuity, live.sessions, found)
    note = _pending_note(pending)
    recent = recent_uses(repo, live.sessions)
    view = viewing.view(docs, task, paths, max_bytes - len(note.encode()), due, marks, recent)
    return Laid(view, due, pending, note)


def recent_uses(repo: Repo, sessions: LogNames) -> tuple[frozenset[str], ...]:
    """The ids each of the latest ``RECENT_SESSIONS`` logs lists as used, newest first."""
    latest = sessions.latest(RECENT_SESSIONS)
    return tuple(read_refs(data).used for _, data in repo.read_each(SESSIONS_DIR, latest))


def listed_at_start(
    repo: Repo,
    found: Sequence[Document] | None = None,
    here: str | None = None,
    held: Callable[[str], Sequence[str]] = lambda _head: (),
) -> frozenset[str]:
    """The ids the session start's context showed in full: what a prompt's recall leaves out.
    A fact shown only by name (its one line or excerpt) is not among them. When the agent holds
    a context of ours (``held(TITLE)``: a resumed session goes on with the one it was given,
    HOOKS.md § What each prints), the live facts whose text, as a view shows it in full, stands
    in it; else the view laid out again with the paths git gives now and ``here``, the folder
    the session started in (``a/b/``, as the start took it), asked only when a fact's scope or
    citation can use them (its first prompt is not known here). ``found``: the one-file
    threads and vision.md, when already read."""
    views = held(viewing.TITLE)
    if views:
        raw = repo.read(CONTINUITY)  # the session logs' names are not needed: not read
        continuity = facts.parse(CONTINUITY, raw) if raw is not None else None
        found = extras(repo) if found is None else found
        return frozenset(
            fact.id
            for doc in _live_docs(repo, continuity, found)
            for fact in doc.facts
            # as a view shows it in full, up to its id: a stale citation's mark, which only
            # git can tell, may follow on that line
            if fact.id and any(full_text(doc, fact).rstrip("\n") in view for view in views)
        )

    def paths() -> tuple[str, ...] | None:
        from ..shell.focus import focus  # git: only for a memory with scopes or citations

        touched = focus(repo.root, None).paths
        return ((*touched, here) if here else touched) or None

    view = lay_out(repo, CONTEXT_BYTES, paths=paths, found=found).view
    return frozenset(view.full)


def _live_docs(
    repo: Repo, continuity: Document | None, found: Sequence[Document]
) -> tuple[Document, ...]:
    """What a view offers: continuity.md, the one-file threads and vision.md (``found``), and
    the user's personal facts when this clone has them."""
    mine = load_personal(repo)
    return (*((continuity,) if continuity else ()), *found, *((mine,) if mine else ()))


def _stale_marks(repo: Repo, docs: Sequence[Document]) -> dict[str, str]:
    """``stale_marks``, whose modules (and git's) load only for a memory whose facts cite."""
    if all(fact.field("cites") is None for doc in docs for fact in doc.facts):
        return {}
    from ..shell.cited import stale_marks

    return stale_marks(repo, docs)


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
    rejected = rejections((repo.read(REJECTED) or b"").decode("utf-8", errors="replace"))
    origins |= closed_to(rejected)  # a rejected proposal, or its words, waits no more
    waiting = proposed.unaccepted(repo.read_each(SESSIONS_DIR, unread), origins)
    return sum(rejected_as(p.text, rejected) is None for p in waiting)


def _pending_note(count: int) -> str:
    if not count:
        return ""
    return (
        f"\n_{count} proposed {'fact waits' if count == 1 else 'facts wait'} in session logs no "
        "review has read: "
        "`agent-memory fact accept` lists them, `fact accept LOG#N` or `--all` accepts._\n"
    )
