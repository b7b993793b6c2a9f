"""Moving a fact's lines between files: out of its file, and back, byte for byte.

A fact swept from a one-file thread (``memory/open-threads/<name>.md``) records
``from: open-threads/<name>.md``; the file goes away with its last fact and is recreated when
the fact is reactivated (DESIGN §13).
"""

from __future__ import annotations

from ... import patterns
from ...layout import OPEN_THREADS, OPEN_THREADS_DIR
from ...parse.facts import Fact, is_blank
from ...parse.text import Text
from .edits import Edit

_THREAD_FROM = patterns.compile(r"^open-threads/[A-Za-z0-9][A-Za-z0-9._-]*\.md$")
_MEMORY = "memory/"


def origin(doc_path: str, section: str) -> str:
    """What ``from`` records for a fact leaving ``doc_path``: its section, or its thread file."""
    if doc_path.startswith(OPEN_THREADS_DIR + "/"):
        return doc_path[len(_MEMORY) :]
    return section


def thread_file(from_value: str | None) -> str | None:
    """The thread file an archived fact came from, or None when it came from a section."""
    if from_value is None or _THREAD_FROM.match(from_value) is None or ".." in from_value:
        return None
    return _MEMORY + from_value


def section_of(from_value: str | None) -> str | None:
    """The section the tier rules see for an archived fact with this ``from``."""
    return OPEN_THREADS if thread_file(from_value) else from_value


def emptied(text: Text) -> bool:
    return all(is_blank(line) for line in text.lines)


def removal(text: Text, fact: Fact) -> list[Edit]:
    """Delete a fact's lines, and one blank line when it would leave two in a row."""
    end = fact.end
    lines = text.lines
    before_blank = fact.start == 0 or is_blank(lines[fact.start - 1])
    if before_blank and end < len(lines) and is_blank(lines[end]):
        end += 1
    return [Edit(fact.start, end, ())]
