"""The MCP tools' output schemas, and the input schema of ``memory_reference``, the one tool no
command line declares: data only. Every other input schema is made from its command's
declaration (``inputs.py``); MCP.md shows them all (generated, and held equal by a test)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...parse.footer import ID_PATTERN

# The id rule as JSON Schema (ECMA-262) writes it: ``$`` there never matches before a newline.
_ID = f"^{ID_PATTERN}$"  # JSON Schema's dialect: "$", not "\\Z"

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

CONTEXT_OUT: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "text": {"type": "string"},
        "due": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["text", "due"],
}

FACT_ADD_OUT: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "path": {"type": "string"},  # continuity.md, or memory/personal.md
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
        "conflicts": {  # live facts the new one may contradict (DECAY.md § Contradictions)
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "id": {"type": "string"},
                    "path": {"type": "string"},
                    "line": {"type": "integer"},
                    "kind": {"type": "string"},
                    "detail": {"type": "string"},
                    "similarity": {"type": "number"},
                    "first_line": {"type": "string"},
                },
                "required": ["id", "path", "line", "kind", "detail", "similarity", "first_line"],
            },
        },
    },
    "required": ["id", "section", "tier", "created", "outcome", "similar", "conflicts"],
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

FACT_REJECT_OUT: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "address": {"type": "string"},
        "text": {"type": "string"},
        "reason": {"type": "string"},
        "day": {"type": "string"},
        "outcome": {"type": "string"},
    },
    "required": ["address", "text", "reason", "day", "outcome"],
}

PROPOSALS_OUT: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "proposals": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "address": {"type": "string"},
                    "kind": {"type": "string"},
                    "text": {"type": "string"},
                    "log": {"type": "string"},
                    "similar": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["address", "kind", "text", "log", "similar"],
            },
        },
    },
    "required": ["proposals"],
}

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
OUTPUTS: Mapping[str, Mapping[str, Any]] = {
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
