"""The MCP tools' output schemas, and the input schema of ``memory_reference``, the one tool no
command line declares: data only. Every other input schema is made from its command's
declaration (``inputs.py``); MCP.md shows them all (generated, and held equal by a test).

The schemas are JSON Schema, written through four small makers so that each reads as the shape
of its result: ``_object`` keeps its properties' order and requires each one ``optional`` does
not name."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...parse.footer import ID_PATTERN

Schema = Mapping[str, Any]

_S: Schema = {"type": "string"}
_I: Schema = {"type": "integer"}
_N: Schema = {"type": "number"}
_B: Schema = {"type": "boolean"}


def _object(*, optional: str = "", **properties: Schema) -> Schema:
    """An object of ``properties``, each required but those ``optional`` names (``*``: all)."""
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if optional != "*":
        schema["required"] = [name for name in properties if name not in optional.split()]
    return schema


def _array(items: Schema) -> Schema:
    return {"type": "array", "items": items}


def _map(values: Schema) -> Schema:
    """An object whose keys are free and whose values are all ``values``."""
    return {"type": "object", "additionalProperties": values}


def _nullable(schema: Schema) -> Schema:
    return {**schema, "type": [schema["type"], "null"]}


# The id rule as JSON Schema (ECMA-262) writes it: ``$`` there never matches before a newline.
_ID = f"^{ID_PATTERN}$"  # JSON Schema's dialect: "$", not "\\Z"
_FIELDS = _map(_S)
_PROPOSAL = _object(address=_S, kind=_S, text=_S)

RECALL_OUT = _object(
    query=_S,
    facts=_array(
        _object(
            optional="related",
            id=_S,
            tier=_S,
            text=_S,
            where=_S,
            section=_S,
            score=_N,
            related=_array(_S),
        )
    ),
)

STATUS_OUT = _object(
    optional="sessions sessions_since_review last_review stale",
    installed=_S,
    tool=_S,
    facts=_I,
    tiers=_map(_I),
    sessions=_I,
    sessions_since_review=_I,
    last_review=_nullable(_S),
    due=_array(_S),
    stale=_I,
)

REFERENCE_IN: Schema = {
    **_object(
        optional="label",
        ids={**_array({**_S, "pattern": _ID, "maxLength": 200}), "minItems": 1, "maxItems": 100},
        label={**_S, "enum": ["referenced", "created", "reactivated"], "default": "referenced"},
    ),
    "additionalProperties": False,
}

# "note" only when the session's capture writes its log
REFERENCE_OUT = _object(optional="note", log=_S, label=_S, ids=_array(_S), outcome=_S, note=_S)

CONTEXT_OUT = _object(text=_S, due=_array(_S))

FACT_ADD_OUT = _object(
    optional="path",
    id=_S,
    path=_S,  # continuity.md, or memory/personal.md
    section=_S,
    tier=_S,
    created=_S,
    outcome=_S,
    similar=_array(_object(id=_S, path=_S, line=_I, similarity=_N, archived=_B, first_line=_S)),
    # live facts the new one may contradict (DECAY.md § Contradictions)
    conflicts=_array(
        _object(id=_S, path=_S, line=_I, kind=_S, detail=_S, similarity=_N, first_line=_S)
    ),
)

EXPLAIN_OUT = _object(
    optional="events sessions_since_last_use next stale related origin introduced",
    id=_S,
    path=_S,
    line=_I,
    section=_S,
    tier=_S,
    rule=_S,
    footer=_FIELDS,
    recomputed=_FIELDS,
    events=_array(_object(date=_S, what=_S)),
    sessions_since_last_use=_I,
    next=_nullable(_object(optional="*", sessions=_I, tier=_S, rule=_S)),
    stale=_S,
    related=_array(_S),
    origin=_nullable(_S),
    introduced=_nullable(_object(optional="*", commit=_S, author=_S, date=_S, subject=_S)),
)

CURATED_OUT = _object(
    optional="successor", id=_S, path=_S, footer=_FIELDS, message=_S, outcome=_S, successor=_S
)

FACT_SHOW_OUT = _object(
    id=_S,
    path=_S,
    line=_I,
    section=_S,
    tier=_S,
    text=_S,
    footer=_FIELDS,
    cites=_array(_object(place=_S, state=_S, words=_S)),
    related=_array(_object(id=_S, tier=_S, where=_S, text=_S)),
)

FACT_ACCEPT_OUT = _object(
    pending=_array(_PROPOSAL),
    accepted=_array(_object(address=_S, id=_S, section=_S)),
    skipped=_array(_object(address=_S, reason=_S)),
    outcome=_S,
)

FACT_REJECT_OUT = _object(address=_S, text=_S, reason=_S, day=_S, outcome=_S)

PROPOSALS_OUT = _object(
    proposals=_array(_object(address=_S, kind=_S, text=_S, log=_S, similar=_array(_S)))
)

_CURATING = (
    "edit",
    "share",
    "supersede",
    "retract",
    "forget",
    "archive",
    "restore",
    "pin",
    "unpin",
    "expire",
)
OUTPUTS: Mapping[str, Schema] = {
    "memory_recall": RECALL_OUT,
    "memory_context": CONTEXT_OUT,
    "memory_status": STATUS_OUT,
    "memory_fact_add": FACT_ADD_OUT,
    "memory_reference": REFERENCE_OUT,
    "memory_explain": EXPLAIN_OUT,
    "memory_fact_show": FACT_SHOW_OUT,
    **{f"memory_fact_{words}": CURATED_OUT for words in (*_CURATING, "relate", "cite", "recite")},
    "memory_fact_accept": FACT_ACCEPT_OUT,
    "memory_fact_reject": FACT_REJECT_OUT,
    "memory_proposals": PROPOSALS_OUT,
}
