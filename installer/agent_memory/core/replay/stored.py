"""What the replay reads of a fact's footer as today's memory holds it, once per fact, and the
logs at which a footer's tier may move though no log names the fact (DECAY.md § Tiers)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ...parse.policy import Policy
from ..review import tiers


def hand(stored: Mapping[str, str], day: str) -> dict[str, str]:
    """A fact archived by hand is held from the day after it was (DECAY.md § Tiers, held)."""
    archived = stored.get("archived", "")
    if stored.get("archived-by") == "hand" and archived and day > archived:
        return {"archived-by": "hand", "archived": archived}
    return {}


def keeps(stored: Mapping[str, str]) -> dict[str, str]:
    """What of today's footer a review keeps as it is: its expiry, and a person's pin (when it
    was made is not known)."""
    kept = {"valid-until": stored["valid-until"]} if "valid-until" in stored else {}
    if stored.get("tier") == "core":
        kept["tier"] = "core"
    return kept


def retracted(stored: Mapping[str, str]) -> str | None:
    """The day after which a fact retracted today (superseded, its ``archived`` date) was."""
    archived = stored.get("archived", "")
    return archived if stored.get("tier") == tiers.SUPERSEDED and archived else None


def steady(stored: Mapping[str, str], task: str | None) -> bool:
    """Whether the review computes the fact's footer from its events alone: no date of a
    person's act, no closing date."""
    return (
        bool(stored.get("created"))
        and task != "x"
        and stored.get("archived-by") != "hand"
        and stored.get("tier") != tiers.SUPERSEDED
    )


def points(
    fields: Mapping[str, str],
    stored: Mapping[str, str],
    after: Callable[[str], int],
    policy: Policy,
) -> list[int]:
    """The logs at which the fact's tier may move though no log names it, in order: where a
    sessions_since count crosses the window a rule compares it with, or a log's date passes
    one the footer holds (DECAY.md § Tiers)."""
    idle = after(fields["last_used"])
    points = [idle + policy.active_window + 1, idle + policy.archive_window + 1]
    if int(fields["uses"]) <= 1:
        points.append(after(fields["created"]) + policy.working_window + 1)
    if "done" in fields:
        points.append(after(fields["done"]))  # the day it closed
        points.append(after(max(fields["done"], fields["last_used"])) + policy.archive_window + 1)
    points += [after(stored[key]) for key in ("valid-until", "archived") if stored.get(key)]
    return sorted(set(points))
