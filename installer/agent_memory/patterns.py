"""Regular expressions compiled on first use.

The package declares some seventy patterns at module level and a command uses a handful of them.
``re`` compiles in pure Python (0.1-2 ms a pattern), so compiling all of them at import cost about
10 ms of every run: more than the whole work of `context` or `explain`. ``compile`` returns a
stand-in that compiles on its first use and then keeps the pattern's methods on itself, so every
later call costs what a call on the compiled pattern does.
"""

from __future__ import annotations

import re
from typing import Any, AnyStr, cast

_KEPT = ("match", "fullmatch", "search", "sub", "subn", "split", "finditer", "findall")


class _Deferred:
    def __init__(self, pattern: Any, flags: int) -> None:
        self._source: tuple[Any, int] = (pattern, flags)

    def __getattr__(self, name: str) -> Any:
        # Only reached for names not yet on the instance: the first use, or an attribute of the
        # pattern that is not kept (``pattern``, ``groups``...), which is looked up each time.
        if name == "_source":
            raise AttributeError(name)
        compiled = re.compile(*self._source)
        for kept in _KEPT:
            setattr(self, kept, getattr(compiled, kept))
        return getattr(compiled, name)


def compile(pattern: AnyStr, flags: int = 0) -> re.Pattern[AnyStr]:
    """``re.compile(pattern, flags)``, compiled when first used."""
    return cast("re.Pattern[AnyStr]", _Deferred(pattern, flags))
