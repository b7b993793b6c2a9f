"""``agent-memory context`` and the quick answer to ``review --if-due``: the session start.

Both run at every session start, so both read only what they need: continuity.md, the policy
and the session logs' names — never the archive, never a log's contents, and no lock (every
write the tool makes is an atomic rename, so an unlocked read sees a whole file).
"""

from __future__ import annotations

import json
from pathlib import Path

from .. import resources
from ..core import context as viewing
from ..core.triggers import due_reasons
from ..errors import AgentMemoryError
from ..layout import CONTINUITY
from ..shell.load import extras, load_live
from ..shell.repo import Repo
from .report import Report
from .settle import Result


def context(path: Path, max_bytes: int, hook: bool = False) -> Result:
    """With ``hook``, the view is wrapped as the JSON a SessionStart hook answers with (Claude
    Code, Codex and Gemini CLI all read ``hookSpecificOutput.additionalContext``)."""
    repo = Repo(path)
    repo.recover()
    live = load_live(repo)
    if live.continuity is None:
        raise AgentMemoryError("not found; run agent-memory enable first", CONTINUITY)
    due = due_reasons(live.continuity, live.logs, live.policy)
    text = viewing.render(live.continuity, due, max_bytes, extras(repo))
    outcome = "due" if due else "ok"
    summary = {"due": due, "markdown": text}
    report = Report("context", resources.version(), str(path), outcome, None, (), summary)
    shown = text.rstrip("\n")
    if hook:
        answer = {"hookEventName": "SessionStart", "additionalContext": text}
        shown = json.dumps({"hookSpecificOutput": answer}, ensure_ascii=False)
    return Result(report._replace(heading=(shown,)), 0)


def not_due(path: Path) -> bool:
    """True when ``review --if-due`` would do nothing: no review due and nothing to report.

    False whenever the full command has something to say (due, a policy error, no memory, a
    path that is not a repo), so it runs and says it; a test checks both agree.
    """
    try:
        repo = Repo(path)
        repo.recover()
        live = load_live(repo)
    except AgentMemoryError:
        return False
    if live.continuity is None or any(p.severity == "error" for p in live.policy_problems):
        return False
    return not due_reasons(live.continuity, live.logs, live.policy)
