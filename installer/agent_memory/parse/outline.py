"""The block outline of a memory document: its top-level headings, bullet items and code.

markdown-it-py decides, but parsing and even importing it costs more than a whole incremental
review, and memory files are nearly always plain: headings, bullets, their indented lines and
footers. So a line scanner outlines the plain files and gives up (None) on the first line whose
meaning could depend on a rule it does not model — fences, quotes, setext underlines, ordered
lists, indented code, tabs in indentation — and only those files are parsed by markdown-it. A
property test checks that whenever the scanner answers, it answers what markdown-it would.
"""

from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, NamedTuple

from .. import patterns
from .text import strip_eol

if TYPE_CHECKING:
    from markdown_it import MarkdownIt


@cache
def markdown() -> "MarkdownIt":
    """The block parser, built on first use: importing markdown-it costs more than most runs."""
    from markdown_it import MarkdownIt

    # Block structure is all we need; skipping inline parsing makes large files cheap.
    return MarkdownIt("commonmark").disable(["inline", "text_join"])


class Outline(NamedTuple):
    headings: tuple[tuple[int, int, str], ...]  # (line, level, title) of top-level h1 and h2
    items: tuple[tuple[int, int], ...]  # [start, end) of each item of a top-level bullet list
    code: tuple[tuple[int, int], ...]  # [start, end) of each fence or indented code block
    # markdown-it stops parsing, silently, where blocks nest as deep as its maxNesting: facts
    # after that point would go missing, so the caller refuses such a file.
    too_deep: bool = False


def outline(lines: Sequence[str]) -> Outline:
    """The outline of a document's lines (footers already masked)."""
    return scan(lines) or _parsed(lines)


_ATX = patterns.compile(r"#{1,6}(?=[ \t]|$)")
_THEMATIC = patterns.compile(r"([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_MARKER = patterns.compile(r"(?:[-*+]|[0-9]{1,9}[.)])(?:[ \t]|$)")
# What may start a block other than a paragraph: a heading, fence, HTML, quote or setext line,
# indentation, a list marker, a thematic break.
_NOT_PLAIN = patterns.compile(
    r"[#<>= \t]|~~~|```|(?:[-*+]|[0-9]{1,9}[.)])(?:[ \t]|$)"
    r"|([-*_])(?:[ \t]*\1){2,}[ \t]*$|(?:=+|-+)[ \t]*$"
)

# Scanner states: what the last non-blank line left open.
_NONE, _PARAGRAPH, _ITEM, _ITEM_AFTER_BLANK, _COMMENT = range(5)


def _plain(content: str) -> bool:
    """Whether text that starts a line can only be paragraph text (no other block starts)."""
    if not content:
        return False
    if content.startswith("["):
        # ``[label]: url`` defines a link and is no paragraph; a task box or a link is text.
        close = content.find("]")
        return close != -1 and "\\" not in content[:close] and content[close + 1 : close + 2] != ":"
    return _NOT_PLAIN.match(content) is None


def scan(lines: Sequence[str]) -> Outline | None:
    """The outline by a line scanner, or None when a line is outside the subset it models."""
    headings: list[tuple[int, int, str]] = []
    items: list[tuple[int, int]] = []
    state = _NONE
    item_start = last_item_line = -1
    for index, raw in enumerate(lines):
        line = strip_eol(raw)
        if state == _COMMENT:
            if "-->" in line:
                state = _NONE
            continue
        if not line.strip(" \t"):
            state = {_ITEM: _ITEM_AFTER_BLANK, _PARAGRAPH: _NONE}.get(state, state)
            continue
        if line[0] == " ":
            if not _indented(line, state):
                return None
            if state == _ITEM_AFTER_BLANK:
                state = _ITEM
            if state == _ITEM:
                last_item_line = index
            continue
        if state in (_ITEM, _ITEM_AFTER_BLANK) and (state == _ITEM_AFTER_BLANK or not _plain(line)):
            items.append((item_start, last_item_line + 1))
            state = _NONE
        atx = _ATX.match(line)
        if atx is not None:
            level = atx.end()
            if level <= 2:
                headings.append((index, level, _atx_title(line, level)))
            state = _NONE
        elif line.startswith("<!--"):
            state = _NONE if "-->" in line else _COMMENT
        elif line[0] in "-*+" and line[1:2] == " " and line[2:3] not in ("", " ", "\t"):
            if not _plain(line[2:]):
                return None  # this also catches thematic breaks such as "- - -"
            state, item_start, last_item_line = _ITEM, index, index
        elif line.startswith(">"):
            quoted = line[2:] if line.startswith("> ") else line[1:]
            if not _plain(quoted):
                return None
            state = _PARAGRAPH  # a quoted paragraph: lazy lines continue it, as any paragraph
        elif _THEMATIC.match(line):
            if state == _PARAGRAPH:
                return None  # ``---`` under a paragraph underlines a heading
            state = _NONE
        elif not _plain(line):
            return None
        elif state == _ITEM:
            last_item_line = index  # a lazy continuation line
        else:
            state = _PARAGRAPH
    if state in (_ITEM, _ITEM_AFTER_BLANK):
        items.append((item_start, last_item_line + 1))
    return Outline(tuple(headings), tuple(items), ())


def _indented(line: str, state: int) -> bool:
    """Whether an indented line only continues what is open (an item or a paragraph)."""
    content = line.lstrip(" ")
    indent = len(line) - len(content)
    if state == _PARAGRAPH:
        return _plain(content)
    if state == _ITEM and indent < 2:
        return _plain(content)  # a lazy continuation line
    if state not in (_ITEM, _ITEM_AFTER_BLANK) or indent < 2:
        return False
    if state == _ITEM_AFTER_BLANK and indent >= 6:
        return False  # an indented code block inside the item
    # Nested list markers keep the line inside the item; what follows them must be plain text.
    marker = _MARKER.match(content)
    while marker is not None:
        if "\t" in marker.group():
            return False
        content = content[marker.end() :].lstrip(" ")
        marker = _MARKER.match(content)
    return _plain(content)


def _atx_title(line: str, level: int) -> str:
    """An ATX heading's text as markdown-it reads it: without the closing ``#`` run."""
    end = len(line.rstrip(" \t"))
    if end <= level:
        return ""
    hashes = end
    while hashes > level and line[hashes - 1] == "#":
        hashes -= 1
    if hashes > level and line[hashes - 1] in " \t":
        end = hashes
    return line[level:end].strip()


def _parsed(lines: Sequence[str]) -> Outline:
    """The outline from markdown-it-py's block tokens, for files the scanner gives up on."""
    tokens = markdown().parse("".join(strip_eol(line) + "\n" for line in lines))
    headings: list[tuple[int, int, str]] = []
    items: list[tuple[int, int]] = []
    code: list[tuple[int, int]] = []
    lists: list[bool] = []  # per open list: is it a bullet list
    for index, token in enumerate(tokens):
        if token.map is None:
            pass
        elif token.type == "heading_open" and token.level == 0 and token.tag in ("h1", "h2"):
            headings.append((token.map[0], int(token.tag[1]), tokens[index + 1].content.strip()))
        elif token.type in ("fence", "code_block"):
            code.append((token.map[0], token.map[1]))
        elif token.type == "list_item_open" and token.level == 1 and lists == [True]:
            items.append((token.map[0], token.map[1]))
        if token.type in ("bullet_list_open", "ordered_list_open"):
            lists.append(token.type == "bullet_list_open")
        elif token.type in ("bullet_list_close", "ordered_list_close"):
            lists.pop()
    deepest = max((token.level for token in tokens), default=0)
    too_deep = deepest >= markdown().options.maxNesting - 1
    return Outline(tuple(headings), tuple(items), tuple(code), too_deep)
