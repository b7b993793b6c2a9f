"""DECAY.md § Tiers: the one place the tier rules are written.

The review, the upgrade rungs' backfill, the vendor import and the due-check all ask here, so a
rule changes in one function and every caller follows. The rules are tried in DECAY.md's order;
the first that matches decides.
"""

from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import NamedTuple

from ...parse.facts import Fact
from ...parse.policy import Policy
from ...parse.sessions import EMPTY, SessionRefs

INVARIANTS = "architectural invariants"
VISION = "vision"  # memory/vision.md: its one fact is pinned like an invariant
SUPERSEDED = "superseded"
# "sessions since a date" when no session log has been written yet (a fact being born).
_NO_LOGS_SINCE: Callable[[str], int] = lambda _day: 0  # noqa: E731


class Decision(NamedTuple):
    """A fact's tier and the rule of DECAY.md § Tiers that decided it (a key of ``RULES``)."""

    tier: str
    rule: str


# Each rule in DECAY.md's words (a test checks they are still there), keyed as ``decide`` says.
RULES = MappingProxyType(
    {
        "0": "`tier: superseded` in its footer → **superseded** (terminal: see § Supersession).",
        "expired": "`valid-until` before the review date → **archived**, whatever its tier: the "
        "fact **expired** (see § Expiry).",
        "1": "`tier: core` in its footer → **core** (a human decision; never demoted).",
        "2": "under `## Architectural Invariants`, or the fact of `memory/vision.md` → **core** "
        "(pinned).",
        "3": "an open thread `- [ ]` → **active** (pinned; never decays).",
        "sweep": "A checked thread is **swept** to the archive once "
        "sessions_since(max(`done`, `last_used`)) > archive_window.",
        "4": "sessions_since(`created`) ≤ working_window and `uses` ≤ 1 → **working**.",
        "5": "sessions_since(`last_used`) ≤ active_window → **active**.",
        "6": "sessions_since(`last_used`) ≤ archive_window → **archive-candidate** (the review "
        "warns).",
        "6-thread": "where rule 7 would match it stays **archive-candidate**.",
        "7": "otherwise → **archived**: the fact moves to the archive.",
        "held": "is archived by the next review and stays archived until a log names it after "
        "its `archived` date: windows did not put it there, so windows do not bring it back.",
    }
)


def decide(
    fields: Mapping[str, str],
    section: str,
    task: str | None,
    since: Callable[[str], int],
    policy: Policy,
    archived: bool = False,
    today: str = "",
) -> Decision:
    """The tier of a fact whose footer (``created``, ``last_used``, ``uses``, and ``done`` for a
    checked thread) says ``fields``, in ``section``, and the rule that matched first;
    ``since(day)`` counts the logs after it.

    ``archived``: the fact lives in the archive, where nothing is pinned (rules 2 and 3 hold in
    continuity.md, open-threads/ and vision.md only). ``today``: the review date (none: nothing
    has expired)."""
    first = by_hand(fields, archived, today)
    if first is not None:
        return first
    pinned = not archived
    if pinned and section.lower() in (INVARIANTS, VISION):  # 2. pinned
        return Decision("core", "2")
    if pinned and task == " ":  # 3. an open thread is pinned
        return Decision("active", "3")
    last_used = fields["last_used"]
    if task == "x" and since(max(fields["done"], last_used)) > policy.archive_window:
        return Decision("archived", "sweep")  # a checked thread is swept
    if since(fields["created"]) <= policy.working_window and int(fields["uses"]) <= 1:  # 4.
        return Decision("working", "4")
    idle = since(last_used)
    if idle <= policy.active_window:  # 5.
        return Decision("active", "5")
    if idle <= policy.archive_window:  # 6.
        return Decision("archive-candidate", "6")
    if task == "x":  # a checked thread waits to be swept
        return Decision("archive-candidate", "6-thread")
    return Decision("archived", "7")  # 7.


def by_hand(fields: Mapping[str, str], archived: bool = False, today: str = "") -> Decision | None:
    """The rules before pins and windows, which no log moves: superseded (0), expired, a
    person's pin (1), archived by hand (held); None when none holds."""
    tier = fields.get("tier")
    if tier == SUPERSEDED:  # 0. terminal: replaced by another fact
        return Decision(SUPERSEDED, "0")
    # (most footers have neither key: no call then, on a path a replay takes 26,000 times)
    if "valid-until" in fields and expired(fields, today):
        return Decision("archived", "expired")
    if tier == "core":  # 1. human override
        return Decision("core", "1")
    if "archived-by" in fields and held(fields, archived):
        return Decision("archived", "held")
    return None


def expired(fields: Mapping[str, str], today: str) -> bool:
    """DECAY.md § Expiry: the review date is past the fact's ``valid-until``."""
    until = fields.get("valid-until")
    return bool(today) and until is not None and today > until


def held(fields: Mapping[str, str], archived: bool = True) -> bool:
    """A fact a person archived by hand (``archived-by: hand``: ``fact archive``, or the
    adoption of a repo enabled by hand) is archived by the next review and stays archived until
    a log names it after its ``archived`` date: windows did not put it there, so windows do not
    bring it back."""
    if fields.get("archived-by") != "hand":
        return False
    return not archived or fields.get("last_used", "") <= fields.get("archived", "")


def at_birth(fields: Mapping[str, str], section: str, task: str | None) -> str:
    """The tier the rules give a fact no session log has followed yet, so that the first review
    after an upgrade or an import changes no footer. Missing counts and dates read as a birth."""
    defaults = {"created": "", "last_used": "", "uses": "1", "done": ""}
    return decide({**defaults, **fields}, section, task, _NO_LOGS_SINCE, Policy()).tier


def decays(fact: Fact) -> bool:
    """Whether the review may ever archive ``fact``: rules 1 to 3 pin it otherwise."""
    return not (
        fact.field("tier") == "core"
        or fact.section.lower() in (INVARIANTS, VISION)
        or fact.task == " "
    )


def auto_core(
    policy: Policy, logs: Sequence[str], refs: Mapping[str, SessionRefs]
) -> frozenset[str]:
    """DECAY.md § Auto-core: with it enabled, the ids referenced in each of the last
    core_min_reviews blocks of review_every logs (empty when it is off)."""
    size, blocks = policy.review_every, policy.core_min_reviews
    if not policy.enabled or len(logs) < size * blocks:
        return frozenset()
    result: set[str] | None = None
    for b in range(blocks):
        seen: set[str] = set()
        for name in logs[len(logs) - (b + 1) * size : len(logs) - b * size]:
            seen |= refs.get(name, EMPTY).used
        result = seen if result is None else result & seen
    return frozenset(result or ())
