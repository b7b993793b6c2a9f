"""Lint's supersession checks (DECAY.md § Supersession): links that hold, facts that left."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..errors import Problem
from ..layout import ARCHIVE_DIR
from ..parse.facts import Document
from .supersede import BY, SUPERSEDED


def supersession_problems(docs: Sequence[Document]) -> list[Problem]:
    """A ``superseded-by`` naming no fact (an error), and a superseded fact not yet archived."""
    known = {f.id for doc in docs for f in doc.facts if f.id is not None}
    found = []
    for doc in docs:
        for fact in doc.facts:
            target = fact.field(BY)
            if target is not None and target not in known:
                found.append(
                    Problem(
                        doc.path,
                        fact.line,
                        "error",
                        "superseded-by-dangling",
                        f"superseded-by: {target!r} names no fact; give the id of its successor",
                    )
                )
            if fact.field("tier") == SUPERSEDED and not doc.path.startswith(ARCHIVE_DIR + "/"):
                found.append(
                    Problem(
                        doc.path,
                        fact.line,
                        "warning",
                        "superseded",
                        f"{fact.id!r} is superseded by {target or 'another fact'}; "
                        "the next review moves it to the archive",
                    )
                )
    return found


def superseded_since(docs: Sequence[Document]) -> Mapping[str, tuple[str, str]]:
    """Superseded id -> (its successor, the day the successor was created).

    A log dated after that day that still names the old id earns a warning.
    """
    created = {f.id: f.field("created") or "" for doc in docs for f in doc.facts if f.id}
    return {
        fact.id: (target, created.get(target, ""))
        for doc in docs
        for fact in doc.facts
        if fact.id is not None
        and fact.field("tier") == SUPERSEDED
        and (target := fact.field(BY)) is not None
    }
