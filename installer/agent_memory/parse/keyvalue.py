"""Key lines (``- key: value  # comment``), read in the plain and the bold (``- **key:** value``)
form and rewritten in place, so a file keeps the form, alignment and comments it was written in.
"""

from typing import NamedTuple

from .. import patterns
from .text import strip_eol

_KEY_LINE = patterns.compile(
    r"^(?P<lead>[ \t]*[-*+][ \t]+)"
    r"(?P<key>\*\*(?P<k1>[A-Za-z_][\w-]*):\*\*|\*\*(?P<k2>[A-Za-z_][\w-]*)\*\*:|(?P<k3>[A-Za-z_][\w-]*):)"
    r"(?P<gap>[ \t]*)(?P<value>.*?)(?P<comment>[ \t]+#.*)?[ \t]*$"
)


class KeyLine(NamedTuple):
    key: str
    value: str
    start: int  # offset of the value in the line
    end: int


def parse_key_line(line: str) -> KeyLine | None:
    m = _KEY_LINE.match(strip_eol(line))
    if m is None:
        return None
    key = m.group("k1") or m.group("k2") or m.group("k3")
    return KeyLine(key.lower(), m.group("value"), m.start("value"), m.end("value"))


def with_value(line: str, new_value: str) -> str:
    """``line`` with its value replaced; everything else (form, comment, line ending) kept."""
    parsed = parse_key_line(line)
    if parsed is None:  # pragma: no cover - callers only pass parsed lines
        raise ValueError(line)
    return line[: parsed.start] + new_value + line[parsed.end :]


def like(line: str, key: str, value: str) -> str:
    """A new key line in the form of ``line``: plain or bold, its value in the same column."""
    m = _KEY_LINE.match(strip_eol(line))
    if m is None:  # pragma: no cover - callers only pass parsed lines
        raise ValueError(line)
    written = m.group("key")
    if m.group("k1"):
        new_key = f"**{key}:**"
    elif m.group("k2"):
        new_key = f"**{key}**:"
    else:
        new_key = f"{key}:"
    head = m.group("lead") + new_key
    column = m.start("value") if m.group("value") else len(m.group("lead") + written) + 1
    newline = line[len(strip_eol(line)) :] or "\n"
    return head + " " * max(1, column - len(head)) + value + newline


def embolden(line: str) -> str:
    """A plain key line in the bold form (``- key: v`` → ``- **key:** v``), value column kept
    where the longer key allows."""
    m = _KEY_LINE.match(strip_eol(line))
    if m is None or not m.group("k3"):
        return line
    head = m.group("lead") + f"**{m.group('k3')}:**"
    column = m.start("value")
    return head + " " * max(1, column - len(head)) + line[column:]
