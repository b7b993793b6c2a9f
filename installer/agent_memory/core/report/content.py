"""What the report says (DESIGN §23), as data: both the page and the Markdown are renderings of
one ``Content``, so they never say different things."""

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from ...parse.facts import Document
from ..replay import periods, tally
from ..replay.periods import Period
from ..replay.run import GONE, Replay
from ..replay.tally import Missed, Outlook, Totals

LISTED = 10  # rows of the most and least used, and of the facts missed most


class Ranked(NamedTuple):
    id: str
    uses: int  # logs that named it
    tier: str  # its footer's, today
    text: str  # its first line


class Content(NamedTuple):
    repo: str  # its folder's name
    today: str
    version: str
    due: tuple[str, ...]  # why a review is due (none: not due)
    tiers_now: Mapping[str, int]  # live facts per tier, as their footers say today
    tiers_over_time: tuple[tuple[str, Mapping[str, int]], ...]  # replayed, per period
    hits_over_time: tuple[tuple[str, Totals], ...]
    totals: Totals
    most_used: tuple[Ranked, ...]
    least_used: tuple[Ranked, ...]
    missed: tuple[Missed, ...]  # the facts most often not in full
    budgets: tuple[tuple[int, Outlook], ...]  # (max bytes, the replay at it)
    archive: tuple[tuple[str, int], ...]  # (quarter file, facts it holds)
    stale: tuple[tuple[str, str], ...]  # (id, what changed)
    expiring: tuple[tuple[str, str, bool], ...]  # (id, valid-until, already past)
    proposals: int  # `## Proposed Facts` entries in logs no review has read
    from_git: int  # logs counted on the memory git holds from before them (the rest projected)

    def as_data(self) -> dict[str, Any]:
        """The content as JSON values (``--json``)."""
        return {
            "today": self.today,
            "due": list(self.due),
            "tiers_now": dict(self.tiers_now),
            "tiers_over_time": [{"period": q, **t} for q, t in self.tiers_over_time],
            "hits_over_time": [{"period": q, **t.as_data()} for q, t in self.hits_over_time],
            "totals": self.totals.as_data(),
            "most_used": [r._asdict() for r in self.most_used],
            "least_used": [r._asdict() for r in self.least_used],
            "most_missed": [m.as_data() for m in self.missed],
            "budgets": tally.budget_rows(self.budgets),
            "archive": [{"file": f, "facts": n} for f, n in self.archive],
            "stale": [{"id": i, "why": w} for i, w in self.stale],
            "expiring": [{"id": i, "valid_until": d, "past": p} for i, d, p in self.expiring],
            "pending_proposals": self.proposals,
            "logs_found_in_git": self.from_git,
        }


class Seen(NamedTuple):
    """What the report reads besides the memory and the replay."""

    repo: str
    today: str
    version: str
    due: Sequence[str]
    stale: Mapping[str, str]  # id → its stale mark
    proposals: int
    from_git: int  # logs whose start's memory git holds (``replay``)


def content(
    documents: Sequence[Document],
    archives: int,
    runs: Sequence[tuple[int, Replay]],
    seen: Seen,
    period: Period = periods.quarter,
) -> Content:
    """The report of a memory (``documents``, the last ``archives`` of them archive files);
    ``runs``: its history replayed at each budget, the first the default one; ``period``: the
    periods the runs counted tiers by, and their shares in full are cut by."""
    run = runs[0][1]
    live_docs = documents[: len(documents) - archives]
    live = [f for doc in live_docs for f in doc.facts if f.id is not None]
    ranked = [
        Ranked(f.id or "", run.uses.get(f.id or "", 0), _tier(f.fields), _line(f.first_line))
        for f in live
    ]
    archived = [f for doc in documents[len(live_docs) :] for f in doc.facts if f.id is not None]
    ranked_all = ranked + [
        Ranked(f.id or "", run.uses.get(f.id or "", 0), "archived", _line(f.first_line))
        for f in archived
    ]
    decaying = [r for r in ranked if r.tier not in ("core", *GONE)]
    expiring = sorted(
        (until, f.id or "")
        for f in live
        if (until := dict(f.fields).get("valid-until")) is not None
    )
    most = tuple(sorted(ranked_all, key=lambda r: (-r.uses, r.id))[:LISTED])
    shown = {r.id for r in most}
    least = [r for r in sorted(decaying, key=lambda r: (r.uses, r.id)) if r.id not in shown]
    return Content(
        seen.repo,
        seen.today,
        seen.version,
        tuple(seen.due),
        dict(sorted(Counter(r.tier for r in ranked).items())),
        run.tiers,
        tally.per_period(run.steps, period),
        tally.totals(run.steps),
        most,
        tuple(least[:LISTED]),  # never one of the most used: a short memory is in both
        tally.most_missed(run.steps, LISTED),
        tuple((budget, tally.outlook(f"{budget} bytes", r)) for budget, r in runs),
        tuple((doc.path.rsplit("/", 1)[-1], len(doc.facts)) for doc in documents[len(live_docs) :]),
        tuple(sorted((i, w) for i, w in seen.stale.items())),
        tuple((i, d, seen.today > d) for d, i in expiring),
        seen.proposals,
        seen.from_git,
    )


def _tier(fields: Sequence[tuple[str, str]]) -> str:
    return dict(fields).get("tier") or "(none)"


def _line(text: str, limit: int = 100) -> str:
    """A fact's first line, one line of printable text, cut to ``limit`` characters."""
    flat = "".join(c if c.isprintable() else " " for c in text).strip()
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
