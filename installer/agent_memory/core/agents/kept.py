"""A kept search index: the whole index of one memory file (``recall.read``), stored with that
file's bytes, so that a prompt's search reads no file unchanged since for its shape, its
statistics and the facts holding each word (HOOKS.md § Recall on each prompt).

It is derived data, used only for the very bytes it was made from, by the version that made it:
an entry for other bytes, of another version or cut short is not used, and the caller makes it
again. What a search asks of it — how many facts and words the file holds, how many facts hold
a word, and what it reads of the facts holding some — is read where it lies, not the whole entry
(a prompt reads some 4 MB less for 10,000 facts): each fact is one line of JSON; each word's
line says how many facts hold it, the most times one does and the fewest words one has (what
bounds the word's share of a score), and where their lines start; and the words' lines are
grouped in buckets by a checksum of the word, which a table of fixed width locates. An entry is
read as any file of a repo is, as if anyone wrote it: what is not what this writes raises
``ValueError`` (the caller then makes the entry again). A property test holds a search over
kept indexes to one over the files.
"""

from __future__ import annotations

import binascii
import itertools
import json
from collections import Counter, defaultdict
from collections.abc import Callable, Collection
from json.encoder import encode_basestring_ascii as _quoted

from ... import patterns
from .recall import K1, B, Cited, Index

_MAGIC = b"agent-memory kept search index 1\n"
_BUCKETS = 1024  # of the words' lines: a few dozen words each for a file of 10,000 facts
_SLOT = 24  # bytes of a bucket's place in the table: where its lines start, their length
_HEAD = 256  # bytes read for the header: the magic, the version and the sizes
_LINE = 512  # bytes read for a fact's line, read again longer when it is
_CONTROL = patterns.compile(
    r"[\x00-\x08\x0a-\x1f\x7f]"
)  # in no line of a file: none in what it says
# Reads ``length`` bytes of the entry at ``offset`` (fewer at its end).
Read = Callable[[int, int], bytes]


def entry(index: Index, data: bytes, version: str) -> bytes:
    """The kept index of the file of bytes ``data``, of its whole ``index``, for ``version``."""
    cited = [index.cited(fact) for fact in range(len(index))]
    lines = [_line(fact) for fact in cited]
    starts = [0, *itertools.accumulate(map(len, lines))]  # ASCII: what is not is escaped
    terms = [fact[5] for fact in cited]
    held: defaultdict[str, list[int]] = defaultdict(list)  # each word's facts, in file order
    for fact, said in enumerate(terms):
        for facts in map(held.__getitem__, dict.fromkeys(said)):
            facts.append(fact)
    most: dict[str, int] = {}  # the most times a fact holds a word, where it is more than once
    for said in terms:
        if len(set(said)) < len(said):
            for word, times in Counter(said).items():
                if times > most.get(word, 1):
                    most[word] = times
    lengths = list(map(len, terms))
    buckets: list[list[str]] = [[] for _ in range(_BUCKETS)]
    for word, facts in held.items():
        places = " ".join(map(str, map(starts.__getitem__, facts)))
        line = f"{word} {len(facts)} {most.get(word, 1)} {min(map(lengths.__getitem__, facts))}"
        buckets[_bucket(word)].append(f"{line} {places}\n")
    chunks = ["".join(bucket).encode("ascii") for bucket in buckets]
    ends = list(itertools.accumulate(map(len, chunks)))
    table = b"".join(
        b"%012d%012d" % (end - len(c), len(c)) for end, c in zip(ends, chunks, strict=True)
    )
    sizes = (len(data), index.counted, index.words, starts[-1], len(table), ends[-1])
    head = b"%b%b\n%d %d %d %d %d %d\n" % (_MAGIC, version.encode(), *sizes)
    return b"".join((head, data, "".join(lines).encode("ascii"), table, *chunks))


def _bucket(word: str) -> int:
    return binascii.crc32(word.encode()) % _BUCKETS


def _line(cited: Cited) -> str:
    """The fact's JSON line, as ``json.dumps`` writes it (a test holds the two together), in a
    third of its time: a word is letters and digits, with nothing to escape."""
    fact_id, tier, section, line, first, terms, see, (when, uses) = cited
    said = '["' + '","'.join(terms) + '"]' if terms else "[]"
    texts = ",".join(map(_quoted, (fact_id, tier, section)))
    names = ",".join(map(_quoted, see))
    return f"[{texts},{line},{_quoted(first)},{said},[{names}],[{when},{uses}]]\n"


class Kept:
    """A kept index opened for a search: its file's statistics, and the facts holding a word."""

    __slots__ = ("_end", "_facts", "_lines", "_read", "_table", "counted", "path", "words")

    def __init__(
        self, path: str, read: Read, sizes: tuple[int, int], places: tuple[int, int, int]
    ) -> None:
        self.path, self._read, (self.counted, self.words) = path, read, sizes
        self._facts, self._table, self._end = places  # where the facts, the table start; its end
        self._lines: dict[str, list[bytes]] = {}

    def index(self, wanted: Collection[str], searched: Collection[str]) -> Index:
        """The file's index for a search of the words ``searched``: the facts holding a word of
        ``wanted`` alone, with how many of its facts hold each word searched for."""
        held = {word: self.frequency(word) for word in searched}
        return Index(self.path, self.cited(wanted), self.counted, self.words, held)

    def frequency(self, word: str) -> int:
        """How many of the file's facts hold ``word``."""
        line = self._line(word)
        found = _number(line[1]) if len(line) > 1 else 0
        if found > self.counted or (found and not self.words):
            raise ValueError(f"{found} facts of {self.counted} hold {word!r}")
        return found

    def share(self, word: str, average: float) -> float:
        """The most a fact of the file can add to a score by holding ``word``, per unit of its
        idf, at the ``average`` length of a fact: BM25's term of the most times one holds it
        and the fewest words one has (each only lowers the term)."""
        line = self._line(word)
        tf, length = _number(line[2]), _number(line[3])
        return tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / average))

    def cited(self, wanted: Collection[str]) -> list[Cited]:
        """What a search reads of each fact holding a word of ``wanted``, in file order."""
        starts = sorted({_number(at) for word in wanted for at in self._line(word)[4:]})
        return _facts([self._fact_line(at) for at in starts])

    def _fact_line(self, at: int) -> bytes:
        """The fact's line that starts at ``at`` (a place that starts no line is the entry's
        fault: read from each byte of one long line, a search would take its square)."""
        size, room = _LINE, self._table - self._facts - at
        if room <= 0:
            raise ValueError("a fact's line past the facts")
        while True:
            found = self._read(self._facts + at - 1, min(size, room) + 1) if at else b"\n"
            if found[:1] != b"\n":
                raise ValueError("a fact's place that starts no line")
            found = found[1:] if at else self._read(self._facts, min(size, room))
            end = found.find(b"\n")
            if end != -1:
                return found[:end]
            if size >= room:
                raise ValueError("a fact's line past the facts")
            size *= 4

    def _line(self, word: str) -> list[bytes]:
        """The word's line, split: the word, how many facts hold it, the most times one does,
        the fewest words one has, where their lines start."""
        found = self._lines.get(word)
        if found is None:
            slot = self._read(self._table + _SLOT * _bucket(word), _SLOT)
            start, size = _number(slot[: _SLOT // 2]), _number(slot[_SLOT // 2 :])
            if self._table + _SLOT * _BUCKETS + start + size > self._end:
                raise ValueError("a bucket past the entry")
            lines = b"\n" + self._read(self._table + _SLOT * _BUCKETS + start, size)
            if len(lines) != size + 1 or (size and not lines.endswith(b"\n")):
                raise ValueError("a bucket cut short")
            at = lines.find(b"\n%b " % word.encode())
            found = lines[at + 1 : lines.index(b"\n", at + 1)].split(b" ") if at != -1 else []
            if found and len(found) < 4:
                raise ValueError(f"the line of {word!r} is not one this writes")
            for field in found[1:4]:
                _number(field)
            self._lines[word] = found
        return found


def _number(digits: bytes) -> int:
    """A count or a place written as this writes one: ASCII digits."""
    if not (digits.isdigit() and digits.isascii() and len(digits) < 19):
        raise ValueError(f"not a number: {digits[:20]!r}")
    return int(digits)


def _facts(lines: list[bytes]) -> list[Cited]:
    """What a search reads of each fact, from its line, when each line is one this writes
    (read as one JSON array: a call per line costs as much as the rest of a prompt's search)."""
    try:
        found = json.loads("[" + b",".join(lines).decode("ascii") + "]")
    except RecursionError:
        raise ValueError("not a fact's line") from None
    if len(found) != len(lines):
        raise ValueError("not a fact's line")
    return [_fact(fact) for fact in found]


def _fact(found: object) -> Cited:
    if not (type(found) is list and len(found) == 8):
        raise ValueError("not a fact's line")
    fact_id, tier, section, number, first, terms, see, recency = found
    if not (
        type(fact_id) is type(tier) is type(section) is type(first) is str
        and not _CONTROL.search(f"{fact_id}{tier}{section}{first}")
        and type(number) is int
        and type(terms) is type(see) is type(recency) is list
        and {*map(type, terms), *map(type, see)} <= {str}
        and len(recency) == 2
        and type(recency[0]) is type(recency[1]) is int
    ):
        raise ValueError("not a fact's line")
    return fact_id, tier, section, number, first, terms, tuple(see), (recency[0], recency[1])


def opened(path: str, read: Read, length: int, data: bytes, version: str) -> Kept | None:
    """The kept index of ``length`` bytes that ``read`` reads, of the file at ``path``, when it
    is whole, of ``version``, and of that file's bytes ``data``; None otherwise."""
    head = read(0, _HEAD)
    if not head.startswith(_MAGIC):
        return None
    first = head.find(b"\n", len(_MAGIC))
    second = head.find(b"\n", first + 1) if first != -1 else -1
    if second == -1 or head[len(_MAGIC) : first] != version.encode():
        return None
    fields = head[first + 1 : second].split(b" ")
    if len(fields) != 6 or not all(f.isdigit() and f.isascii() and len(f) < 19 for f in fields):
        return None
    size, counted, words, facts, table, postings = map(int, fields)
    start = second + 1
    if size != len(data) or table != _SLOT * _BUCKETS:
        return None
    if length != start + size + facts + table + postings or read(start, size) != data:
        return None
    return Kept(path, read, (counted, words), (start + size, start + size + facts, length))


def limit(data: bytes) -> int:
    """The most bytes a kept index of the file of bytes ``data`` may have: what this writes is
    some three times the file (its words, each fact's line)."""
    return 16 * len(data) + (1 << 16)
