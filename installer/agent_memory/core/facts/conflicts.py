"""Contradictions: two live facts about the same thing that say different things (DECAY.md §
Contradictions).

Two facts speak of **the same thing** when their topics are alike: the Jaccard index of their
topic sets (their words less a short list of function words, negations and numbers, plus the
paths they cite) is at least ``NUMERATOR / DENOMINATOR``. They **differ** when one negates two
words the other says plainly in the same order (``never commit generated files`` / ``commit
generated files``), or when the same word leads two different values: a number, a version or a
code span (``Python 3.11`` / ``Python 3.12``, ``the default branch is `main``` / ``… `trunk```).
Dates are when, not what: they are read as neither. A pair linked by ``supersedes``, ``see:``
or a retraction is never one, and a retracted or superseded fact is not live.

The rule is tuned for precision (DECAY.md gives its figures): an advisory nobody trusts is noise.
"""

import functools
import itertools
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from ... import patterns
from ...errors import Problem
from ...parse.cites import parse_value
from ...parse.facts import Document, Fact
from ...parse.footer import listed, slug
from .duplicates import fact_text

# The same thing: shared topic words / all topic words >= NUMERATOR / DENOMINATOR.
NUMERATOR, DENOMINATOR = 1, 2
CANDIDATES, PAIRS = 200, 20  # per fact: earlier facts compared with, pairs kept
READINGS_KEPT = 4096  # facts' readings a process keeps (``_reading``)
# A path or URL is looked for only where its run of letters starts (the lookbehinds): tried from
# each character of a run with no "/" after it, it read the run to its end again each time, and a
# fact of 20,000 "a-" held lint and `fact add` for minutes.
_TOKEN = patterns.compile(
    r"`(?P<code>[^`\n]{1,80})`"
    r'|(?P<quote>"[^"\n]{0,300}")'
    r"|(?P<path>(?:(?<![a-z0-9+.-])[a-z][a-z0-9+.-]*:/|(?<![\w.~-]))[\w.~-]*(?:/[\w.~#%?=&-]+)+/?)"
    r"|(?P<date>\d{4}-\d\d-\d\d(?:[t ]\d\d:\d\d(?::\d\d)?)?)"
    r"|(?P<version>v?\d+(?:\.\d+)+)"
    r"|(?P<ref>#\d+)"
    r"|(?P<number>\d+(?:[.,]\d+)?)"
    r"|(?P<word>[^\W\d_][^\W_]*(?:'[^\W_]+)?)"
)
_FUNCTION_WORDS = (
    "a an the and or but of to in on at by for from with as is are was were be been being it its "
    "this that these those there here than then so if when while which who what where how all any "
    "each every some such only also just very more most less much many into onto over under via "
    "per we you they he she i our your their his her them us me my do does did done has have had "
    "will would should shall can could may might must"
)
_NEGATION_WORDS = (
    "not no never cannot can't don't doesn't didn't isn't aren't wasn't weren't won't wouldn't "
    "shouldn't mustn't couldn't hasn't haven't hadn't dont doesnt cant wont shouldnt isnt"
)
_STOP = frozenset(_FUNCTION_WORDS.split())
_NEGATIONS = frozenset(_NEGATION_WORDS.split())
# A word that is another's negation: read as the negation, then that word.
_OPPOSITES = {
    "disable": "enable",
    "disabled": "enabled",
    "disables": "enables",
    "disallow": "allow",
    "disallowed": "allowed",
    "forbid": "allow",
    "forbidden": "allowed",
}
_WORDS = patterns.compile(r"[^\W\d_][^\W_]*")
# What a fact's raw text holds when it may negate (a negation or an opposite) or lead a value.
_NEGATED = patterns.compile(
    r"\b(?:not|no|never|cannot|dont|doesnt|cant|wont|shouldnt|isnt|\w+n['\u2019]t"
    r"|disabl\w*|disallow\w*|forbid\w*)\b"
)
_VALUED = patterns.compile(r"[0-9`]")
_HASH = patterns.compile(r"[0-9a-f]{7,40}")
_DIGITS = patterns.compile(r"\d+")
_PARTS = patterns.compile(r"[-.]")
SCOPE = 3  # tokens: how far after a negation the first word it negates may stand


class Side(NamedTuple):
    id: str
    path: str
    line: int
    first_line: str


class Conflict(NamedTuple):
    one: Side  # the later fact (in file order)
    other: Side
    kind: str  # "polarity", "number", "version" or "value"
    detail: str  # what differs: "commit generated / not commit generated", "python: 3.11 / 3.12"
    similarity: float  # of their topics


class Reading(NamedTuple):
    """What the rule reads of one fact's text."""

    topic: frozenset[str]
    negated: frozenset[tuple[str, ...]]  # the words a negation governs (one or two)
    plain: frozenset[tuple[str, ...]]  # every word, and every two in a row, not negated
    values: dict[str, dict[str, tuple[str, ...]]]  # kind -> {leading word: its values, sorted}


def read(text: str, cited: Iterable[str] = (), named: str = "") -> Reading:
    """The topic, the negated and plain phrases, and the values of a fact's text; a value its
    id ``named`` holds (``release-4-11-9`` holds ``v4.11.9``) is what the fact is about, not
    what it says, and is left out, unless the id is only the text's first words (``fact add``'s
    own: ``python-3-11-is-required`` says nothing the text does not)."""
    own: tuple[str, ...] = ()
    if named and not _derived(text, named):
        own = tuple(part.removeprefix("v") for part in _PARTS.split(named))
    words: list[tuple[str, bool]] = []  # each content word, and whether a negation governs it
    values: dict[str, dict[str, set[str]]] = {}
    quoted: set[str] = set()
    pending, lead = 0, ""  # tokens a negation still reaches; the last content word
    for match in _TOKEN.finditer(text.casefold().replace("\u2019", "'")):
        kind, token = match.lastgroup or "", match.group(match.lastgroup or 0)
        if kind in ("quote", "path"):  # what a fact quotes or links to is not what it says
            quoted.update(w for w in _WORDS.findall(token) if w not in _STOP)
            continue
        if kind == "word":
            negates = token in _NEGATIONS or token in _OPPOSITES
            token = _OPPOSITES.get(token, token)
            if token in _NEGATIONS:
                pending = SCOPE
                continue
            if token in _STOP:
                pending = max(pending - 1, 0)
                continue
            words.append((token, pending > 0 or negates))
            pending, lead = 0, token
        elif kind in ("number", "version", "code") and lead and not _named(token, own):
            if kind == "code" and _HASH.fullmatch(token):  # a commit named, not a value
                continue
            values.setdefault(kind, {}).setdefault(lead, set()).add(token.strip())
            pending = max(pending - 1, 0)
    negated: set[tuple[str, ...]] = set()
    plain: set[tuple[str, ...]] = set()
    for n, (word, governed) in enumerate(words):
        after = words[n + 1][0] if n + 1 < len(words) else None
        phrase = (word,) if after is None else (word, after)
        (negated if governed else plain).add(phrase)
        if not governed:
            plain.add((word,))
    topic = frozenset(word for word, _ in words) | quoted | {f"cites:{p}" for p in cited}
    led = {k: {lead: tuple(sorted(v)) for lead, v in by.items()} for k, by in values.items()}
    return Reading(topic, frozenset(negated), frozenset(plain), led)


def _derived(text: str, named: str) -> bool:
    """Whether ``named`` is the id ``fact add`` derives from ``text`` (its slug, or ``-2``…)."""
    base = slug(text.split("\n", 1)[0])
    return named == base or (named.startswith(f"{base}-") and named[len(base) + 1 :].isdigit())


def _named(value: str, own: Sequence[str]) -> bool:
    """Whether the id's parts ``own`` hold the value's digit runs, whole and in a row:
    ``release-4-11-9`` holds ``v4.11.9``, ``pool-12`` holds neither ``1`` nor ``2``."""
    runs = _DIGITS.findall(value)
    if len("".join(runs)) < 2:
        return False
    return any(list(own[at : at + len(runs)]) == runs for at in range(len(own) - len(runs) + 1))


def _sized_alike(one: Reading, two: Reading) -> bool:
    """Whether the two topics' sizes let them be alike: sharing every word of the smaller, they
    would be; else no words they share could make them so."""
    small, large = sorted((len(one.topic), len(two.topic)))
    return small * DENOMINATOR >= large * NUMERATOR


def alike(one: Reading, two: Reading) -> float | None:
    """The similarity of two topics when they are the same thing, else None."""
    if not _sized_alike(one, two):
        return None
    shared = len(one.topic & two.topic)
    union = len(one.topic) + len(two.topic) - shared
    if not union or shared * DENOMINATOR < union * NUMERATOR:
        return None
    return shared / union


def differ(one: Reading, two: Reading) -> tuple[str, str] | None:
    """What two readings of the same thing disagree on, as (kind, detail), or None: the first
    phrase (in sorted order) one negates and the other says plainly, else the first leading
    word (sorted) of a version, a number or a code span whose one value differs."""
    if one.negated or two.negated:
        for mine, theirs, shown in ((one, two, "not {0} / {0}"), (two, one, "{0} / not {0}")):
            opposed = (mine.negated & theirs.plain) - theirs.negated if mine.negated else None
            if opposed:
                return "polarity", shown.format(" ".join(min(opposed)))
    if not (one.values and two.values):
        return None
    for kind in ("version", "number", "code"):
        led, led_too = one.values.get(kind), two.values.get(kind)
        if not (led and led_too):
            continue
        for lead in sorted(led.keys() & led_too.keys()):
            a, b = led[lead], led_too[lead]
            if len(a) == 1 and len(b) == 1 and a != b:  # several values: a list, not a setting
                return ("value" if kind == "code" else kind), f"{lead}: {a[0]} / {b[0]}"
    return None


def linked(one: Fact, two: Fact) -> bool:
    """Whether a ``supersedes``, ``superseded-by`` or ``see`` field joins the two facts."""
    return two.id in joined(one) or one.id in joined(two)


def joined(fact: Fact) -> frozenset[str]:
    """The ids ``fact``'s ``supersedes``, ``superseded-by`` and ``see`` fields name."""
    return frozenset(
        i for key in ("supersedes", "superseded-by", "see") for i in listed(fact.field(key))
    )


def live(docs: Sequence[Document]) -> list[tuple[Document, Fact]]:
    """The facts that can contradict: with an id, not superseded or retracted."""
    return [
        (doc, fact)
        for doc in docs
        for fact in doc.facts
        if fact.id is not None and fact.field("tier") != "superseded"
    ]


def reading(doc: Document, fact: Fact) -> Reading:
    return _reading(fact_text(doc, fact), fact.field("cites") or "", fact.id or "")


@functools.lru_cache(maxsize=READINGS_KEPT)
def _reading(text: str, cites: str, named: str) -> Reading:
    """``read`` of a fact, kept by everything it reads: a server (``agent-memory ui``) asks for
    the same facts page after page, and real facts are long (1,000 of them, 150 ms to read); a
    command reads each once. A reading is shared: nothing changes one."""
    paths = (c.path for c in parse_value(cites)[0]) if cites else ()
    return read(text, paths, named)


def conflicts(docs: Sequence[Document]) -> list[Conflict]:
    """Each pair of live facts of ``docs`` that contradict, later fact first. Candidates share
    a topic word among each fact's rarest (prefix filtering, as lint's duplicates); bounded for
    a hostile file: a fact is compared with at most ``CANDIDATES`` earlier ones (the first met,
    word by word of its prefix) and paired with at most ``PAIRS``."""
    facts = [
        _Held(fact, _side(doc, fact), reading(doc, fact), joined(fact)) for doc, fact in live(docs)
    ]
    counts = Counter(word for held in facts for word in held.reading.topic)
    index: dict[str, list[int]] = {}
    found_pairs: list[Conflict] = []
    for n, held in enumerate(facts):
        ordered = sorted(held.reading.topic, key=lambda word: (counts[word], word))
        prefix = ordered[: len(ordered) - -(-len(ordered) * NUMERATOR // DENOMINATOR) + 1]
        seen: set[int] = set()
        kept = 0
        for m in itertools.chain.from_iterable(index.get(word, ()) for word in prefix):
            if m in seen:
                continue
            if len(seen) == CANDIDATES or kept == PAIRS:
                break
            seen.add(m)
            found = _pair(held, facts[m])
            if found is not None:
                kept += 1
                found_pairs.append(found)
        for word in prefix:
            index.setdefault(word, []).append(n)
    return found_pairs


def against(text: str, docs: Sequence[Document]) -> list[Conflict]:
    """The live facts of ``docs`` a new fact's ``text`` would contradict (``fact add``). Only a
    fact that holds one of the probes (prefix filtering: every alike topic shares one) is read."""
    mine = read(text)
    if not mine.topic:
        return []
    new = Side("", "", 0, text.strip().splitlines()[0])
    ordered = sorted(mine.topic, key=lambda word: (-len(word), word))
    probed = ordered[: len(ordered) - -(-len(ordered) * NUMERATOR // DENOMINATOR) + 1]
    probed += [word for word, read_as in _OPPOSITES.items() if read_as in probed]  # disable
    found = []
    for doc in docs:
        for fact in doc.facts:
            raw = "".join(doc.text.lines[fact.start : fact.end]).casefold()
            if not any(probe in raw for probe in probed):
                continue
            if fact.id is None or fact.field("tier") == "superseded":
                continue
            if not (mine.negated or _NEGATED.search(raw) or (mine.values and _VALUED.search(raw))):
                continue  # neither side negates, and they cannot both lead a value
            theirs = reading(doc, fact)
            score = alike(mine, theirs)
            what = differ(mine, theirs) if score is not None else None
            if score is not None and what is not None:
                found.append(Conflict(new, _side(doc, fact), *what, round(score, 2)))
    return sorted(found, key=lambda c: (-c.similarity, c.other.id))


class _Held(NamedTuple):
    fact: Fact
    side: Side
    reading: Reading
    joined: frozenset[str]  # ``joined(fact)``


def _pair(one: _Held, two: _Held) -> Conflict | None:
    """The two facts' conflict, or None. Their sizes and what they differ on are asked first:
    most pairs of a memory differ much in size, or neither negate nor both lead a value, which
    ``_sized_alike`` and ``differ`` see at once."""
    if not _sized_alike(one.reading, two.reading):
        return None
    what = differ(one.reading, two.reading)
    if what is None:
        return None
    score = alike(one.reading, two.reading)
    if score is None or two.fact.id in one.joined or one.fact.id in two.joined:  # ``linked``
        return None
    return Conflict(one.side, two.side, *what, round(score, 2))


def _side(doc: Document, fact: Fact) -> Side:
    return Side(fact.id or "", doc.path, fact.line, fact.first_line)


def problems(docs: Sequence[Document]) -> list[Problem]:
    """lint's ``conflict`` advisory: one per contradicting pair, at the later fact."""
    return [
        Problem(
            c.one.path,
            c.one.line,
            "advisory",
            "conflict",
            f"{c.one.id} may contradict {c.other.id} ({c.other.path}:{c.other.line}): "
            f"{c.kind} {c.detail}; keep the true one (agent-memory fact supersede OLD NEW, or "
            "fact retract ID) or, when both hold, relate them (agent-memory fact relate)",
        )
        for c in conflicts(docs)
    ]
