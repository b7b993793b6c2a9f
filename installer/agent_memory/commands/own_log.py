"""One session, one log (DESIGN §19): whether a session's own log may still be rewritten.

Capture and the MCP server's references share this one rule. A session's log is the session's
to rewrite until a review reads it (it sorts at or before the review's ``through`` mark) or git
records it (committed, or staged for the next commit: check-logs holds a committed log to its
bytes); from then on it is history, and the session goes on in a new log. So however often an
agent fires its hooks, a session gives one log until something has read it.
"""

from __future__ import annotations

from ..core.review.triggers import window
from ..layout import SESSIONS_DIR
from ..parse.continuity import cursor, last_review
from ..parse.memory import Memory
from ..shell.git import recorded
from ..shell.repo import Repo


def still_open(repo: Repo, memory: Memory, name: str) -> bool:
    """Whether the log ``name`` (a file name in memory/sessions/) exists, no review has read it,
    and git does not hold it."""
    if memory.continuity is None:
        return False
    if name not in window(memory.logs, cursor(last_review(memory.continuity), memory.logs)):
        return False
    return not recorded(repo.root, f"{SESSIONS_DIR}/{name}")
