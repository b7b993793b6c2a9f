"""Mode C's memory stores: Cline's memory bank, CONTEXT.yaml and co-cli memories become facts.

Pure functions from a store's bytes to facts with footers (MIGRATE.md § Memory stores), and the
facts into continuity.md and the archive. The stores themselves are left where they are.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from types import MappingProxyType
from typing import Any

from ...errors import InputError
from ...parse import footer, frontmatter
from ...parse.dates import parse_date
from ...parse.markdown import fence_closes, fence_opens
from ...parse.text import Text, decode, strip_eol
from ...parse.untrusted import fact_text_problem
from ..secrets import refuse_source
from .bank import Fact, imported_fields, markdown_facts
from .table import Source

# Cline's memory bank: file → section of continuity.md.
BANK_SECTIONS = MappingProxyType(
    {
        "projectbrief.md": "Project Context",
        "productContext.md": "Project Context",
        "systemPatterns.md": "Key Decisions",
        "techContext.md": "Stack & Tools",
        "activeContext.md": "Open Threads",
        "progress.md": "Open Threads",
    }
)
# CONTEXT.yaml entry type → section.
CONTEXT_SECTIONS = MappingProxyType(
    {"decision": "Key Decisions", "pattern": "Conventions", "gotcha": "Conventions"}
)
# co-cli memory tag → section (the first tag that maps decides).
TAG_SECTIONS = MappingProxyType(
    {
        "preference": "User Preferences",
        "decision": "Key Decisions",
        "convention": "Conventions",
        "correction": "Conventions",
        "tool": "Stack & Tools",
        "stack": "Stack & Tools",
    }
)
_FIX = "remove it from the store, then run enable again"


# -- memory stores ---------------------------------------------------------------------------


def store_facts(path: str, source: Source, data: bytes, day: str) -> list[Fact]:
    """The facts of one store, refused (file and line) when it holds a credential or a fact's
    text cannot be a fact's: Mode C and ``import`` check alike before anything is written."""
    refuse_source(path, data, _FIX)
    facts = _store_facts(path, source, data, day)
    for fact in facts:
        problem = fact_text_problem("\n".join(_as_checked(fact.lines)))
        if problem is not None:
            raise InputError(path, _line_of(data, fact.line), f"a fact's text {problem}", _FIX)
    return facts


def _as_checked(lines: Sequence[str]) -> list[str]:
    """Lines as lint reads them: in a fenced block (a mermaid ``-->``) no comment is opened."""
    checked, fence = [], None
    for line in lines:
        inside = fence is not None
        if fence is not None:
            fence = None if fence_closes(fence, line.strip()) else fence
        else:
            fence = fence_opens(line.strip())
        checked.append(line.replace("<!--", "").replace("-->", "") if inside else line)
    return checked


def _line_of(data: bytes, start: int) -> int:
    """The first line from ``start`` (1-based) that holds what a fact cannot: where to look."""
    lines = _as_checked(data.decode("utf-8", errors="replace").split("\n")[start - 1 :])
    return start + next((n for n, line in enumerate(lines) if fact_text_problem(line)), 0)


def _store_facts(path: str, source: Source, data: bytes, day: str) -> list[Fact]:
    if source.kind == "context-yaml":
        return _context_yaml(path, data, day)
    text = decode(path, data)
    if source.kind == "co-cli-memory":
        return _co_cli_memory(path, text, day)
    split = frontmatter.split(path, text)
    name = path.rsplit("/", 1)[-1]
    section = (
        BANK_SECTIONS.get(name, "Project Context")
        if source.kind == "memory-bank"
        else "Project Context"
    )
    return markdown_facts(path, split.body, section, day, len(split.header) + 1)


def text_value(path: str, mapping: Any, key: str, first_line: int = 1) -> str:
    """A YAML value that becomes a fact's words: a list or mapping there would be written as
    Python's repr of it, so it is refused at its line (``first_line``: the YAML's first)."""
    value = mapping.get(key)
    if isinstance(value, str | int | float | dt.date) or value is None:
        return "" if value is None else str(value)
    line = mapping.lc.value(key)[0] if hasattr(mapping, "lc") else 0
    raise InputError(
        path,
        first_line + line,
        f"{key} is not text",
        "write it as one string, then run enable again",
    )


def _own_id(value: Any) -> dict[str, str]:
    """The store's own id, kept when it is kebab-case once ``_`` becomes ``-`` (else the slug)."""
    wanted = str(value or "").replace("_", "-").lower()
    return {"id": wanted} if wanted and footer.ID.match(wanted) else {}


def _date(value: Any, day: str) -> str:
    text = str(value)[:10] if value is not None else ""
    return text if parse_date(text) is not None else day


def _context_yaml(path: str, data: bytes, day: str) -> list[Fact]:
    """The memory-management skill's CONTEXT.yaml: core, domain and archive entries."""
    doc = frontmatter.load(path, decode(path, data).body) or {}
    if not hasattr(doc, "get"):
        raise InputError(
            path,
            1,
            "is not a mapping with core/domain/archive",
            "fix the YAML, then run enable again",
        )
    groups: list[tuple[str, Any]] = [("core", doc.get("core") or [])]
    domain = doc.get("domain") or {}
    if hasattr(domain, "items"):
        groups += [("domain", entries or []) for _name, entries in domain.items()]
    else:
        groups.append(("domain", domain))
    groups.append(("archive", doc.get("archive") or []))
    facts = []
    for group, entries in groups:
        if not isinstance(entries, list):
            raise InputError(
                path, 1, f"{group} is not a list of entries", "fix the YAML, then run enable again"
            )
        for entry in entries:
            if not hasattr(entry, "get") or not text_value(path, entry, "content").strip():
                continue
            section = CONTEXT_SECTIONS.get(str(entry.get("type") or ""), "Key Decisions")
            created = _date(entry.get("created"), day)
            fields = imported_fields(
                day, f"{path}#{entry.get('id', '')}".rstrip("#"), created=created
            )
            uses = entry.get("use_count")
            if type(uses) is int and 0 <= uses <= footer.MAX_COUNT:  # else: count unknown
                last = _date(entry.get("last_used"), created)
                fields |= {
                    "base_uses": str(uses),
                    "base_last_used": last,
                    "uses": str(uses),
                    "last_used": last,
                }
            fields |= _own_id(entry.get("id"))
            if group == "core":
                fields["tier"] = "core"
            lines = text_value(path, entry, "content").strip().split("\n")
            extras = [
                f"- {key}: {_plain(entry[key])}"
                for key in ("confidence", "domain", "evidence")
                if _plain(entry.get(key))
            ]
            at = entry.lc.line + 1 if hasattr(entry, "lc") else 1
            archived = group == "archive"
            facts.append(Fact(section, tuple(lines + extras), fields, None, archived, at))
    return facts


def _plain(value: Any) -> str:
    """A CONTEXT.yaml value as one line of a sub-bullet: a list's items (``domain: [build, ci]``,
    ``evidence: ["file:line"]``) and a mapping's pairs joined by commas, a text's lines by a
    space. Never Python's repr of a list, and never a line of its own, which could open a
    heading or a block in the memory file."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"  # as YAML wrote it
    if hasattr(value, "items"):
        return ", ".join(f"{_plain(key)}: {_plain(item)}" for key, item in value.items())
    if isinstance(value, list):
        return ", ".join(filter(None, map(_plain, value)))
    return " ".join(str(value).split())


def _co_cli_memory(path: str, text: Text, day: str) -> list[Fact]:
    """A co-cli memory: markdown body with id/created/tags/updated/decay_protected frontmatter."""
    split = frontmatter.split(path, text)
    body = [strip_eol(line).rstrip() for line in split.body]
    start = len(split.header) + 1
    while body and not body[0].strip():
        body.pop(0)
        start += 1
    while body and not body[-1].strip():
        body.pop()
    if not body:
        return []
    meta = split.data
    raw = meta.get("tags")  # a list, as co-cli writes it; one word; else none
    listed = [raw] if isinstance(raw, str) else raw if isinstance(raw, list) else []
    tags = [str(tag).lower() for tag in listed]
    section = next((TAG_SECTIONS[t] for t in tags if t in TAG_SECTIONS), "Key Decisions")
    created = _date(meta.get("created"), day)
    fields = imported_fields(day, path, created=created, last_used=created)
    if meta.get("updated"):
        updated = _date(meta.get("updated"), created)
        fields |= {"base_uses": "1", "base_last_used": updated, "last_used": updated}
    fields |= _own_id(meta.get("id"))
    if meta.get("decay_protected") is True:
        fields["tier"] = "core"
    lines = [body[0].lstrip("-*+ ").strip() or body[0], *body[1:]]
    return [Fact(section, tuple(lines), fields, line=start)]
