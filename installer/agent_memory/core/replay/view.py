"""The start-of-session view as the replay asks it: which facts ``context`` would show, kept up to
date as tiers change instead of rendered anew for every log.

``context.render`` lays the facts out by group (core, open threads, active, working), in document
order within a group, and stops at the first fact that does not fit the budget. So a fact is
shown exactly when the bytes of everything laid out up to it (the group headings included) fit:
a prefix sum, kept up to date as facts move instead of a render of the whole view per log. A
test checks this against ``render``.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from itertools import accumulate

from ...parse.facts import Document, Fact
from ...parse.text import Text
from ...records import NamedTuple
from ..agents import context

SHOWN, CUT = "shown", "cut"


class Layout(NamedTuple):
    """What the view's size depends on besides the facts: the text around them."""

    head: int  # the title, the intro and the review line
    headings: tuple[int, ...]  # each group's heading
    max_bytes: int


def layout(max_bytes: int) -> Layout:
    """The bytes ``render`` spends around the facts (a view of a memory without facts is its
    head; the review line says "not due": the replay's memory was just reviewed)."""
    empty = Document("memory/continuity.md", Text(False, ()), (), (), ())
    head = _size(context.render(empty, (), 1 << 30))
    return Layout(head, tuple(_size(f"\n## {g}\n\n") for g in context.GROUPS), max_bytes)


_BLOCK = 6  # slots per block: 1 << _BLOCK


class Sums:
    """Prefix sums over a fixed number of slots kept in blocks of 64: an update changes two
    numbers, and a prefix sum adds two slices in C. The replay updates far more often than it
    asks, which a Fenwick tree (log(slots) both ways) would serve worse in Python."""

    def __init__(self, slots: int) -> None:
        self._cells = [0] * slots
        self._blocks = [0] * ((slots >> _BLOCK) + 1)

    def add(self, slot: int, amount: int) -> None:
        self._cells[slot] += amount
        self._blocks[slot >> _BLOCK] += amount

    def upto(self, slot: int) -> int:
        """The sum of the slots 0 to ``slot``."""
        block = slot >> _BLOCK
        return sum(self._blocks[:block]) + sum(self._cells[block << _BLOCK : slot + 1])

    def last_within(self, limit: int) -> tuple[int, int]:
        """The most slots from the first whose sum stays within ``limit``, and that sum."""
        sums = list(accumulate(self._blocks))
        block = bisect_right(sums, limit)
        total = sums[block - 1] if block else 0
        first = block << _BLOCK
        inside = list(accumulate(self._cells[first : first + (1 << _BLOCK)], initial=total))
        fitting = bisect_right(inside, limit) - 1  # slots of this block that fit
        return first + fitting, inside[fitting]


class BudgetView:
    """``context``'s view of the memory at one moment, by the facts' groups (``group_of``).

    Slot ``g * (n + 1)`` holds group g's heading (its bytes while the group has a fact), slot
    ``g * (n + 1) + 1 + k`` fact k's bytes while it is in group g.
    """

    def __init__(self, costs: Sequence[int], shape: Layout) -> None:
        self._costs, self._shape, self._width = tuple(costs), shape, len(costs) + 1
        slots = len(shape.headings) * self._width
        self._bytes, self._count = Sums(slots), Sums(slots)
        self._groups: list[int | None] = [None] * len(costs)
        self._sizes = [0] * len(shape.headings)
        self._size: int | None = None  # the view's bytes, while no fact moved

    def move(self, fact: int, group: int | None) -> None:
        """Fact ``fact`` is now in ``group`` (None: not in the view)."""
        old = self._groups[fact]
        cost = self._costs[fact]
        if old == group or (group is not None and not cost):
            return
        self._size = None
        width, headings, sizes = self._width, self._shape.headings, self._sizes
        for moved, sign in ((old, -1), (group, 1)):
            if moved is None:
                continue
            base = moved * width
            self._bytes.add(base + 1 + fact, sign * cost)
            self._count.add(base + 1 + fact, sign)
            sizes[moved] += sign
            if sizes[moved] == (1 if sign > 0 else 0):  # the group's first fact, or its last
                self._bytes.add(base, sign * headings[moved])
        self._groups[fact] = group

    def group(self, fact: int) -> int | None:
        return self._groups[fact]

    def outcome(self, fact: int) -> str:
        """SHOWN or CUT for a fact in the view."""
        group = self._groups[fact]
        assert group is not None
        within = self._bytes.upto(group * self._width + 1 + fact) <= self._budget()
        return SHOWN if within else CUT

    def size(self) -> int:
        """The bytes of the view ``render`` would print."""
        if self._size is None:
            self._size = self._measure()
        return self._size

    def _measure(self) -> int:
        total = sum(self._sizes)
        slots, _ = self._bytes.last_within(self._budget())
        shown = self._count.upto(slots - 1) if slots else 0
        # up to the last fact that fits: a heading that fits without its first fact is not shown
        fitted = self._bytes.upto(self._count.last_within(shown - 1)[0]) if shown else 0
        note = _cut_note(total - shown, total) if shown < total else 0
        return min(self._shape.head + fitted + note, self._shape.max_bytes)

    def _budget(self) -> int:
        total = sum(self._sizes)
        return self._shape.max_bytes - self._shape.head - _cut_note(total, total)


def cost(doc: Document, fact: Fact) -> int:
    """The bytes a fact takes in the view (0: it has no text to show)."""
    return _size(context.fact_text(doc, fact))


def _cut_note(hidden: int, total: int) -> int:
    return _size(context._cut_note(hidden, total))


def _size(text: str) -> int:
    return len(text.encode("utf-8"))
