"""Session logs: the event log. Reads the ``## Memory References`` section of each log.

This is the one hot path (a full review may read 100,000 logs). A log whose section is only
``- Label: id, id`` lines, with no fence anywhere, is read on its bytes by three regular
expressions; any other log goes to a line scanner that knows code fences and ATX headings. Property
tests check the first against the second, and the second against markdown-it-py.

Parsing is forgiving — real logs are written by agents — and nothing in a log can make it fail:
anything it cannot use becomes a warning.
"""

import re
from collections.abc import Iterable
from typing import NamedTuple

from .. import patterns
from ..errors import Problem
from .footer import ID, ID_PATTERN
from .markdown import blocks, front_matter, inside
from .outline import markdown
from .plainrefs import plain_refs
from .refitems import (
    CANONICAL_WORDS,
    CREATE_WORDS,
    NOT_USES,
    USE_WORDS,
    heading_title,
    label_of,
    segments,
    supersessions,
    unlinked,
)

_ATX = patterns.compile(r"^ {0,3}#", re.MULTILINE)
# The reference for ``heading_title`` (quadratic on a long run of blanks: never run on user text).
_HEADING = patterns.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_ITEM = patterns.compile(r"^ {0,3}[-*+][ \t]+(.*)$")
_NESTED_ITEM = patterns.compile(r"^[ \t]+[-*+][ \t]+(.*)$")
_MARKER = patterns.compile(rb"memory references", re.IGNORECASE)
# An id-first item, as the hand-run line wrote them: "- some-id — referenced (why)",
# "- some-id (created, tier: working)"; the verb after the id says whether it is a use.
_ID_FIRST = patterns.compile(
    rf"^[*_`]*(?P<id>{ID_PATTERN})[*_`]*(?:[ \t]+(?:\u2014|\u2013|-{{1,2}})[ \t]+|[ \t]*\([ \t]*)"
    r"[*_]*(?P<verb>[A-Za-z]+)\b"
)
# "(none — lightweight session)", "none", "n/a": a log that says it used nothing.
_SAYS_NOTHING = patterns.compile(r"^[*_]*\(?[ \t]*(?:none|nothing|n/a)(?![\w.-])", re.IGNORECASE)
# What ``untrusted.one_line`` writes for a character that cannot stand inside one line.
_ESCAPED = patterns.compile(r"\\x([01][0-9a-f]|7f|[89][0-9a-f])|\\u(d[89a-f][0-9a-f]{2}|202[89])")


class Written(NamedTuple):
    """A reference segment that may name an id other than the one counted: its token is not a
    valid id, or words follow it. Lint, which knows the ids, decides whether to warn."""

    line: int
    token: str  # the segment's first token as written, backticks stripped
    segment: str  # the whole segment, commentary included


class SessionRefs(NamedTuple):
    """What one log says about fact usage; its warnings have a line but no path yet."""

    used: frozenset[str]
    created: frozenset[str]
    warnings: tuple[Problem, ...]
    written: tuple[Written, ...] = ()
    superseded: tuple[tuple[str, str], ...] = ()  # (old, new) of its "Superseded:" items


EMPTY = SessionRefs(frozenset(), frozenset(), ())


def first_prompt(text: str) -> str | None:
    """The session's first prompt, as its log's ``## First Prompt`` section records it (the
    first non-empty line of its body, its escapes undone), or None: a replay's task is only
    what a session start could know (DESIGN §26). The section is found as ``## Memory
    References`` is (``sections``): never a heading inside a fence, an HTML block or a front
    matter; a heading of level 1 or 2 ends it."""
    text = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    for _line, body, level in sections(text, "first prompt"):
        if level == 2:
            line = next((line.strip() for line in body if line.strip()), None)
            return None if line is None else _ESCAPED.sub(_unescaped, line)
    return None


def _unescaped(found: re.Match[str]) -> str:
    """The character ``one_line`` escaped; a lone surrogate, which no text can hold, as U+FFFD."""
    code = int(found.group(1) or found.group(2), 16)
    return "\ufffd" if 0xD800 <= code <= 0xDFFF else chr(code)


def read_refs(data: bytes) -> SessionRefs:
    """The ids a log lists under use labels in its ``## Memory References`` section."""
    plain = plain_refs(data)
    if plain is None:
        return _read_refs(data)
    used, created = plain
    return SessionRefs(used, created, ()) if used else EMPTY


def _read_refs(data: bytes) -> SessionRefs:
    """``read_refs`` for any log: decoded, fences and all."""
    if _MARKER.search(data) is None:
        return EMPTY
    text = data.decode("utf-8", errors="replace").lstrip("\ufeff")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    spans = reference_sections(text)
    if not spans:
        return EMPTY
    found = [_parse_section(first_line, body) for first_line, body in spans]
    if len(found) == 1:
        return found[0]
    # A log may hold several sections: a hook's stub, then the one an agent appended later.
    return SessionRefs(
        frozenset().union(*(refs.used for refs in found)),
        frozenset().union(*(refs.created for refs in found)),
        tuple(warning for refs in found for warning in refs.warnings),
        tuple(w for refs in found for w in refs.written),
        tuple(pair for refs in found for pair in refs.superseded),
    )


def reference_sections(text: str) -> list[tuple[int, list[str]]]:
    """(line number of the first body line, its lines) of every ``## Memory References``."""
    return [(line, body) for line, body, _level in sections(text, "memory references")]


def sections(text: str, title: str) -> list[tuple[int, list[str], int]]:
    """(line number of the first body line, its lines, its heading's level) of every section
    headed ``title`` (lower case; emphasis and case aside): a heading inside a fence, an HTML
    block or a front matter does not count (``markdown``'s one block rule), and a section's
    sub-headings are inside it."""
    lines = text.split("\n")
    # what may open an opaque block: a fence, a tag, a front matter
    maybe = "```" in text or "~~~" in text or "<" in text or text.startswith("---")
    opaque = blocks(lines) if maybe else ()
    if any(block.kind == "fence" and lines[block.start][:1] == " " for block in opaque):
        # An indented fence may sit inside a list item, where only a real parse can tell where
        # it ends; such logs are rare, so they take the slow, exact path.
        return _sections_parsed(text, title)
    found: list[tuple[int, list[str], int]] = []
    start: int | None = None
    level = index = at = 0
    ahead = iter(opaque)  # the blocks, in order, passed as the headings are: linear
    block = next(ahead, None)
    for match in _ATX.finditer(text):  # the heading lines alone: a log may run to 10,000 lines
        index, at = index + text.count("\n", at, match.start()), match.start()
        while block is not None and block.end <= index:
            block = next(ahead, None)
        line = lines[index]
        heading = heading_title(line) if block is None or index < block.start else None
        if heading is None:
            continue
        if start is not None:
            if _level(line) > level:
                continue  # a sub-heading of the section
            found.append((start + 1, lines[start:index], level))
            start = None
        if heading.strip("*_").strip().lower() == title:
            start, level = index + 1, _level(line)
    if start is not None:
        found.append((start + 1, lines[start:], level))
    return found


def _level(heading: str) -> int:
    """The level of an ATX heading line: its number of ``#`` marks."""
    marks = heading.lstrip(" ")
    return len(marks) - len(marks.lstrip("#"))


def _items(first_line: int, lines: list[str]) -> Iterable[tuple[int, str | None]]:
    """(line, joined item text) per list item; (line, None) for a paragraph line; a sub-heading
    comes as (line, "#" + its title).

    Indented lines continue the item above; a nested bullet starts a new segment of it.
    """
    current: list[str] = []
    current_line = current_indent = 0
    code = inside(lines, ("fence",))  # an example, not a use
    for offset, line in enumerate(lines):
        number = first_line + offset
        if offset in code:
            continue
        heading = _HEADING.match(line)
        if heading is not None:
            if current:
                yield current_line, " ".join(current)
            current = []
            yield number, "#" + (heading.group(2) or "").strip().strip("*_").strip()
            continue
        item = _ITEM.match(line)
        indent = len(line) - len(line.lstrip(" \t"))
        if item is not None and not (current and indent > current_indent):
            if current:
                yield current_line, " ".join(current)
            current, current_line, current_indent = [item.group(1)], number, indent
        elif not line.strip():
            if current:
                yield current_line, " ".join(current)
            current = []
        elif current and indent > 0:
            nested = _NESTED_ITEM.match(line)
            current.append(", " + nested.group(1) if nested else line.strip())
        else:
            if current:
                yield current_line, " ".join(current)
            current = []
            yield number, None
    if current:
        yield current_line, " ".join(current)


def _parse_section(first_line: int, lines: list[str]) -> SessionRefs:
    used: set[str] = set()
    created: set[str] = set()
    superseded: list[tuple[str, str]] = []
    warnings: list[Problem] = []
    written: list[Written] = []
    heading: str | None = None  # a sub-heading that names a label (### Referenced)

    def warn(line: int, message: str) -> None:
        warnings.append(Problem("", line, "warning", "session-reference", message))

    for number, item in _items(first_line, lines):
        if item is not None and item.startswith("#"):
            heading = item[1:] if _label_word(item[1:]) in USE_WORDS | NOT_USES else None
            if heading is None:
                warn(number, f"sub-heading {item[1:]!r} is not a label; items under it need one")
            continue
        if _SAYS_NOTHING.match(item or lines[number - first_line].strip()):
            continue
        if item is None:
            warn(number, "prose in Memory References is ignored; use list items")
            continue
        id_first = _id_first(item)
        if id_first is not None:
            used.add(id_first[0])
            created.update(id_first[:1] if id_first[1] in CREATE_WORDS else ())
            continue
        labelled = _labelled(item, heading)
        if labelled is None:
            warn(number, "item has no 'Label:'; use Referenced:, Created: or Reactivated:")
            continue
        label, rest = labelled
        first = _label_word(label)
        if first == "superseded":
            pairs, wrong = supersessions(rest)
            superseded.extend(pairs)
            for segment in wrong:
                warn(number, f"Superseded: {segment!r} is not 'old-id → new-id'; it is ignored")
            continue
        if first not in USE_WORDS:
            if first not in NOT_USES:
                warn(number, f"label {label!r} is not a use; ids under it do not count")
            continue
        if first not in CANONICAL_WORDS:
            canonical = "Created" if first in CREATE_WORDS else "Referenced"
            warn(number, f"label {label!r} counts as a use; prefer {canonical}:")
        ids = []
        for token, segment in segments(rest):
            if ID.match(token):
                ids.append(token)
            if not ID.match(token) or segment != token:
                written.append(Written(number, token, segment))
        used.update(ids)
        if first in CREATE_WORDS:
            created.update(ids)
    return SessionRefs(
        frozenset(used), frozenset(created), tuple(warnings), tuple(written), tuple(superseded)
    )


def _labelled(item: str, heading: str | None) -> tuple[str, str] | None:
    """(label, value) of an item: its own ``Label:``, else the sub-heading it sits under."""
    split = label_of(item)
    if split is not None and (heading is None or _label_word(split[0]) in USE_WORDS):
        return split
    return None if heading is None else (heading, item)  # the sub-heading labels its bullets


def _id_first(item: str) -> tuple[str, str] | None:
    """(id, verb) of an id-first item whose verb is a use (``- id — referenced (why)``, or
    ``- [[id]] — created``: a wiki link names its id)."""
    match = _ID_FIRST.match(unlinked(item))
    if match is None:
        return None
    fact_id, verb = match.group("id"), match.group("verb").lower()
    if verb not in USE_WORDS or fact_id in USE_WORDS or fact_id in NOT_USES:
        return None
    return fact_id, verb


def _label_word(label: str) -> str:
    words = re.findall(r"[a-z]+", label.lower())
    return words[0] if words else ""


def _sections_parsed(text: str, title: str) -> list[tuple[int, list[str], int]]:
    """``sections`` by a full markdown-it parse (top-level ATX headings only), a front matter
    read as the one block rule reads it."""
    lines = text.split("\n")
    matter = front_matter(lines)
    tokens = markdown().parse("\n" * matter + "\n".join(lines[matter:]))
    found: list[tuple[int, list[str], int]] = []
    start: int | None = None
    level = 0
    for index, token in enumerate(tokens):
        if token.type != "heading_open" or token.level != 0 or not token.markup.startswith("#"):
            continue
        assert token.map is not None
        if start is not None:
            if len(token.markup) > level:
                continue  # a sub-heading of the section
            found.append((start + 1, lines[start : token.map[0]], level))
            start = None
        if tokens[index + 1].content.strip().strip("*_").strip().lower() == title:
            start, level = token.map[1], len(token.markup)
    if start is not None:
        found.append((start + 1, lines[start:], level))
    return found
