"""What the agent still holds of the context our hooks added: what its transcript kept of their
lines since the session last compacted — the session start's view (HOOKS.md § Session start)
and the facts an earlier prompt's hook brought in full (§ Recall on each prompt).

Claude Code keeps a hook's added context as an ``attachment`` of type ``hook_additional_context``
(its ``content`` a list of strings) and marks a compaction with a ``system`` line of subtype
``compact_boundary``; Codex keeps it as a ``response_item`` message of role ``developer`` (its
``content`` ``input_text`` parts) and marks a compaction with a ``compacted`` line. Both send
every such context of the session to the model again on each later turn, until a compaction
summarizes them away. Gemini CLI writes it into the user's message, and a resumed session does
not send it again, so nothing of Gemini's counts: a fact is brought again there. A text counts
only when it starts with the hook's own first line: a user's message, a tool's result or a
file's text holding the same words is none of those records. Pure: the bytes are given.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from typing import Any

from .. import patterns

# A line of the hook's that shows a fact in full: ``- `<id>` [<tier>] <file>:<line>, in full:``
_IN_FULL = patterns.compile(r"^- `([^`\n]+)` \[[^\]\n]*\] [^\n]*, in full:$", re.MULTILINE)
_MARKS = (b'"compact_boundary"', b'"compacted"')  # a line that may mark a compaction
# The longest line decoded: a record of a hook's context holds that context alone, a few KiB
# (an 8 KiB view escaped as JSON at worst six times over); a longer line is none of ours.
LONGEST = 1 << 20


def held(data: bytes, head: str) -> list[str]:
    """The texts opening with ``head`` that hooks added and that the agent still holds: those
    since the last compaction of the transcript ``data`` (JSON lines), in order. Only a line
    that holds ``head`` or a compaction's mark is decoded, one of at most ``LONGEST`` bytes:
    the rest is looked through, not read."""
    texts: list[str] = []
    for start in _lines_holding(data, (head.encode(), *_MARKS)):
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end
        if end - start > LONGEST:
            continue
        try:
            record = json.loads(data[start:end])
        except (ValueError, RecursionError):
            continue
        if not isinstance(record, dict):
            continue
        if _compacted(record):
            texts.clear()
        texts += (text for text in _contexts(record) if text.startswith(head))
    return texts


def in_full(texts: Iterable[str]) -> frozenset[str]:
    """The ids the prompt hook's ``texts`` show in full (not those by their one line)."""
    return frozenset(found.group(1) for text in texts for found in _IN_FULL.finditer(text))


def _lines_holding(data: bytes, needles: tuple[bytes, ...]) -> list[int]:
    """Where each line of ``data`` that holds one of ``needles`` starts, in order."""
    starts: set[int] = set()
    for needle in needles:
        at = data.find(needle)
        while at >= 0:
            start = data.rfind(b"\n", 0, at) + 1
            starts.add(start)
            end = data.find(b"\n", at)
            at = -1 if end < 0 else data.find(needle, end)
    return sorted(starts)


def _compacted(record: dict[str, Any]) -> bool:
    kind = record.get("type")
    return kind == "compacted" or (kind == "system" and record.get("subtype") == "compact_boundary")


def _contexts(record: dict[str, Any]) -> Iterator[str]:
    """The texts a hook added that ``record`` keeps: Claude Code's attachment, Codex's
    developer message."""
    kind = record.get("type")
    if kind == "attachment":
        attachment = record.get("attachment")
        if isinstance(attachment, dict) and attachment.get("type") == "hook_additional_context":
            content = attachment.get("content")
            parts = content if isinstance(content, list) else [content]
            yield from (part for part in parts if isinstance(part, str))
    elif kind == "response_item":
        payload = record.get("payload")
        if isinstance(payload, dict) and payload.get("role") == "developer":
            content = payload.get("content")
            for part in content if isinstance(content, list) else ():
                if isinstance(part, dict) and isinstance(part.get("text"), str):
                    yield part["text"]
