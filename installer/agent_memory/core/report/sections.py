"""The report's words and tables, shared by the page and the Markdown so both say the same."""

from __future__ import annotations

from ...records import NamedTuple
from ..replay.tally import percent
from .content import Content

TIER_COLORS = (
    ("core", "#364fc7"),
    ("active", "#2b8a3e"),
    ("working", "#94d82d"),
    ("archive-candidate", "#f59f00"),
    ("archived", "#ced4da"),
    ("superseded", "#868e96"),
)
NUMERIC = frozenset({"uses", "logs", "shown", "archived", "not shown", "facts", "in all"})
LIMITS = (
    "Replayed from the session logs (REVIEW.md § Replay): a fact's text, the file's order and a "
    "person's pins are today's, a review is assumed before every session, and a session's needs "
    "are what its log names."
)


class Table(NamedTuple):
    title: str
    head: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    empty: str  # what to say when there are no rows


def summary(found: Content) -> list[str]:
    """The headline (first) and the lines under it."""
    totals = found.totals
    if totals.existing:
        headline = (
            f"{percent(totals.hit_rate)} of the facts sessions used were in their start-of-session "
            f"view ({totals.outcomes['shown']} of {totals.existing} uses, {totals.logs} session "
            "logs)"
        )
    elif totals.logs:
        headline = f"None of the {totals.logs} session logs used a fact that existed before it"
    else:
        headline = "No session logs yet: nothing to replay"
    now = ", ".join(f"{n} {t}" for t, n in found.tiers_now.items()) or "none"
    return [
        headline,
        f"Misses (the fact was archived when a session needed it): {totals.outcomes['archived']}; "
        f"cut by the budget: {totals.outcomes['cut']}; live but not in the view: "
        f"{totals.outcomes['hidden']}",
        f"Live facts now: {now}",
        f"Pending proposals (## Proposed Facts in logs no review has read): {found.proposals}",
        f"Stale facts (cited code changed): {len(found.stale)}; facts with valid-until: "
        f"{len(found.expiring)}",
    ]


def tables(found: Content) -> list[Table]:
    ranked = ("id", "uses", "tier", "first line")
    return [
        Table(
            "Most used facts",
            ranked,
            tuple((r.id, str(r.uses), r.tier, r.text) for r in found.most_used),
            "No fact has been used yet.",
        ),
        Table(
            "Least used live facts",
            ranked,
            tuple((r.id, str(r.uses), r.tier, r.text) for r in found.least_used),
            "No live fact decays.",
        ),
        Table(
            "Facts missed most",
            ("id", "archived", "not shown"),
            tuple((i, str(a), str(u)) for i, a, u in found.missed),
            "No session missed a fact.",
        ),
        Table(
            "Stale facts",
            ("id", "why"),
            found.stale,
            "No fact cites code that changed.",
        ),
        Table(
            "Expiring facts",
            ("id", "valid-until", "state"),
            tuple((i, d, "expired" if past else "valid") for i, d, past in found.expiring),
            "No fact has a valid-until date.",
        ),
    ]
