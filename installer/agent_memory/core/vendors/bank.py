"""A Markdown store's lines as facts: Cline's memory bank, Serena's memories (MIGRATE.md § Memory
stores). Items and paragraphs are facts; headings only steer; a fenced code block or an HTML
block is opaque text, kept whole with the fact it belongs to.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ... import patterns
from ...layout import OPEN_THREADS
from ...parse import footer
from ...parse.markdown import HEADING, blocks, fence_closes, fence_opens
from ...parse.text import strip_eol

_DONE_HEADING = patterns.compile(
    r"done|complete|finished|works|working|recent|changes", re.IGNORECASE
)
# A heading under a done one that says its work is not done is not done either.
_PENDING_HEADING = patterns.compile(
    r"left|next|to ?do|remaining|pending|planned|backlog|issue|progress|goal|focus", re.IGNORECASE
)
_TAG = patterns.compile(r"<[^<>]*>")
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


def markdown_facts(
    path: str, lines: Sequence[str], section: str, day: str, first_line: int = 1
) -> list[Fact]:
    """Each top-level item (with what is indented under it) and each paragraph is one fact; a
    fenced code block or an HTML block belongs to the fact it follows under the same heading
    (blank lines between them included), or, first under its heading, is a fact led by that
    heading's text; an HTML block of tags alone between facts is layout, and is left out.

    In a file mapped to Open Threads, a task item keeps its box (``[ ]`` an open thread,
    pinned; ``[x]`` checked, swept in time); a plain item is checked under a heading that says
    the work is done (or under one whose parent heading says so), else a plain fact of Open
    Threads that decays like any other; paragraphs there go to Project Context.
    """
    bare = [strip_eol(raw) for raw in lines]
    scan = _Scan(path, section, day)
    scan.html = {
        first_line + block.start: (first_line + block.end, _layout(bare[block.start : block.end]))
        for block in blocks(bare)
        if block.kind == "html"
    }
    for number, line in enumerate(bare, start=first_line):
        scan.number = number
        scan.line(line)
    scan.flush()
    return scan.facts


def _layout(lines: Sequence[str]) -> bool:
    """Whether an HTML block is tags and comments alone (``<details>``, ``</div>``): layout,
    no words of a fact's."""
    return not _TAG.sub("", "\n".join(lines)).strip()


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
        self.html: dict[int, tuple[int, bool]] = {}  # by first line: (end, layout alone)
        self.html_end = 0  # the line the HTML block being read ends before
        self.html_kept = False  # whether its lines are the current fact's

    def line(self, bare: str) -> None:
        """One line without its line ending; a fenced one is kept exactly, the rest trimmed."""
        if self.fence is not None and self.nested and bare.strip():
            self.fence = None if not bare.startswith(("  ", "\t")) else self.fence
        if self.fence is not None:
            self.current.append(bare)
            if fence_closes(self.fence, bare):
                self.fence = None
            return
        if self.number < self.html_end:
            if self.html_kept:
                self.current.append(bare)
            return
        block = self.html.get(self.number)
        if block is not None and not (self.current and bare[:1] in (" ", "\t")):
            self.html_end, layout = block
            self.html_kept = not layout
            if layout:
                self.flush()  # between facts: dropped, and the fact before it ends
            else:
                self._join(bare)
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
        self._join(line)
        self.fence, self.nested = opening, line[:1] in (" ", "\t")

    def _join(self, line: str) -> None:
        """A block (a fence, HTML) joins the fact before it under this heading, else starts one
        of its own, led by the heading's text."""
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
        fields = imported_fields(self.day, self.path)
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


def imported_fields(day: str, origin: str, **known: str) -> dict[str, str]:
    """Imported text is sanitised where it becomes a footer value (the origin's id part)."""
    origin = footer.safe_value(origin)
    return {"created": day, "last_used": day, "uses": "1", "origin": origin, **known}
