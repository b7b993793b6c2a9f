"""``explain``: why a fact has its tier — its events, the rule that matched, and what comes next.

Nothing here restates a rule or re-derives a tier: the fact's verdict, its events and its next
move are the review's own (``core/review/verdicts.py``), computed from the same inputs.
"""

from typing import NamedTuple

from ...errors import AgentMemoryError
from ...parse.footer import nearest_id
from ...parse.memory import known_ids
from ..review import tiers
from ..review.inputs import Inputs
from ..review.verdicts import AUTO_CORE, Event, Move, Verdict, verdicts


class Explanation(NamedTuple):
    verdict: Verdict  # the fact as the review would leave it
    events: tuple[Event, ...]
    move: Move | None  # None: pinned, or archived until a log names it


def explain(inputs: Inputs, fact_id: str) -> Explanation:
    run = verdicts(inputs)
    verdict = run.of(fact_id)
    if verdict is None:
        close = nearest_id(fact_id, known_ids(inputs.documents))
        hint = f"; did you mean {close!r}?" if close else "; agent-memory recall finds facts"
        raise AgentMemoryError(f"no fact in continuity.md or the archive has id {fact_id!r}{hint}")
    return Explanation(verdict, run.history(verdict), run.next_move(verdict))


def lines(found: Explanation) -> list[str]:
    """The text form: where the fact is, its events, the rule, what comes next."""
    verdict, fact = found.verdict, found.verdict.fact
    rule = tiers.RULES.get(verdict.rule, f"{AUTO_CORE}: promoted (DECAY.md § Auto-core)")
    stored = dict(fact.fields)
    out = [
        f"{verdict.id}  [{verdict.tier}]  {verdict.path}:{fact.line}  {fact.first_line}",
        f"section: {verdict.section}; footer says tier {stored.get('tier', '(none)')}, "
        f"uses {stored.get('uses', '?')}, last_used {stored.get('last_used', '?')}",
        f"events (uses: {verdict.fields['uses']}, last {verdict.fields['last_used']}):",
        *(f"  {event.date}  {event.what}" for event in found.events),
        f"session logs since its last use: {verdict.idle}",
        f"tier {verdict.tier} by rule {verdict.rule}: {rule.replace('**', '')}",
    ]
    if found.move is not None:
        out.append(
            f"next: {found.move.tier} (rule {found.move.rule}) after {found.move.sessions} more "
            "session logs that do not name it"
        )
    elif verdict.rule == "0":
        out.append("next: stays archived (superseded is final)")
    elif verdict.rule == "expired":
        out.append("next: stays archived until its valid-until gets a later date")
    elif verdict.tier == "archived":
        out.append("next: comes back when a session log names it (reactivated by the review)")
    else:
        out.append("next: never moves on its own (pinned)")
    until = verdict.fields.get("valid-until")
    if until is not None and verdict.rule != "expired":
        out.append(f"valid until {until}: the first review after that date archives it")
    return out
