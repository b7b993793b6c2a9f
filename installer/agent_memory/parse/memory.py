"""The memory of a repo as read: continuity.md, the archive, the policy, the log names; and the
ids its facts hold."""

from collections.abc import Iterable
from typing import NamedTuple

from ..errors import Problem
from .facts import Document
from .lognames import LogNames
from .policy import Policy


class Memory(NamedTuple):
    continuity: Document | None
    archives: tuple[Document, ...]
    archive_index: bytes | None
    policy: Policy
    policy_problems: tuple[Problem, ...]
    sessions: LogNames  # the names in memory/sessions/
    threads: tuple[Document, ...] = ()  # memory/open-threads/*.md, in file-name order
    vision: Document | None = None  # memory/vision.md
    personal: Document | None = None  # memory/personal.md: never in ``documents`` (no review)

    @property
    def logs(self) -> tuple[str, ...]:
        """The correctly named session logs, sorted (= chronological)."""
        return self.sessions.logs

    @property
    def documents(self) -> tuple[Document, ...]:
        """Every document that holds facts: continuity.md, the threads, vision.md, the archive."""
        docs = [self.continuity] if self.continuity is not None else []
        docs.extend(self.threads)
        if self.vision is not None:
            docs.append(self.vision)
        return (*docs, *self.archives)

    @property
    def curated(self) -> tuple[Document, ...]:
        """``documents`` and the personal file: what a curation command finds a fact in."""
        return (*self.documents, *((self.personal,) if self.personal is not None else ()))

    @property
    def known_ids(self) -> frozenset[str]:
        """The ids of every fact of the repo's memory (``known_ids`` of ``documents``)."""
        return known_ids(self.documents)

    @property
    def problems(self) -> tuple[Problem, ...]:
        found = list(self.policy_problems)
        for doc in self.documents:
            found.extend(doc.problems)
        return tuple(found)


def known_ids(docs: Iterable[Document]) -> frozenset[str]:
    """The ids the facts of ``docs`` hold: the one definition of "an id that exists", which the
    review, explain, lint, capture and the MCP server's references all ask."""
    return frozenset(fact.id for doc in docs for fact in doc.facts if fact.id is not None)


def id_places(docs: Iterable[Document]) -> dict[str, str]:
    """Each id the facts of ``docs`` hold, with the ``path:line`` of the first fact holding it
    (where a refusal of a taken id points)."""
    places: dict[str, str] = {}
    for doc in docs:
        for fact in doc.facts:
            if fact.id is not None:
                places.setdefault(fact.id, f"{doc.path}:{fact.line}")
    return places
