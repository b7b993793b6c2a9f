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
    },
    "required": ["log", "label", "ids", "outcome"],
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
    },
    "required": ["id", "section", "tier", "created", "outcome"],
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
    },
    "required": ["id", "path", "line", "section", "tier", "rule", "footer", "recomputed"],
}
