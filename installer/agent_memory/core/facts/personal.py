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
from collections.abc import Callable, Sequence

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


def leak(
    edits: Sequence[FileEdit],
    personal: Document,
    team: Callable[[str], bool] = lambda _id: False,
) -> tuple[str, str] | None:
    """The first (path, id) where a plan would newly name a personal fact (one the personal
    file still holds after the plan: ``fact share`` moves one out) in another file; None when it
    names none. Only where the tool writes ids counts (a value of a footer's field, a Memory
    References line): prose or a path that happens to hold ``dark-mode`` names nothing. An id the
    file already held is not new, and one the team's memory holds too (``team``: a pull may
    bring a team fact of the same id; lint says so) is the team's to name."""
    after = next((e.after for e in edits if e.path == PERSONAL and e.after is not None), None)
    ids = sorted(known_ids([parse(PERSONAL, after) if after is not None else personal]))
    if not ids:
        return None
    wanted = [(i, re.compile(_BEFORE + re.escape(i.encode()) + _AFTER)) for i in ids]
    for edit in edits:
        if edit.path == PERSONAL or edit.after is None:
            continue
        for fact_id, pattern in wanted:
            named = _named(edit.after, pattern) and not _named(edit.before or b"", pattern)
            if named and not team(fact_id):
                return edit.path, fact_id
    return None


# Where the tool writes an id: a value of a footer's field (``see: a, b``, ``superseded-by: a``)
# or of another HTML comment's, a Memory References line.
_REFERENCES = re.compile(rb"^\s*[-*+]\s*(?:Referenced|Created|Reactivated|Superseded)\b")
_VALUE_BEFORE = re.compile(rb"[:,]\s*$")
_VALUE_AFTER = re.compile(rb"\s*(?:\||,|-->)")


def _named(data: bytes, pattern: re.Pattern[bytes]) -> bool:
    for found in pattern.finditer(data):
        start = data.rfind(b"\n", 0, found.start()) + 1
        end = data.find(b"\n", found.end())
        line = data[start : end if end != -1 else len(data)]
        if _REFERENCES.search(line):
            return True
        before, after = data[start : found.start()], data[found.end() : len(line) + start]
        inside = b"<!--" in before and _VALUE_BEFORE.search(before) is not None
        if inside and _VALUE_AFTER.match(after):
            return True
    return False


def leak_line(path: str, fact_id: str) -> str:
    return (
        f"would name your personal fact {fact_id!r} in {path}, which the team shares; personal "
        f"facts stay in {PERSONAL} (agent-memory fact share {fact_id} makes it the team's; a "
        "session log never names one)"
    )
