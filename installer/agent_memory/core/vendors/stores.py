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
from ...layout import OPEN_THREADS
from ...parse import footer, frontmatter
from ...parse.dates import parse_date, quarter_of
from ...parse.markdown import HEADING, fence_closes, fence_opens
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
# A heading under a done one that says its work is not done is not done either.
_PENDING_HEADING = patterns.compile(
    r"left|next|to ?do|remaining|pending|planned|backlog|issue|progress|goal|focus", re.IGNORECASE
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
    return markdown_facts(path, split.body, section, day)


def markdown_facts(path: str, lines: Sequence[str], section: str, day: str) -> list[Fact]:
    """Each top-level item (with what is indented under it) and each paragraph is one fact; a
    fenced code block belongs to the fact it follows under the same heading (blank lines
    between them included), or, first under its heading, is a fact led by that heading's text.

    In a file mapped to Open Threads, a task item keeps its box (``[ ]`` an open thread,
    pinned; ``[x]`` checked, swept in time); a plain item is checked under a heading that says
    the work is done (or under one whose parent heading says so), else a plain fact of Open
    Threads that decays like any other; paragraphs there go to Project Context.
    """
    scan = _Scan(path, section, day)
    for raw in lines:
        scan.line(strip_eol(raw))
    scan.flush()
    return scan.facts


class _Scan:
    """The state of one memory-bank file read line by line."""

    def __init__(self, path: str, section: str, day: str) -> None:
        self.path, self.section, self.day = path, section, day
        self.threads = section == OPEN_THREADS
        self.facts: list[Fact] = []
        self.current: list[str] = []
        self.task: str | None = None
        self.paragraph = False
        self.fence: tuple[str, int] | None = None  # the open fence's character and length
        self.headings: list[tuple[int, bool, str]] = []  # (level, done, title), outermost first
        self.attachable = False  # the last fact is under the current heading
        self.last_paragraph = False  # the last fact is a paragraph (not an item)
        self.gap = False  # a blank line came after the current fact's last line

    def line(self, bare: str) -> None:
        """One line without its line ending; a fenced one is kept exactly, the rest trimmed."""
        if self.fence is not None:
            self.current.append(bare)
            if fence_closes(self.fence, bare):
                self.fence = None
            return
        line = bare.rstrip()
        opening = fence_opens(line)
        if opening is not None:
            self._open_fence(bare, opening)
            return
        if self.current and line[:1] in (" ", "\t") and line.strip():
            self._append(line)
            return
        if not line.strip():
            if self.paragraph:
                self.flush()
            self.gap = bool(self.current)  # kept only if the item goes on after it
            return
        heading = HEADING.match(line)
        if heading is not None:
            self.flush()
            self._heading(len(heading.group(1)), line[len(heading.group(0)) :].strip())
            return
        self._text(line)

    def _text(self, line: str) -> None:
        item = _item(line)
        if item is not None:
            self.flush()
            self.paragraph = False
            self.current, self.task = [item[0]], item[1]
        elif self.current and self.paragraph:
            self.current.append(line)
        else:
            self.flush()
            self.paragraph = True
            self.current = [line]

    def _open_fence(self, line: str, opening: tuple[str, int]) -> None:
        """A fence joins the fact before it under this heading, else starts one of its own."""
        if not self.current and self.attachable and self.facts:
            last = self.facts.pop()
            self.current, self.task, self.gap = list(last.lines), last.task, True
            self.paragraph = self.last_paragraph
        elif not self.current:
            self.paragraph = True
            title = self.headings[-1][2] if self.headings else ""
            self.current = [title] if title else []
        if self.current:
            self._append(line)
        else:
            self.current = [line]
        self.fence = opening

    def _append(self, line: str) -> None:
        """A line of the current fact, after the blank line that came before it, if one did."""
        if self.gap:
            self.current.append("")
        self.current.append(line)
        self.gap = False

    def _heading(self, level: int, title: str) -> None:
        while self.headings and self.headings[-1][0] >= level:
            self.headings.pop()
        inherited = bool(self.headings) and self.headings[-1][1]
        done = _DONE_HEADING.search(title) is not None
        done = done or (inherited and _PENDING_HEADING.search(title) is None)
        self.headings.append((level, done, title.strip("#").strip()))
        self.attachable = False

    def flush(self) -> None:
        if not self.current:
            return
        self.fence = None  # one the file never closed ends with its fact (``_fact_lines``)
        target = self.section if not (self.paragraph and self.threads) else "Project Context"
        task = self._box() if target == OPEN_THREADS and not self.paragraph else None
        self.facts.append(Fact(target, tuple(self.current), _fields(self.day, self.path), task))
        self.current, self.task, self.attachable, self.gap = [], None, True, False
        self.last_paragraph = self.paragraph

    def _box(self) -> str | None:
        """A task item keeps its box; a plain item is checked when its heading says done."""
        if self.task is not None:
            return self.task
        return "x" if self.headings and self.headings[-1][1] else None


def _item(line: str) -> tuple[str, str | None] | None:
    """A list item's text and its own task box (None: a plain item)."""
    bullet = _BULLET.match(line)
    if bullet is not None:
        box = bullet.group(2)
        return bullet.group(3), box[1].lower() if box else None
    numbered = _NUMBERED.match(line)
    if numbered is not None:
        return numbered.group(1), None
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
    raw = meta.get("tags")  # a list, as co-cli writes it; one word; else none
    listed = [raw] if isinstance(raw, str) else raw if isinstance(raw, list) else []
    tags = [str(tag).lower() for tag in listed]
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


def imported(facts: Sequence[Fact]) -> str:
    """What the report says of an import: how many facts, and which of them never decay."""
    live = [f for f in facts if not f.archived]
    threads = sum(1 for f in live if f.task == " ")
    checked = sum(1 for f in live if f.task == "x")
    plain = sum(1 for f in live if f.task is None and f.section == OPEN_THREADS)
    parts = [f"{threads} open threads (pinned: they never decay)"]
    if checked:
        parts.append(f"{checked} done tasks (checked: swept to the archive in time)")
    if plain:
        parts.append(
            f"{plain} plain items in Open Threads (they decay; make one `- [ ]` to pin it)"
        )
    return f"{len(facts)} facts imported: " + ", ".join(parts)


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
    """The fact as a bullet: its other lines indented under it (those indented two spaces or a
    tab already kept as they are),
    a fenced block's lines each given its opening line's indent, and a fence the text never
    closed closed before the footer, so the footer is never read as code."""
    box = f"[{fact.task}] " if fact.task else ""
    lines = [f"- {box}{fact.lines[0].lstrip()}\n"]  # more spaces would move its content
    fence, pad = fence_opens(fact.lines[0]), "  "
    for line in fact.lines[1:]:
        if fence is not None:
            lines.append(f"{pad}{line}\n" if line else "\n")
            fence = None if fence_closes(fence, line) else fence
        elif not line.strip():
            lines.append("\n")
        else:
            pad = "" if line.startswith(("  ", "\t")) else "  "
            lines.append(pad + line + "\n")
            fence = fence_opens(line)
    if fence is not None:
        lines.append(f"{pad}{fence[0] * fence[1]}\n")
    lines.append("  " + footer.render_checked(fields) + "\n")
    return lines
