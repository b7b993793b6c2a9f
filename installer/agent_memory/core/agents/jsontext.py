"""JSON edited as text: where each value sits, so an insertion leaves every other byte as it was.

``json.loads`` then ``json.dumps`` would rewrite a user's settings file in our formatting; these
helpers find spans instead, and edits are insertions and deletions of text at them. Comments
(``//`` and ``/* */``, which Gemini CLI's settings allow) are read as whitespace.

Linear, at the C scanner's speed: ``load`` blanks the comments of a copy (every offset kept), so
json's C scanner checks the whole document in one pass and then passes over any value we do not
open; only the few containers an edit goes into are read item by item, into flat tuples of
offsets. A document over ``MAX_BYTES`` is refused: time and memory stay bounded whatever a file
holds (HOOKS.md gives the figures).
"""

import json
import re
from collections.abc import Callable
from json.decoder import scanstring  # type: ignore[attr-defined]
from typing import NamedTuple

from ... import patterns

# An agent's settings file holds a few kilobytes; a file of this size is not one we edit.
MAX_BYTES = 1 << 20
_SPACE = patterns.compile(r"[ \t\r\n]*")
_INDENT = patterns.compile(r"[ \t]*")
# What follows an item in a container that ``load`` checked: its comma, and the space around it.
_AFTER = patterns.compile(r"[ \t\r\n]*(?:,[ \t\r\n]*)?")
_COLON = patterns.compile(r"[ \t\r\n]*:[ \t\r\n]*")
# A string (passed over whole, so that "//" in a URL is text), then the comments.
_COMMENT = patterns.compile(r'"[^"\\\n]*(?:\\.[^"\\\n]*)*"|//[^\n]*|/\*.*?\*/|/\*', re.S)
_NOT_NEWLINE = patterns.compile(r"[^\r\n]")
_KINDS = {"{": "object", "[": "array"}


class Doc(NamedTuple):
    """A document as the user wrote it, and the same text with its comments (and a leading
    byte order mark) blanked to spaces: structure is read from ``plain``, edits go to both."""

    text: str
    plain: str


class Node(NamedTuple):
    """A value at ``start:end``. A container ``parse``, ``member`` or ``reopen`` returned also
    says where its items are: per item, where it starts (at its key, in an object), where its
    value starts and where that ends; and an object's keys, in order."""

    start: int
    end: int
    kind: str  # "object", "array" or "leaf"
    bounds: tuple[int, ...] = ()
    keys: tuple[str, ...] = ()

    @property
    def size(self) -> int:
        return len(self.bounds) // 3


class BadJSON(ValueError):
    def __init__(self, text: str, at: int | None, what: str) -> None:
        self.line = None if at is None else text.count("\n", 0, at) + 1
        super().__init__(what)


def _no_constant(name: str) -> object:
    raise ValueError(f"{name} is JavaScript's, not JSON's")


_STRICT = json.JSONDecoder(parse_constant=_no_constant)
# The C scanner itself: (value, end) of the value at an offset, without raw_decode's wrapper.
_SCAN: Callable[[str, int], tuple[object, int]] = _STRICT.scan_once  # type: ignore[attr-defined]


def load(text: str) -> Doc:
    """``text`` checked to be one JSON value (comments allowed), as a ``Doc``."""
    if len(text) > MAX_BYTES:
        raise BadJSON(text, None, f"is larger than {MAX_BYTES >> 20} MiB; no settings file is")
    plain = _blank(text) if "/" in text or text.startswith("\ufeff") else text
    start = _skip(plain, 0)
    try:
        end = _STRICT.raw_decode(plain, start)[1]
    except RecursionError:
        raise BadJSON(text, start, "nested too deeply") from None
    except json.JSONDecodeError as exc:
        raise BadJSON(text, exc.pos, f"is not JSON ({exc.msg})") from None
    except ValueError as exc:  # a NaN or an Infinity
        raise BadJSON(text, start, f"is not JSON ({exc})") from None
    if _skip(plain, end) != len(plain):
        raise BadJSON(text, end, "text after the JSON value")
    return Doc(text, plain)


def _blank(text: str) -> str:
    def spaces(match: re.Match[str]) -> str:
        found = match.group()
        if found.startswith('"'):
            return found
        if found == "/*":
            raise BadJSON(text, match.start(), "a comment that never ends")
        return _NOT_NEWLINE.sub(" ", found)

    plain = _COMMENT.sub(spaces, text)
    return " " + plain[1:] if plain.startswith("\ufeff") else plain


def _skip(plain: str, at: int) -> int:
    return _SPACE.match(plain, at).end()  # type: ignore[union-attr]  # matches ""


def parse(doc: Doc) -> Node:
    """The document's value, with where its items are."""
    return _open(doc.plain, _skip(doc.plain, 0))


def member(doc: Doc, node: Node, key: str) -> Node | None:
    """The member ``key`` of object ``node``, with where its items are; None when it has none.

    An agent reads the last of two members with one key (JavaScript's JSON.parse does): we
    would edit the first, so two are refused.
    """
    if node.keys.count(key) > 1:
        second = node.keys.index(key, node.keys.index(key) + 1)
        raise BadJSON(doc.text, node.bounds[3 * second], f'two members are named "{key}"')
    if key not in node.keys:
        return None
    return _open(doc.plain, node.bounds[3 * node.keys.index(key) + 1])


def reopen(doc: Doc, node: Node) -> Node:
    """``node`` read again after edits inside it (or after it), which leave its start as it was."""
    return _open(doc.plain, node.start)


def _open(plain: str, start: int) -> Node:
    """The value at ``start`` of a document ``load`` checked, with where its items are."""
    after, scan = _AFTER.match, _SCAN
    kind = _KINDS.get(plain[start], "leaf")
    if kind == "leaf":
        return Node(start, scan(plain, start)[1], kind)
    bounds: list[int] = []
    keys: list[str] = []
    at = after(plain, start + 1).end()  # type: ignore[union-attr]  # matches ""
    while plain[at] not in "}]":
        item = at
        if kind == "object":
            key, at = scanstring(plain, at + 1)
            keys.append(key)
            at = _COLON.match(plain, at).end()  # type: ignore[union-attr]  # checked by load
        end = scan(plain, at)[1]
        bounds += (item, at, end)
        at = after(plain, end).end()  # type: ignore[union-attr]
    return Node(start, at + 1, kind, tuple(bounds), tuple(keys))


def value(doc: Doc, node: Node) -> object:
    """The Python value of a node."""
    return _SCAN(doc.plain, node.start)[0]


def _indent_of(text: str, at: int) -> str:
    line = text.rfind("\n", 0, at) + 1
    return text[line : _INDENT.match(text, line).end()]  # type: ignore[union-attr]  # matches ""


def render(item: object, indent: str) -> str:
    """``item`` as JSON indented by two spaces, its lines after the first prefixed by ``indent``."""
    return json.dumps(item, indent=2, ensure_ascii=False).replace("\n", "\n" + indent)


def append(doc: Doc, container: Node, key: str | None, item: object) -> Doc:
    """``doc`` with ``item`` added as the last member (``key``) or element of ``container``.

    After a last item: ``,`` then a new line at that item's indentation. Into an empty
    container: right after the bracket, so that deleting the item gives back the exact bytes.
    """
    text = doc.text
    if container.size:
        last, at = container.bounds[-3], container.bounds[-1]
        line_start = text.rfind("\n", 0, last) + 1
        indent = _indent_of(text, last)
        lead = ",\n" + indent if not doc.plain[line_start:last].strip() else ", "
    else:
        indent, lead, at = _indent_of(text, container.start) + "  ", "", container.start + 1
    head = json.dumps(key) + ": " if key is not None else ""
    added = lead + head + render(item, indent)
    return Doc(text[:at] + added + text[at:], doc.plain[:at] + added + doc.plain[at:])


def delete(doc: Doc, container: Node, index: int) -> Doc:
    """``doc`` without item ``index`` of ``container``: the inverse of ``append`` for a last
    item (from the end of the one before), else from the item to the start of the next."""
    bounds = container.bounds
    if index > 0:
        start, end = bounds[3 * index - 1], bounds[3 * index + 2]
    elif container.size > 1:
        start, end = bounds[0], bounds[3]
    else:
        start, end = bounds[0], bounds[2]
    return Doc(doc.text[:start] + doc.text[end:], doc.plain[:start] + doc.plain[end:])
