"""The MCP tools' JSON schemas, as MCP.md documents them (a test compares the two): data only."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...parse.footer import ID_PATTERN

# The id rule as JSON Schema (ECMA-262) writes it: ``$`` there never matches before a newline.
_ID = f"^{ID_PATTERN}$"  # JSON Schema's dialect: "$", not "\\Z"

NO_ARGUMENTS: Mapping[str, Any] = {
    "type": "object",
    "properties": {},
    "additionalProperties": False,
}

RECALL_IN: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "minLength": 1, "maxLength": 1000},
        "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 10},
    },
    "required": ["query"],
    "additionalProperties": False,
}

RECALL_OUT: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string"},
        "facts": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "id": {"type": "string"},
                    "tier": {"type": "string"},
                    "text": {"type": "string"},
                    "where": {"type": "string"},
                    "section": {"type": "string"},
                    "score": {"type": "number"},
                    "related": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["id", "tier", "text", "where", "section", "score"],
            },
        },
    },
    "required": ["query", "facts"],
}

STATUS_OUT: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "installed": {"type": "string"},
        "tool": {"type": "string"},
        "facts": {"type": "integer"},
        "tiers": {"type": "object", "additionalProperties": {"type": "integer"}},
        "sessions": {"type": "integer"},
        "sessions_since_review": {"type": "integer"},
        "last_review": {"type": ["string", "null"]},
        "due": {"type": "array", "items": {"type": "string"}},
        "stale": {"type": "integer"},
    },
    "required": ["installed", "tool", "facts", "tiers", "due"],
}

REFERENCE_IN: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "ids": {
            "type": "array",
            "items": {"type": "string", "pattern": _ID, "maxLength": 200},
            "minItems": 1,
            "maxItems": 100,
        },
        "label": {
            "type": "string",
            "enum": ["referenced", "created", "reactivated"],
            "default": "referenced",
        },
    },
    "required": ["ids"],
    "additionalProperties": False,
}

REFERENCE_OUT: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "log": {"type": "string"},
        "label": {"type": "string"},
        "ids": {"type": "array", "items": {"type": "string"}},
        "outcome": {"type": "string"},
        "note": {"type": "string"},  # when the session's capture writes its log
    },
    "required": ["log", "label", "ids", "outcome"],
}

CONTEXT_IN: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "task": {"type": "string", "maxLength": 100000},
        "paths": {
            "type": "array",
            "items": {"type": "string", "minLength": 1, "maxLength": 1000},
            "maxItems": 1000,
        },
    },
    "additionalProperties": False,
}

CONTEXT_OUT: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "text": {"type": "string"},
        "due": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["text", "due"],
}

FACT_ADD_IN: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "text": {"type": "string", "minLength": 1, "maxLength": 4000},
        "section": {"type": "string", "minLength": 1, "maxLength": 200},
        "new_section": {"type": "boolean"},
        # No pattern: the command's own id check refuses a bad id, with the CLI's line.
        "id": {"type": "string", "minLength": 1, "maxLength": 200},
    },
    "required": ["text"],
    "additionalProperties": False,
}

FACT_ADD_OUT: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "section": {"type": "string"},
        "tier": {"type": "string"},
        "created": {"type": "string"},
        "outcome": {"type": "string"},
        "similar": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "id": {"type": "string"},
                    "path": {"type": "string"},
                    "line": {"type": "integer"},
                    "similarity": {"type": "number"},
                    "archived": {"type": "boolean"},
                    "first_line": {"type": "string"},
                },
                "required": ["id", "path", "line", "similarity", "archived", "first_line"],
            },
        },
    },
    "required": ["id", "section", "tier", "created", "outcome", "similar"],
}

EXPLAIN_IN: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "id": {"type": "string", "minLength": 1, "maxLength": 200},
    },
    "required": ["id"],
    "additionalProperties": False,
}

_FIELDS: Mapping[str, Any] = {"type": "object", "additionalProperties": {"type": "string"}}

EXPLAIN_OUT: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "path": {"type": "string"},
        "line": {"type": "integer"},
        "section": {"type": "string"},
        "tier": {"type": "string"},
        "rule": {"type": "string"},
        "footer": _FIELDS,
        "recomputed": _FIELDS,
        "events": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"date": {"type": "string"}, "what": {"type": "string"}},
                "required": ["date", "what"],
            },
        },
        "sessions_since_last_use": {"type": "integer"},
        "next": {
            "type": ["object", "null"],
            "properties": {
                "sessions": {"type": "integer"},
                "tier": {"type": "string"},
                "rule": {"type": "string"},
            },
        },
        "stale": {"type": "string"},
        "related": {"type": "array", "items": {"type": "string"}},
        "origin": {"type": ["string", "null"]},
        "introduced": {
            "type": ["object", "null"],
            "properties": {
                "commit": {"type": "string"},
                "author": {"type": "string"},
                "date": {"type": "string"},
                "subject": {"type": "string"},
            },
        },
    },
    "required": ["id", "path", "line", "section", "tier", "rule", "footer", "recomputed"],
}

# The curation tools (DECAY.md § Curating facts): each names the fact by ``id``.
_FACT_ID: Mapping[str, Any] = {"type": "string", "minLength": 1, "maxLength": 200}


def _curating(**more: Mapping[str, Any]) -> Mapping[str, Any]:
    """The input schema of a curation tool: ``id``, and its own arguments (all required)."""
    return {
        "type": "object",
        "properties": {"id": _FACT_ID, **more},
        "required": ["id", *more],
        "additionalProperties": False,
    }


_TEXT: Mapping[str, Any] = {"type": "string", "minLength": 1, "maxLength": 4000}

FACT_ID_IN = _curating()
FACT_EDIT_IN = _curating(text=_TEXT)
FACT_RETRACT_IN = _curating(reason={"type": "string", "minLength": 1, "maxLength": 300})
FACT_EXPIRE_IN = _curating(until={"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"})
FACT_RELATE_IN = _curating(other=_FACT_ID)
FACT_CITE_IN = _curating(place={"type": "string", "minLength": 1, "maxLength": 1100})
FACT_SUPERSEDE_IN: Mapping[str, Any] = {
    "type": "object",
    "properties": {"id": _FACT_ID, "new": _FACT_ID, "text": _TEXT, "new_id": _FACT_ID},
    "required": ["id"],
    "additionalProperties": False,
}

CURATED_OUT: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "path": {"type": "string"},
        "footer": _FIELDS,
        "message": {"type": "string"},
        "outcome": {"type": "string"},
        "successor": {"type": "string"},
    },
    "required": ["id", "path", "footer", "message", "outcome"],
}

FACT_SHOW_OUT: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "path": {"type": "string"},
        "line": {"type": "integer"},
        "section": {"type": "string"},
        "tier": {"type": "string"},
        "text": {"type": "string"},
        "footer": _FIELDS,
        "cites": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "place": {"type": "string"},
                    "state": {"type": "string"},
                    "words": {"type": "string"},
                },
                "required": ["place", "state", "words"],
            },
        },
        "related": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "id": {"type": "string"},
                    "tier": {"type": "string"},
                    "where": {"type": "string"},
                    "text": {"type": "string"},
                },
                "required": ["id", "tier", "where", "text"],
            },
        },
    },
    "required": ["id", "path", "line", "section", "tier", "text", "footer", "cites", "related"],
}

_PROPOSAL: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "address": {"type": "string"},
        "kind": {"type": "string"},
        "text": {"type": "string"},
    },
    "required": ["address", "kind", "text"],
}

FACT_ACCEPT_IN: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "address": {"type": "string", "minLength": 3, "maxLength": 300},
        "all": {"type": "boolean"},
    },
    "additionalProperties": False,
}

FACT_ACCEPT_OUT: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "pending": {"type": "array", "items": _PROPOSAL},
        "accepted": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "address": {"type": "string"},
                    "id": {"type": "string"},
                    "section": {"type": "string"},
                },
                "required": ["address", "id", "section"],
            },
        },
        "skipped": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"address": {"type": "string"}, "reason": {"type": "string"}},
                "required": ["address", "reason"],
            },
        },
        "outcome": {"type": "string"},
    },
    "required": ["pending", "accepted", "skipped", "outcome"],
}
