"""The memory of a repo as read: continuity.md, the archive, the policy, the log names."""

from __future__ import annotations

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
    def problems(self) -> tuple[Problem, ...]:
        found = list(self.policy_problems)
        for doc in self.documents:
            found.extend(doc.problems)
        return tuple(found)
