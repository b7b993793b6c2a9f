"""Key lines (``- key: value  # comment``), read in the plain and the bold (``- **key:** value``)
form and rewritten in place, so a file keeps the form, alignment and comments it was written in.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from .text import strip_eol

_KEY_LINE = re.compile(
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
