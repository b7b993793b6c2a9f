"""The search indexes of memory files for a few words: only the facts that may hold one of them,
with BM25's statistics of the whole files (their facts and their words) counted in bulk.

A prompt's recall searches 11,000 facts for a handful of words, and indexing each fact cost 700M
instructions, most of the hook's. A fact holding none of the words scores 0 and is never listed,
so ``search`` over the facts that may hold one, given the whole files' statistics, lists exactly
what it lists over every fact, at any limit (a property test holds the two together); and when
no fact holds one, it lists nothing whatever the statistics. Asked only for hits over a floor (the
prompt's), it leaves out too the facts whose words cannot reach it (a word most facts hold weighs
little: an upper bound of each word's share of a score, as MaxScore bounds it), and lists the
same hits down to the floor's band. The bulk count reads a file in the shape the review writes:
under each section, bullets each with its footer on the line below. Any other file is indexed
whole (``recall.read``).
"""

from __future__ import annotations

import bisect
import functools
import itertools
import math
import re
from collections import Counter
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence

from ... import patterns
from ...parse.facts import MAX_DOCUMENT_LINES
from ...parse.scan_written import PROJECT_STATE
from .kept import Kept
from .recall import K1, NEAR, Cited, Index, band, read, words, written
from .wordscan import count_words, holding, lowered, mentions

# Words a query may have for the files to be searched for each before they are read: a longer
# prompt likely holds a common word, and each looked for is a pass over the files.
_LOOKED_FOR = 8
# The lines ``scan_written.cited`` reads, fewer of their shapes: a heading, a blank line, a bullet
# of plain text with or without a footer naming an id right under it. Checked line by line in a
# section of facts, by this expression elsewhere (a few lines: a title, Project State).
_TITLE = r"##? [^\s#](?:[^\n#]*[^\s#])?"
_PLAIN = r"- (?:\[[ xX]\] )?(?:\*\*)?[A-Za-z]"
_FOOTER = "  <!-- id:"
_HEADING = patterns.compile(_TITLE)
_BULLET = patterns.compile(_PLAIN)
_SHAPE = patterns.compile(rf"(?:{_TITLE}\n|\n|{_PLAIN}.*\n(?:{_FOOTER}.*-->\n)?)*")
_NOT_PLAIN = patterns.compile(rf"\n(?!{_PLAIN})")  # a line that is no bullet of plain text
# A field ``fields_of`` reads as from:, and the one shape of it read here.
_ANY_FROM = patterns.compile(r"\|\s*from\s*:", re.IGNORECASE)
_FROM = patterns.compile(r"\| from:([^|\n]*?)(?=\||-->\n)")
_TWO_FROM = patterns.compile(r"\| from:[^\n]*\| from:")
# A file read by sections: its path and bytes, its sections of facts, and in each the facts that
# hold each word (None: not known exactly, as a from: field may hold it).
_Sections = tuple[str, bytes, list["_Section"], list[dict[str, set[int]] | None]]
_TASKS = ("[ ] ", "[x] ", "[X] ")


class _Section:
    """The facts of one section of a file in the shape above: bullets[i] and footers[i] are the
    lines of its i-th fact, the bullet on line ``start() + 2 * i`` (0-based) of the file;
    ``footed`` the footers' lines, each ended."""

    def __init__(self, text: str, at: int, lead: int, title: str, facts: list[str]) -> None:
        self.text, self.at, self.lead, self.title = text, at, lead, title
        self.bullets, self.footers = facts[0::2], facts[1::2]
        self.footed = "\n".join(self.footers) + "\n" if self.footers else ""

    def start(self) -> int:
        """The line of its first fact: counted only for a section with a candidate, as
        counting the lines of a file costs as much as reading its shape."""
        return self.text.count("\n", 0, self.at) + self.lead

    # What both the search for the words and the count of them read of the footers, worked
    # out when first asked: each is a pass over every footer of the section.
    @functools.cached_property
    def lowered(self) -> bytes:
        return lowered(self.footed)

    @functools.cached_property
    def ids(self) -> list[str]:
        """Each footer's first segment, its id field (each footer starts "  <!-- id:")."""
        start = len(_FOOTER)
        return [footer.partition("|")[0][start:] for footer in self.footers]

    @functools.cached_property
    def keys(self) -> bool | None:
        return _from_keys(self.footed, self.lowered)

    @functools.cached_property
    def froms(self) -> list[str] | None:
        return _froms(self)


def indexes(
    files: Sequence[tuple[str, bytes]],
    query: str,
    others: Sequence[Index],
    floor: float = 0.0,
    kept: Callable[[str, bytes], Kept | None] = lambda _path, _data: None,
) -> list[Index]:
    """The index of each memory file (path, bytes) for a search of ``query``, then ``others``
    (indexes of every fact). With a ``floor``, only hits whose band reaches its are asked for.
    ``kept(path, data)``: the file's kept index, when there is one (the file is then not read)."""
    weights = Counter(words(query))
    if (
        len(weights) <= _LOOKED_FOR
        and not any(mentions(data, weights) for _, data in files)
        and not any(ix.postings(word) for ix in others for word in weights)
    ):  # no file holds a word anywhere: no fact does, whatever the files' shapes
        return [Index(path, [], 0, 0) for path, _ in files] + list(others)
    found: list[Index | Kept | _Sections] = []
    for path, data in files:
        sections = None if (kept_ := kept(path, data)) else _sections(data)
        held = [_holders(s, weights) for s in sections] if sections is not None else []
        found.append(
            kept_ or (read(path, data) if sections is None else (path, data, sections, held))
        )
    whole = [ix for ix in found if isinstance(ix, Index)] + list(others)
    stored = [ix for ix in found if isinstance(ix, Kept)]
    fast = {id(ix): ix for ix in found if isinstance(ix, tuple)}
    if (
        not any(ix.postings(word) for ix in whole for word in weights)
        and not any(ix.frequency(word) for ix in stored for word in weights)
        and not any(h is None or any(h.values()) for *_, held in fast.values() for h in held)
    ):  # no fact holds a word: none scores, whatever the statistics
        return [ix if isinstance(ix, Index) else _empty(ix) for ix in found] + list(others)
    counts = {key: [_statistics(s) for s in f[2]] for key, f in fast.items()}
    # A file whose from: fields this does not read is indexed whole.
    whole_read = {key: read(*fast.pop(key)[:2]) for key in list(fast) if None in counts[key]}
    whole += whole_read.values()
    essential = None
    if floor > 0 and all(h is not None for *_, held in fast.values() for h in held):
        held_words = sum(ix.words for ix in whole) + sum(ix.words for ix in stored)
        held_words += sum(n for key in fast for n in counts[key] if n is not None)
        essential = _essential(weights, (whole, stored), list(fast.values()), held_words, floor)
    return [
        ix if isinstance(ix, Index) else
        ix.index(weights if essential is None else essential, weights) if isinstance(ix, Kept) else
        whole_read[id(ix)] if id(ix) in whole_read else
        _index(ix, counts[id(ix)], weights, essential)
        for ix in found
    ] + list(others)  # fmt: skip


def _empty(read_: Kept | _Sections) -> Index:
    return Index(read_.path if isinstance(read_, Kept) else read_[0], [], 0, 0)


def _essential(
    weights: Mapping[str, int],
    read_: tuple[Sequence[Index], Sequence[Kept]],
    fast: Sequence[_Sections],
    held_words: int,
    floor: float,
) -> set[str]:
    """The words a fact must hold to score in ``floor``'s band: the others, taken from the
    least weighty while their bounds add up to less than the band's lower edge. A word's share
    of a score is under its idf times K1 + 1, however often a fact holds it; a word only kept
    indexes hold is bounded closer (``Kept.share``, at the average length: ``held_words`` over
    the facts)."""
    whole, stored = read_
    total = sum(ix.counted for ix in whole) + sum(ix.counted for ix in stored)
    total += sum(len(s.bullets) for f in fast for s in f[2])
    frequency = {
        word: sum(ix.frequency(word) for ix in whole)
        + sum(ix.frequency(word) for ix in stored)
        + sum(len(h[word]) for f in fast for h in f[3] if h is not None)
        for word in weights
    }

    def share(word: str) -> float:
        if any(ix.frequency(word) for ix in whole) or any(
            h[word] for f in fast for h in f[3] if h is not None
        ):
            return K1 + 1
        return max(ix.share(word, held_words / total) for ix in stored if ix.frequency(word))

    bound = {
        word: weights[word] * math.log(1 + (total - n + 0.5) / (n + 0.5)) * share(word)
        for word, n in frequency.items()
        if n
    }
    edge, under = NEAR ** band(floor) - 1e-6, 0.0
    essential = set(bound)
    for word in sorted(bound, key=lambda w: (bound[w], w)):
        if under + bound[word] >= edge - 1e-9:
            break
        under += bound[word]
        essential.discard(word)
    return essential


def _index(
    read_: _Sections,
    counts: Sequence[int | None],
    wanted: Collection[str],
    essential: set[str] | None,
) -> Index:
    """A file's index of the facts that may hold a word searched for (an ``essential`` one,
    when given: then with how many of its facts hold each word), with its statistics."""
    path, _, sections, held = read_
    cited: list[Cited] = []
    frequencies: Counter[str] = Counter()
    for section, holders in zip(sections, held, strict=True):
        if holders is None:
            chosen: Collection[int] = _maybe(section, wanted)
        else:
            kept = [f for word, f in holders.items() if essential is None or word in essential]
            chosen = sorted(set().union(*kept))
            frequencies.update({word: len(facts) for word, facts in holders.items()})
        cited += _cite(section, chosen)
    counted = sum(len(s.bullets) for s in sections)
    held_by = frequencies if essential is not None else None
    return Index(path, cited, counted, sum(filter(None, counts)), held_by)


def _sections(data: bytes) -> list[_Section] | None:
    """The sections whose bullets are facts, or None unless the file is in the shape above and
    each such section is its facts alone, between blank lines at most."""
    if b"\r" in data or b"\0" in data:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if text[:1] == "\ufeff" or text[-1:] not in ("", "\n"):
        return None
    bounds = list(_headings(text))
    first = bounds[0][0] if bounds else len(text)
    lines_read = text.count("\n", 0, first)
    if lines_read >= MAX_DOCUMENT_LINES or not _plain(text[:first]):
        return None
    found: list[_Section] = []
    for start, end in bounds:
        lines = text[start:end].split("\n")  # the heading, the lines under it, ""
        lines_read += len(lines) - 1
        title = lines[0][3:]
        if _HEADING.fullmatch(lines[0]) is None or lines_read >= MAX_DOCUMENT_LINES:
            return None
        if lines[0][:3] != "## " or title.lower() == PROJECT_STATE:  # no section of facts
            if not _plain(text[start + len(lines[0]) + 1 : end]):
                return None
            continue
        lead = next((n for n, line in enumerate(lines) if n and line), len(lines))
        while len(lines) > lead and not lines[-1]:
            lines.pop()
        section = _Section(text, start, lead, title, lines[lead:])
        if not _facts_alone(section, len(lines) - lead):
            return None
        found.append(section)
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


def _plain(text: str) -> bool:
    """Whether lines outside a section of facts are in the shape above (its expression), with
    no comment but footers, each closed once."""
    footers = text.count(f"\n{_FOOTER}")
    if text.count("<!--") != footers or text.count("-->") != footers:
        return False
    return _SHAPE.fullmatch(text) is not None


def _facts_alone(section: _Section, lines: int) -> bool:
    """Whether a section's ``lines`` are its facts alone: a bullet of plain text, then its
    footer naming an id, with no other comment, and no blank line among them."""
    bullets, footed, count = section.bullets, section.footed, len(section.footers)
    if lines != 2 * count or not count:
        return lines == 0
    joined = "\n".join(bullets)
    # Counted on all lines at once: each footer line starts "  <!-- id:" and ends "-->", with
    # no other comment in it; no bullet opens one.
    return (
        footed.startswith(_FOOTER)
        and footed.count(f"\n{_FOOTER}") == count - 1
        and footed.count("-->\n") == footed.count("-->") == footed.count("<!--") == count
        and "<!--" not in joined
        and _NOT_PLAIN.search(f"\n{joined}") is None
    )


def _statistics(section: _Section) -> int | None:
    """How many words a search reads of the section's facts (each one's bullet, id and
    ``from:`` or section): None when a footer's ``from:`` is not the one field of its name."""
    found = count_words("\n".join(section.bullets)) + count_words(" ".join(section.ids))
    if section.keys is False:
        return found + len(section.footers) * count_words(section.title)
    froms = section.froms if section.keys else None
    if froms is None:
        return None  # "from" elsewhere in a footer, or twice: ``fields_of`` reads each
    titled = froms.count("")  # an empty one (or none): the title
    return found + count_words(" ".join(froms)) + titled * count_words(section.title)


def _holders(section: _Section, wanted: Collection[str]) -> dict[str, set[int]] | None:
    """The facts of the section whose bullet, id or section (its ``from:``, else the title)
    holds each word of ``wanted``; None when a footer's ``from:`` is not written as this reads
    it (``_maybe`` then)."""
    title = set(words(section.title))
    said = [word for word in wanted if word.encode() in section.lowered]  # by some footer
    keys = section.keys if said or title.intersection(wanted) else False
    froms = section.froms if keys else None
    if keys is None or (keys and froms is None):
        return None
    titled = (
        range(len(section.bullets)) if froms is None else [n for n, v in enumerate(froms) if not v]
    )
    found = {word: set(titled) if word in title else set() for word in wanted}
    held = [holding(section.bullets, wanted)]
    if said:
        held += [holding(section.ids, said), holding(froms or (), said)]
    for each in held:
        for word, facts in each.items():
            found[word] |= facts
    return found


def _froms(section: _Section) -> list[str] | None:
    """Each fact's ``from:`` as ``fields_of`` reads it ("" when it has none: its section is the
    title), when each footer holds one such field at most (None otherwise)."""
    footers = section.footed
    if _TWO_FROM.search(footers):
        return None
    ends = list(itertools.accumulate(len(footer) + 1 for footer in section.footers))
    found = [""] * len(section.footers)
    for match in _FROM.finditer(footers):
        found[bisect.bisect_right(ends, match.start())] = match[1].strip()
    return found


def _maybe(section: _Section, wanted: Collection[str]) -> Collection[int]:
    """The facts of the section that may hold a word of ``wanted``: its bullet, its id or any
    footer field does (every fact, when the section's title does)."""
    if set(words(section.title)).intersection(wanted):
        return range(len(section.bullets))
    found = set().union(*holding(section.bullets, wanted).values())
    found.update(*holding(section.footers, wanted).values())
    return sorted(found)


def _cite(section: _Section, chosen: Collection[int]) -> Iterator[Cited]:
    """What a search reads of the ``chosen`` facts of the section, in file order."""
    start = section.start() if chosen else 0
    for n in chosen:
        bullet, body = section.bullets[n], section.footers[n][6:-3]
        text = bullet[6:] if bullet[2:6] in _TASKS else bullet[2:]
        fact = written(section.title, start + 2 * n, bullet, text.strip(), body)
        if fact is not None:
            yield fact


def _from_keys(footers: str, lowered: bytes) -> bool | None:
    """Whether the footers (``lowered``: as ``lowered`` gives them) hold a field ``fields_of``
    reads as ``from:``, when each such is written "| from:" (None when one is not)."""
    found = lowered.count(b"from")
    if found == 0:
        return False
    exact = footers.count("| from:")
    if found == exact or len(_ANY_FROM.findall(footers)) == exact:
        return True
    return None
