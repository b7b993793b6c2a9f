"""DECAY.md § Tiers: the one place the tier rules are written.

The review, the upgrade rungs' backfill, the vendor import and the due-check all ask here, so a
rule changes in one function and every caller follows. The rules are tried in DECAY.md's order;
the first that matches decides.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ..parse.facts import Fact
from ..parse.policy import Policy

INVARIANTS = "architectural invariants"
VISION = "vision"  # memory/vision.md: its one fact is pinned like an invariant
SUPERSEDED = "superseded"
# "sessions since a date" when no session log has been written yet (a fact being born).
_NO_LOGS_SINCE: Callable[[str], int] = lambda _day: 0  # noqa: E731


def tier(
    fields: Mapping[str, str],
    section: str,
    task: str | None,
    since: Callable[[str], int],
    policy: Policy,
    archived: bool = False,
) -> str:
    """The tier of a fact whose footer (``created``, ``last_used``, ``uses``, and ``done`` for a
    checked thread) says ``fields``, in ``section``; ``since(day)`` counts the logs after it.

    ``archived``: the fact lives in the archive, where nothing is pinned (rules 2 and 3 hold in
    continuity.md, open-threads/ and vision.md only)."""
    if fields.get("tier") == SUPERSEDED:  # 0. terminal: replaced by another fact
        return SUPERSEDED
    if fields.get("tier") == "core":  # 1. human override
        return "core"
    if archived and held(fields):
        return "archived"
    pinned = not archived
    if pinned and section.lower() in (INVARIANTS, VISION):  # 2. pinned
        return "core"
    if pinned and task == " ":  # 3. an open thread is pinned
        return "active"
    last_used = fields["last_used"]
    if task == "x" and since(max(fields["done"], last_used)) > policy.archive_window:
        return "archived"  # a checked thread is swept
    if since(fields["created"]) <= policy.working_window and int(fields["uses"]) <= 1:
        return "working"  # 4.
    idle = since(last_used)
    if idle <= policy.active_window:  # 5.
        return "active"
    if idle <= policy.archive_window or task == "x":  # 6. (a checked thread waits to be swept)
        return "archive-candidate"
    return "archived"  # 7.


def held(fields: Mapping[str, str]) -> bool:
    """An archived fact a person archived by hand (``archived-by: hand``, from an adopted repo)
    stays archived until a log names it after its ``archived`` date: windows did not put it
    there, so windows do not bring it back."""
    return fields.get("archived-by") == "hand" and fields.get("last_used", "") <= fields.get(
        "archived", ""
    )


def at_birth(fields: Mapping[str, str], section: str, task: str | None) -> str:
    """The tier the rules give a fact no session log has followed yet, so that the first review
    after an upgrade or an import changes no footer. Missing counts and dates read as a birth."""
    defaults = {"created": "", "last_used": "", "uses": "1", "done": ""}
    return tier({**defaults, **fields}, section, task, _NO_LOGS_SINCE, Policy())


def decays(fact: Fact) -> bool:
    """Whether the review may ever archive ``fact``: rules 1 to 3 pin it otherwise."""
    return not (
        fact.field("tier") == "core"
        or fact.section.lower() in (INVARIANTS, VISION)
        or fact.task == " "
    )
