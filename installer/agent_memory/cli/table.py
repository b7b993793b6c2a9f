"""The table of command lines: each command's words, help, options, needs and call, declared once.

Both command lines are built from it: ``app`` makes the click commands, ``quick`` parses the same
grammar without click. The declarations live by family (``setup``, ``memory``, ``sessions``);
each ``build`` imports its command's module only when that command runs, so ``--version``, the
quick path and every other command pay only for their own.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from . import browser, curation, hook, insight, memory, sessions, setup
from .declared import Declared

LINES: tuple[Declared, ...] = (
    *setup.LINES,
    *memory.LINES,
    *curation.LINES,
    *sessions.LINES,
    *hook.LINES,
    *insight.LINES,
    *browser.LINES,
)
BY_WORDS: Mapping[tuple[str, ...], Declared] = MappingProxyType({d.words: d for d in LINES})
