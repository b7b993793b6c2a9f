"""The one Markdown block rule every line scanner of the core shares (CommonMark's rules).

A code fence opens with three or more backticks or tildes, indented at most three spaces, and
is closed by a run of the same character at least as long; an ATX heading is one to six ``#``.
``blocks`` finds what a scanner must read as one opaque piece — a leading front matter, fenced
code, an HTML block — inside which no line is a heading, a list item or a fence of its own.
HTML blocks are CommonMark's kinds 1 to 6; a line that is only some other tag (kind 7, which
cannot interrupt a paragraph) is read as text, as a paragraph's line would be.
"""

import re
from collections.abc import Container, Sequence
from typing import NamedTuple

from .. import patterns
from .text import strip_eol

FENCE = patterns.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
HEADING = patterns.compile(r"^(#{1,6})(\s)")
TITLE = patterns.compile(r"^ {0,3}#(?:[ \t]|$)")  # a level-1 heading
ATX = patterns.compile(r"^ {0,3}#{1,6}(?:[ \t]|$)")  # a heading of any level
LIST_ITEM = patterns.compile(r"^[ \t]*(?:[-*+]|[0-9]{1,9}[.)])(?:[ \t]|$)")

# CommonMark's HTML blocks 1 to 6 (those that may interrupt a paragraph): how one starts, and
# what ends it (None: the line before the next blank line).
_HTML_BLOCK_TAGS = (
    "address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd|details|"
    "dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|frameset|h[1-6]|head|"
    "header|hr|html|iframe|legend|li|link|main|menu|menuitem|nav|noframes|ol|optgroup|option|p|"
    "param|search|section|summary|table|tbody|td|tfoot|th|thead|title|tr|track|ul"
)
_RAW = patterns.compile(r"^ {0,3}<(?:pre|script|style|textarea)(?:[ \t>]|$)", re.IGNORECASE)
_HTML_STARTS = (
    (_RAW, "</pre>"),
    (patterns.compile(r"^ {0,3}<!--"), "-->"),
    (patterns.compile(r"^ {0,3}<\?"), "?>"),
    (patterns.compile(r"^ {0,3}<![A-Za-z]"), ">"),
    (patterns.compile(r"^ {0,3}<!\[CDATA\["), "]]>"),
    (patterns.compile(rf"^ {{0,3}}</?(?:{_HTML_BLOCK_TAGS})(?:[ \t>]|/>|$)", re.IGNORECASE), None),
)
_RAW_ENDS = ("</pre>", "</script>", "</style>", "</textarea>")


KINDS = ("front matter", "fence", "html")

# In a document's bytes, searched in C where ``blocks`` is a pass in Python (84 ms over an archive
# quarter of 10,000 facts, 2 ms so), for a search that reads a few of its lines: a line that may
# open a block of more than itself (front matter's "---" first, a fence's run, a "<" in its first
# four characters but for a comment closed on its line, a footer), and one that may make a
# heading of level 1 or 2 (ATX, or a setext underline). Supersets, held to markdown-it by a test.
_OPENS = rb" {0,3}(?:```|~~~|<(?!!--[^\n]*-->))"
_MAY_OPEN = patterns.compile(rb"\n" + _OPENS)  # a literal first: a line's start found at C's speed
_FIRST_OPENS = patterns.compile(rb"(?:\xef\xbb\xbf)?(?:---|" + _OPENS + rb")")
_MAY_HEAD = patterns.compile(rb"\n {0,3}(?:#{1,2}(?![^ \t\r\n])|(?:=+|-+)[ \t\r]*(?![^\n]))")


class Block(NamedTuple):
    """Lines ``[start, end)`` read as one piece; ``closed`` is False for a fence the text never
    closed (CommonMark runs it to the end)."""

    start: int
    end: int
    kind: str  # "front matter", "fence" or "html"
    closed: bool = True


def blocks(lines: Sequence[str]) -> tuple[Block, ...]:
    """The opaque blocks of a document's lines, in order (container blocks aside: a fence
    indented under a list item is found as any other). Linear in the text."""
    bare = [strip_eol(line) for line in lines]
    found: list[Block] = []
    index = front_matter(bare)
    if index:
        found.append(Block(0, index, "front matter"))
    while index < len(bare):
        block = _fence(bare, index) or _html(bare, index)
        if block is None:
            index += 1
            continue
        found.append(block)
        index = block.end
    return tuple(found)


def inside(
    lines: Sequence[str], kinds: Container[str] = KINDS, *, unclosed: bool = True
) -> set[int]:
    """The indices of the lines in an opaque block of one of ``kinds`` (its first and last line
    included); without ``unclosed``, a fence never closed hides nothing."""
    return {
        n
        for block in blocks(lines)
        if block.kind in kinds and (block.closed or unclosed)
        for n in range(block.start, block.end)
    }


def front_matter(lines: Sequence[str]) -> int:
    """How many lines a leading ``---`` … ``---`` (or ``...``) front matter takes, 0 for none:
    a ``---`` never closed is a thematic break, not front matter."""
    if not lines or strip_eol(lines[0]).rstrip() != "---":
        return 0
    for end in range(1, len(lines)):
        if strip_eol(lines[end]).rstrip() in ("---", "..."):
            return end + 1
    return 0


def _fence(bare: Sequence[str], start: int) -> Block | None:
    opening = fence_opens(bare[start])
    if opening is None:
        return None
    for end in range(start + 1, len(bare)):
        if fence_closes(opening, bare[end]):
            return Block(start, end + 1, "fence")
    return Block(start, len(bare), "fence", closed=False)


def _html(bare: Sequence[str], start: int) -> Block | None:
    line = bare[start]
    if "<" not in line[:4]:
        return None
    for pattern, ending in _HTML_STARTS:
        if pattern.match(line) is None:
            continue
        ends = _RAW_ENDS if ending == "</pre>" else (ending,)
        for end in range(start, len(bare)):
            text = bare[end]
            if ending is None:
                if not text.strip():
                    return Block(start, end, "html")
            elif any(e in text.lower() for e in ends if e is not None):
                return Block(start, end + 1, "html")
        return Block(start, len(bare), "html")
    return None


def closing(lines: Sequence[str]) -> str | None:
    """The line that closes the block the last of ``lines`` leaves open, as the end of a
    document would close it (a fence's run, indented as it; an HTML block's end marker), or
    None when none is left open (an HTML block a blank line ends is ended by the next one).
    A fence indented under a list item ends with the item, at a line indented less."""
    while True:
        found = blocks(lines)
        last = found[-1] if found else None
        if last is None or last.end < len(lines) or last.kind == "front matter":
            return None
        opening = strip_eol(lines[last.start])
        if last.kind == "html":
            return _html_closing(opening, strip_eol(lines[-1]))
        run = fence_opens(opening)
        if last.closed or run is None:
            return None
        indent = opening[: len(opening) - len(opening.lstrip(" "))]
        ended = _item_end(lines, last.start, len(indent))
        if ended is None:
            return indent + run[0] * run[1]
        lines = lines[ended:]


def _item_end(lines: Sequence[str], start: int, indent: int) -> int | None:
    """Where the list item holding the fence indented by ``indent`` at ``start`` ends: the
    first line after it indented less; None when no item holds it or none ends it."""
    shallower = (n for n in range(start - 1, -1, -1) if _shallower(lines[n], indent))
    item = next(shallower, None)
    if not indent or item is None or LIST_ITEM.match(lines[item]) is None:
        return None
    return next((n for n in range(start + 1, len(lines)) if _shallower(lines[n], indent)), None)


def _shallower(line: str, indent: int) -> bool:
    """A line of text indented by fewer than ``indent`` spaces."""
    return bool(line.strip()) and len(line) - len(line.lstrip(" ")) < indent


def _html_closing(opening: str, last: str) -> str | None:
    """The end marker of the HTML block ``opening`` opened, if ``last`` does not hold it."""
    ending = next((end for pattern, end in _HTML_STARTS if pattern.match(opening)), None)
    ends = _RAW_ENDS if ending == "</pre>" else (ending,)
    if ending is None or any(end in last.lower() for end in ends if end):
        return None  # a blank line ends it, or its last line does
    raw = _RAW.match(opening)  # <pre, <script, <style or <textarea: closed by its own tag
    return ending if raw is None else "</" + raw.group(0).strip(" <>\t").lower() + ">"


def fence_opens(line: str) -> tuple[str, int] | None:
    """The character and length of the fence ``line`` opens, or None (a backtick fence's info
    string holds no backtick)."""
    match = FENCE.match(line)
    if match is None:
        return None
    run = match.group(1)
    if run[0] == "`" and "`" in match.group(2):
        return None
    return run[0], len(run)


def fence_closes(opening: tuple[str, int], line: str) -> bool:
    """Whether ``line`` closes the fence ``opening`` opened: the same character, at least as
    many, nothing after them."""
    match = FENCE.match(line)
    if match is None:
        return False
    run = match.group(1)
    return run[0] == opening[0] and len(run) >= opening[1] and not match.group(2).strip()


def opening(data: bytes) -> int:
    """Where the first line of ``data`` that may open a block starts, past its end when none
    does: no block is open at a line starting before it."""
    if _FIRST_OPENS.match(data) is not None:
        return 0
    found = _MAY_OPEN.search(data)
    return len(data) + 1 if found is None else found.start() + 1


def headings(data: bytes) -> list[int]:
    """Where each line of ``data`` after the first that may make a heading of level 1 or 2
    starts, in order."""
    return [found.start() + 1 for found in _MAY_HEAD.finditer(data)]
