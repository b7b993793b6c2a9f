"""Personal facts (DECAY.md § Personal facts): one person's own facts, in continuity.md's grammar,
in ``memory/personal.md``, which git ignores.

Nothing personal may reach a file the team shares: ``leak`` is the one check every plan passes
before it is written (``settle``), and ``fact share`` is the one way a personal fact becomes the
team's (``personal_edits``: kept apart, as it needs the curation modules, which every command's
runner would otherwise import). The review never reads the file: a personal fact's use is
counted in its own footer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ... import resources
from ...layout import PERSONAL
from ...parse.facts import Document, parse
from ...parse.memory import known_ids
from ..plan import FileEdit

TEMPLATE = "templates/memory/personal.md"
DEFAULT_SECTION = "User Preferences"
# What may not stand before or after an id that stands whole (as ``footer`` reads ids).
_BEFORE = rb"(?<![A-Za-z0-9._-])"
_AFTER = rb"(?![A-Za-z0-9_]|[.-][A-Za-z0-9])"


def template() -> bytes:
    return resources.data(TEMPLATE)


def leak(edits: Sequence[FileEdit], personal: Document) -> tuple[str, str] | None:
    """The first (path, id) where a plan would newly name a personal fact (one the personal
    file still holds after the plan: ``fact share`` moves one out) in another file; None when it
    names none. An id the file already held is not new (a team fact may come to share a
    personal fact's id: lint says so)."""
    after = next((e.after for e in edits if e.path == PERSONAL and e.after is not None), None)
    ids = sorted(known_ids([parse(PERSONAL, after) if after is not None else personal]))
    if not ids:
        return None
    wanted = [(i, re.compile(_BEFORE + re.escape(i.encode()) + _AFTER)) for i in ids]
    for edit in edits:
        if edit.path == PERSONAL or edit.after is None:
            continue
        for fact_id, pattern in wanted:
            word = not any(mark in fact_id for mark in ".-")
            if _named(edit.after, pattern, word) and not _named(edit.before or b"", pattern, word):
                return edit.path, fact_id
    return None


# Where an id of one word (``tabs``) names a fact rather than a thing: a footer or another HTML
# comment, a Memory References line. An id of several words is named wherever it stands.
_ID_PLACE = re.compile(rb"<!--|^\s*[-*+]\s*(?:Referenced|Created|Reactivated|Superseded)\b")


def _named(data: bytes, pattern: re.Pattern[bytes], word: bool) -> bool:
    for found in pattern.finditer(data):
        if not word:
            return True
        start = data.rfind(b"\n", 0, found.start()) + 1
        end = data.find(b"\n", found.end())
        if _ID_PLACE.search(data[start : end if end != -1 else len(data)]):
            return True
    return False


def leak_line(path: str, fact_id: str) -> str:
    return (
        f"would name your personal fact {fact_id!r} in {path}, which the team shares; personal "
        f"facts stay in {PERSONAL} (agent-memory fact share {fact_id} makes it the team's)"
    )
