"""Strings from outside the repo (a transcript, a hook's JSON, an MCP call, a command line option),
checked before they become part of a file name or a memory file, or written as one safe line.

A memory file and a session log are read line by line, and a session log is never edited: a
newline in a value would add lines nobody wrote (``- transcript lines: 1-999999``), a NUL makes
every later command refuse the file, and a lone surrogate cannot be encoded at all. So every
such string is either refused where a person can fix it (``fact add``) or escaped where refusing
would lose a whole session (``session capture``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .. import patterns
from .dates import parse_moment

# Unicode's control characters (Cc: C0, DEL, C1), surrogates (Cs) and the line and paragraph
# separators (Zl, Zp): what cannot stand inside one line of a UTF-8 Markdown file. None of them
# is printable (``str.isprintable``), so a printable text holds none: a test holds it there.
_UNSAFE = patterns.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff\u2028\u2029]")
_SESSION_ID = patterns.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}\Z")
_TIMESTAMP = patterns.compile(
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]{1,9})?)?"
    r"(?:Z|[+-][0-9]{2}:?[0-9]{2})?\Z"
)
# What a terminal obeys rather than shows: C0 controls but tab and line feed, a carriage return
# not ending a line, DEL and C1 (``\x1b]0;title\x07`` retitles the window, ``\x1b[2J`` clears it),
# and the bidirectional embeddings, overrides and isolates, which reorder what the line shows
# (``\u202e`` prints the words after it backwards: the text read is not the text shown).
_TERMINAL = patterns.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]|\r(?!\n)"
)
# What ``json.dumps`` leaves raw in a string and ``shown`` would escape: DEL and C1.
_JSON_RAW = patterns.compile("[\x7f-\x9f]")
# The longest value ``one_line`` writes whole: Linux's PATH_MAX.
LINE_VALUE_MAX = 4096


def first_unsafe(text: str) -> str | None:
    """The first character of ``text`` that cannot stand inside one line, as ``U+XXXX``."""
    if text.isprintable():  # none of them is (C): the expression is not even compiled
        return None
    found = _UNSAFE.search(text)
    return None if found is None else f"U+{ord(found.group()):04X}"


def fact_text_problem(text: str) -> str | None:
    """What keeps ``text`` from being a fact's words (a control character, or an HTML comment,
    which would be read as a second footer), or None; ``fact add`` and every import ask. Its
    lines are joined by newlines and may hold tabs (a code block's)."""
    unsafe = first_unsafe(text.replace("\n", " ").replace("\t", " "))
    if unsafe is not None:
        return f"holds a control character ({unsafe})"
    if "<!--" in text or "-->" in text:
        return "holds an HTML comment"
    return None


def one_line(text: str) -> str:
    """``text`` as one line that encodes: each unsafe character written as its Python escape
    (``\\n``-free: ``\\x0a``, ``\\u2028``, ``\\udc80``), and a value longer than
    ``LINE_VALUE_MAX`` characters cut there and marked with ``…``."""
    head = text[:LINE_VALUE_MAX]
    shown = head if head.isprintable() else _UNSAFE.sub(_escape, head)
    return shown if len(text) <= LINE_VALUE_MAX else f"{shown}…"


def shown(text: str) -> str:
    """``text`` as a terminal may print it: each character it would obey (an escape sequence's
    ESC, a bell, a carriage return that rewrites a line, a bidirectional override) written as
    its Python escape, the rest (tabs and line breaks included) as it is."""
    return _TERMINAL.sub(_escape, text)


def hook_json(event: str, text: str) -> str:
    """The one JSON line an agent reads from a hook that adds ``text`` to its context (Claude
    Code, Codex and Gemini CLI all take ``hookSpecificOutput.additionalContext``), as ``shown``
    prints it unchanged: DEL and C1, which ``json.dumps`` leaves raw and ``shown`` would then
    write as ``\\x7f`` (no JSON escape), are ``\\u007f`` escapes already."""
    import json  # 3 ms to import, paid only by a hook's call

    added = {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}
    dumped = json.dumps(added, ensure_ascii=False)
    return _JSON_RAW.sub(lambda found: f"\\u{ord(found.group()):04x}", dumped)


def controls_in(text: str) -> Iterator[tuple[int, str]]:
    """Where in ``text`` each character ``shown`` escapes stands, and which (``U+XXXX``)."""
    for found in _TERMINAL.finditer(text):
        yield found.start(), f"U+{ord(found.group()):04X}"


def _escape(found: Any) -> str:
    code = ord(found.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def session_id(value: object) -> str | None:
    """An agent's session id, or None: ASCII letters, digits, ``.``, ``_``, ``:`` and ``-``, at
    most 128 of them (Claude Code, Codex and Gemini CLI all use a UUID)."""
    return value if isinstance(value, str) and _SESSION_ID.match(value) else None


def timestamp(value: object) -> str | None:
    """An ISO 8601 date and time as agents write them (``2026-11-20T09:14:00.000Z``), or None."""
    if not isinstance(value, str) or not _TIMESTAMP.match(value):
        return None
    return value if parse_moment(value) is not None else None
