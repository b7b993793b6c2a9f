"""The memory files as they stood before each log, and ``context``'s own view of them.

The replay changes the memory one fact at a time (``show``, ``hide``): a fact's footer
and tier as a review just before the log would have written them, its lines today's. What a
session start showed is what ``context.view`` lays out for those files (DESIGN §25: one layout),
so nothing here knows how a view is laid out. Between two logs only a few facts change: with
no task, the ``context.Entries`` kept here are told those facts and laid out again; with a task,
only their documents are made again and ranked. A view is asked again only when the memory or
the task changed since the last one (a view is a pure function of them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ...parse.facts import Document, Fact
from ..agents import context
from ..agents.context import View


class States:
    """The memory files as the view is handed them, one fact changed at a time."""

    def __init__(self, documents: Sequence[Document], facts: Sequence[tuple[int, Fact]]) -> None:
        """``facts``: each fact the replay follows, as (its document in ``documents``, the fact
        as the view is handed it, its section the one the rules see) in the documents'
        order."""
        self.documents, self.facts = documents, facts
        self.held: list[Fact | None] = [None] * len(facts)  # None: out of the memory files
        self.members: dict[int, list[int]] = {}  # each document's facts, in order
        for k, (number, _) in enumerate(facts):
            self.members.setdefault(number, []).append(k)
        self.built: dict[int, Document] = {}  # the documents that hold a fact
        # the view's entries with no task and no paths known, and the facts changed since
        # they were last laid out (a view with a task ranks the memory again)
        self.entries = context.Entries([doc._replace(facts=()) for doc in documents])
        self.pending: dict[int, Fact | None] = {}
        self.changed: set[int] = set(self.members)  # documents to make again
        self.docs: tuple[Document, ...] = ()
        self.version = 0  # counts the changes, for the views kept
        self.kept: tuple[tuple[object, ...], tuple[View, ...]] | None = None  # the last

    def show(self, k: int, tier: str | None, task: str | None, fields: Mapping[str, str]) -> None:
        """Fact ``k`` is in the memory files with ``tier``, ``task`` and footer ``fields``."""
        footer = {**fields, "tier": tier} if tier is not None else fields
        self._hold(k, self.facts[k][1]._replace(fields=tuple(footer.items()), task=task))

    def hide(self, k: int) -> None:
        """Fact ``k`` is out of the memory files."""
        self._hold(k, None)

    def _hold(self, k: int, fact: Fact | None) -> None:
        if fact == self.held[k]:
            return
        self.held[k] = fact
        self.changed.add(self.facts[k][0])
        self.pending[k] = fact
        self.version += 1

    def memory(self) -> tuple[Document, ...]:
        """The memory files as they stand: each document that holds a fact, in order."""
        if self.changed:
            for number in self.changed:
                held = [f for k in self.members.get(number, ()) if (f := self.held[k]) is not None]
                if held:
                    self.built[number] = self.documents[number]._replace(facts=tuple(held))
                else:
                    self.built.pop(number, None)
            self.changed.clear()
            self.docs = tuple(self.built[n] for n in sorted(self.built))
        return self.docs

    def seen(
        self, task: str, budgets: Sequence[int], recent: Sequence[frozenset[str]] = ()
    ) -> tuple[View, ...]:
        """``context``'s view of the memory as it stands, for ``task`` (no paths known, no
        review due, no citation marks) within each of ``budgets``, ``recent`` the ids the
        latest logs used (newest first)."""
        wanted = (self.version, task, tuple(budgets), tuple(recent))
        if self.kept is not None and self.kept[0] == wanted:
            return self.kept[1]
        if task.split():  # its scores weigh every fact: the memory is ranked again
            views = context.Entries(self.memory(), task, recent=recent).views(budgets)
        else:
            self.entries.reweigh(recent)
            for k, fact in self.pending.items():
                self.entries.put(self.facts[k][0], k, fact)
            self.pending.clear()
            views = self.entries.views(budgets)
        self.kept = (wanted, views)
        return views
