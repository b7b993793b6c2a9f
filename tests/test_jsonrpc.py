"""A line of the MCP wire read as a JSON-RPC message: never an exception, always an answer."""

from __future__ import annotations

import json
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_memory.parse import jsonrpc

_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(max_size=6), _json, max_size=4))
def test_a_plain_message_is_read_as_json_reads_it(message: dict[str, object]) -> None:
    line = json.dumps(message, ensure_ascii=False).encode("utf-8", "surrogatepass")
    found = jsonrpc.read(line)
    ident = message.get("id")
    unicode = not any("\ud800" <= c <= "\udfff" for c in json.dumps(message, ensure_ascii=False))
    if unicode and ident is not None and not isinstance(ident, str) and type(ident) is not int:
        assert found == jsonrpc.Unreadable(
            None, jsonrpc.INVALID_REQUEST, "Invalid Request: an id is a string or an integer"
        )
    elif not unicode:
        assert isinstance(found, jsonrpc.Unreadable)  # text that is not Unicode
    else:
        assert found == message


@settings(max_examples=500, deadline=None)
@given(
    st.binary(max_size=60)
    | st.text(alphabet='{}[]":,0123456789.-eNa\\ud', max_size=60).map(str.encode)
)
def test_any_line_is_a_message_or_an_answer(line: bytes) -> None:
    found = jsonrpc.read(line)
    assert isinstance(found, dict | jsonrpc.Unreadable)
    if isinstance(found, jsonrpc.Unreadable):
        assert found.code in (jsonrpc.PARSE_ERROR, jsonrpc.INVALID_REQUEST) and found.message


def test_the_id_and_the_tool_survive_what_cannot_be_read_and_it_stays_linear() -> None:
    deep = "[" * 400_000 + "]" * 400_000  # under MAX_LINE, far past Python's recursion
    started = time.monotonic()
    found = jsonrpc.read(
        f'{{"jsonrpc": "2.0", "id": "a", "method": "tools/call", '
        f'"params": {{"name": "memory_recall", "arguments": {{"q": {deep}}}}}}}'.encode()
    )
    assert time.monotonic() - started < 5
    assert found == jsonrpc.Unreadable(
        "a", jsonrpc.INVALID_REQUEST, "the arguments hold values nested deeper than 64 levels",
        "memory_recall",
    )  # fmt: skip
    found = jsonrpc.read(b'{"id": 3, "method": "ping", "params": {"x": "\\udfff"}}')
    assert isinstance(found, jsonrpc.Unreadable) and (found.id, found.tool) == (3, None)
    assert jsonrpc.read(b'{"id": true, "x": NaN}') == jsonrpc.Unreadable(
        None,
        jsonrpc.INVALID_REQUEST,
        "Invalid Request: the message holds NaN, which JSON does not have",
    )


def test_nesting_never_closed_is_a_parse_error() -> None:
    """What cannot be cut (its containers never close) is not JSON either: a parse error, where
    json's scanner gave up past Python's recursion and the server died with the traceback."""
    for line in (b"[" * 5000, b'{"a": ' * 5000, b"[" * 5000 + b"]" * 10):
        assert jsonrpc.read(line) == jsonrpc.Unreadable(
            None, jsonrpc.PARSE_ERROR, "Parse error: not JSON"
        )
