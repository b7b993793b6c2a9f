"""Strings from outside: checked, or written as one line that cannot become two (hypothesis)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_memory.parse import untrusted
from agent_memory.parse.untrusted import LINE_VALUE_MAX, first_unsafe, one_line

# Every code point, surrogates included: json.loads turns "\ud800" into one.
ANY = st.text(st.characters(codec=None, exclude_categories=()), max_size=40)


@given(ANY)
def test_one_line_is_one_encodable_line_and_leaves_safe_text_alone(text: str) -> None:
    shown = one_line(text)
    assert first_unsafe(shown) is None
    assert len(shown.encode("utf-8").splitlines()) <= 1  # bytes: \n, \r and nothing else
    assert len(shown.splitlines()) <= 1  # str: every Unicode line break
    assert (shown == text) == (first_unsafe(text) is None)


def test_no_unsafe_character_is_printable() -> None:
    """The fast path: a printable text is taken as safe without the expression."""
    unsafe = [c for c in map(chr, range(0x110000)) if untrusted._UNSAFE.fullmatch(c)]
    assert len(unsafe) == 32 + 1 + 32 + 2048 + 2 and not any(c.isprintable() for c in unsafe)


def test_a_long_value_is_cut_and_marked() -> None:
    assert one_line("a" * (LINE_VALUE_MAX + 1)) == "a" * LINE_VALUE_MAX + "…"
    assert one_line("a" * LINE_VALUE_MAX) == "a" * LINE_VALUE_MAX


@pytest.mark.parametrize(
    ("text", "shown"),
    [("a\nb", "a\\x0ab"), ("\x00", "\\x00"), ("\u2028", "\\u2028"), ("\ud800x", "\\ud800x")],
)
def test_unsafe_characters_are_written_as_their_escapes(text: str, shown: str) -> None:
    assert one_line(text) == shown


@pytest.mark.parametrize(
    "value",
    [
        "7d3f2c1e-5b8a-4e2f-9c61-0a4b8d2e6f13",  # Claude Code, Gemini CLI
        "019a9f3e-6c2d-7b41-9e55-2f8d0c1a7b36",  # Codex (UUIDv7)
        "a",
        "x" * 128,
    ],
)
def test_real_session_ids_are_ids(value: str) -> None:
    assert untrusted.session_id(value) == value


@pytest.mark.parametrize(
    "value", ["", "x" * 129, "a b", "a\nb", "a\ud800", "-a", "\uff41", 7, None, ["a"], "a/b"]
)
def test_anything_else_is_no_session_id(value: object) -> None:
    assert untrusted.session_id(value) is None


@pytest.mark.parametrize(
    "value",
    ["2026-11-20T09:14:00.000Z", "2026-11-20T09:14:00Z", "2026-11-20T09:14:00+01:00"],
)
def test_agent_timestamps_are_times(value: str) -> None:
    assert untrusted.timestamp(value) == value


@pytest.mark.parametrize(
    "value",
    [
        "2026-11-20T09:14:00Z\n- transcript lines: 1-9",
        "2026-11-20T25:00:00Z",
        "\uff12026-11-20T09:14:00Z",  # a fullwidth digit
        "2026-11-20T09:14:00\ud800",
        "9999-12-31T23:59:59-14:00",  # past year 9999 in UTC: no log can be named after it
        "0001-01-01T00:00:00+14:00",
        "yesterday",
        1_790_000_000,
    ],
)
def test_anything_else_is_no_time(value: object) -> None:
    assert untrusted.timestamp(value) is None


@given(ANY)
def test_a_session_id_that_passes_is_written_as_it_is(text: str) -> None:
    value = untrusted.session_id(text)
    assert value is None or one_line(value) == value
    assert untrusted.session_id(json.loads(json.dumps(text))) == value
