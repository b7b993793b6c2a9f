"""The search index of a memory file for a few words: only the facts that may hold one of them,
with BM25's statistics of the whole file (its facts and their words) counted in bulk.

A prompt's recall searches 11,000 facts for a handful of words, and indexing each fact cost 700M
instructions, most of the hook's. A fact holding none of the words scores 0 and is never listed,
so ``search`` over the facts that may hold one, given the whole file's statistics, lists exactly
what it lists over every fact, at any limit (a property test holds the two together). The bulk
count reads a file in the shape the review writes: under each section, bullets each with its
footer on the line below. Any other file is indexed whole (``recall.read``).
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Collection, Iterator, Sequence

from ... import patterns
from ...parse.facts import MAX_DOCUMENT_LINES
from ...parse.scan_written import PROJECT_STATE
from .recall import Cited, Index, read, words, written

_WORD = b"abcdefghijklmnopqrstuvwxyz0123456789"
# Each byte of a word made "a", every other a space, the line ends kept: words counted and found
# in C, as ``recall.words`` splits them (a property test holds the count to its).
_MARKS = bytes(97 if b in _WORD else 32 for b in range(256))
_LINES = bytes(b if b in _WORD or b == 10 else 32 for b in range(256))
# Every line a heading, blank, or a bullet of plain text (``scan_written.cited``'s) with or
# without a footer naming an id right under it. Fewer shapes than ``cited`` reads: a file in none
# of them is indexed whole.
_TITLE = r"[^\s#](?:[^\n#]*[^\s#])?"
_FACT = r"- (?:\[[ xX]\] )?(?:\*\*)?[A-Za-z][^\n]*\n(?:  <!-- id:[^\n]*-->\n)?"
_SHAPE = patterns.compile(rf"(?:#{{1,2}} {_TITLE}\n|\n|{_FACT})*")
_ID = patterns.compile(r"<!-- id:([^|\n]*)")  # a footer's first segment: its id field
_FROM = patterns.compile(r"\| from:([^|\n]*?)(?=\||-->\n)")
_TWO_FROM = patterns.compile(r"\| from:[^\n]*\| from:")
_TASKS = ("[ ] ", "[x] ", "[X] ")


class _Section:
    """The facts of one section of a file in the shape above: bullets[i] and footers[i] are the
    lines of its i-th fact, the bullet on line ``start() + 2 * i`` (0-based) of the file;
    ids[i] its id as written (the value of its footer's first segment)."""

    __slots__ = ("at", "bullets", "footers", "froms", "ids", "lead", "text", "title")

    def __init__(self, text: str, at: int, lead: int, title: str, facts: list[str]) -> None:
        self.text, self.at, self.lead, self.title = text, at, lead, title
        self.bullets, self.footers = facts[0::2], facts[1::2]
        self.ids: list[str] = []  # as _statistics finds them
        self.froms = ""  # the from: values, lowered

    def start(self) -> int:
        """The line of its first fact: counted only for a section with a candidate, as
        counting the lines of a file costs as much as reading its shape."""
        return self.text.count("\n", 0, self.at) + self.lead


def read_for(path: str, data: bytes, wanted: Collection[str]) -> Index:
    """The index of the facts of a memory file that may hold a word of ``wanted`` (lowered
    words, as ``recall.words`` gives them), counting every fact's words."""
    sections = _sections(data)
    if sections is None:
        return read(path, data)
    cited: list[Cited] = []
    counted = total = 0
    for section in sections:
        found = _statistics(section)
        if found is None:
            return read(path, data)
        counted, total = counted + len(section.bullets), total + found
        cited += _candidates(section, wanted)
    return Index(path, cited, counted, total)


def count_words(text: str) -> int:
    """``len(recall.words(text))``, without a list of them."""
    marks = text.lower().encode("utf-8", "surrogatepass").translate(_MARKS)
    return marks.count(b" a") + marks.startswith(b"a")


def _sections(data: bytes) -> list[_Section] | None:
    """The sections whose bullets are facts, or None unless the file is in the shape above and
    each such section is its facts alone, between blank lines at most."""
    if data.count(b"\n") >= MAX_DOCUMENT_LINES or b"\r" in data or b"\0" in data:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    footers = text.count("\n  <!--")
    if text.count("<!--") != footers or text.count("-->") != footers:
        return None  # a comment elsewhere, or two in a footer: the parser decides
    if text[:1] == "\ufeff" or _SHAPE.fullmatch(text) is None:
        return None
    found: list[_Section] = []
    for start, end in _headings(text):
        lines = text[start:end].split("\n")
        title = lines[0][3:]
        if lines[0][:3] == "## " and title.lower() != PROJECT_STATE:  # an h2: a section
            lead = next((n for n, kept in enumerate(lines) if n and kept), len(lines))
            while len(lines) > lead and not lines[-1]:
                lines.pop()
            facts = lines[lead:]
            if "" in facts or text.count("\n  <!--", start, end) * 2 != len(facts):
                return None  # blank lines among its facts, or a bullet without a footer
            found.append(_Section(text, start, lead, title, facts))
    return found


def _headings(text: str) -> Iterator[tuple[int, int]]:
    """Where each heading's line and the lines under it start and end in ``text``: a line
    that starts with "#" is a heading in the shape above."""
    starts = [0] if text[:1] == "#" else []
    at = text.find("\n#")
    while at != -1:
        starts.append(at + 1)
        at = text.find("\n#", at + 1)
    yield from zip(starts, [*starts[1:], len(text)], strict=True)


def _statistics(section: _Section) -> int | None:
    """How many words a search reads of the section's facts (each one's bullet, id and
    ``from:`` or section): None when a footer's ``from:`` is not the one field of its name."""
    footers = "\n".join(section.footers) + "\n"
    section.ids = _ID.findall(footers)
    found = count_words("\n".join(section.bullets)) + count_words(" ".join(section.ids))
    lowered = footers.lower()
    if "from" not in lowered:
        return found + len(section.footers) * count_words(section.title)
    if lowered.count("from") != footers.count("| from:") or _TWO_FROM.search(footers):
        return None  # "from" elsewhere in a footer, or twice: ``fields_of`` reads each
    values = _FROM.findall(footers)
    section.froms = " ".join(values).lower()
    given = sum(map(bool, map(str.strip, values)))  # an empty from: is the section's
    titled = len(section.footers) - given
    return found + count_words(" ".join(values)) + titled * count_words(section.title)


def _candidates(section: _Section, wanted: Collection[str]) -> Iterator[Cited]:
    """What a search reads of each fact of the section whose bullet, id or ``from:`` holds a
    word of ``wanted`` (every fact, when the section's title does), in file order."""
    title = set(words(section.title))
    if any(word in title for word in wanted):
        chosen: Collection[int] = range(len(section.bullets))
    else:
        found = {*_holding(section.bullets, wanted), *_holding(section.ids, wanted)}
        if any(word in section.froms for word in wanted):  # rare: the footers that may say it
            found.update(_holding(section.footers, wanted))
        chosen = sorted(found)
    start = section.start() if chosen else 0
    for n in chosen:
        bullet, body = section.bullets[n], section.footers[n][6:-3]
        text = bullet[6:] if bullet[2:6] in _TASKS else bullet[2:]
        fact = written(section.title, start + 2 * n, bullet, text.strip(), body)
        if fact is not None:
            yield fact


def _holding(lines: Sequence[str], wanted: Collection[str]) -> Iterator[int]:
    """The indexes of the ``lines`` that hold a word of ``wanted`` (with repeats)."""
    marked = "\n".join(lines).lower().encode("utf-8", "surrogatepass").translate(_LINES)
    padded = b" " + marked.replace(b"\n", b" \n ") + b" "
    ends: Sequence[int] | None = None
    for word in wanted:
        needle = f" {word} ".encode()
        at = padded.find(needle)
        while at != -1:
            if ends is None:  # where each line ends, once a word is found
                lengths = map(len, padded.split(b"\n"))
                ends = list(itertools.accumulate(map((1).__add__, lengths)))
            yield bisect.bisect_right(ends, at)
            at = padded.find(needle, at + 1)
