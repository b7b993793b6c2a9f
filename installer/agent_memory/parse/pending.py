"""How many proposals a log holds: the items of its ``## Proposed Facts`` section (DESIGN §20),
counted outside code fences, read leniently (nothing in a log makes this fail)."""

from __future__ import annotations

import re

from .. import patterns
from .markdown import ATX, fence_closes, fence_opens

_PROPOSED = patterns.compile(r"^ {0,3}##[ \t]+proposed facts[ \t#]*$", re.IGNORECASE)
_ITEM = patterns.compile(r"^[-*+][ \t]+\S")  # a top-level item: a nested one is its detail


def proposals(data: bytes) -> int:
    """The list items directly under a ``## Proposed Facts`` heading of the log ``data``."""
    if b"proposed" not in data.lower():
        return 0
    count, inside = 0, False
    fence: tuple[str, int] | None = None
    for line in data.decode("utf-8", errors="replace").splitlines():
        if fence is not None:
            fence = None if fence_closes(fence, line) else fence
            continue
        fence = fence_opens(line)
        if fence is not None:
            continue
        if ATX.match(line):
            inside = bool(_PROPOSED.match(line))
        elif inside and _ITEM.match(line):
            count += 1
    return count
