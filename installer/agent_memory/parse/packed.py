"""Values kept while a stream is read, packed into one buffer.

Many small values that outlive the lines they were read from pin the allocator's heap between
the lines' freed memory: a 50 MB Gemini CLI transcript's 4 MB of agent messages, kept as
objects, held 16 MB. Packed into one growing buffer (marshal's bytes) they cost their size.
"""

from __future__ import annotations

import marshal
from collections.abc import Iterator, Sequence
from typing import Any

_SLACK = 1 << 20  # bytes of replaced values the buffer may hold before it is compacted


class Packed:
    """Tuples (of str, int, None and tuples of them) by key, in the order keys were first put;
    a key may be kept with no value (None)."""

    def __init__(self) -> None:
        self._data = bytearray()
        self._at: dict[str, tuple[int, int] | None] = {}
        self._live = 0

    def __contains__(self, key: str) -> bool:
        return key in self._at

    def keys(self) -> list[str]:
        return list(self._at)

    def get(self, key: str) -> Any:
        at = self._at.get(key)
        return None if at is None else marshal.loads(memoryview(self._data)[at[0] : at[1]])

    def put(self, key: str, value: tuple[Any, ...] | None) -> None:
        old = self._at.get(key)
        self._live -= 0 if old is None else old[1] - old[0]
        if value is None:
            self._at[key] = None
            return
        data = marshal.dumps(value)
        self._at[key] = (len(self._data), len(self._data) + len(data))
        self._data += data
        self._live += len(data)
        if len(self._data) > 2 * self._live + _SLACK:
            self._compact()

    def keep(self, keys: Sequence[str]) -> None:
        """Only ``keys`` (held already), in their order."""
        self._at = {key: self._at[key] for key in keys}
        self._live = sum(at[1] - at[0] for at in self._at.values() if at is not None)

    def values(self) -> Iterator[Any]:
        """Each value that is not None, in key order."""
        for key in list(self._at):
            if self._at[key] is not None:
                yield self.get(key)

    def _compact(self) -> None:
        data = bytearray()
        for key, at in self._at.items():
            if at is not None:
                self._at[key] = (len(data), len(data) + at[1] - at[0])
                data += self._data[at[0] : at[1]]
        self._data = data
