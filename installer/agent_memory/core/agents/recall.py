"""``recall``: find facts in continuity.md and the archive by words, ranked by ``ranking``; what a
search reads of each fact, from the reader's parse of its file.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType

from ...errors import InputError
from ...parse import facts
from ...parse.facts import Document, Fact
from ...parse.footer import listed, without_footers
from .ranking import Cited, Hit, Index, search, words

__all__ = ["cite", "index", "lines", "read", "recall", "recency", "terms", "text", "verified"]


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


def verified(
    path: str, pieces: Sequence[bytes], fact_id: str, place: Sequence[object], score: float
) -> Hit | None:
    """The hit of the fact ``fact_id`` said to stand at ``place`` (its section's heading line,
    its first and end lines) in the file whose bytes split at each newline are ``pieces``, read
    by the reader from those lines alone: what a hit shows never comes from a derived store,
    and the rest of the file is not decoded. None when they hold no such fact."""
    if len(place) != 3 or not all(type(n) is int for n in place):
        return None
    heading, start, end = (int(n) for n in place)  # type: ignore[call-overload]
    if not (-1 <= heading < start < end <= len(pieces) - (not pieces[-1])):
        return None
    head = [pieces[heading]] if heading >= 0 else []
    ending = b"\n" if end < len(pieces) else b""  # the file's last line may have none
    try:
        part = facts.parse(path, b"\n".join([*head, *pieces[start:end]]) + ending)
    except InputError:
        return None
    if [s.heading for s in part.sections] != ([0] if head else []) or len(part.facts) != 1:
        return None
    found = part.facts[0]
    if found.id != fact_id or found.start != len(head):
        return None
    fact_id, tier, section, line, first, _, see, _ = cite(part.text.lines, found)
    return Hit(fact_id, tier, path, line - len(head) + start, section, first, score, see)


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
