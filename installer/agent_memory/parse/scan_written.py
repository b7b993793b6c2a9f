"""The fast path of ``facts.parse``: a memory file in the shape the review writes it.

An archive quarter holds hundreds of facts, and every review parses all of them (any archived
fact may come back), at about 25 µs a fact through the block outline. Written by the tool, such a
file is only ``#`` and ``##`` headings, blank lines and facts of two lines: a bullet of plain text
and, under it, a footer of known fields in canonical order. One regular expression reads those
lines; ``scan`` answers for a file made of nothing else (None for any other file, which the
general parser reads), and a property test holds its answer to the general parser's.

The expression checks every field of every footer (about 60M instructions for 1,000 facts).
``count`` asks less of such a file, for less, without it: how many facts it holds (``status``
shows the archive's count; 4M). A property test holds it to the general parser's answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import compress

from .. import patterns
from .dates import parse_date
from .footer import CANONICAL, DATE_FIELDS, ID_PATTERN, TIERS, Fields, validate

# A bullet's text starts with a letter (or bold) and holds no "<", ">" or "`": nothing in it can
# open a block, a comment or a code span, or end the line's meaning early.
_TEXT = r"(?:\*\*)?[^\W\d_][^\n<>`]*"
_TITLE = r"[^\s#<>`](?:[^\n#<>`]*[^\s#<>`])?"
_ANY = r"[^|\s<>](?:[^|\n<>]*[^|\s<>])?"  # a value without "|", "<" or ">", trimmed
_COUNT = "[0-9]{1,9}"  # below footer.MAX_COUNT
_SHAPES = {"uses": _COUNT, "base_uses": _COUNT, "tier": "|".join(TIERS)}
_DAY = "[0-9]{4}-[0-9]{2}-[0-9]{2}"


def _field(key: str) -> str:
    shape = _DAY if key in DATE_FIELDS else _SHAPES.get(key, _ANY)
    return rf"(?:{key}: ({shape}) (?:\| |(?=-->)))?"


# Groups: 1-2 a heading's marks and title; 3-4 a bullet's task box and text; 5 the footer's body,
# then one group per field of CANONICAL (the id first, never missing); last, the text of a bullet
# without a footer (only Project State holds those). A blank line: no group.
_LINE = patterns.compile(
    rf"(#{{1,2}}) ({_TITLE})\n"
    rf"|- (?:\[([ xX])\] )?({_TEXT})\n"
    rf"  <!--( id: ({ID_PATTERN}) (?:\| |(?=-->)){''.join(map(_field, CANONICAL[1:]))})-->\n"
    rf"|- ({_TEXT})\n"
    r"|\n"
)
_DATES = tuple(n for n, key in enumerate(CANONICAL) if key in DATE_FIELDS)
# Fields whose values have a grammar of their own: a footer holding one is checked whole.
_SEE, _CITES = CANONICAL.index("see"), CANONICAL.index("cites")
_FIELDS = 5  # the index in groups() of the first field
PROJECT_STATE = "project state"

# (title, bullet's line index, task, text, footer body, fields) of one fact
Item = tuple[str, int, str | None, str, str, Fields]
Heading = tuple[int, int, str]  # (line index, level, title), as the outline gives them


def scan(body: str) -> tuple[list[Heading], list[Item]] | None:
    """The headings and facts of a file's text, or None unless every line is in the shape above,
    every fact sits in a section (an h2 other than Project State, which holds bullets without
    footers), and every date in a footer is a real one."""
    if "\r" in body:
        return None
    headings: list[Heading] = []
    items: list[Item] = []
    position = line = 0
    title: str | None = None  # the section here (an h2), if any
    state = False  # whether that is Project State
    for match in _LINE.finditer(body):
        if match.start() != position:
            return None  # a line of any other shape
        position = match.end()
        groups = match.groups()
        if groups[0] is not None:
            level = len(groups[0])
            headings.append((line, level, groups[1]))
            title = groups[1] if level == 2 else None
            state = title is not None and title.lower() == PROJECT_STATE
            line += 1
        elif groups[-1] is not None:
            if not state:
                return None  # a bullet without a footer is a fact without one, or no fact
            line += 1
        elif groups[3] is not None:
            values = groups[_FIELDS:-1]
            if title is None or state or not _real_days(values):
                return None
            fields = tuple(compress(zip(CANONICAL, values, strict=True), values))
            if (values[_SEE] is not None or values[_CITES] is not None) and validate(fields):
                return None
            task = groups[2].lower() if groups[2] is not None else None
            items.append((title, line, task, groups[3].strip(), groups[4], fields))
            line += 2
        else:
            line += 1
    return (headings, items) if position == len(body) else None


def _real_days(values: Sequence[str | None]) -> bool:
    """Whether every date among a footer's ``values`` is a real one."""
    for n in _DATES:
        day = values[n]
        if day is not None and parse_date(day) is None:
            return False
    return True


def count(data: bytes) -> int | None:
    """How many facts the general parser finds in a file, or None unless it is UTF-8 text
    whose every line is a ``#`` or ``##`` heading, a blank line, a bullet of plain text (as
    above, "- " and a letter) or a comment on one line indented by two (``  <!--…-->``, a
    footer or not). Then the facts are the bullets under an h2 other than Project State,
    whatever the comments and the rest of the lines say: blocks open at the start of a line."""
    lines = _lines(data)
    return _facts(lines) if lines is not None else None


_TASKS = ("[ ] ", "[x] ", "[X] ")


def _lines(data: bytes) -> list[str] | None:
    """The lines of a file (without their ends), or None unless it is UTF-8 text whose lines
    end with LF, the last too."""
    try:
        body = data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError:
        return None
    if not body.endswith("\n") or "\r" in body or "\0" in body:
        return None
    return body[:-1].split("\n")


def _facts(lines: Sequence[str]) -> int | None:
    """How many bullets sit under a section whose bullets are facts, or None unless every line
    is of a kind ``count`` reads."""
    found = 0
    title: str | None = None  # the section bullets are facts of; None: none here
    for line in lines:
        if line[:2] == "- ":
            if not _plain_bullet(line[2:]):
                return None
            if title is not None:
                found += 1
        elif line[:6] == "  <!--":
            if line[-3:] != "-->":  # else an HTML block could run on over the lines below
                return None
        elif line:
            level = 1 if line[:2] == "# " else 2 if line[:3] == "## " else 0
            heading = line[level + 1 :]
            if not level or heading != heading.strip() or "#" in heading:
                return None
            title = heading if level == 2 and heading.lower() != PROJECT_STATE else None
    return found


def _plain_bullet(text: str) -> bool:
    """A bullet's text that opens nothing (``_TEXT``, after an optional task box)."""
    if text[:1].isalpha():
        return True
    if text[:4] in _TASKS:
        text = text[4:]
    if text.startswith("**"):
        text = text[2:]
    return text[:1].isalpha()
