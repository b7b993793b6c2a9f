"""Which family of declarations holds each command's first word, for the quick path.

Every family's declarations cost about 5M instructions to import, a tenth of what a daily command
does beyond starting up, and a command line needs one family (``fact`` two). The quick path
imports those alone; click's path imports the whole table. A test holds this map to the table.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .declared import Declared

_SETUP = ("enable", "recover", "hooks", "disable", "mcp", "doctor")
_MEMORY = ("review", "status", "lint", "context", "recall", "explain", "import")
FAMILIES = MappingProxyType(
    {
        **dict.fromkeys(_SETUP, ("setup",)),
        **dict.fromkeys(_MEMORY, ("memory",)),
        "fact": ("memory", "curation"),
        "proposals": ("curation",),
        **dict.fromkeys(("session", "check-logs", "merge-file"), ("sessions",)),
        "hook": ("hook",),
        **dict.fromkeys(("replay", "report"), ("insight",)),
        "ui": ("browser",),
    }
)


def declared(argv: Sequence[str]) -> Declared | None:
    """The line ``argv`` starts with (one word, else two), as ``table.BY_WORDS`` finds it."""
    lines = [
        line
        for family in FAMILIES.get(argv[0], ())
        if argv
        for line in importlib.import_module(f"{__package__}.{family}").LINES
    ]
    by_words = {line.words: line for line in lines}
    return by_words.get(tuple(argv[:1])) or by_words.get(tuple(argv[:2]))
