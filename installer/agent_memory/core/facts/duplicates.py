"""Duplicates: a new fact's text against the facts the memory holds (DECAY.md § Duplicates).

Two texts are **the same** when their words are: runs of letters and digits, case folded, so
case, spacing, punctuation and markup aside. They are **similar** when the Jaccard index of
their sets of words is at least 3/5. Measured on the 447 facts of five repos run by hand
(continuity.md, vision.md and the archive), 0.6 flagged two pairs, both the same work written
twice; 0.5 flagged five, two of them different releases or bugs told in the same words.

A memory may hold 10,000 archived facts; a file is parsed only when a fact of it may be similar
(``may_hold``), and the answer is the one parsing every file gives (a property test holds it).
"""

import itertools
from collections.abc import Sequence
from typing import NamedTuple

from ...errors import Problem
from ...layout import ARCHIVE_DIR
from ...parse.facts import Document, Fact
from ...parse.footer import listed, without_footers
from ...parse.text import words as text_words

# Similar: shared words / all words >= NUMERATOR / DENOMINATOR, compared in integers.
NUMERATOR, DENOMINATOR = 3, 5
# A line that starts one of these can only start a block: no fact's text holds one.
_STARTS = ("\n- ", "\n* ", "\n+ ")
CANDIDATES, PAIRS = 200, 20  # lint: per fact, earlier facts compared with, pairs listed
GROUP_NAMED = 5  # lint: the facts a group's advisory names, the rest counted


class Match(NamedTuple):
    id: str
    path: str
    line: int
    similarity: float  # 1.0: the same text
    archived: bool
    first_line: str


class Found(NamedTuple):
    same: Match | None  # the first fact with the same text, live before archived
    similar: tuple[Match, ...]  # most similar first, then by id


def words(text: str) -> frozenset[str]:
    return frozenset(text_words(text))


def normal(text: str) -> str:
    """The text as the same-text rule reads it: its words, case folded, one space apart."""
    return " ".join(text_words(text))


def similar(shared: int, union: int) -> bool:
    return shared * DENOMINATOR >= union * NUMERATOR


def needed(count: int) -> int:
    """The fewest words a similar text shares with a text of ``count`` words."""
    return -(-count * NUMERATOR // DENOMINATOR)


def fact_text(doc: Document, fact: Fact) -> str:
    """A fact's text as compared: its first line without marker, then its other lines, without
    its footer."""
    rest = "".join(doc.text.lines[fact.start + 1 : fact.end])
    return f"{fact.first_line}\n{without_footers(rest) if '<!--' in rest else rest}"


def probes(wanted: frozenset[str]) -> list[str]:
    """Words of which every similar text holds one (prefix filtering): all but ``needed - 1``
    of them, the longest (likely the rarest) kept."""
    ordered = sorted(wanted, key=lambda word: (-len(word), word))
    return ordered[: len(wanted) - needed(len(wanted)) + 1]


def may_hold(text: str, wanted: frozenset[str], probed: Sequence[str]) -> bool:
    """Whether a fact of a file may be similar to a text of words ``wanted``: some stretch of
    the file between two lines that start a list item holds one of ``probed`` and as many of
    ``wanted`` as a similar text shares. Each fact lies within one such stretch. Linear in the
    file for each probe: every search starts where the last one stopped."""
    low, need = text.casefold(), needed(len(wanted))
    for probe in probed:
        floor, ahead = 0, dict.fromkeys(_STARTS, -2)  # the next start of each kind, once found
        at = low.find(probe)
        while at != -1:
            start = max(floor, *(low.rfind(mark, floor, at) for mark in _STARTS))
            for mark, found in ahead.items():
                if found != -1 and found < at:
                    ahead[mark] = low.find(mark, at)
            end = min((found for found in ahead.values() if found != -1), default=len(low))
            if len(wanted.intersection(text_words(low[start:end]))) >= need:
                return True
            floor = end
            at = low.find(probe, end)
    return False


def compare(text: str, docs: Sequence[Document]) -> Found:
    """The facts of ``docs`` (in the order given: live before archived) with the same text as
    ``text``, and those similar to it; a text without a word is like none. A fact whose lines
    hold none of the ``probes`` is passed over unread."""
    wanted = words(text)
    if not wanted:
        return Found(None, ())
    key, probed = normal(text), probes(wanted)
    found: list[tuple[bool, int, Match]] = []
    for order, doc in enumerate(docs):
        archived = doc.path.startswith(ARCHIVE_DIR + "/")
        lines = doc.text.lines
        for fact in doc.facts:
            raw = "".join(lines[fact.start : fact.end]).casefold()
            if fact.id is None or not any(probe in raw for probe in probed):
                continue
            theirs = fact_text(doc, fact)
            other = words(theirs)
            shared, union = len(wanted & other), len(wanted | other)
            if similar(shared, union):
                score = round(shared / union, 2)
                match = Match(fact.id, doc.path, fact.line, score, archived, fact.first_line)
                found.append((normal(theirs) == key, order, match))
    same = min(((order, m.line, m) for is_same, order, m in found if is_same), default=None)
    first = same[2] if same is not None else None
    rest = sorted((m for _s, _o, m in found if m is not first), key=lambda m: (-m.similarity, m.id))
    return Found(first, tuple(rest))


def pairs(docs: Sequence[Document]) -> list[Problem]:
    """lint's ``duplicate`` advisory: live facts that are similar (or the same), found by
    prefix filtering over the words ordered rarest first, so that 1,000 facts are not compared
    pair by pair. A pair linked by supersession, a retraction or ``see:`` is never reported;
    facts similar to one another are one advisory, not one per pair. Bounded for a hostile
    file: a fact is compared with at most ``CANDIDATES`` earlier ones and paired with at most
    ``PAIRS`` of them."""
    facts = [(doc, fact, words(fact_text(doc, fact))) for doc in docs for fact in doc.facts
             if fact.id is not None and fact.field("tier") != "superseded"]  # fmt: skip
    counts: dict[str, int] = {}
    for _doc, _fact, found in facts:
        for word in found:
            counts[word] = counts.get(word, 0) + 1
    index: dict[str, list[int]] = {}
    similar_pairs: list[tuple[int, int, float]] = []
    for n, (_doc, fact, found) in enumerate(facts):
        ordered = sorted(found, key=lambda word: (counts[word], word))
        prefix = ordered[: len(found) - needed(len(found)) + 1]
        paired, seen = 0, set[int]()
        for m in itertools.chain.from_iterable(index.get(word, ()) for word in prefix):
            if m in seen:
                continue
            if len(seen) == CANDIDATES:
                break
            seen.add(m)
            other, theirs = facts[m][1], facts[m][2]
            union = len(found | theirs)
            if similar(len(found & theirs), union) and paired < PAIRS and not _linked(fact, other):
                paired += 1
                similar_pairs.append((n, m, len(found & theirs) / union))
        for word in prefix:
            index.setdefault(word, []).append(n)
    return _advisories([(doc, fact) for doc, fact, _words in facts], similar_pairs)


def _linked(one: Fact, two: Fact) -> bool:
    """Whether a footer of either names the other (``supersedes``, ``superseded-by``, ``see``):
    the two are already related on purpose."""
    return any(
        other.id in listed(fact.field(key))
        for fact, other in ((one, two), (two, one))
        for key in ("supersedes", "superseded-by", "see")
    )


def _advisories(
    facts: Sequence[tuple[Document, Fact]], found: Sequence[tuple[int, int, float]]
) -> list[Problem]:
    """One advisory per group of facts similar to one another: a pair's at its later fact, a
    larger group's at its first fact, naming the others."""
    group = list(range(len(facts)))

    def root(n: int) -> int:
        while group[n] != n:
            group[n] = group[group[n]]
            n = group[n]
        return n

    for n, m, _score in found:
        group[max(root(n), root(m))] = min(root(n), root(m))
    members: dict[int, list[int]] = {}
    for member in sorted({i for one, two, _s in found for i in (one, two)}):
        members.setdefault(root(member), []).append(member)
    problems = [_pair(facts[n], facts[m], score) for n, m, score in found
                if len(members[root(n)]) == 2]  # fmt: skip
    problems += [_group([facts[n] for n in ns]) for ns in members.values() if len(ns) > 2]
    return problems


def _group(members: Sequence[tuple[Document, Fact]]) -> Problem:
    (doc, fact), others = members[0], members[1:]
    named = [f"{o.id} ({d.path}:{o.line})" for d, o in others[:GROUP_NAMED]]
    if len(others) > GROUP_NAMED:
        named.append(f"{len(others) - GROUP_NAMED} more")
    return Problem(
        doc.path,
        fact.line,
        "advisory",
        "duplicate",
        f"{fact.id} and {len(others)} other facts say much the same: {', '.join(named)}; keep "
        "one (agent-memory fact supersede OLD NEW) or relate them (agent-memory fact relate)",
    )


def _pair(one: tuple[Document, Fact], two: tuple[Document, Fact], score: float) -> Problem:
    (doc, fact), (other_doc, other) = one, two
    alike = normal(fact_text(doc, fact)) == normal(fact_text(other_doc, other))
    same = "the same as" if alike else f"much the same ({score:.2f}) as"
    return Problem(
        doc.path,
        fact.line,
        "advisory",
        "duplicate",
        f"{fact.id} says {same} {other.id} ({other_doc.path}:{other.line}); keep one "
        "(agent-memory fact supersede OLD NEW) or relate them (agent-memory fact relate)",
    )
