"""Reading what session logs reference, for the commands that need more than their names.

Apart from ``load`` so that commands which never read a log (``fact add``) do not pay for
compiling the log reader's expressions at start-up.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..core.review.triggers import unread_logs
from ..layout import SESSIONS_DIR
from ..parse.continuity import last_review
from ..parse.facts import Document
from ..parse.lognames import LogNames
from ..parse.sessions import SessionRefs, read_refs
from .repo import Repo


def unread(continuity: Document | None, names: LogNames) -> tuple[str, ...]:
    """The logs after the last review's mark (every log before a first review)."""
    return () if continuity is None else unread_logs(last_review(continuity), names)


def references(repo: Repo, names: Iterable[str]) -> Mapping[str, SessionRefs]:
    """What the session logs ``names`` reference, read one at a time."""
    return {name: read_refs(data) for name, data in repo.read_each(SESSIONS_DIR, names)}
