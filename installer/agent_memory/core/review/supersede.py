"""Supersession (DECAY.md § Supersession): the ``- Superseded: old → new`` log lines, applied.

``old`` becomes ``tier: superseded`` with ``superseded-by: new`` and ``new`` gets
``supersedes: old``; a pair naming an id that exists nowhere is left to lint. Both sides only
gain fields, so applying the pairs of every log (a full review) or of the window (an
incremental one, over footers that already carry the earlier pairs) gives the same footers.
"""

from collections.abc import Iterable, Mapping, Set
from typing import NamedTuple

SUPERSEDED = "superseded"
BY = "superseded-by"
SUPERSEDES = "supersedes"


class Links(NamedTuple):
    by: Mapping[str, str]  # old id -> the id that superseded it (the last log's word wins)
    supersedes: Mapping[str, tuple[str, ...]]  # new id -> the ids it superseded, in log order


def links(pairs: Iterable[tuple[str, str]], known: Set[str]) -> Links:
    """The pairs the counted logs state, in log order, between ids that exist."""
    by: dict[str, str] = {}
    supersedes: dict[str, list[str]] = {}
    for old, new in pairs:
        if old in known and new in known and old != new:
            by[old] = new
            olds = supersedes.setdefault(new, [])
            if old not in olds:
                olds.append(old)
    return Links(by, {new: tuple(olds) for new, olds in supersedes.items()})


def apply(fields: dict[str, str], found: Links) -> None:
    """Give one footer (``fields``, changed in place) what the logs say of its id."""
    fact_id = fields["id"]
    if fact_id in found.by:
        fields["tier"] = SUPERSEDED
        fields[BY] = found.by[fact_id]
    olds = found.supersedes.get(fact_id, ())
    if olds:
        have = [part.strip() for part in fields.get(SUPERSEDES, "").split(",") if part.strip()]
        fields[SUPERSEDES] = ", ".join([*have, *(old for old in olds if old not in have)])
