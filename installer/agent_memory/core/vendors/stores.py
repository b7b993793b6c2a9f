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
from ...parse.dates import parse_date
from ...parse.markdown import HEADING, fence_closes, fence_opens
from ...parse.text import Text, decode, strip_eol
from ...parse.untrusted import fact_text_problem
from ..secrets import refuse_source
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
_FIX = "remove it from the store, then run enable again"
_BULLET = patterns.compile(r"^([-*+])\s+(\[[ xX]\]\s+)?(.*)$")
_NUMBERED = patterns.compile(r"^[0-9]+[.)]\s+(.*)$")


@dataclass(frozen=True, slots=True)
class Fact:
    section: str
    lines: tuple[str, ...]  # the text, first line without its bullet
    fields: Mapping[str, str]
    task: str | None = None  # None, " " or "x"
    archived: bool = False
    line: int = 1  # where it starts in its store, for a refusal


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


def markdown_facts(
    path: str, lines: Sequence[str], section: str, day: str, first_line: int = 1
) -> list[Fact]:
    """Each top-level item (with what is indented under it) and each paragraph is one fact; a
    fenced code block belongs to the fact it follows under the same heading (blank lines
    between them included), or, first under its heading, is a fact led by that heading's text.

    In a file mapped to Open Threads, a task item keeps its box (``[ ]`` an open thread,
    pinned; ``[x]`` checked, swept in time); a plain item is checked under a heading that says
    the work is done (or under one whose parent heading says so), else a plain fact of Open
    Threads that decays like any other; paragraphs there go to Project Context.
    """
    scan = _Scan(path, section, day)
    for number, raw in enumerate(lines, start=first_line):
        scan.number = number
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
        self.nested = False  # it opened inside an item, which a line at the margin ends
        self.headings: list[tuple[int, bool, str]] = []  # (level, done, title), outermost first
        self.attachable = False  # the last fact is under the current heading
        self.last_paragraph = False  # the last fact is a paragraph (not an item)
        self.gap = False  # a blank line came after the current fact's last line
        self.number = 0  # the line being read (1-based), and the current fact's first
        self.start = 0

    def line(self, bare: str) -> None:
        """One line without its line ending; a fenced one is kept exactly, the rest trimmed."""
        if self.fence is not None and self.nested and bare.strip():
            self.fence = None if not bare.startswith(("  ", "\t")) else self.fence
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
            self.current, self.task, self.start = [item[0]], item[1], self.number
        elif self.current and self.paragraph:
            self.current.append(line)
        else:
            self.flush()
            self.paragraph = True
            self.current, self.start = [line], self.number

    def _open_fence(self, line: str, opening: tuple[str, int]) -> None:
        """A fence joins the fact before it under this heading, else starts one of its own."""
        if not self.current and self.attachable and self.facts:
            last = self.facts.pop()
            self.current, self.task, self.gap = list(last.lines), last.task, True
            self.start = last.line
            self.paragraph = self.last_paragraph
        elif not self.current:
            self.paragraph = True
            title = self.headings[-1][2] if self.headings else ""
            self.current, self.start = ([title] if title else []), self.number
        if self.current:
            self._append(line)
        else:
            self.current, self.start = [line], self.number
        self.fence, self.nested = opening, line[:1] in (" ", "\t")

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
        fields = _fields(self.day, self.path)
        self.facts.append(Fact(target, tuple(self.current), fields, task, line=self.start))
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
    fields = _fields(day, path, created=created, last_used=created)
    if meta.get("updated"):
        updated = _date(meta.get("updated"), created)
        fields |= {"base_uses": "1", "base_last_used": updated, "last_used": updated}
    fields |= _own_id(meta.get("id"))
    if meta.get("decay_protected") is True:
        fields["tier"] = "core"
    lines = [body[0].lstrip("-*+ ").strip() or body[0], *body[1:]]
    return [Fact(section, tuple(lines), fields, line=start)]
