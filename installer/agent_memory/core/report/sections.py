"""The report's words and tables, shared by the page and the Markdown so both say the same."""

from typing import NamedTuple

from ..replay.tally import Totals, percent
from .content import Content

TIER_COLORS = (
    ("core", "#364fc7"),
    ("active", "#2b8a3e"),
    ("working", "#94d82d"),
    ("archive-candidate", "#f59f00"),
    ("archived", "#ced4da"),
    ("superseded", "#868e96"),
)
NUMERIC = frozenset(
    {
        "uses",
        "logs",
        "named",
        "in full",
        "archived",
        "not in full",
        "named only",
        "facts",
        "in all",
        "max bytes",
        "mean view bytes",
    }
)
HITS = ("period", "logs", "uses", "in full", "named", "archived")  # the hit rates' columns
LIMITS = (
    "Replayed from the session logs (REVIEW.md § Replay): a fact's text, the file's order and a "
    "person's pins are today's, a review is assumed before every session, each view's task is "
    "the session's first prompt where its log records one (else none), and a session's needs "
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
        named = totals.outcomes["shown"] + totals.outcomes["named"]
        headline = (
            f"{percent(totals.in_full_rate)} of the facts sessions used were in full in their "
            f"start-of-session view, {percent(totals.named_rate)} at least named "
            f"({totals.outcomes['shown']} and {named} of {totals.existing} uses, "
            f"{totals.logs} session logs)"
        )
    elif totals.logs:
        headline = f"None of the {totals.logs} session logs used a fact that existed before it"
    else:
        headline = "No session logs yet: nothing to replay"
    now = ", ".join(f"{n} {t}" for t, n in found.tiers_now.items()) or "none"
    projected = totals.logs - found.from_git
    return [
        headline,
        f"Views laid out on the memory git holds from before each session: {found.from_git} of "
        f"{totals.logs} session logs; on the memory the review's rules project: the other "
        f"{projected} (REVIEW.md § Replay)",
        f"Misses (the fact was archived when a session needed it): {totals.outcomes['archived']}; "
        f"cut (not named: over the budget): {totals.outcomes['cut']}; live but left out of the "
        f"view: {totals.outcomes['hidden']}",
        f"Live facts now: {now}",
        f"Pending proposals (## Proposed Facts in logs no review has read): {found.proposals}",
        f"Stale facts (cited code changed): {len(found.stale)}; facts with valid-until: "
        f"{len(found.expiring)}",
    ]


def hit_row(period: str, totals: Totals) -> tuple[str, ...]:
    """A period's row of ``HITS``."""
    return (
        period,
        str(totals.logs),
        str(totals.existing),
        percent(totals.in_full_rate),
        percent(totals.named_rate),
        str(totals.outcomes["archived"]),
    )


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
            "No live fact decays but the most used above.",
        ),
        Table(
            "In full by budget",
            ("max bytes", "in full", "named", "mean view bytes"),
            tuple(
                (
                    str(budget),
                    percent(o.totals.in_full_rate),
                    percent(o.totals.named_rate),
                    f"{o.context_bytes:.0f}",
                )
                for budget, o in found.budgets
            ),
            "No session logs yet.",
        ),
        Table(
            "Facts most often not in full",
            ("id", "not in full", "named only", "archived"),
            tuple((m.id, str(m.missed), str(m.named), str(m.archived)) for m in found.missed),
            "Every fact a session used was in full in its view.",
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
