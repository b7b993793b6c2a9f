"""JSON edited as text: where each value sits, so an insertion leaves every other byte as it was.

``json.loads`` then ``json.dumps`` would rewrite a user's settings file in our formatting; these
helpers find spans instead, and edits are insertions and deletions of text at them. Comments
(``//`` and ``/* */``, which Gemini CLI's settings allow) are skipped like whitespace.
"""

from __future__ import annotations

import json
from json.decoder import scanstring  # type: ignore[attr-defined]
from typing import NamedTuple

from ... import patterns

_LEAF = patterns.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null")
MAX_DEPTH = 64


class Item(NamedTuple):
    key: str | None  # None in an array
    start: int  # where the item starts: its key in an object, its value in an array
    node: Node


class Node(NamedTuple):
    """A value at ``text[start:end]``, with its members or elements."""

    start: int
    end: int
    kind: str  # "object", "array" or "leaf"
    items: tuple[Item, ...] = ()

    def member(self, key: str) -> Node | None:
        return next((item.node for item in self.items if item.key == key), None)


class BadJSON(ValueError):
    def __init__(self, text: str, at: int, what: str) -> None:
        self.line = text.count("\n", 0, at) + 1
        super().__init__(what)


def parse(text: str) -> Node:
    """The value of a whole document, with the spans of every value inside it."""
    at = _skip(text, 0)
    node = _value(text, at, 0)
    if _skip(text, node.end) != len(text):
        raise BadJSON(text, node.end, "text after the JSON value")
    return node


def _skip(text: str, at: int) -> int:
    """Past whitespace and comments."""
    while at < len(text):
        if text[at] in " \t\r\n\ufeff":
            at += 1
        elif text.startswith("//", at):
            newline = text.find("\n", at)
            at = len(text) if newline == -1 else newline + 1
        elif text.startswith("/*", at):
            close = text.find("*/", at + 2)
            if close == -1:
                raise BadJSON(text, at, "a comment that never ends")
            at = close + 2
        else:
            break
    return at


def _value(text: str, at: int, depth: int) -> Node:
    if depth > MAX_DEPTH:
        raise BadJSON(text, at, "nested too deeply")
    char = text[at : at + 1]
    if char in ("{", "["):
        return _container(text, at, depth)
    if char == '"':
        return Node(at, _string(text, at)[1], "leaf")
    leaf = _LEAF.match(text, at)
    if leaf is None:
        raise BadJSON(text, at, "not JSON")
    return Node(at, leaf.end(), "leaf")


def _string(text: str, at: int) -> tuple[str, int]:
    try:
        value, end = scanstring(text, at + 1)
    except ValueError:
        raise BadJSON(text, at, "a string that never ends") from None
    return str(value), int(end)


def _container(text: str, start: int, depth: int) -> Node:
    is_object = text[start] == "{"
    close = "}" if is_object else "]"
    items: list[Item] = []
    at = _skip(text, start + 1)
    while text[at : at + 1] != close:
        if items:
            if text[at : at + 1] != ",":
                raise BadJSON(text, at, f"expected ',' or '{close}'")
            at = _skip(text, at + 1)
        key, item_start = None, at
        if is_object:
            if text[at : at + 1] != '"':
                raise BadJSON(text, at, "expected a key in quotes")
            key, at = _string(text, at)
            at = _skip(text, at)
            if text[at : at + 1] != ":":
                raise BadJSON(text, at, "expected ':'")
            at = _skip(text, at + 1)
        node = _value(text, at, depth + 1)
        items.append(Item(key, item_start, node))
        at = _skip(text, node.end)
    return Node(start, at + 1, "object" if is_object else "array", tuple(items))


def value(text: str, node: Node) -> object:
    """The Python value of a node (comments inside it would make it fail: then None)."""
    try:
        return json.loads(text[node.start : node.end])
    except ValueError:
        return None


def _indent_of(text: str, at: int) -> str:
    line = text.rfind("\n", 0, at) + 1
    return text[line : len(text[line:]) - len(text[line:].lstrip(" \t")) + line]


def render(item: object, indent: str) -> str:
    """``item`` as JSON indented by two spaces, its lines after the first prefixed by ``indent``."""
    return json.dumps(item, indent=2, ensure_ascii=False).replace("\n", "\n" + indent)


def append(text: str, container: Node, key: str | None, item: object) -> str:
    """``text`` with ``item`` added as the last member (``key``) or element of ``container``.

    After a last item: ``,`` then a new line at that item's indentation. Into an empty
    container: right after the bracket, so that deleting the item gives back the exact bytes.
    """
    if container.items:
        last = container.items[-1]
        line_start = text.rfind("\n", 0, last.start) + 1
        own_line = not text[line_start : last.start].strip()
        indent = _indent_of(text, last.start)
        lead = ",\n" + indent if own_line else ", "
        at = last.node.end
    else:
        indent, lead, at = _indent_of(text, container.start) + "  ", "", container.start + 1
    head = json.dumps(key) + ": " if key is not None else ""
    return text[:at] + lead + head + render(item, indent) + text[at:]


def delete(text: str, container: Node, index: int) -> str:
    """``text`` without item ``index`` of ``container``: the inverse of ``append`` for a last
    item (from the end of the one before), else from the item to the start of the next."""
    items = container.items
    if index > 0:
        return text[: items[index - 1].node.end] + text[items[index].node.end :]
    if len(items) > 1:
        return text[: items[0].start] + text[items[1].start :]
    return text[: items[0].start] + text[items[0].node.end :]
