"""The review as a pure function: (logs, continuity.md + archive, policy, date) → plan + summary.

DECAY.md defines every rule used here and REVIEW.md the steps, in the same order.
"""

from __future__ import annotations

import bisect
import datetime as dt
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from itertools import repeat
from typing import NamedTuple

from ...errors import InputError, refuse_errors
from ...layout import ARCHIVE_DIR, ARCHIVE_INDEX, CONTINUITY, OPEN_THREADS_DIR, VISION
from ...parse import facts
from ...parse.continuity import cursor, last_review
from ...parse.dates import quarter_of
from ...parse.facts import Document, Fact, Section
from ...parse.policy import Policy
from ...parse.sessions import EMPTY, SessionRefs
from ...parse.text import Text, decode
from ..plan import FileEdit, Outcome, Plan
from . import archive as archive_files
from . import moves, supersede, tiers
from .edits import (
    Edit,
    append_to_section,
    apply_edits,
    fact_lines,
    footer_edit,
    last_review_edit,
    shift_sections,
)
from .summary import Summary
from .triggers import logs_read, stem, window


class Inputs(NamedTuple):
    continuity: Document
    archives: tuple[Document, ...]
    archive_index: bytes | None
    index_template: bytes
    policy: Policy
    logs: tuple[str, ...]  # every correctly named log, sorted
    refs: Mapping[str, SessionRefs]  # of the logs read: the window, or all
    full: bool
    today: dt.date
    threads: tuple[Document, ...] = ()  # memory/open-threads/*.md
    vision: Document | None = None

    @property
    def documents(self) -> tuple[Document, ...]:
        """Every file that holds facts, in the order ids are first claimed."""
        vision = (self.vision,) if self.vision is not None else ()
        return (self.continuity, *self.threads, *vision, *self.archives)

    reason: str = ""  # why the review reads every log though not asked to (core/review/window.py)


class _Located(NamedTuple):
    doc: Document
    fact: Fact
    section: str  # the section rules see: its own, or ``from`` when archived


class _Events(NamedTuple):
    """What the logs that were counted say: per id, (events, date of the latest)."""

    tally: Mapping[str, tuple[int, str]]
    created_by_log: frozenset[str]  # ids some counted log lists under Created
    pairs: tuple[tuple[str, str], ...] = ()  # the counted logs' Superseded: lines, in order
    links: supersede.Links = supersede.Links({}, {})  # those pairs, between ids that exist


class _Verdict(NamedTuple):
    """One fact's fate: its new footer and whether it stays, goes to or leaves the archive."""

    item: _Located
    fields: dict[str, str]
    move: str  # "stay", "archive" or "restore"
    came_from: str | None  # an archived fact's ``from`` before a restore
    old_tier: str
    promoted: bool

    @property
    def id(self) -> str:
        return self.fields["id"]

    @property
    def swept(self) -> bool:
        return self.item.fact.task == "x"


class Judged(NamedTuple):
    """One fact as the review would leave it (``explain`` shows this)."""

    path: str  # where it lives now
    fact: Fact
    section: str  # the section the rules see
    fields: Mapping[str, str]  # its recomputed footer
    promoted: bool
    since: Callable[[str], int]  # sessions_since(day)


class _Counted(NamedTuple):
    through: str | None
    counted: Sequence[str]
    events: _Events
    promotable: frozenset[str]
    since: Callable[[str], int]


def _count(inputs: Inputs) -> _Counted:
    through = cursor(last_review(inputs.continuity), inputs.logs)
    counted = window(inputs.logs, None if inputs.full else through)
    events = _events(counted, inputs.refs)
    known = {f.id for doc in inputs.documents for f in doc.facts if f.id is not None}
    events = events._replace(links=supersede.links(events.pairs, known))
    promotable = tiers.auto_core(inputs.policy, inputs.logs, inputs.refs)

    logs, asked = inputs.logs, dict[str, int]()  # facts share their days: each looked up once

    def since(day: str) -> int:
        # Logs are sorted and correctly named: those of that day are "<day>-…", which sorts
        # before "<day>." ("-" < "."), and every later day's sort after it.
        found = asked.get(day)
        if found is None:
            found = asked[day] = len(logs) - bisect.bisect_right(logs, day + ".")
        return found

    return _Counted(through, counted, events, promotable, since)


def judge(inputs: Inputs, fact_id: str) -> Judged | None:
    """The fact ``fact_id`` as the review would recompute it, or None when no fact has it."""
    count = _count(inputs)
    for item in _located(inputs):
        if item.fact.id == fact_id:
            v = _judge(item, inputs, count.events, count.since, count.promotable)
            return Judged(item.doc.path, item.fact, item.section, v.fields, v.promoted, count.since)
    return None


def review(inputs: Inputs) -> tuple[Plan, Summary]:
    """REVIEW.md steps 2 to 8: recompute every footer, then move, index and stamp."""
    _refuse_unsafe(inputs)
    through, counted, events, promotable, since = _count(inputs)
    verdicts = [
        _judge(item, inputs, events, since, promotable)
        for item in _located(inputs)
        if item.fact.id is not None
    ]
    newest = stem(inputs.logs[-1]) if inputs.logs else None
    quarter = f"{quarter_of(inputs.today)}.md"
    mark = last_review(inputs.continuity)
    stale = newest is not None and (mark.merged or mark.read != len(inputs.logs))
    texts = _rewrite(inputs, verdicts, newest if newest != through or stale else None, quarter)
    docs = {doc.path: doc for doc in inputs.documents}
    file_edits = [
        _file_edit(path, docs[path].render() if path in docs else None, text)
        for path, text in texts.items()
        if path not in docs or text.encode() != docs[path].render()
    ]
    index = _index(inputs, verdicts, quarter)
    if index != inputs.archive_index:
        outcome = Outcome.CREATED if inputs.archive_index is None else Outcome.UPDATED
        file_edits.append(
            FileEdit(ARCHIVE_INDEX, inputs.archive_index, index, outcome, "archive index")
        )
    return Plan.of(file_edits), _summary(inputs, verdicts, newest, len(counted), quarter)


def _file_edit(path: str, before: bytes | None, text: Text) -> FileEdit:
    """A file the review writes; a thread file whose only fact left is removed."""
    if before is not None and path.startswith(OPEN_THREADS_DIR) and moves.emptied(text):
        return FileEdit(path, before, None, Outcome.REMOVED, "review: its thread was swept")
    outcome = Outcome.UPDATED if before is not None else Outcome.CREATED
    return FileEdit(path, before, text.encode(), outcome, "review")


def _events(counted: Sequence[str], refs: Mapping[str, SessionRefs]) -> _Events:
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
    return _Events(tally, frozenset(created), tuple(pairs))


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
    events: _Events,
    since: Callable[[str], int],
    promotable: frozenset[str],
) -> _Verdict:
    """DECAY.md § Events, § Tiers and § Auto-core for one fact."""
    fact, today = item.fact, inputs.today.isoformat()
    fact_id = fact.id or ""
    old = dict(fact.fields)
    new = dict(old)
    created = old.get("created") or today
    new["created"] = created
    count, latest = events.tally.get(fact_id, (0, ""))
    base = int(old["base_uses"]) if "base_uses" in old else None
    if inputs.full:
        if base is not None:
            uses, last = base + count, max(old.get("base_last_used", created), latest)
        elif fact_id in events.created_by_log:
            uses, last = count, latest
        else:
            uses, last = count + 1, max(created, latest)
    else:  # stored counts + the window, less a birth event a window log replaces
        stored = int(old["uses"]) if "uses" in old else (base if base is not None else 1)
        birth = base is None and fact_id in events.created_by_log
        uses = max(stored + count - (1 if birth else 0), count)
        last = max(old.get("last_used", created), latest)
    new["uses"], new["last_used"] = str(uses), last or created
    if fact.task == "x":
        new.setdefault("done", today)
    else:
        new.pop("done", None)
    supersede.apply(new, events.links)
    in_archive = item.doc.path.startswith(ARCHIVE_DIR + "/")
    tier = tiers.decide(new, item.section, fact.task, since, inputs.policy, in_archive, today).tier
    promoted = (
        tier not in ("core", "archived", supersede.SUPERSEDED)
        and fact_id in promotable
        and uses >= inputs.policy.core_min_uses
    )
    if promoted:
        tier = "core"
    new["tier"] = tier
    gone = tier in ("archived", supersede.SUPERSEDED)
    move, came_from = "stay", old.get("from")
    if gone and not in_archive and item.doc.path != VISION:
        new["from"] = moves.origin(item.doc.path, item.section)
        new["archived"], move = today, "archive"
    elif not gone and in_archive:
        new.pop("from", None)
        new.pop("archived", None)
        new.pop("archived-by", None)
        move = "restore"
        if not promoted:  # where it returns to, pinning holds again (an open thread: active)
            new["tier"] = tiers.decide(new, item.section, fact.task, since, inputs.policy).tier
    old_tier = old.get("tier", "archived" if in_archive else "(none)")
    return _Verdict(item, new, move, came_from, old_tier, promoted)


def _rewrite(
    inputs: Inputs, verdicts: Sequence[_Verdict], stamp: str | None, quarter: str
) -> dict[str, Text]:
    """REVIEW.md steps 2 to 5 and 7 as new file texts: footers, moves, ``last_review``."""
    edits: dict[str, list[Edit]] = {}
    for verdict in verdicts:
        item = verdict.item
        if verdict.move != "stay":
            edits.setdefault(item.doc.path, []).extend(moves.removal(item.doc.text, item.fact))
        elif verdict.fields != dict(item.fact.fields):
            edit = footer_edit(item.doc.text, item.fact, verdict.fields)
            edits.setdefault(item.doc.path, []).append(edit)
    if edits or stamp is not None:
        # Project State holds no facts, so this edit never meets the ones above.
        newest = stamp or cursor(last_review(inputs.continuity), inputs.logs)
        count = logs_read(inputs.logs, newest)
        review_line = last_review_edit(inputs.continuity, inputs.today.isoformat(), newest, count)
        edits.setdefault(CONTINUITY, []).append(review_line)
    docs = inputs.documents
    texts = {doc.path: apply_edits(doc.text, edits.get(doc.path, ())) for doc in docs}
    unread = {doc.path: doc for doc in docs}

    def sections(path: str) -> tuple[Section, ...] | None:
        """A file's sections after its edits, for its first append (a later one reads them)."""
        doc = unread.pop(path, None)
        return shift_sections(doc.sections, edits.get(path, ())) if doc else None

    archived = [v for v in verdicts if v.move == "archive"]
    if archived:
        path = f"{ARCHIVE_DIR}/{quarter}"
        if path not in texts:
            texts[path] = decode(path, archive_files.new_quarter(quarter[:-3]))
        for title, swept in ((archive_files.FACTS, False), (archive_files.COMPLETED, True)):
            moved = [line for v in archived if v.swept == swept for line in _moved_lines(v)]
            if moved:
                texts[path] = append_to_section(path, texts[path], title, moved, sections(path))
    restored = sorted(
        (v for v in verdicts if v.move == "restore"),
        key=lambda v: (v.item.doc.path, v.item.fact.start),
    )
    recreated = set()
    for verdict in restored:
        thread = moves.thread_file(verdict.came_from)
        if thread is not None and thread not in texts:  # DESIGN §13: its file comes back
            texts[thread] = Text(False, tuple(_moved_lines(verdict)))
            recreated.add(verdict.id)
    restored = [v for v in restored if v.id not in recreated]
    for title in sorted({v.item.section for v in restored}):
        moved = [line for v in restored if v.item.section == title for line in _moved_lines(v)]
        texts[CONTINUITY] = append_to_section(
            CONTINUITY, texts[CONTINUITY], title, moved, sections(CONTINUITY)
        )
    return texts


def _index(inputs: Inputs, verdicts: Sequence[_Verdict], quarter: str) -> bytes:
    """REVIEW.md step 6, from the facts already parsed: what stays archived, and what just went."""
    restored = {v.id for v in verdicts if v.move == "restore"}
    entries = [
        archive_files.index_line(fact, doc.path.rsplit("/", 1)[-1])
        for doc in inputs.archives
        for fact in doc.facts
        if fact.id is not None and fact.id not in restored
    ]
    entries += [
        archive_files.index_line(v.item.fact._replace(fields=tuple(v.fields.items())), quarter)
        for v in verdicts
        if v.move == "archive"
    ]
    return archive_files.render_index(inputs.archive_index, inputs.index_template, entries)


def _summary(
    inputs: Inputs, verdicts: Sequence[_Verdict], newest: str | None, counted: int, quarter: str
) -> Summary:
    def ids(pick: Callable[[_Verdict], bool]) -> tuple[str, ...]:
        return tuple(sorted(v.id for v in verdicts if pick(v)))

    changes = tuple(
        sorted(
            (v.id, v.old_tier, v.fields["tier"]) for v in verdicts if v.old_tier != v.fields["tier"]
        )
    )
    expired = ids(lambda v: v.move == "archive" and tiers.expired(v.fields, v.fields["archived"]))
    archived = ids(lambda v: v.move == "archive" and not v.swept and v.id not in expired)
    swept = ids(lambda v: v.move == "archive" and v.swept and v.id not in expired)
    return Summary(
        date=inputs.today.isoformat(),
        through=newest,
        window=counted,
        reactivated=ids(lambda v: v.move == "restore"),
        archived=archived,
        swept=swept,
        tier_changes=changes,
        candidates=ids(lambda v: v.fields["tier"] == "archive-candidate"),
        promoted=ids(lambda v: v.promoted),
        archive_file=f"{ARCHIVE_DIR}/{quarter}" if archived or swept or expired else "",
        unused=ids(lambda v: v.old_tier == "working" and int(v.fields["uses"]) <= 1),
        reason=inputs.reason,
        expired=expired,
    )


def _refuse_unsafe(inputs: Inputs) -> None:
    """REVIEW.md: a state the review cannot interpret stops it, naming the file and line."""
    docs = inputs.documents
    for doc in docs:
        refuse_errors(
            doc.problems, "fix it (agent-memory lint lists every problem) and review again"
        )
    for doc, fact, first in facts.id_clashes(docs):
        raise InputError(
            doc.path,
            fact.line,
            f"id {fact.id!r} is also at {first}",
            "ids must be unique across continuity.md and the archive; rename or merge one",
        )


def _moved_lines(verdict: _Verdict) -> list[str]:
    """The fact's lines byte for byte, with its footer rewritten."""
    return fact_lines(verdict.item.doc.text, verdict.item.fact, verdict.fields)
