"""``explain``: why a fact has its tier — its events, the rule that matched, and what comes next.

Nothing here restates a rule: the fact is recomputed by the review's own ``judge``, the rule comes
from ``tiers.decide``, and "how many sessions until it moves" asks ``tiers.decide`` again with
more session logs that do not name it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import NamedTuple

from ...errors import AgentMemoryError
from ...layout import ARCHIVE_DIR, SESSIONS_DIR
from ...parse.sessions import SessionRefs
from ..review import tiers
from ..review.projection import Inputs, judge


class Event(NamedTuple):
    date: str
    what: str  # "birth", "imported history", "counted by the last review", or a log's path


class Move(NamedTuple):
    sessions: int  # after this many more session logs that do not name the fact
    tier: str
    rule: str


class Explanation(NamedTuple):
    id: str
    path: str
    line: int
    section: str
    first_line: str
    stored: Mapping[str, str]  # the footer as written
    fields: Mapping[str, str]  # the footer the review would write
    events: tuple[Event, ...]
    idle: int  # sessions_since(last_used)
    decision: tiers.Decision
    move: Move | None  # None: pinned, or archived until a log names it


def explain(inputs: Inputs, fact_id: str) -> Explanation:
    judged = judge(inputs, fact_id)
    if judged is None:
        known = sorted(
            f.id for doc in (inputs.continuity, *inputs.archives) for f in doc.facts if f.id
        )
        import difflib  # the error path only: 2 ms of start-up on every explain otherwise

        close = difflib.get_close_matches(fact_id, known, n=1, cutoff=0.6)
        hint = f"; did you mean {close[0]!r}?" if close else "; agent-memory recall finds facts"
        raise AgentMemoryError(f"no fact in continuity.md or the archive has id {fact_id!r}{hint}")
    fact, fields = judged.fact, judged.fields
    archived = judged.path.startswith(ARCHIVE_DIR + "/")  # pinning holds where a fact lives
    decision = tiers.decide(
        fields,
        judged.section,
        fact.task,
        judged.since,
        inputs.policy,
        archived,
        inputs.today.isoformat(),
    )
    if judged.promoted:
        decision = tiers.Decision("core", "auto-core")
    return Explanation(
        fact_id,
        judged.path,
        fact.line,
        judged.section,
        fact.first_line,
        dict(fact.fields),
        fields,
        _events(inputs, fact_id, dict(fact.fields)),
        judged.since(fields["last_used"]),
        decision,
        _next_move(fields, judged.section, fact.task, judged.since, inputs, decision),
    )


def _events(inputs: Inputs, fact_id: str, stored: Mapping[str, str]) -> tuple[Event, ...]:
    """The events DECAY.md § Events counts: the birth or imported history, what the last
    review counted (an incremental run reads only the logs after it), and each log read."""
    logged = sorted((name, refs) for name, refs in inputs.refs.items() if fact_id in refs.used)
    created_by_log = any(fact_id in refs.created for _, refs in logged)
    found: list[Event] = []
    if not inputs.full and "uses" in stored:
        found.append(
            Event(
                stored.get("last_used", ""),
                f"uses: {stored['uses']} in its footer: its birth and the logs reviews have "
                "counted (--full lists each)",
            )
        )
    elif "base_uses" in stored:
        found.append(
            Event(
                stored.get("base_last_used", ""),
                f"imported history: {stored['base_uses']} uses (base_uses, base_last_used)",
            )
        )
    elif not created_by_log and stored.get("created"):
        found.append(Event(stored["created"], "birth (created; no log lists it under Created)"))
    found += [Event(name[:10], _label(refs, fact_id, name)) for name, refs in logged]
    return tuple(found)


def _label(refs: SessionRefs, fact_id: str, name: str) -> str:
    how = "Created" if fact_id in refs.created else "used"
    return f"{SESSIONS_DIR}/{name} ({how})"


def _next_move(
    fields: Mapping[str, str],
    section: str,
    task: str | None,
    since: Callable[[str], int],
    inputs: Inputs,
    now: tiers.Decision,
) -> Move | None:
    """The fewest further session logs, none naming the fact, after which its tier changes.

    New logs sort after every date a footer holds, so each one adds one to every
    sessions_since; tiers only move one way as logs pass, so a binary search finds the first.
    """
    if now.tier in ("archived", tiers.SUPERSEDED) or now.rule in ("1", "2", "3", "auto-core"):
        return None
    policy = inputs.policy
    limit = max(policy.working_window, policy.active_window, policy.archive_window) + 2

    def after(extra: int) -> tiers.Decision:
        return tiers.decide(fields, section, task, lambda day: since(day) + extra, policy)

    if after(limit).tier == now.tier:
        return None
    low, high = 1, limit
    while low < high:
        middle = (low + high) // 2
        if after(middle).tier == now.tier:
            low = middle + 1
        else:
            high = middle
    moved = after(low)
    return Move(low, moved.tier, moved.rule)


def lines(found: Explanation) -> list[str]:
    """The text form: where the fact is, its events, the rule, what comes next."""
    rule = tiers.RULES.get(found.decision.rule, "auto-core: promoted (DECAY.md § Auto-core)")
    stored_tier = found.stored.get("tier", "(none)")
    out = [
        f"{found.id}  [{found.fields['tier']}]  {found.path}:{found.line}  {found.first_line}",
        f"section: {found.section}; footer says tier {stored_tier}, "
        f"uses {found.stored.get('uses', '?')}, last_used {found.stored.get('last_used', '?')}",
        f"events (uses: {found.fields['uses']}, last {found.fields['last_used']}):",
        *(f"  {event.date}  {event.what}" for event in found.events),
        f"session logs since its last use: {found.idle}",
        f"tier {found.fields['tier']} by rule {found.decision.rule}: {rule.replace('**', '')}",
    ]
    if found.move is not None:
        out.append(
            f"next: {found.move.tier} (rule {found.move.rule}) after {found.move.sessions} more "
            "session logs that do not name it"
        )
    elif found.decision.rule == "0":
        out.append("next: stays archived (superseded is final)")
    elif found.decision.rule == "expired":
        out.append("next: stays archived until its valid-until gets a later date")
    elif found.fields["tier"] == "archived":
        out.append("next: comes back when a session log names it (reactivated by the review)")
    else:
        out.append("next: never moves on its own (pinned)")
    until = found.fields.get("valid-until")
    if until is not None and found.decision.rule != "expired":
        out.append(f"valid until {until}: the first review after that date archives it")
    return out
