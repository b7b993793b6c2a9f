"""What a replay adds up to: the share of uses in full (the headline) and named, in total and per
period, the facts most often not in full, and the comparison of one history replayed under two
policies or at several budgets."""

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from . import periods
from .periods import Period
from .run import ARCHIVED, CUT, HIDDEN, NAMED, NEW, SHOWN, UNKNOWN, Replay, Step

OUTCOMES = (SHOWN, NAMED, CUT, HIDDEN, ARCHIVED, UNKNOWN, NEW)
COUNTED = (SHOWN, NAMED, CUT, HIDDEN, ARCHIVED)  # the uses of facts that existed then


class Totals(NamedTuple):
    logs: int
    outcomes: Mapping[str, int]  # every outcome, zeros included

    @property
    def existing(self) -> int:
        return sum(self.outcomes[o] for o in COUNTED)

    @property
    def in_full_rate(self) -> float | None:
        """The share of uses of existing facts the view showed in full, its text there (None:
        no such use): the headline."""
        return self.outcomes[SHOWN] / self.existing if self.existing else None

    @property
    def named_rate(self) -> float | None:
        """The share the view showed in full or at least named (its one line)."""
        hits = self.outcomes[SHOWN] + self.outcomes[NAMED]
        return hits / self.existing if self.existing else None

    def as_data(self) -> dict[str, Any]:
        return {
            "logs": self.logs,
            "uses": self.existing,
            **self.outcomes,
            "in_full_rate": _rounded(self.in_full_rate),
            "named_rate": _rounded(self.named_rate),
        }


def totals(steps: Sequence[Step]) -> Totals:
    found = Counter([outcome for step in steps for _, outcome in step.uses])
    return Totals(len(steps), {o: found[o] for o in OUTCOMES})


def per_period(
    steps: Sequence[Step], period: Period = periods.quarter
) -> tuple[tuple[str, Totals], ...]:
    """Totals of each period of the logs' dates (calendar quarters unless told), in order."""
    groups: dict[str, list[Step]] = {}
    day = ""
    group: list[Step] = []
    for step in steps:
        if step.log[:10] != day:  # a period is one of the log's date (logs sort by date)
            day = step.log[:10]
            group = groups.setdefault(period(step.log), [])
        group.append(step)
    return tuple((key, totals(group)) for key, group in groups.items())


class Missed(NamedTuple):
    """A fact whose uses the view did not show in full: how often, and how of those."""

    id: str
    missed: int  # uses not in full
    named: int  # of them, named by its one line only
    archived: int  # of them, archived then

    def as_data(self) -> dict[str, Any]:
        return self._asdict()


def most_missed(steps: Iterable[Step], limit: int = 10) -> tuple[Missed, ...]:
    """The facts whose uses the view showed least often in full (named only, cut, left out or
    archived), most first, then by id."""
    missed: Counter[str] = Counter()
    named: Counter[str] = Counter()
    archived: Counter[str] = Counter()
    for step in steps:
        for fact_id, outcome in step.uses:
            if outcome in COUNTED and outcome != SHOWN:
                missed[fact_id] += 1
                named[fact_id] += outcome == NAMED
                archived[fact_id] += outcome == ARCHIVED
    ranked = sorted(missed, key=lambda i: (-missed[i], i))
    return tuple(Missed(i, missed[i], named[i], archived[i]) for i in ranked[:limit])


class Outlook(NamedTuple):
    """One replay in a comparison (of policies, or of budgets): its words and what it would have
    done."""

    label: str
    totals: Totals
    context_bytes: float  # the mean view
    live: int  # facts in continuity.md at the end
    live_bytes: int

    def as_data(self) -> dict[str, Any]:
        return {
            "policy": self.label,
            **self.totals.as_data(),
            "mean_context_bytes": round(self.context_bytes, 1),
            "live_facts_at_end": self.live,
            "live_fact_bytes_at_end": self.live_bytes,
        }


def outlook(label: str, run: Replay) -> Outlook:
    """What ``run`` would have done, under ``label``."""
    count = len(run.steps)
    mean = sum(s.context for s in run.steps) / count if count else 0.0
    return Outlook(label, totals(run.steps), mean, run.live, run.live_bytes)


def budget_rows(budgets: Iterable[tuple[int, Outlook]]) -> list[dict[str, Any]]:
    """The replay at each budget, (max bytes, its outlook), as JSON values (``replay`` and
    ``report`` both print them)."""
    return [
        {"max_bytes": b, **o.totals.as_data(), "mean_context_bytes": round(o.context_bytes, 1)}
        for b, o in budgets
    ]


def policy_words(policy: Mapping[str, object], changed: Sequence[str]) -> str:
    """``key: value`` of the keys a comparison changed (``changed``), or "the repo's"."""
    return ", ".join(f"{key}: {policy[key]}" for key in changed) or "the repo's policy"


def percent(rate: float | None) -> str:
    return "n/a" if rate is None else f"{rate * 100:.1f} %"


def _rounded(rate: float | None) -> float | None:
    return None if rate is None else round(rate, 4)
