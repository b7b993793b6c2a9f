"""The memory of a repo as read: continuity.md, the archive, the policy, the log names."""

from __future__ import annotations

from typing import NamedTuple

from ..errors import Problem
from .facts import Document
from .policy import Policy


class Memory(NamedTuple):
    continuity: Document | None
    archives: tuple[Document, ...]
    archive_index: bytes | None
    policy: Policy
    policy_problems: tuple[Problem, ...]
    logs: tuple[str, ...]  # correctly named session logs, sorted (= chronological)
    stray_logs: tuple[str, ...]  # other names in memory/sessions/

    @property
    def problems(self) -> tuple[Problem, ...]:
        found = list(self.policy_problems)
        if self.continuity is not None:
            found.extend(self.continuity.problems)
        for doc in self.archives:
            found.extend(doc.problems)
        return tuple(found)
