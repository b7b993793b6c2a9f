"""One line of the MCP server's stdin read as a JSON-RPC message, trusting nothing in it.

The SDK drops a line it cannot read, and the client that sent it then waits forever for the
answer. Here every line is read into either a message the SDK can take or an ``Unreadable``
that says what to answer: a line that is not JSON, or too long, gets a parse error, and a
message whose id is neither a string nor an integer (1.5, {}, true) "invalid request", both
under a null id (none can be given back); a message whose id can be read gets its answer under
that id — a tool error when only a tool
call's arguments are at fault (MCP.md promises one), else "invalid request".

Bounded: a line is at most ``MAX_LINE`` bytes (the reader stops there), and nesting deeper than
``MAX_DEPTH`` is cut in linear time before json's recursive C scanner would give up on it.
Text must be Unicode: invalid UTF-8 and lone surrogate escapes (``\\ud800``) are refused where
they stand, as are the NaN and Infinity JSON does not have.
"""

import json
import re
from typing import Any, NamedTuple

from .. import patterns

MAX_LINE = 1 << 20  # a tool call's arguments are a few kilobytes
MAX_DEPTH = 64
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
_SURROGATE = patterns.compile("[\ud800-\udfff]")
_TOKEN = patterns.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]', re.S)
_DIGITS = 4300  # the longest integer Python converts from text by default


class Unreadable(NamedTuple):
    """What to answer for a line that is not a message the SDK can take."""

    id: str | int | None  # the request's, when it could be read
    code: int
    message: str
    tool: str | None = None  # a tools/call's tool, when only its arguments are at fault


class _NotJSON(NamedTuple):
    """A value json reads but JSON does not have (NaN, Infinity, an endless integer)."""

    what: str


def oversized() -> Unreadable:
    return Unreadable(None, PARSE_ERROR, f"Parse error: a message longer than {MAX_LINE} bytes")


def read(line: bytes) -> dict[str, Any] | Unreadable:
    """The message on ``line``, or what to answer instead."""
    text = line.decode("utf-8", "surrogateescape")  # a byte that is not UTF-8: a lone surrogate
    try:
        try:
            doc = _loads(text)
        except RecursionError:
            doc = _loads(_cut(text))
    except (ValueError, RecursionError):  # nesting never closed is not cut: nor is it JSON
        return Unreadable(None, PARSE_ERROR, "Parse error: not JSON")
    if not isinstance(doc, dict):
        return Unreadable(None, INVALID_REQUEST, "Invalid Request: not a JSON object")
    fault, ident = _fault(doc), doc.get("id")
    if fault is None and ident is not None and not _identifies(ident):
        return Unreadable(None, INVALID_REQUEST, "Invalid Request: an id is a string or an integer")
    if fault is None:
        return doc
    ident = ident if _identifies(ident) else None
    params = doc.get("params")
    if doc.get("method") == "tools/call" and isinstance(params, dict):
        envelope = {**doc, "params": {**params, "arguments": {}}}
        name = params.get("name")
        if isinstance(name, str) and _fault(envelope) is None:
            return Unreadable(ident, INVALID_REQUEST, f"the arguments hold {fault}", name)
    return Unreadable(ident, INVALID_REQUEST, f"Invalid Request: the message holds {fault}")


def arguments_not_an_object(doc: dict[str, Any]) -> tuple[str, object] | None:
    """(tool, arguments) of a tools/call whose arguments are there but not an object, which
    the SDK would refuse as a protocol error where MCP.md promises a tool error."""
    params = doc.get("params")
    if doc.get("method") != "tools/call" or not isinstance(params, dict):
        return None
    name, arguments = params.get("name"), params.get("arguments")
    if not isinstance(name, str) or arguments is None or isinstance(arguments, dict):
        return None
    return name, arguments


def _identifies(ident: object) -> bool:
    """Whether ``ident`` is an id JSON-RPC allows: the SDK drops a message whose id is 1.5, {},
    [1] or true, and its sender waits forever."""
    return isinstance(ident, str) or (type(ident) is int)


def _loads(text: str) -> object:
    return json.loads(text, parse_constant=_NotJSON, parse_int=_integer)


def _integer(digits: str) -> object:
    return (
        int(digits) if len(digits) <= _DIGITS else _NotJSON(f"an integer of {len(digits)} digits")
    )


def _cut(text: str) -> str:
    """``text`` with each container nested deeper than ``MAX_DEPTH`` replaced by ``[]`` (one
    level too deep still, which ``_fault`` reports); linear, and strings are passed over."""
    pieces: list[str] = []
    depth, start, kept = 0, -1, 0
    for token in _TOKEN.finditer(text):
        char = token.group()[0]
        if char == '"':
            continue
        depth += 1 if char in "[{" else -1
        if char in "[{" and depth == MAX_DEPTH + 1:
            start = token.start()
        elif char in "]}" and depth == MAX_DEPTH and start >= 0:
            pieces += (text[kept:start], "[]")
            kept, start = token.end(), -1
    return "".join([*pieces, text[kept:]])


def _fault(doc: dict[str, Any]) -> str | None:
    """What in ``doc`` is not plain JSON text, walked without recursion: None when nothing."""
    stack: list[tuple[object, int]] = [(doc, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict | list) and depth > MAX_DEPTH:
            return f"values nested deeper than {MAX_DEPTH} levels"
        if isinstance(value, dict):
            stack += ((key, depth) for key in value)
            stack += ((item, depth + 1) for item in value.values())
        elif isinstance(value, list):
            stack += ((item, depth + 1) for item in value)
        elif isinstance(value, str) and _SURROGATE.search(value):
            return "text that is not Unicode (a lone surrogate, or bytes that are not UTF-8)"
        elif isinstance(value, _NotJSON):
            return f"{value.what}, which JSON does not have"
    return None
