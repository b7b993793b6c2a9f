"""``agent-memory context``: what an agent reads at session start.

It runs at every session start, so it reads only what it needs: continuity.md, the policy, the
one-file threads, vision.md and the session logs' names. No lock: every write the tool makes is
an atomic rename, so an unlocked read sees a whole file.
"""

from __future__ import annotations

from collections.abc import Sequence

from .. import resources
from ..core.agents import context as viewing
from ..core.review.triggers import due_reasons
from ..shell.cited import stale_marks
from ..shell.load import extras, load_live
from ..shell.repo import Repo
from .report import Report, Result
from .settle import not_enabled


def context(
    repo: Repo,
    max_bytes: int,
    hook: bool = False,
    task: str = "",
    paths: Sequence[str] | None = None,
) -> Result:
    """With ``hook``, the view is wrapped as the JSON a SessionStart hook answers with (Claude
    Code, Codex and Gemini CLI all read ``hookSpecificOutput.additionalContext``). ``task`` and
    ``paths`` (None: not known) rank the facts (HOOKS.md § Session start)."""
    live = load_live(repo)
    if live.continuity is None:
        raise not_enabled(repo)
    due = due_reasons(live.continuity, live.sessions, live.policy)
    found = extras(repo)
    marks = stale_marks(repo, (live.continuity, *found))
    docs = (live.continuity, *found)
    text = viewing.render(docs, task, paths, max_bytes, due, marks)
    outcome = "due" if due else "ok"
    summary = {"due": due, "markdown": text}
    report = Report("context", resources.version(), repo.shown, outcome, None, (), summary)
    shown = text.rstrip("\n")
    if hook:
        import json  # 3 ms to import, paid only by the hook's call

        answer = {"hookEventName": "SessionStart", "additionalContext": text}
        shown = json.dumps({"hookSpecificOutput": answer}, ensure_ascii=False)
    return Result(report._replace(heading=(shown,)), 0)
