"""The three-way choice every memory merge makes, and INDEX.md merged line by id (MERGE.md)."""

from collections.abc import Hashable, Sequence
from typing import NamedTuple

from ...parse.text import decode, strip_eol

OURS, THEIRS = "<<<<<<< ours", ">>>>>>> theirs"


class Choice(NamedTuple):
    kind: str  # "keep", "drop" or "conflict"
    lines: tuple[list[str], ...]  # keep: (lines,); conflict: (ours, theirs)


class Unmergeable(ValueError):
    """The versions are not in a shape this merge reads; git's text merge takes over."""


def choose(base: Hashable | None, ours: Hashable | None, theirs: Hashable | None) -> str:
    """Which side a three-way merge takes: "ours", "theirs", "drop" (gone) or "conflict".

    None is "absent". A side that did not change defers to the other; two equal changes agree;
    removed on one side and changed on the other, or changed differently, is a conflict.
    """
    if ours == theirs:
        return "drop" if ours is None else "ours"
    if ours == base:
        return "drop" if theirs is None else "theirs"
    if theirs == base:
        return "drop" if ours is None else "ours"
    return "conflict"


def conflict_block(ours: Sequence[str], theirs: Sequence[str], newline: str) -> list[str]:
    """Standard conflict markers around the two versions of one fact or line alone."""
    return [
        OURS + newline,
        *ended(ours, newline),
        "=======" + newline,
        *ended(theirs, newline),
        THEIRS + newline,
    ]


def ended(lines: Sequence[str], newline: str) -> list[str]:
    """Each line with its line ending."""
    return [line if line.endswith("\n") else line + newline for line in lines]


def merge_index(path: str, base: bytes, ours: bytes, theirs: bytes) -> tuple[bytes, int]:
    """INDEX.md: the header three-way, then one line per id, three-way, sorted by id."""
    texts = [decode(path, data) for data in (base, ours, theirs)]
    parts = [_index_parts(text.lines) for text in texts]
    header = choose(*(tuple(map(strip_eol, head)) for head, _ in parts))
    if header == "conflict":
        raise Unmergeable(path)
    newline = texts[1].newline
    out = ended(parts[2 if header == "theirs" else 1][0], newline)
    maps = [entries for _, entries in parts]
    conflicts = 0
    for fid in sorted({fid for entries in maps for fid in entries}):
        b, o, t = (entries.get(fid) for entries in maps)
        picked = choose(b, o, t)
        if picked == "conflict":
            conflicts += 1
            out += conflict_block([o] if o else [], [t] if t else [], newline)
        elif picked != "drop":
            out.append(f"{o if picked == 'ours' else t}{newline}")
    return (("\ufeff" if texts[1].bom else "") + "".join(out)).encode(), conflicts


def _index_parts(lines: Sequence[str]) -> tuple[list[str], dict[str, str]]:
    """The header (every line before the first entry) and the entries by id."""
    at = next((i for i, line in enumerate(lines) if line.startswith("- ")), len(lines))
    entries: dict[str, str] = {}
    for line in lines[at:]:
        text = strip_eol(line)
        if not text.strip():
            continue
        fid = text[2:].split(" ", 1)[0] if text.startswith("- ") else ""
        if not fid or fid in entries:
            raise Unmergeable(text)  # prose among the entries, or one id twice
        entries[fid] = text
    return list(lines[:at]), entries
