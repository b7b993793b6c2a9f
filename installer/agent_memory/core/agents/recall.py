"""``recall``: find facts in continuity.md and the archive by words, ranked by ``ranking``; what a
search reads of each fact, from the reader's parse of its file.
"""

from __future__ import annotations

import bisect
import codecs
import functools
from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType

from ...errors import InputError
from ...parse import facts, markdown
from ...parse.facts import Document, Fact
from ...parse.footer import listed, without_footers
from .ranking import Cited, Hit, Index, search, words

__all__ = [
    "File",
    "cite",
    "index",
    "lines",
    "read",
    "recall",
    "recency",
    "terms",
    "text",
    "verified",
]


def index(doc: Document) -> Index:
    """The index of a document's facts; facts without an id cannot be cited: skipped."""
    lines, cited = doc.text.lines, [fact for fact in doc.facts if fact.id is not None]
    starts = [section.heading for section in doc.sections]
    places = [(_heading(doc, starts, fact), fact.start, fact.end) for fact in cited]
    return Index(doc.path, [cite(lines, fact) for fact in cited], places=places)


def _heading(doc: Document, starts: Sequence[int], fact: Fact) -> int:
    """The line of the heading of the section holding ``fact``, or -1 (before any)."""
    owner = bisect.bisect_right(starts, fact.start) - 1
    return starts[owner] if owner >= 0 and fact.start < doc.sections[owner].end else -1


class File:
    """A memory file's bytes, and what checking a stored hit reads of them, each worked out
    once, when a hit first needs it: its lines, where a block may first open and a heading may
    stand (``markdown``: one search of the bytes in C each), the reader's index of it."""

    def __init__(self, path: str, data: bytes) -> None:
        self.path, self.data = path, data

    @functools.cached_property
    def pieces(self) -> list[bytes]:
        return self.data.split(b"\n")

    @functools.cached_property
    def opening(self) -> int:
        return markdown.opening(self.data)

    @functools.cached_property
    def headings(self) -> list[int]:
        return markdown.headings(self.data)

    @functools.cached_property
    def whole(self) -> Index:
        return read(self.path, self.data)


def verified(file: File, fact_id: str, place: Sequence[object], score: float) -> Hit | None:
    """The hit of the fact ``fact_id`` said to stand at ``place`` (its section's heading line,
    its first and end lines) in ``file``: what a hit shows never comes from a derived store.
    Read by the reader from those lines alone where they read alone as in the file
    (``_alone``), the rest of it not decoded; else from the reader's index of the whole file.
    None when they hold no such fact."""
    if len(place) != 3 or not all(type(n) is int for n in place):
        return None
    heading, start, end = (int(n) for n in place)  # type: ignore[call-overload]
    pieces = file.pieces
    if not (-1 <= heading < start < end <= len(pieces) - (not pieces[-1])):
        return None
    if heading < 0 or not _alone(file, heading, start):
        ix = file.whole
        at = [e for e, p in enumerate(ix.places) if p == (heading, start, end)]
        return ix.hit(at[0], score) if at and ix.ids[at[0]] == fact_id else None
    ending = b"\n" if end < len(pieces) else b""  # the file's last line may have none
    try:
        part = facts.parse(file.path, b"\n".join([pieces[heading], *pieces[start:end]]) + ending)
    except InputError:
        return None
    if [s.heading for s in part.sections] != [0] or len(part.facts) != 1:
        return None
    found = part.facts[0]
    if found.id != fact_id or found.start != 1:
        return None
    fact_id, tier, section, line, first, _, see, _ = cite(part.text.lines, found)
    return Hit(fact_id, tier, file.path, line - 1 + start, section, first, score, see)


def _alone(file: File, heading: int, start: int) -> bool:
    """Whether the lines of a heading and of a fact's start read alone as in their file: each
    at its line's start (indented, either may be a list item's), no line before them that may
    open a block, none after the heading up to the fact's that may make one of level 1 or 2."""
    pieces = file.pieces
    title = pieces[0].removeprefix(codecs.BOM_UTF8) if heading == 0 else pieces[heading]
    if title[:1] != b"#" or pieces[start][:1] not in (b"-", b"*", b"+"):
        return False
    after = sum(map(len, pieces[: heading + 1])) + heading + 1  # where the next line starts
    begins = after + sum(map(len, pieces[heading + 1 : start])) + start - heading - 1
    between = bisect.bisect_left(file.headings, after) < bisect.bisect_right(file.headings, begins)
    return begins <= file.opening and not between


def cite(lines: Sequence[str], fact: Fact) -> Cited:
    """What a search reads of a fact with an id, from its document's lines."""
    fields = dict(fact.fields)
    fact_id, section = fact.id or "", fields.get("from") or fact.section  # from: before the archive
    found = terms(lines, fact, section)
    tier, see = fields.get("tier") or "working", listed(fields.get("see"))
    return fact_id, tier, section, fact.line, fact.first_line, found, see, recency(fields)


def read(path: str, data: bytes) -> Index:
    """The index of a memory file, as the reader parses it."""
    return index(facts.parse(path, data))


def terms(lines: Sequence[str], fact: Fact, section: str) -> list[str]:
    """The words a search reads of a fact: its text, id and section (``from:`` in the archive)."""
    return words(f"{text(lines, fact)} {fact.id or ''} {section}")


def recency(fields: Mapping[str, str]) -> tuple[int, int]:
    """(last use as YYYYMMDD, uses), 0 for a value that is not one: larger is more recent."""
    day, uses = fields.get("last_used") or "", fields.get("uses") or ""
    digits = day.replace("-", "")
    when = int(digits) if len(day) == 10 and digits.isascii() and digits.isdigit() else 0
    return when, int(uses) if uses.isascii() and uses.isdigit() and len(uses) <= 10 else 0


def text(lines: Sequence[str], fact: Fact) -> str:
    """The fact's lines without its footers (``without_footers``). When the one comment in them
    is its footer, that is cut where the parser found it: stripping every line costs 25K
    instructions a fact."""
    body = "".join(lines[fact.start : fact.end])
    if fact.footer_line is None or body.count("<!--") != 1:
        return without_footers(body)
    start, end = fact.footer_span
    if lines[fact.footer_line][end - 3 : end] != "-->":  # unclosed: it runs to the line's end
        return without_footers(body)
    offset = sum(map(len, lines[fact.start : fact.footer_line]))
    return f"{body[: offset + start]} {body[offset + end :]}"


def recall(query: str, docs: Iterable[Document], limit: int) -> list[Hit]:
    """The best ``limit`` facts for ``query`` in ``docs``."""
    return search(query, [index(doc) for doc in docs], limit)


def lines(
    hits: Sequence[Hit], near: Mapping[str, Sequence[Hit]] = MappingProxyType({})
) -> list[str]:
    out = []
    for h in hits:
        out.append(f"{h.id}  [{h.tier}]  {h.path}:{h.line}  {h.first_line}")
        out += [
            f"  related: {r.id}  [{r.tier}]  {r.path}:{r.line}  {r.first_line}"
            for r in near.get(h.id, ())
        ]
    return out
