"""Mode C's memory stores: Cline's memory bank, CONTEXT.yaml and co-cli memories become facts.

Pure functions from a store's bytes to facts with footers (MIGRATE.md § Memory stores), and the
facts into continuity.md and the archive. The stores themselves are left where they are.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from ... import patterns
from ...errors import InputError
from ...parse import footer, frontmatter
from ...parse.dates import parse_date, quarter_of
from ...parse.markdown import FENCE, HEADING
from ...parse.text import Text, decode, strip_eol
from ..review.archive import new_quarter
from ..review.edits import append_to_section
from ..review.tiers import at_birth
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
_DONE_HEADING = patterns.compile(
    r"done|complete|finished|works|working|recent|changes", re.IGNORECASE
)
_BULLET = patterns.compile(r"^([-*+])\s+(\[[ xX]\]\s+)?(.*)$")
_NUMBERED = patterns.compile(r"^[0-9]+[.)]\s+(.*)$")


@dataclass(frozen=True, slots=True)
class Fact:
    section: str
    lines: tuple[str, ...]  # the text, first line without its bullet
    fields: Mapping[str, str]
    task: str | None = None  # None, " " or "x"
    archived: bool = False


# -- memory stores ---------------------------------------------------------------------------


def store_facts(path: str, source: Source, data: bytes, day: str) -> list[Fact]:
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
    return _markdown_facts(path, split.body, section, day)


def _markdown_facts(path: str, lines: Sequence[str], section: str, day: str) -> list[Fact]:
    """Each top-level bullet (with what is indented under it) and each paragraph is one fact.

    In a file mapped to Open Threads, bullets become threads: checked under a heading that says
    the work is done, open otherwise; paragraphs there go to Project Context.
    """
    facts: list[Fact] = []
    threads = section == "Open Threads"
    done = False
    current: list[str] = []
    current_task: str | None = None
    paragraph = False

    def flush() -> None:
        nonlocal current, current_task
        if current:
            target = section if (not paragraph or not threads) else "Project Context"
            task = current_task if target == "Open Threads" else None
            facts.append(Fact(target, tuple(current), _fields(day, path), task))
        current, current_task = [], None

    fenced = False
    for raw in lines:
        line = strip_eol(raw).rstrip()
        if FENCE.match(line):
            fenced = not fenced
        if fenced or (current and line[:1] in (" ", "\t") and line.strip()):
            if current:
                current.append(line)
            continue
        if not line.strip():
            if paragraph:
                flush()
            continue
        heading = HEADING.match(line)
        if heading is not None:
            flush()
            done = bool(_DONE_HEADING.search(line))
            continue
        bullet = _item(line, done)
        if bullet is not None:
            flush()
            paragraph = False
            first, current_task = bullet
            current = [first]
            if not threads:
                current_task = None
            continue
        if current and paragraph:
            current.append(line)
            continue
        flush()
        paragraph = True
        current = [line]
    flush()
    return facts


def _item(line: str, done: bool) -> tuple[str, str] | None:
    """A list item's text and its task box (its own, or checked under a 'done' heading)."""
    bullet = _BULLET.match(line)
    if bullet is not None:
        box = bullet.group(2)
        return bullet.group(3), box[1].lower() if box else ("x" if done else " ")
    numbered = _NUMBERED.match(line)
    if numbered is not None:
        return numbered.group(1), "x" if done else " "
    return None


def _fields(day: str, origin: str, **known: str) -> dict[str, str]:
    """Imported text is sanitised where it becomes a footer value (the origin's id part)."""
    origin = footer.safe_value(origin)
    return {"created": day, "last_used": day, "uses": "1", "origin": origin, **known}


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
            if not hasattr(entry, "get") or not str(entry.get("content") or "").strip():
                continue
            section = CONTEXT_SECTIONS.get(str(entry.get("type") or ""), "Key Decisions")
            created = _date(entry.get("created"), day)
            fields = _fields(day, f"{path}#{entry.get('id', '')}".rstrip("#"), created=created)
            uses = entry.get("use_count")
            if type(uses) is int and 0 <= uses <= footer.MAX_COUNT:  # else: count unknown
                last = _date(entry.get("last_used"), created)
                fields |= {
                    "base_uses": str(uses),
                    "base_last_used": last,
                    "uses": str(uses),
                    "last_used": last,
                }
            wanted = str(entry.get("id") or "").replace("_", "-").lower()
            if wanted and footer.ID.match(wanted):
                fields["id"] = wanted
            if group == "core":
                fields["tier"] = "core"
            lines = str(entry["content"]).strip().split("\n")
            extras = [
                f"- {key}: {entry[key]}"
                for key in ("confidence", "domain", "evidence")
                if entry.get(key) not in (None, "", [])
            ]
            facts.append(Fact(section, tuple(lines + extras), fields, None, group == "archive"))
    return facts


def _co_cli_memory(path: str, text: Text, day: str) -> list[Fact]:
    """A co-cli memory: markdown body with id/created/tags/updated/decay_protected frontmatter."""
    split = frontmatter.split(path, text)
    body = [strip_eol(line).rstrip() for line in split.body]
    while body and not body[0].strip():
        body.pop(0)
    while body and not body[-1].strip():
        body.pop()
    if not body:
        return []
    meta = split.data
    tags = [str(tag).lower() for tag in (meta.get("tags") or [])]
    section = next((TAG_SECTIONS[t] for t in tags if t in TAG_SECTIONS), "Key Decisions")
    created = _date(meta.get("created"), day)
    fields = _fields(day, path, created=created, last_used=created)
    if meta.get("updated"):
        updated = _date(meta.get("updated"), created)
        fields |= {"base_uses": "1", "base_last_used": updated, "last_used": updated}
    if meta.get("decay_protected") is True:
        fields["tier"] = "core"
    lines = [body[0].lstrip("-*+ ").strip() or body[0], *body[1:]]
    return [Fact(section, tuple(lines), fields)]


# -- facts into continuity.md and the archive ------------------------------------------------


def memory_files(
    continuity: Text, facts: Sequence[Fact], today: dt.date
) -> tuple[bytes, bytes | None]:
    """continuity.md with the imported facts, and the archive quarter file for archived ones."""
    day = today.isoformat()
    taken: set[str] = set()
    wanted = [f.fields.get("id") or footer.slug(f.lines[0]) for f in facts]
    ids = footer.unique_ids(wanted, taken)
    text = continuity
    quarter = quarter_of(today)
    archive = decode("archive", new_quarter(quarter)) if any(f.archived for f in facts) else None
    by_target: dict[tuple[bool, str], list[str]] = {}
    for fact, fact_id in zip(facts, ids, strict=True):
        fields = {**fact.fields, "id": fact_id}
        if fact.task == "x":
            fields.setdefault("done", day)
        if fact.archived:
            section = "Completed Threads" if fact.task == "x" else "Facts"
            fields |= {"tier": "archived", "from": fact.section, "archived": day}
        else:
            section = fact.section
            fields.setdefault("tier", at_birth(fields, section, fact.task))
        by_target.setdefault((fact.archived, section), []).extend(_fact_lines(fact, fields))
    for (archived, section), lines in by_target.items():
        if archived:
            assert archive is not None
            archive = append_to_section("archive", archive, section, lines)
        else:
            text = append_to_section("memory/continuity.md", text, section, lines)
    return text.encode(), archive.encode() if archive is not None else None


def _fact_lines(fact: Fact, fields: Mapping[str, str]) -> list[str]:
    box = f"[{fact.task}] " if fact.task else ""
    lines = [f"- {box}{fact.lines[0]}\n"]
    for line in fact.lines[1:]:
        if not line.strip():
            lines.append("\n")
        elif line[:1] in (" ", "\t"):
            lines.append(line + "\n")
        else:
            lines.append("  " + line + "\n")
    lines.append("  " + footer.render_checked(fields) + "\n")
    return lines
