"""What the replay reads of a session-start view, without writing the view.

``context.view`` lays out the memory as Markdown; the replay reads only where each fact fell (in
full, by its one line, counted but not named) and how many bytes the view took, for every log.
``Sight`` answers that from sizes: a fact's text is today's for the whole replay, so its sizes
and its words are worked out once, and the view's totals and the BM25 statistics follow the
facts as they come and go. When all of the memory fits in full, the order does not matter and
nothing is ranked. A property test holds both ways to ``context.view``'s own answers.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import NamedTuple

from ...parse.facts import Document, Fact
from ...parse.footer import TIERS
from ..agents import context, recall
from ..agents.context import GROUPS, INDEX
from ..agents.relevance import CLOSED, FACTS, group_of

SHOWN, NAMED, CUT = "shown", "named", "cut"  # in full, by its one line, counted but not named
_RANK = {tier: i for i, tier in enumerate(TIERS)}
_AROUND = "`*_[](){}<>\"',.;:!?"  # what may stand around an id a task names (relevance's)
_SATURATION = recall.K1 + 1


class _Static(NamedTuple):
    """What the view reads of a fact that the replay never changes: its lines are today's."""

    full: int  # bytes in full
    lines: tuple[int, ...]  # bytes of its one line at each of the view's first-line lengths


class Sight:
    """The view's answers for a memory that changes one fact at a time: ``show`` puts a fact in
    the memory files (or changes its footer), ``hide`` takes it out, ``look`` answers for a
    task."""

    def __init__(
        self, documents: Sequence[Document], facts: Sequence[tuple[int, Fact]], max_bytes: int
    ) -> None:
        """``facts``: each fact the replay follows, as (its document in ``documents``, the fact
        as the view is handed it) in the documents' order."""
        self.documents, self.facts, self.max_bytes = documents, facts, max_bytes
        self.static: list[_Static | None] = [None] * len(facts)
        self.terms: list[Counter[str] | None] = [None] * len(facts)
        self.fields: list[Mapping[str, str] | None] = [None] * len(facts)  # None: never held
        self.held = [False] * len(facts)
        self.parted: list[int | None] = [None] * len(facts)  # its group when it left the view
        self.task: list[str | None] = [fact.task for _, fact in facts]
        self.tier: list[str | None] = [None] * len(facts)
        self.group: list[int | None] = [None] * len(facts)
        self.entries: set[int] = set()  # the facts held that the view offers
        # each fact's key less its binding rank and the task's parts (``relevance.rank``)
        self.order: list[tuple[object, ...] | None] = [None] * len(facts)
        self.sequence: list[int] = []  # the entries in that order, as last ranked
        self.by_id: dict[str, list[int]] = {}
        for k, (_, fact) in enumerate(facts):
            if fact.id is not None:
                self.by_id.setdefault(fact.id, []).append(k)
        # each fact's key in relevance's scores (its file and id; None: no id, never scored)
        self.keyed = [(number, fact.id) if fact.id is not None else None for number, fact in facts]
        self.counts = [0] * len(GROUPS)  # entries per group, and their bytes in full
        self.sizes = [0] * len(GROUPS)
        self.least = 0  # the entries' bytes as ids alone
        self.empty = 0  # entries with no text (never shown in full)
        # BM25 over the facts held: the postings are brought up to date when a task is ranked
        self.postings: dict[str, dict[int, int]] = {}
        self.indexed: set[int] = set()
        self.lengths = [0] * len(facts)  # words of each fact indexed
        self.words = 0  # of them all
        self.changed: set[int] = set()
        # each term's shares of the scores (``_part``), while no fact comes or goes
        self.parts: dict[tuple[str, int], list[tuple[int, float]]] = {}
        head = context.review_section(())
        self.head = _size(context._INTRO + "\n" + head)
        titles = (*GROUPS.values(), INDEX)
        self.headings = [_size(context._heading(title)) for title in titles]
        self.fixed = self.head + sum(self.headings)
        self.budgets: dict[int, int] = {}

    def show(self, k: int, tier: str | None, task: str | None, fields: Mapping[str, str]) -> None:
        """Fact ``k`` is in the memory files with ``tier``, ``task`` and footer ``fields``."""
        fact = self.facts[k][1]
        if not self.held[k]:
            self.changed.add(k)
            self.held[k] = True
        self.fields[k], self.task[k], self.tier[k] = fields, task, tier
        self.order[k] = None
        group = group_of(fact if task == fact.task else fact._replace(task=task), tier)
        if group != self.group[k]:
            self._leave(k)
            if group is not None:
                self._enter(k, group)

    def _enter(self, k: int, group: int) -> None:
        static = self.static[k] or self._static(k)
        self.group[k] = group
        self.entries.add(k)
        self.counts[group] += 1
        self.sizes[group] += static.full
        self.least += static.lines[-1]
        self.empty += not static.full

    def hide(self, k: int) -> None:
        """Fact ``k`` is out of the memory files."""
        group = self.group[k]
        if group is not None:
            self.parted[k] = group
            self._leave(k)
        if self.held[k]:
            self.held[k] = False
            self.changed.add(k)

    def back(self, k: int) -> str | None:
        """Fact ``k``, out of the memory files, is back in them in the part of the view it left
        (the same while its box and a person's pin are); its tier then (None: it never was in
        the view). Its tier and footer are the old ones until ``show`` says them again."""
        group = self.parted[k]
        if group is None or self.held[k]:
            return None
        self.held[k] = True
        self.changed.add(k)
        self.order[k] = None
        self._enter(k, group)
        return self.tier[k]

    def _leave(self, k: int) -> None:
        group = self.group[k]
        if group is not None:
            static = self.static[k] or self._static(k)
            self.counts[group] -= 1
            self.sizes[group] -= static.full
            self.least -= static.lines[-1]
            self.empty -= not static.full
            self.group[k] = None
            self.entries.discard(k)

    def _static(self, k: int) -> _Static:
        found = self.static[k]
        if found is None:
            number, fact = self.facts[k]
            text = context.fact_text(self.documents[number], fact)
            entry = context._Entry((), 0, fact.id, text, "", fact.first_line)
            lines = tuple(_size(context._one_line(entry, n)) for n in context._FIRST_LINE)
            found = self.static[k] = _Static(_size(text), lines)
        return found

    def _budget(self, total: int) -> int:
        """``context.view``'s budget for ``total`` facts."""
        found = self.budgets.get(total)
        if found is None:
            notes = _size(context._notes(total, total, 0))
            found = self.budgets[total] = self.max_bytes - self.fixed - notes
        return found

    def look(
        self, task: str, wanted: Collection[str], ready: Callable[[], object]
    ) -> tuple[dict[str, str], int]:
        """Where each of the ``wanted`` ids falls in the view for ``task`` (an id the view leaves
        out: absent), and the view's bytes. ``ready()`` brings every fact's tier and footer up
        to date before they are read: only when the view ranks."""
        ready()  # the view itself: its rules are context's alone (issue "One layout")
        seen = context.view(self.memory(), task, None, self.max_bytes)
        status: dict[str, str] = {}
        for ids, outcome in ((seen.cut, CUT), (seen.named, NAMED), (seen.full, SHOWN)):
            status.update((i, outcome) for i in ids)
        return {i: status[i] for i in wanted if i in status}, _size(seen.text)

    def _ranked(self, task: str) -> list[tuple[tuple[object, ...], int]]:
        """The facts of the view in relevance's order (``relevance.rank``), with their keys: the
        parts that depend on the task, then the fact's place by the rest (``_sequence``), which
        two sorts then compare as numbers."""
        scores = self._scores(task) if task.strip() else {}
        named = frozenset(word.strip(_AROUND) for word in task.lower().split())
        keys: list[tuple[tuple[object, ...], int]] = []
        bands = {0.0: 1 << 30}  # facts of one length and the same words score the same
        group, keyed, facts = self.group, self.keyed, self.facts
        for place, k in enumerate(self._sequence()):
            score = scores.get(keyed[k], 0.0)  # (no key None is scored)
            near = bands.get(score)
            if near is None:
                near = bands[score] = -recall.band(score)
            binding = (group[k] or 0) < FACTS
            keys.append(((not binding, facts[k][1].id not in named, near, place), k))
        keys.sort()  # in place order already, save where the task moves a fact
        return keys

    def _sequence(self) -> list[int]:
        """The facts of the view by the parts of their keys that do not depend on the task,
        sorted from the last ranking's order: between two logs only a few facts move."""
        group = self.group
        found = [k for k in self.sequence if group[k] is not None]
        if len(found) < len(self.entries):
            known = set(found)
            found += [k for k in self.entries if k not in known]
        order = self.order
        keys = {k: order[k] or self._order(k) for k in found}
        found.sort(key=keys.__getitem__)
        self.sequence = found
        return found

    def _order(self, k: int) -> tuple[object, ...]:
        """The parts of fact ``k``'s key that do not depend on the task, kept (``order``)."""
        group, fields, tier = self.group[k] or 0, self.fields[k] or {}, self.tier[k]
        when, uses = recall.recency(fields)
        rank = _RANK.get(tier or "working", len(_RANK))
        fact_id = self.facts[k][1].id or ""
        found = self.order[k] = (group == CLOSED, -when, -uses, rank, fact_id, k)
        return found

    def _scores(self, task: str) -> dict[tuple[int, str | None] | None, float]:
        """``relevance``'s BM25 scores for ``task`` over the facts held (``recall.scores``, the
        same sums in the same order)."""
        self._index()
        total = len(self.indexed)
        weights: dict[str, int] = {}
        for term in recall.words(task):
            weights[term] = weights.get(term, 0) + 1
        if not total:
            return {}
        found: dict[int, float] = {}
        for term, weight in weights.items():
            part = self.parts.get((term, weight))
            if part is None:
                part = self.parts[term, weight] = self._part(term, weight, total)
            if not found:  # the first term's shares are the sums so far (0.0 + a share is it)
                found = dict(part)
                continue
            get = found.get
            for k, share in part:
                found[k] = get(k, 0.0) + share
        # keyed as relevance keys them: two facts of one file with one id share the later score
        keyed = self.keyed
        return {keyed[k]: score for k, score in sorted(found.items()) if score > 0}

    def _part(self, term: str, weight: int, total: int) -> list[tuple[int, float]]:
        """Each fact's share of its score from ``term``, found ``weight`` times in a task."""
        postings = self.postings.get(term)
        if not postings:
            return []
        average = self.words / total
        frequency = len(postings)
        idf = weight * math.log(1 + (total - frequency + 0.5) / (frequency + 0.5))
        shares = []
        for k, tf in postings.items():
            norm = recall.K1 * (1 - recall.B + recall.B * self.lengths[k] / average)
            shares.append((k, idf * tf * _SATURATION / (tf + norm)))
        return shares

    def _index(self) -> None:
        """The postings of the facts held, brought up to date with the facts that changed."""
        for k in sorted(self.changed):
            held = self.held[k] and self.facts[k][1].id is not None
            if held == (k in self.indexed):
                continue
            self.parts.clear()
            terms = self._terms(k)
            self.lengths[k] = length = sum(terms.values())
            if held:
                self.indexed.add(k)
                self.words += length
                for term, tf in terms.items():
                    self.postings.setdefault(term, {})[k] = tf
            else:
                self.indexed.discard(k)
                self.words -= length
                for term in terms:
                    del self.postings[term][k]
        self.changed.clear()

    def _terms(self, k: int) -> Counter[str]:
        found = self.terms[k]
        if found is None:
            number, fact = self.facts[k]
            lines = self.documents[number].text.lines
            found = self.terms[k] = Counter(recall.terms(lines, fact, fact.section))
        return found

    def memory(self) -> list[Document]:
        """The memory files as the view is handed them (what ``look`` answers for)."""
        held: dict[int, list[Fact]] = {}
        for k, (number, fact) in enumerate(self.facts):
            fields, tier = self.fields[k], self.tier[k]
            if fields is not None and self.held[k]:
                footer = {**fields, "tier": tier} if tier is not None else fields
                shown = fact._replace(fields=tuple(footer.items()), task=self.task[k])
                held.setdefault(number, []).append(shown)
        return [self.documents[n]._replace(facts=tuple(held[n])) for n in sorted(held)]


def _one_lines(rest: Sequence[_Static], room: int) -> tuple[list[int], int]:
    """``context._one_lines`` on sizes: the one lines at the longest first line that fits."""
    lines: list[int] = []
    for length in range(len(context._FIRST_LINE)):
        lines, total = [], 0
        for static in rest:
            total += static.lines[length]
            if total > room:
                break
            lines.append(static.lines[length])
        else:
            break
    return lines, len(lines)


def _size(text: str) -> int:
    return len(text.encode("utf-8"))
