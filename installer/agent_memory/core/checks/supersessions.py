"""Lint's supersession checks (DECAY.md § Supersession): links that hold, facts that left."""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set

from ...errors import Problem
from ...layout import ARCHIVE_DIR
from ...parse.facts import Document
from ...parse.footer import listed
from ...parse.sessions import SessionRefs
from ..review.supersede import BY, SUPERSEDED


def supersession_problems(docs: Sequence[Document], known: Set[str]) -> list[Problem]:
    """A ``superseded-by`` naming no fact (an error), and a superseded fact not yet archived;
    ``known`` are the ids of ``docs`` (``known_ids``)."""
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
                state = (
                    f"superseded by {target}"
                    if target
                    else f"retracted ({fact.field('reason') or 'no reason given'})"
                )
                found.append(
                    Problem(
                        doc.path,
                        fact.line,
                        "warning",
                        "superseded",
                        f"{fact.id!r} is {state}; the next review moves it to the archive",
                    )
                )
    return found


def see_problems(docs: Sequence[Document]) -> list[Problem]:
    """A ``see`` naming no fact (an error), and one naming a fact that was superseded or
    retracted since (a warning naming its successor)."""
    fields = {f.id: f for doc in docs for f in doc.facts if f.id is not None}
    found = []
    for doc in docs:
        for fact in doc.facts:
            for other in listed(fact.field("see")):
                target = fields.get(other)
                if target is None:
                    message = f"see: {other!r} names no fact; give an existing id"
                    found.append(Problem(doc.path, fact.line, "error", "see-dangling", message))
                elif target.field("tier") == SUPERSEDED:
                    by = target.field(BY)
                    now = f"superseded by {by!r}: relate to that" if by else "retracted: drop it"
                    message = f"see: {other!r} was {now} (edit the footer's see)"
                    found.append(Problem(doc.path, fact.line, "warning", "see-superseded", message))
    return found


def superseded_since(docs: Sequence[Document]) -> Mapping[str, tuple[str, str]]:
    """Superseded id -> (its successor, the day the successor was created); a retracted id ->
    ("", the day the review archived it).

    A log dated after that day that still names the old id earns a warning.
    """
    created = {f.id: f.field("created") or "" for doc in docs for f in doc.facts if f.id}
    found = {}
    for doc in docs:
        for fact in doc.facts:
            if fact.id is None or fact.field("tier") != SUPERSEDED:
                continue
            target = fact.field(BY)
            if target is not None:
                found[fact.id] = (target, created.get(target, ""))
            elif (archived := fact.field("archived")) is not None:
                found[fact.id] = ("", archived)
    return found


def log_problems(
    path: str,
    day: str,
    refs: SessionRefs,
    known: Set[str],
    replaced: Mapping[str, tuple[str, str]],
) -> list[Problem]:
    """A log's ``Superseded:`` pairs naming no fact, and its uses of an id superseded before
    ``day`` (the log's date)."""
    paired = {i for pair in refs.superseded for i in pair} - refs.used
    found = [
        Problem(path, None, "warning", "unknown-id", f"references {i!r}, which exists nowhere")
        for i in sorted(paired - known)
    ]
    found += [
        Problem(
            path,
            None,
            "warning",
            "superseded",
            f"references {i!r}, superseded by {by}" if by else f"references {i!r}, retracted",
        )
        for i in sorted(refs.used)
        if i in replaced and day > replaced[i][1]
        for by in (replaced[i][0],)
    ]
    return found
