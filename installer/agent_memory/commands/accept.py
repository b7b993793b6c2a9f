"""``agent-memory fact accept [LOG#N | --all]``: proposals from session logs become facts.

Without an address or ``--all`` it lists the pending proposals (those in logs no review has
read, not yet accepted) and writes nothing. ``LOG#N`` accepts one proposal of any log, read by a
review or not; ``--all`` accepts every pending one. The logs are only read: a log is never
modified, and a proposal nobody accepts simply stays in it (DECAY.md § Proposals).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..core.agents.inbox import closed_to, rejected_as, rejections, said_before
from ..core.facts import accept as accepting
from ..core.facts.elsewhere import Elsewhere
from ..core.plan import FileEdit, Outcome, Plan
from ..core.review.triggers import unread_logs
from ..errors import AgentMemoryError
from ..layout import CONTINUITY, PERSONAL, REJECTED, SESSIONS_DIR
from ..parse import facts, proposed
from ..parse.continuity import last_review
from ..parse.lognames import LogNames
from ..parse.sidefiles import parse_file
from ..shell.load import archive_files, extra_files, log_names
from ..shell.repo import Repo
from .report import Report, Result
from .settle import Options, not_enabled, review_date, settle

_LIST_HINT = "`agent-memory fact accept` lists the pending proposals"


def fact_accept(
    repo: Repo, address: str | None, every: bool, options: Options, text: str | None = None
) -> Result:
    """With ``text`` (the browser's edit-then-accept), the fact made from ``address`` takes that
    text as ``fact edit`` would give it, in the same plan: both are written, or neither."""
    raw = repo.read(CONTINUITY)
    if raw is None:
        raise not_enabled(repo)
    continuity = facts.parse(CONTINUITY, raw)
    names = log_names(repo)
    others = [*archive_files(repo), *extra_files(repo)]
    # the files that may hold an accepted proposal's footer, by the reader
    holding = [parse_file(path, data) for path, data in others if b"origin" in data]
    origins = accepting.origins_in([continuity, *holding])
    if address is not None and every:
        raise AgentMemoryError(f"pass LOG#N or --all, not both ({address!r} and --all)")
    found = rejections(_text(repo.read(REJECTED)))
    if address is not None:
        chosen = [proposal_at(repo, names, address)]
    else:
        unread = unread_logs(last_review(continuity), names)
        closed = {**origins, **closed_to(found)}
        chosen = proposed.unaccepted(repo.read_each(SESSIONS_DIR, unread), closed)
        if not every:
            return _listing(repo, [p for p in chosen if rejected_as(p.text, found) is None])
    day = review_date(repo.today, names.newest)
    mine = repo.read(PERSONAL)  # a proposal that says a personal fact is refused, never copied
    beside = Elsewhere([*others, *([(PERSONAL, mine)] if mine else [])])
    done = accepting.accept(
        continuity, beside, chosen, origins, day, address is None, said_before(found)
    )
    if text is not None and done.accepted:
        done = done._replace(after=accepting.edited(done.after, done.accepted[0].id, text))
    reason = f"proposals accepted: {len(done.accepted)}"
    edit = FileEdit(CONTINUITY, continuity.render(), done.after, Outcome.UPDATED, reason)
    plan = Plan.of([edit] if done.accepted else [])
    settled = settle(repo, [plan], options, "unchanged")
    closing = [f"{a.address} \u2192 {a.id} ({a.section})" for a in done.accepted]
    closing += [f"{s.address}: skipped, {s.reason}" for s in done.skipped]
    if not chosen:
        closing.append("nothing to accept: no proposals pending")
    summary = {
        "pending": [],
        "accepted": [a._asdict() for a in done.accepted],
        "skipped": [s._asdict() for s in done.skipped],
    }
    report = Report("fact accept", repo.shown, settled.outcome, plan, (), summary)
    return Result(report._replace(closing=tuple(closing)), settled.exit_code, settled.diff)


def proposal_at(repo: Repo, names: LogNames, address: str) -> proposed.Pending:
    """The proposal ``LOG#N`` names, or a refusal saying what to pass instead."""
    parsed = proposed.parse_address(address)
    if parsed is None:
        raise AgentMemoryError(
            f"{address!r} is not a proposal's address; pass LOG#N (a session log's name and the "
            f"proposal's number, e.g. 2026-11-20-091400-claude-7d3f2c1e#1); {_LIST_HINT}"
        )
    name, number = parsed
    if name not in names.logs:
        raise AgentMemoryError(f"no session log {SESSIONS_DIR}/{name}; {_LIST_HINT}")
    text = (repo.read(f"{SESSIONS_DIR}/{name}") or b"").decode("utf-8", errors="replace")
    found = proposed.in_log(name, text)
    wanted = proposed.address(name[:-3], number)
    match = next((p for p in found if p.address == wanted), None)
    if match is None:
        numbers = sorted({int(p.address.rsplit("#", 1)[1]) for p in found})
        has = "its proposals are " + ", ".join(f"#{n}" for n in numbers)
        raise AgentMemoryError(
            f"{SESSIONS_DIR}/{name} has no proposal #{number}: "
            + (has if found else "it proposes nothing")
        )
    twice = proposed.numbered_twice(text).get(number)
    if twice is not None:
        where = f"{SESSIONS_DIR}/{name}:{twice[1]}"
        raise AgentMemoryError(f"{where}: {proposed.twice(number, twice)}")
    return match


def _listing(repo: Repo, pending: Iterable[proposed.Pending]) -> Result:
    shown = list(pending)
    lines = [f"{p.address}  {p.kind}: {p.text}" for p in shown]
    said = (
        f"{len(shown)} proposals pending; accept one with `agent-memory fact accept LOG#N`, "
        "or all with --all"
        if shown
        else "no proposals pending"
    )
    summary: Mapping[str, Any] = {
        "pending": [p._asdict() for p in shown],
        "accepted": [],
        "skipped": [],
    }
    report = Report("fact accept", repo.shown, "listed", None, (), summary)
    return Result(report._replace(heading=(*lines, said)), 0)


def _text(data: bytes | None) -> str:
    return data.decode("utf-8", errors="replace") if data else ""
