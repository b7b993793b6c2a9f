"""Plain memory documents read by one line scan: what ``facts.parse_text`` answers, sooner.

The merge driver reads three whole versions of a memory file on every merge git asks of it, and
the full parser (masks, the block outline, every footer checked field by field) costs more than
the tool's whole start-up. Nearly every memory file is plain: headings, bullets with their lines
indented under them, one footer per fact in the form the tool writes. ``scan`` reads exactly that
subset in one pass and answers None on the first line outside it — a fence, a quote, HTML, a
comment that is not a footer, a lazy or an over-indented line, a footer field lint would question
— and ``read`` then parses in full. A property test checks that whenever ``scan`` answers, it
answers what ``facts.parse_text`` does (it answers only for files the parser finds nothing
wrong with).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from . import facts, footer
from .facts import PROJECT_STATE, Document, Fact, Section
from .text import Text


def read(path: str, text: Text) -> Document:
    """``facts.parse_text(path, text)``, by the line scan when the text is plain."""
    return scan(path, text) or facts.parse_text(path, text)


_TASKS = ("[ ] ", "[x] ", "[X] ")


class _Refused(Exception):
    """A line outside the plain subset: the full parser reads this text."""


def scan(path: str, text: Text) -> Document | None:
    """The document, or None when a line is outside the plain subset (see the module)."""
    lines = text.lines
    if len(lines) > facts.MAX_DOCUMENT_LINES or _unusual(text.body):
        return None
    try:
        sections, found = _Scanner(lines).run()
    except _Refused:
        return None
    return Document(path, text, sections, found, ())


def _unusual(body: str) -> bool:
    """A tab, a CR that ends no line, or a merge-conflict marker (the parser reports each)."""
    return (
        "\t" in body
        or "<<<<<<<" in body
        or ">>>>>>>" in body
        or "|||||||" in body
        or body.count("\r") != body.count("\r\n")
    )


def _safe(content: str) -> bool:
    """Whether text that starts a block can only be a paragraph's: a letter, a digit that opens
    no ordered list, bold, inline code, a quotation mark or a parenthesis."""
    first = content[:1]
    if first.isalpha() or first in ("(", '"', "'"):
        return True
    if first.isdigit():
        run = len(content) - len(content.lstrip("0123456789"))
        return content[run : run + 1] not in (".", ")")
    if first == "*":
        return content[1:2] == "*" and content[2:3].isalnum()
    return first == "`" and content[1:2] not in ("`", "")


class _Scanner:
    """One pass over the lines; each method reads one kind of line or refuses."""

    def __init__(self, lines: Sequence[str]) -> None:
        self.lines = lines
        self.headings: list[tuple[str, int]] = []  # an h2's title and line
        self.title: str | None = None  # the section items are facts of; None: no such section
        self.found: list[Fact] = []
        self.item = -1  # the open item's first line; -1: none
        self.last = -1  # the open item's last non-blank line
        self.blank = False  # a blank line since the item's last line
        self.footer: tuple[int, tuple[int, int], footer.Fields] | None = None

    def run(self) -> tuple[tuple[Section, ...], tuple[Fact, ...]]:
        for index, line in enumerate(self.lines):
            bare = line.rstrip("\r\n")  # no stray CR: ``_unusual``
            first = bare[:1]
            if not bare.strip(" "):
                self.blank = self.item >= 0
            elif first == " ":
                self._indented(index, bare)
            elif first == "#":
                self._heading(index, bare)
            elif first in ("-", "*", "+") and bare[1:2] == " ":
                self._bullet(index, bare)
            else:
                self._prose(bare)
        self._close()
        ends = [line for _, line in self.headings[1:]] + [len(self.lines)]
        pairs = zip(self.headings, ends, strict=False)
        return tuple(Section(title, line, end) for (title, line), end in pairs), tuple(self.found)

    def _close(self) -> None:
        """Ends the open item; a fact when it is in a section other than Project State."""
        if self.item < 0:
            return
        start, end = self.item, self.last + 1
        self.item, self.blank = -1, False
        if self.title is None:
            if self.footer is not None:
                raise _Refused  # a footer outside every fact
            return
        self.found.append(_fact(self.lines[start], self.title, start, end, self.footer))
        self.footer = None

    def _indented(self, index: int, bare: str) -> None:
        content = bare.lstrip(" ")
        indent = len(bare) - len(content)
        if self.item < 0 or indent < 2 or (self.blank and indent >= 6):
            raise _Refused  # outside an item, lazy, or indented code
        self.blank = False
        self.last = index
        if content.startswith("<!--") and indent < 6:
            comment = content.rstrip(" ")
            if self.footer is not None or comment[-4:] != " -->":
                raise _Refused
            self.footer = (index, (indent, indent + len(comment)), _fields(comment[4:-3]))
            return
        while content[:2] in ("- ", "* ", "+ "):
            content = content[2:].lstrip(" ")  # a nested item's marker
        if not _safe(content) or "<!--" in bare or "-->" in bare:
            raise _Refused

    def _heading(self, index: int, bare: str) -> None:
        level = len(bare) - len(bare.lstrip("#"))
        title = bare[level:].strip()
        if bare[level : level + 1] != " " or level > 6 or "#" in title or "--" in title:
            raise _Refused
        self._close()
        if level == 2 and title:
            self.headings.append((title, index))
            self.title = None if title.lower() == PROJECT_STATE else title
        elif level <= 2 and (self.headings or not title):
            raise _Refused  # an h1 that would end a section, or an empty heading
        # h3 to h6 only end the item above them

    def _bullet(self, index: int, bare: str) -> None:
        content = bare[2:]
        if not (content[:1].isalpha() or _safe(content) or content[:4] in _TASKS):
            raise _Refused  # a thematic break, a nested marker, HTML, a quote...
        self._close()
        self.item = self.last = index
        if "<!--" in bare or "-->" in bare:
            at = bare.find("<!--")
            if at < 0 or bare.count("`", 0, at) % 2:
                raise _Refused
            self._footer(index, bare, at)

    def _prose(self, bare: str) -> None:
        if self.item >= 0 and not self.blank:
            raise _Refused  # a lazy line: it would continue the item
        if not _safe(bare) or "<!--" in bare or "-->" in bare:
            raise _Refused
        self._close()

    def _footer(self, index: int, bare: str, at: int) -> None:
        """A footer in the form the tool writes, the only comment on its line and in its fact."""
        close = bare.find("-->", at + 4)
        if (
            self.footer is not None
            or close < 0
            or bare.find("<!--", at + 4) >= 0
            or bare.find("-->", close + 3) >= 0
            or bare.find("-->") != close
            or bare[close + 3 :].strip(" ")
        ):
            raise _Refused
        self.footer = (index, (at, close + 3), _fields(bare[at + 4 : close]))


def _fields(body: str) -> footer.Fields:
    """``footer.parse_fields(body)`` for ``" id: x | key: value | ... "`` when it finds nothing
    wrong; anything else (spacing, an empty or unknown field, a second comment) is refused."""
    if body[:5] != " id: " or body[-1:] != " " or "<" in body or ">" in body:
        raise _Refused
    fid, bar, rest = body[5:-1].partition(" | ")
    tail = _tail(rest) if bar else ()
    if tail is None or footer.ID.match(fid) is None:
        raise _Refused
    return (("id", fid), *tail)


@lru_cache(maxsize=4096)  # the fields after the id repeat from fact to fact
def _tail(rest: str) -> footer.Fields | None:
    """The fields of ``key: value | ...`` when each reads back as itself and the parser finds
    nothing to say of it, and no key is given twice (nor ``id`` again); else None."""
    fields = []
    for segment in rest.split(" | "):
        key, colon, value = segment.partition(": ")
        if not (
            colon
            and key
            and value
            and "|" not in segment
            and ":" not in key
            and key == key.strip().lower()
            and value == value.strip()
            and not footer.validate([(key, value)])
        ):
            return None
        fields.append((key, value))
    keys = {key for key, _ in fields}
    return tuple(fields) if len(keys) == len(fields) and "id" not in keys else None


def _fact(
    bullet: str,
    title: str,
    start: int,
    end: int,
    found: tuple[int, tuple[int, int], footer.Fields] | None,
) -> Fact:
    bare = bullet.rstrip("\r\n")
    content = bare[2:]
    task = None
    if content[:4] in _TASKS:
        task, content = content[1].lower(), content[4:]
    if found is None:
        return Fact(title, start, end, None, (0, 0), (), task, content.strip(), None)
    line, span, fields = found
    if line == start:
        content = content.replace(bare[span[0] : span[1]], "")
    return Fact(title, start, end, line, span, fields, task, content.strip(), fields[0][1])
