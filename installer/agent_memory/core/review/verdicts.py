"""Each fact's verdict: its footer, tier and the rule that decided it, as the review computes them.

DECAY.md § Events, § Tiers and § Auto-core, applied once per run: ``verdicts`` counts the logs
read, and every fact's verdict is a pure function of that count. The review judges every fact,
``explain`` one; both read this value, so neither restates a rule. What only a reader of one fact
needs (the logs that named it, when its tier moves next) is asked of the same count on demand:
the review prints neither, and the next move costs a search per fact.
"""

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from itertools import repeat
from types import MappingProxyType
from typing import NamedTuple

from ...layout import ARCHIVE_DIR, SESSIONS_DIR, VISION
from ...parse.continuity import cursor, last_review
from ...parse.facts import Document, Fact
from ...parse.memory import known_ids
from ...parse.sessions import EMPTY, SessionRefs
from . import moves, supersede, tiers
from .inputs import Inputs
from .triggers import logs_since, window

AUTO_CORE = "auto-core"  # the rule of a fact DECAY.md § Auto-core promoted
_PINNED = ("1", "2", "3", AUTO_CORE)  # rules whose tier no passing log changes


class Verdict(NamedTuple):
    """One fact as the review leaves it."""

    id: str
    path: str  # the file it lives in now
    fact: Fact  # as read, its footer as written
    section: str  # the section the rules see: its own, or its ``from`` in the archive
    fields: Mapping[str, str]  # the footer the review writes
    tier: str  # its ``tier`` field
    rule: str  # the rule that decided its tier: a key of ``tiers.RULES``, or AUTO_CORE
    move: str  # "stay", "archive" or "restore"
    came_from: str | None  # an archived fact's ``from`` before a restore
    old_tier: str  # its footer's tier ("(none)" without one, "archived" in the archive)
    idle: int  # sessions_since(last_used)

    @property
    def promoted(self) -> bool:
        return self.rule == AUTO_CORE

    @property
    def swept(self) -> bool:
        return self.fact.task == "x"


class Event(NamedTuple):
    date: str
    what: str  # "birth", "imported history", "counted by the last review", or a log's path


class Move(NamedTuple):
    sessions: int  # after this many more session logs that do not name the fact
    tier: str
    rule: str


class Events(NamedTuple):
    """What the logs that were counted say: per id, (events, date of the latest)."""

    tally: Mapping[str, tuple[int, str]]
    created_by_log: frozenset[str]  # ids some counted log lists under Created
    pairs: tuple[tuple[str, str], ...] = ()  # the counted logs' Superseded: lines, in order
    links: supersede.Links = supersede.Links({}, {})  # those pairs, between ids that exist


class _Located(NamedTuple):
    doc: Document
    fact: Fact
    section: str  # the section rules see: its own, or ``from`` when archived


class Verdicts(NamedTuple):
    """One run's count of the logs, from which every fact's verdict follows."""

    inputs: Inputs
    through: str | None  # the last log the previous review read
    counted: Sequence[str]  # the logs counted: the window, or every log
    events: Events
    promotable: frozenset[str]  # DECAY.md § Auto-core's candidates
    since: Callable[[str], int]  # sessions_since(day)

    def every(self) -> tuple[Verdict, ...]:
        """The verdict of every fact with an id, in the order the files hold them."""
        inputs, events, since, promotable = self.inputs, self.events, self.since, self.promotable
        return tuple(
            _judge(item, inputs, events, since, promotable)
            for item in _located(inputs)
            if item.fact.id is not None
        )

    def of(self, fact_id: str) -> Verdict | None:
        """The verdict of the fact ``fact_id``, or None when no fact has it."""
        found = next((item for item in _located(self.inputs) if item.fact.id == fact_id), None)
        if found is None:
            return None
        return _judge(found, self.inputs, self.events, self.since, self.promotable)

    def history(self, verdict: Verdict) -> tuple[Event, ...]:
        """The events DECAY.md § Events counts: the birth or imported history, what the last
        review counted (an incremental run reads only the logs after it), and each log read."""
        fact_id, stored, inputs = verdict.id, dict(verdict.fact.fields), self.inputs
        read = ((name, inputs.refs.get(name, EMPTY)) for name in self.counted)
        logged = [(name, refs) for name, refs in read if fact_id in refs.used]
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
        elif not any(fact_id in refs.created for _, refs in logged) and stored.get("created"):
            found.append(Event(stored["created"], "birth (created; no log lists it under Created)"))
        found += [Event(name[:10], _label(refs, fact_id, name)) for name, refs in logged]
        return tuple(found)

    def next_move(self, verdict: Verdict) -> Move | None:
        """The fewest further session logs, none naming the fact, after which its tier changes.

        New logs sort after every date a footer holds, so each one adds one to every
        sessions_since; tiers only move one way as logs pass, so a binary search finds the first.
        """
        if verdict.tier in ("archived", tiers.SUPERSEDED) or verdict.rule in _PINNED:
            return None
        policy, since, fact = self.inputs.policy, self.since, verdict.fact
        limit = max(policy.working_window, policy.active_window, policy.archive_window) + 2

        def after(extra: int) -> tiers.Decision:
            return tiers.decide(
                verdict.fields, verdict.section, fact.task, lambda day: since(day) + extra, policy
            )

        if after(limit).tier == verdict.tier:
            return None
        low, high = 1, limit
        while low < high:
            middle = (low + high) // 2
            if after(middle).tier == verdict.tier:
                low = middle + 1
            else:
                high = middle
        moved = after(low)
        return Move(low, moved.tier, moved.rule)


def verdicts(inputs: Inputs) -> Verdicts:
    """Count the logs the review reads, once; each fact's verdict follows from the count."""
    through = cursor(last_review(inputs.continuity), inputs.logs)
    counted = window(inputs.logs, None if inputs.full else through)
    events = _events(counted, inputs.refs)
    events = events._replace(links=supersede.links(events.pairs, known_ids(inputs.documents)))
    promotable = tiers.auto_core(inputs.policy, inputs.logs, inputs.refs)
    since = logs_since(inputs.logs)
    return Verdicts(inputs, through, counted, events, promotable, since)


def _events(counted: Sequence[str], refs: Mapping[str, SessionRefs]) -> Events:
    """Count each id once per log that uses it; logs come in order, so the last date is latest.

    A full review walks every log here, so the walk only gathers (id, date) pairs; counting and
    keeping the latest date per id are then single C-level passes (``Counter``, ``dict``).
    """
    ids: list[str] = []
    days: list[str] = []
    created: set[str] = set()
    pairs: list[tuple[str, str]] = []
    for name in counted:
        found = refs.get(name, EMPTY)
        used, made = found.used, found.created
        if found.superseded:
            pairs.extend(found.superseded)
        if not used:
            continue
        ids.extend(used)
        days.extend(repeat(name[:10], len(used)))
        if made:
            created |= made
    latest = dict(zip(ids, days, strict=True))
    tally = {i: (n, latest[i]) for i, n in Counter(ids).items()}
    return Events(tally, frozenset(created), tuple(pairs))


def _located(inputs: Inputs) -> list[_Located]:
    live = inputs.documents[: len(inputs.documents) - len(inputs.archives)]
    located = [_Located(doc, f, f.section) for doc in live for f in doc.facts]
    for doc in inputs.archives:
        located += [
            _Located(doc, f, moves.section_of(f.field("from")) or f.section) for f in doc.facts
        ]
    return located


def _judge(
    item: _Located,
    inputs: Inputs,
    events: Events,
    since: Callable[[str], int],
    promotable: frozenset[str],
) -> Verdict:
    """DECAY.md § Events, § Tiers and § Auto-core for one fact."""
    fact, today = item.fact, inputs.today.isoformat()
    fact_id = fact.id or ""
    old = dict(fact.fields)
    new = dict(old)
    created = old.get("created") or today
    new["created"] = created
    uses, last = _uses(old, fact_id, created, inputs.full, events)
    new["uses"], new["last_used"] = str(uses), last or created
    if fact.task == "x":
        new.setdefault("done", today)
    else:
        new.pop("done", None)
    supersede.apply(new, events.links)
    in_archive = item.doc.path.startswith(ARCHIVE_DIR + "/")
    decision = tiers.decide(new, item.section, fact.task, since, inputs.policy, in_archive, today)
    if (
        decision.tier not in ("core", "archived", supersede.SUPERSEDED)
        and fact_id in promotable
        and uses >= inputs.policy.core_min_uses
    ):
        decision = tiers.Decision("core", AUTO_CORE)
    new["tier"] = decision.tier
    gone = decision.tier in ("archived", supersede.SUPERSEDED)
    move, came_from = "stay", old.get("from")
    if gone and not in_archive and item.doc.path != VISION:
        new["from"] = moves.origin(item.doc.path, item.section)
        new["archived"], move = today, "archive"
    elif not gone and in_archive:
        new.pop("from", None)
        new.pop("archived", None)
        new.pop("archived-by", None)
        move = "restore"
        if decision.rule != AUTO_CORE:  # where it returns to, pinning holds again
            decision = tiers.decide(new, item.section, fact.task, since, inputs.policy)
            new["tier"] = decision.tier
    old_tier = old.get("tier", "archived" if in_archive else "(none)")
    return Verdict(
        fact_id,
        item.doc.path,
        fact,
        item.section,
        MappingProxyType(new),
        decision.tier,
        decision.rule,
        move,
        came_from,
        old_tier,
        since(new["last_used"]),
    )


def _uses(
    old: Mapping[str, str], fact_id: str, created: str, full: bool, events: Events
) -> tuple[int, str]:
    """DECAY.md § Events: (uses, last_used) from every log, or from the footer and the window."""
    count, latest = events.tally.get(fact_id, (0, ""))
    if full:
        return from_logs(old, created, count, latest, fact_id in events.created_by_log)
    base = int(old["base_uses"]) if "base_uses" in old else None
    # stored counts + the window, less a birth event a window log replaces
    stored = int(old["uses"]) if "uses" in old else (base if base is not None else 1)
    birth = base is None and fact_id in events.created_by_log
    uses = max(stored + count - (1 if birth else 0), count)
    return uses, max(old.get("last_used", created), latest)


def from_logs(
    stored: Mapping[str, str], created: str, count: int, latest: str, by_log: bool
) -> tuple[int, str]:
    """DECAY.md § Events over every log: (uses, last_used) of a fact whose footer is ``stored``,
    named by ``count`` logs, the latest on ``latest`` (``by_log``: a log lists it under
    Created, so its birth is that log's). An imported history (``base_uses``) counts first; a
    value that is no count is none (the replay reads footers a review would refuse)."""
    base = stored.get("base_uses", "")
    if base.isascii() and base.isdigit() and len(base) < 10:
        return int(base) + count, max(stored.get("base_last_used", created), latest)
    if by_log:
        return count, latest
    return count + 1, latest if latest > created else created


def _label(refs: SessionRefs, fact_id: str, name: str) -> str:
    how = "Created" if fact_id in refs.created else "used"
    return f"{SESSIONS_DIR}/{name} ({how})"
