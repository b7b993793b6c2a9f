"""Words of memory files found and counted in bulk, in C, as ``recall.words`` splits them:
what lets a search of a few words (``candidates``) skip reading every fact. Property tests hold
the count to ``recall.words`` and that search to one over every fact.
"""

from __future__ import annotations

import itertools
from collections.abc import Collection, Sequence

_WORD = b"abcdefghijklmnopqrstuvwxyz0123456789"
# Each byte of a word made "a", every other a space (or the line ends kept): words counted and
# found in C, as ``recall.words`` splits them (a property test holds the count to its).
_MARKS = bytes(97 if b in _WORD else 32 for b in range(256))
_LINES = bytes(b if b in _WORD or b == 10 else 32 for b in range(256))
_PARTS = 1000  # places a word is found inside others before ``mentions`` takes it as held


def mentions(data: bytes, wanted: Collection[str]) -> bool:
    """Whether a word of ``wanted`` is a word of the file anywhere (each fact's words are its
    text's), or may be: a file that is not plain UTF-8 text is left to the full reading, which
    says what is wrong with it. A word found as part of others more than ``_PARTS`` times is
    taken as held: its search then costs no more than the full reading's."""
    if b"\0" in data:
        return True
    if data.isascii():
        lowered = data.lower()
    else:
        try:
            lowered = data.decode("utf-8").lower().encode("utf-8")
        except UnicodeDecodeError:
            return True
    for word in map(str.encode, wanted):
        at, parts = lowered.find(word), 0
        while at != -1 and parts < _PARTS:
            end = at + len(word)
            if (at == 0 or lowered[at - 1] not in _WORD) and (
                end == len(lowered) or lowered[end] not in _WORD
            ):
                return True
            at, parts = lowered.find(word, end), parts + 1
        if parts == _PARTS:
            return True
    return False


def count_words(text: str) -> int:
    """``len(recall.words(text))``, without a list of them."""
    marks = text.lower().encode("utf-8", "surrogatepass").translate(_MARKS)
    return marks.count(b" a") + marks.startswith(b"a")


def lowered(text: str) -> bytes:
    """``text`` lowered as ``str.lower`` lowers it, to ASCII letters in C when it is ASCII."""
    return text.encode().lower() if text.isascii() else text.lower().encode("utf-8", "replace")


def holding(lines: Sequence[str], wanted: Collection[str]) -> dict[str, set[int]]:
    """Each word of ``wanted`` with the indexes of the ``lines`` holding it. The lines of a
    word found anywhere are each asked in C: a common word is held by thousands of facts (as
    ``str``: ``bytes.__contains__`` first tries its argument as an integer, and raises)."""
    marked = "\n".join(lines).lower().encode("utf-8", "surrogatepass").translate(_LINES)
    padded = " " + marked.decode("ascii").replace("\n", " \n ") + " "
    split: list[str] | None = None
    found: dict[str, set[int]] = {}
    for word in wanted:
        needle = f" {word} "
        if needle not in padded:
            found[word] = set()
            continue
        split = padded.split("\n") if split is None else split
        holds = map(str.__contains__, split, itertools.repeat(needle))
        found[word] = set(itertools.compress(itertools.count(), holds))
    return found
