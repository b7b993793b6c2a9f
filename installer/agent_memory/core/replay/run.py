"""Replay (DESIGN §23): the review's projection run forward over the repo's own history.

For each session log in order, the memory as it stood before it — every fact judged by
DECAY.md's rules over the logs before it, its footer as a review run just before that session
would have written it — and the view ``context.view`` gives of it (``states``), for the task a
session start could know (none, or its first prompt where its log records it) and no paths
known, at each budget asked. Each id the session used is then shown in full, named (its one
line), cut (over the budget: not named), live but left out of the view, archived (a miss: the
agent had to reach into the archive), unknown, or new (the session made it).

One pass: a fact's tier moves only when a log names it or when one of a few counts or dates is
crossed, and those crossings are computable, so each fact is judged again only then (a list per
log holds the facts due there), and its footer in the memory handed to the view changes only
then.
What the projection cannot know (REVIEW.md § Replay): a fact's text is today's, as are a
human's pins and the order of the file. Where git holds the memory a session start found, the
replay counts that session on it instead (``history``); the projection still gives the tiers
over time and the policies compared.
"""

from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

from ...parse.facts import Document, Fact
from ...parse.policy import Policy
from ...parse.sessions import SessionRefs
from ..agents.context import View
from ..agents.relevance import RECENT_SESSIONS
from ..review import moves, tiers
from ..review.verdicts import from_logs
from . import periods, stored
from .periods import Period
from .states import States

SHOWN, NAMED, CUT = "shown", "named", "cut"  # in full, by its one line, counted but not named
ARCHIVED, HIDDEN, UNKNOWN, NEW = "archived", "hidden", "unknown", "new"
LIVE = ""  # a use of a fact in the memory files: where the view put it says its outcome
GONE = ("archived", tiers.SUPERSEDED)  # tiers that put a fact out of continuity.md


class Subject(NamedTuple):
    """A fact as today's memory holds it: what the replay judges at each step."""

    id: str
    fact: Fact  # its section the one the rules see: its own, or its ``from`` in the archive
    doc: int  # the document that holds its lines
    fields: Mapping[str, str]  # today's footer
    size: int  # its bytes in its file


class Step(NamedTuple):
    """One session as replayed: what happened to each id it used, and its view's size."""

    log: str
    uses: tuple[tuple[str, str], ...]  # (id, outcome), sorted by id
    context: int  # bytes


class Replay(NamedTuple):
    steps: tuple[Step, ...]
    tiers: tuple[tuple[str, Mapping[str, int]], ...]  # (period, facts per tier at its end)
    live: int  # facts in continuity.md (and the thread files) after the last log
    live_bytes: int  # their lines' bytes
    uses: Mapping[str, int]  # every log's uses of each known id
    final: Mapping[str, str]  # each fact's tier after the last log (born facts only)


def subjects(documents: Sequence[Document], archives: int) -> tuple[Subject, ...]:
    """Every fact of ``documents`` (the live files, then the archive); ``archives``: how many of
    them are archive files. A live fact no review tracks (no id, or an id taken before it) is
    in every view as it is today, under the id ""."""
    found: list[Subject] = []
    seen: set[str] = set()
    for number, doc in enumerate(documents):
        archived = number >= len(documents) - archives
        for fact in doc.facts:
            untracked = fact.id is None or fact.id in seen
            if untracked and archived:
                continue
            seen.add(fact.id or "")
            came_from = moves.section_of(fact.field("from")) if archived else None
            size = sum(len(doc.text.lines[k].encode()) for k in range(fact.start, fact.end))
            shown = fact._replace(section=came_from or fact.section)
            subject_id = "" if untracked else fact.id or ""
            found.append(Subject(subject_id, shown, number, dict(fact.fields), size))
    return tuple(found)


def replay(
    memory: Sequence[Document],
    subjects: Sequence[Subject],
    logs: Sequence[str],
    refs: Sequence[SessionRefs],
    tasks: Sequence[str],
    policy: Policy,
    budgets: Sequence[int],
    period: Period = periods.quarter,
    watch: Callable[[int, Sequence[View]], object] | None = None,
) -> tuple[Replay, ...]:
    """Replay ``logs`` (sorted names; ``refs``: what each references, ``tasks``: the task of its
    view) over ``subjects``, the facts of ``memory``, the view at each of ``budgets`` (one
    replay each); ``period``: the periods at whose end the facts per tier are counted.
    ``watch`` is told each log's views (by its index), as ``context`` lays them out."""
    run = _Run(memory, subjects, logs, policy, births(subjects, logs, refs))
    per_budget: list[list[Step]] = [[] for _ in budgets]
    counted: list[tuple[str, Mapping[str, int]]] = []  # (period, facts per tier at its end)
    day = now = ""
    for index, (name, found) in enumerate(zip(logs, refs, strict=True)):
        run.judge_until(index)
        if name[:10] != day:  # a period is one of the log's date
            day, now = name[:10], period(name)
            if not counted or counted[-1][0] != now:
                if counted:
                    counted[-1] = (counted[-1][0], run.tier_counts(index))
                counted.append((now, {}))
        latest = refs[max(0, index - RECENT_SESSIONS) : index]
        seen = run.states.seen(tasks[index], budgets, [r.used for r in reversed(latest)])
        if watch is not None:
            watch(index, seen)
        for made, step in zip(per_budget, steps(name, run.take(index, found), seen), strict=True):
            made.append(step)
    run.judge_until(len(logs))
    counts = run.tier_counts(len(logs))
    if counted:
        counted[-1] = (counted[-1][0], counts)
    live = [  # a fact no review tracks stays where it is
        k
        for k, tier in enumerate(run.tier)
        if (tier is not None and tier not in GONE) or not subjects[k].id
    ]
    return tuple(
        Replay(
            tuple(made),
            tuple(counted),
            len(live),
            sum(subjects[k].size for k in live),
            {s.id: run.count[k] for k, s in enumerate(subjects) if s.id},
            {s.id: t for s, t in zip(subjects, run.tier, strict=True) if t is not None},
        )
        for made in per_budget
    )


def steps(log: str, taken: Sequence[tuple[str, str]], views: Sequence[View]) -> tuple[Step, ...]:
    """Log ``log``'s step in each of ``views``: ``taken``, each id it used with its outcome,
    where a ``LIVE`` one's is the first of in full, named, cut that the view gave it (left
    out: hidden)."""
    return tuple(
        Step(
            log,
            tuple((i, _placed(view, i) if o == LIVE else o) for i, o in taken),
            len(view.text.encode("utf-8")),
        )
        for view in views
    )


def _placed(view: View, fact_id: str) -> str:
    for outcome, ids in ((SHOWN, view.full), (NAMED, view.named), (CUT, view.cut)):
        if fact_id in ids:
            return outcome
    return HIDDEN


def births(
    subjects: Sequence[Subject], logs: Sequence[str], refs: Sequence[SessionRefs]
) -> list[int]:
    """The index of the first log whose session start each fact was in the memory files for
    (past the last log: never). The log that made it says when it was born: the log its
    ``origin`` names, else the first log naming it where that log lists it under ``Created``
    (a ``created`` day is the writer's, not the log name's, and a session that started before,
    that day, did not have it); else its ``created`` day (from that day's first log); with
    neither, the first log naming it made it."""
    first: dict[str, int] = {}
    for index, found in enumerate(refs):
        for fact_id in found.used:
            first.setdefault(fact_id, index)
    stems = {name.removesuffix(".md"): index for index, name in enumerate(logs)}
    found_at = []
    for subject in subjects:
        named = first.get(subject.id) if subject.id else None
        created = subject.fields.get("created")
        origin = stems.get(_stem(subject.fields.get("origin", "")))
        if origin is not None:
            found_at.append(origin + 1)
        elif named is not None and (not created or subject.id in refs[named].created):
            found_at.append(named + 1)
        elif created:
            found_at.append(bisect_left(logs, created))
        else:
            found_at.append(len(logs) + 1)
    return found_at


def _stem(origin: str) -> str:
    """The log an ``origin`` names (``LOG``, ``sessions/LOG.md``, a proposal's ``LOG#N``), by
    its name without ``.md``; another origin (an imported file) names none."""
    return origin.removeprefix("sessions/").split("#", 1)[0].removesuffix(".md")


class _Run:
    """The replay's state between logs: each fact's events so far, tier and footer."""

    def __init__(
        self,
        memory: Sequence[Document],
        subjects: Sequence[Subject],
        logs: Sequence[str],
        policy: Policy,
        born: Sequence[int],
    ) -> None:
        self.documents, self.subjects, self.logs, self.policy = memory, subjects, logs, policy
        self.born = born  # the first log whose start each fact was there for (``births``)
        # the memory files as the view is handed them: each fact's footer and box as a review
        # would have left them, from its birth while it is out of the archive
        self.states = States(memory, [(s.doc, s.fact) for s in subjects])
        self.index = {s.id: k for k, s in enumerate(subjects) if s.id}
        self.count = [0] * len(subjects)
        self.latest = [""] * len(subjects)
        self.by_log = [False] * len(subjects)  # some log listed it under Created
        self.replaced = [False] * len(subjects)  # a log superseded it
        self.tier: list[str | None] = [None] * len(subjects)  # None: not born yet
        # the facts to judge again at each log (and after the last); a fact is judged there
        # while it is still its ``when`` (any judgement, or a later one due, moves it)
        self.due: list[list[int]] = [[] for _ in range(len(logs) + 1)]
        self.when = [-1] * len(subjects)
        # A fact whose footer the review computes from its events alone (no date of a person's
        # act, no closing date) is judged from the same footer until a log names it again.
        self.steady = [stored.steady(s.fields, s.fact.task) for s in subjects]
        self.keeps = [stored.keeps(s.fields) for s in subjects]
        self.retracted = [stored.retracted(s.fields) for s in subjects]
        self.cached: list[tuple[dict[str, str], str | None] | None] = [None] * len(subjects)
        self.points: list[list[int] | None] = [None] * len(subjects)
        self.days = [name[:10] for name in logs]
        # the first log after each day a log has (the days footers hold are mostly those)
        self._after = {day: n + 1 for n, day in enumerate(self.days)}
        self.day_at = self.days + self.days[-1:]  # past the last log: its day
        self.since_at, self.since = -1, self._counter(-1)  # sessions_since at a log
        for k, subject in enumerate(subjects):
            if not subject.id:
                fields = subject.fields
                self.states.show(k, fields.get("tier"), subject.fact.task, fields)
            else:
                self._at(born[k], k)

    def after(self, day: str) -> int:
        """The index of the first log dated after ``day`` (logs sort by date)."""
        found = self._after.get(day)
        if found is None:
            found = self._after[day] = bisect_right(self.logs, day + ".")
        return found

    def _at(self, index: int, k: int) -> None:
        """Judge fact ``k`` again at log ``index`` (past the last log: never, nothing moves)."""
        self.when[k] = index
        if index < len(self.due):
            self.due[index].append(k)

    def judge_until(self, index: int) -> None:
        """Judge again every fact whose tier may have moved by log ``index``."""
        due = self.due[index]
        if due:
            when, judge = self.when, self._judge
            for k in due:
                if when[k] == index:
                    judge(index, k)
            self.due[index] = []

    def _counter(self, index: int) -> Callable[[str], int]:
        """``sessions_since`` before log ``index``: the logs before it dated after a day."""
        known, after = self._after, self.after

        def since(date: str) -> int:
            found = known.get(date)
            count = index - (after(date) if found is None else found)
            return count if count > 0 else 0

        return since

    def _judge(self, index: int, k: int) -> None:
        subject, steady = self.subjects[k], self.steady[k]
        # with no log yet, a fact stands as it was born
        day = self.day_at[index] if self.days else subject.fields.get("created", "")
        entry = self.cached[k]
        if entry is None:
            entry = self._fields(index, k, day)
            if steady:
                self.cached[k] = entry
        fields, task = entry
        if self.since_at != index:
            self.since_at, self.since = index, self._counter(index)
        hand = None if steady else stored.hand(subject.fields, day)
        if hand and tiers.held({**fields, **hand}):
            tier = "archived"
        else:
            section = subject.fact.section
            tier = tiers.decide(fields, section, task, self.since, self.policy, False, day).tier
        self.tier[k] = tier
        self.when[k] = -1  # what was due for it is judged now
        if tier in GONE:
            self.states.hide(k)
            if steady:  # out of the memory files, its tier moves only when a log names it
                return
        else:
            self.states.show(k, tier, task, fields)
        point = self._next(index, k, fields)
        if point is not None:
            self._at(point, k)

    def _next(self, index: int, k: int, fields: Mapping[str, str]) -> int | None:
        """The next log after ``index`` where fact ``k``'s tier may move though no log names
        it (None: none; ``stored.points``)."""
        points = self.points[k]
        if points is None:
            points = stored.points(fields, self.subjects[k].fields, self.after, self.policy)
            if self.steady[k]:
                self.points[k] = points
        following = bisect_right(points, index)
        return points[following] if following < len(points) else None

    def _fields(self, index: int, k: int, day: str) -> tuple[dict[str, str], str | None]:
        """The footer a review just before log ``index`` would compute (DECAY.md § Events)."""
        stored = self.subjects[k].fields
        created = stored.get("created") or day
        uses, last = from_logs(stored, created, self.count[k], self.latest[k], self.by_log[k])
        fields = {"created": created, "uses": str(uses), "last_used": last, **self.keeps[k]}
        retracted = self.retracted[k]
        if self.replaced[k] or (retracted is not None and day > retracted):
            fields["tier"] = tiers.SUPERSEDED
        task = self.subjects[k].fact.task
        if task == "x":  # closed on its ``done`` date (its last use when it has none)
            fields["done"] = stored.get("done") or stored.get("last_used") or created
            if day <= fields["done"]:
                task = " "  # still open then (an open thread's ``done`` is never read)
        return fields, task

    def take(self, index: int, found: SessionRefs) -> tuple[tuple[str, str], ...]:
        """What happened to each id log ``index`` used (``LIVE``: in the memory files, where the
        view put it tells), and the events the log adds: each fact it names is judged again
        before the next log. An id's outcome reads only its own fact, so each is taken with its
        event, in one pass."""
        day, known, tier, count = self.days[index], self.index, self.tier, self.count
        latest, by_log, cached, points = self.latest, self.by_log, self.cached, self.points
        found_outcomes = []
        for fact_id in sorted(found.used):
            k = known.get(fact_id)
            if k is None:
                found_outcomes.append((fact_id, UNKNOWN))
                continue
            now = tier[k] if index >= self.born[k] else None  # None: the session made it
            outcome = NEW if now is None else ARCHIVED if now in GONE else LIVE
            found_outcomes.append((fact_id, outcome))
            count[k] += 1
            latest[k] = day
            by_log[k] = by_log[k] or fact_id in found.created
            cached[k] = points[k] = None
            self._at(max(index + 1, self.born[k]), k)  # judged again before the next log
        for old, _new in found.superseded:
            k = known.get(old)
            if k is not None and not self.replaced[k]:
                self.replaced[k] = True
                cached[k] = points[k] = None
                self._at(index + 1, k)
        return tuple(found_outcomes)

    def tier_counts(self, index: int) -> Mapping[str, int]:
        """Facts per tier before log ``index`` (after the last, at ``len(logs)``)."""
        found = Counter(self.tier)  # None: not born yet
        return dict(sorted((t, n) for t, n in found.items() if t is not None))
