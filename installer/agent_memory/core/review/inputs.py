"""What a review reads: the memory, what the logs it reads reference, the policy and the date."""

import datetime as dt
from collections.abc import Mapping
from typing import NamedTuple

from ...parse.facts import Document
from ...parse.policy import Policy
from ...parse.sessions import SessionRefs


class Inputs(NamedTuple):
    continuity: Document
    archives: tuple[Document, ...]
    archive_index: bytes | None
    index_template: bytes
    policy: Policy
    logs: tuple[str, ...]  # every correctly named log, sorted
    refs: Mapping[str, SessionRefs]  # of the logs read: the window, or all
    full: bool
    today: dt.date
    threads: tuple[Document, ...] = ()  # memory/open-threads/*.md
    vision: Document | None = None

    @property
    def documents(self) -> tuple[Document, ...]:
        """Every file that holds facts, in the order ids are first claimed."""
        vision = (self.vision,) if self.vision is not None else ()
        return (self.continuity, *self.threads, *vision, *self.archives)

    reason: str = ""  # why the review reads every log though not asked to (core/review/window.py)
