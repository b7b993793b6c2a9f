"""The footer each curation command gives a fact (DECAY.md § Curating facts), and its refusals.

Each function takes the fact where it is and returns its new fields with a sentence saying what
changed (or why nothing did); a refusal is an ``AgentMemoryError`` naming the id and what to do.
Fields are set exactly as the by-hand forms in DECAY.md set them, so the two give the same bytes.
"""

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from ...errors import AgentMemoryError
from ...layout import PERSONAL
from ...parse import footer
from ...parse.cites import Citation, parse_value, render_value
from ..review.supersede import BY, SUPERSEDED, SUPERSEDES
from ..secrets import refuse
from .add import past_until
from .curate import Place

MAX_REASON = 300  # characters of a retraction's reason


class Change(NamedTuple):
    fields: dict[str, str]
    said: str  # what happened, for the report


def _refuse_vision(place: Place, what: str) -> None:
    if place.vision:
        raise AgentMemoryError(
            f"{place.id!r} is the fact of memory/vision.md, which never moves; {what} it by "
            "editing memory/vision.md"
        )


def _refuse_superseded(place: Place, what: str) -> None:
    fields = place.fields
    if fields.get("tier") == SUPERSEDED:
        by = fields.get(BY)
        if by is None:  # retracted: nothing stands in for it, and nothing brings it back
            reason = fields.get("reason", "")
            raise AgentMemoryError(
                f"{place.id!r} is retracted ({reason}), which is final: no command can {what} "
                "it; if it is true again, add it anew with agent-memory fact add TEXT"
            )
        raise AgentMemoryError(
            f"{place.id!r} is superseded by {by!r}, which is final; {what} {by!r} instead, or "
            "add the fact anew with agent-memory fact add"
        )


def footer_text(value: str, option: str) -> str:
    """A value a person gives for a footer (a reason): one line a footer can carry."""
    text = " ".join(value.split())
    if not text:
        raise AgentMemoryError(f"{option} is empty; say in a few words why")
    refuse(text, option)
    if footer.safe_value(text) != text or len(text) > MAX_REASON:
        raise AgentMemoryError(
            f"{option} holds '|', an HTML comment marker or a control character, or is longer "
            f"than {MAX_REASON} characters, which a footer cannot carry; rephrase it"
        )
    return text


def retract(place: Place, reason: str) -> Change:
    """No longer true, and nothing replaces it: ``tier: superseded`` with a ``reason``."""
    _refuse_vision(place, "retract")
    fields, text = place.fields, footer_text(reason, "--reason")
    if fields.get(BY):
        _refuse_superseded(place, "retract")
    fields["tier"], fields["reason"] = SUPERSEDED, text
    return Change(fields, f"{place.id} retracted: {_goes(place)}")


def _goes(place: Place) -> str:
    """Where a fact out of the view goes: the archive, at the next review; a personal fact
    stays in its file, which no review reads (DECAY.md § Personal facts)."""
    if place.doc.path == PERSONAL:
        return f"it stays in {PERSONAL}, out of the view (no review reads the file)"
    return "the next review moves it to the archive"


def archive(place: Place) -> Change:
    """Archived by hand: ``tier: archived`` and ``archived-by: hand``; the review moves it."""
    _refuse_vision(place, "archive")
    _refuse_superseded(place, "archive")
    fields = place.fields
    if place.archived:
        return Change(fields, f"{place.id} is already in the archive ({place.doc.path})")
    if fields.get("tier") == "core":
        raise AgentMemoryError(
            f"{place.id!r} is pinned (tier: core); run agent-memory fact unpin "
            f"{place.id} first, then archive it"
        )
    fields["tier"], fields["archived-by"] = "archived", "hand"
    return Change(fields, f"{place.id} archived by hand: {_goes(place)}")


def pin(place: Place) -> Change:
    _refuse_superseded(place, "pin")
    _refuse_held(place, "pin")
    fields = place.fields
    if fields.get("tier") == "core":
        return Change(fields, f"{place.id} is already pinned (tier: core)")
    fields["tier"] = "core"
    return Change(fields, f"{place.id} pinned: tier core, never decays")


def _refuse_held(place: Place, what: str) -> None:
    if place.archived or place.fields.get("archived-by") == "hand":
        raise AgentMemoryError(
            f"{place.id!r} is archived or being archived; run agent-memory fact restore "
            f"{place.id} first, then {what} it"
        )


def unpin(place: Place, tier: str) -> Change:
    """``tier``: what the rules give it without ``tier: core`` (the command asks the review)."""
    fields = place.fields
    if fields.get("tier") != "core":
        return Change(fields, f"{place.id} is not pinned by its footer (tier: core)")
    fields["tier"] = tier
    said = f"{place.id} unpinned: tier {tier}"
    if tier == "core":
        section = "the fact of memory/vision.md" if place.vision else place.fact.section
        said += f" still, pinned where it lives ({section}; DECAY.md rule 2)"
    return Change(fields, said)


def restore_live(place: Place, tier: str) -> Change:
    """Undo ``fact archive`` before a review moved the fact: ``archived-by`` goes, and ``tier``
    is what the rules give it."""
    fields = place.fields
    if fields.get("archived-by") != "hand":
        return Change(fields, f"{place.id} is not archived ({place.where})")
    del fields["archived-by"]
    fields["tier"] = tier
    return Change(fields, f"{place.id} restored: tier {tier}")


def refuse_restore(place: Place, today: str) -> None:
    """The archived facts ``fact restore`` leaves where they are, and what to do instead."""
    _refuse_superseded(place, "restore")
    until = place.fields.get("valid-until")
    if until is not None and today > until:
        raise AgentMemoryError(
            f"{place.id!r} expired on {until} (valid-until); give it a later date with "
            f"agent-memory fact expire {place.id} YYYY-MM-DD, then restore it"
        )


def expire(place: Place, until: dt.date, today: dt.date) -> Change:
    _refuse_vision(place, "expire")
    _refuse_superseded(place, "expire")
    fields = place.fields
    fields["valid-until"] = until.isoformat()
    said = f"{place.id} valid until {until.isoformat()}"
    past = past_until(place.id, until, today, place.doc.path)
    return Change(fields, "; ".join(filter(None, [said, past])))


def relate(place: Place, other: Place) -> Change:
    """``see: other`` added to the fact's footer (a link, not a use)."""
    if other.id == place.id:
        raise AgentMemoryError(f"{place.id!r} cannot be related to itself; name another fact")
    _refuse_superseded(other, "relate to")
    fields = place.fields
    seen = footer.listed(fields.get("see"))
    if other.id in seen:
        return Change(fields, f"{place.id} already sees {other.id}")
    fields["see"] = ", ".join([*seen, other.id])
    return Change(fields, f"{place.id} sees {other.id}")


def refuse_superseding(old: Place, new_id: str) -> None:
    """What makes ``old`` impossible to supersede by ``new_id`` (whatever ``new_id`` is)."""
    if old.id == new_id:
        raise AgentMemoryError(
            f"cannot supersede {old.id!r} with itself; name its successor, or add it with --text"
        )
    _refuse_vision(old, "supersede")
    fields = old.fields
    if fields.get("tier") == SUPERSEDED and fields.get(BY) != new_id:
        _refuse_superseded(old, "supersede")


def supersede(old: Place, new: Place, by_of: Mapping[str, str]) -> tuple[Change, Change]:
    """What the log line ``- Superseded: old → new`` does: ``old`` gets ``tier: superseded`` and
    ``superseded-by: new``, ``new`` gets ``supersedes: old``. ``by_of``: each superseded id's
    successor, to refuse a cycle."""
    refuse_superseding(old, new.id)
    fields = old.fields
    chain, at = [new.id], by_of.get(new.id)
    while at is not None and at not in chain:
        chain.append(at)
        if at == old.id:
            shown = " → ".join([old.id, *chain])
            raise AgentMemoryError(
                f"superseding {old.id!r} by {new.id!r} would make a cycle ({shown}); supersede "
                f"{old.id!r} by a fact that is still current"
            )
        at = by_of.get(at)
    _refuse_superseded(new, "supersede by")
    fields["tier"], fields[BY] = SUPERSEDED, new.id
    successor = new.fields
    olds = footer.listed(successor.get(SUPERSEDES))
    if old.id not in olds:
        successor[SUPERSEDES] = ", ".join([*olds, old.id])
    said = f"{old.id} superseded by {new.id}: {_goes(old)}"
    return Change(fields, said), Change(successor, said)


def cite(place: Place, citation: Citation, stale: Sequence[str] = ()) -> Change:
    """``citation`` appended to ``cites``; one of the same place, or a stale one of the same
    file (``stale``: their places), is replaced where the first of them stands."""
    fields = place.fields
    have = list(parse_value(fields["cites"])[0] if "cites" in fields else ())
    replaced = [
        i
        for i, c in enumerate(have)
        if c.place == citation.place or (c.path == citation.path and c.place in stale)
    ]
    if replaced:
        have[replaced[0]] = citation
        have = [c for i, c in enumerate(have) if i not in replaced[1:]]
    else:
        have.append(citation)
    fields["cites"] = render_value(have)
    return Change(fields, f"{place.id} cites {citation.place}")


def recited(place: Place, citations: Sequence[Citation]) -> Change:
    fields = place.fields
    fields["cites"] = render_value(citations)
    return Change(fields, f"{place.id}: its citations follow the lines they cite")
