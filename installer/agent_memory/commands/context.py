"""``agent-memory context`` and the quick answer to ``review --if-due``: the session start.

Both run at every session start, so both read only what they need: continuity.md, the policy
and the session logs' names; the quick answer also reads the logs the last review did not read
(fewer than ``review_every``) and, only if they name an id continuity.md does not hold, the
archive files holding it. No lock: every write the tool makes is an atomic rename, so an
unlocked read sees a whole file.
"""

from __future__ import annotations

from pathlib import Path

from .. import resources
from ..core import context as viewing
from ..core.plan import Plan
from ..core.triggers import due_reasons
from ..errors import AgentMemoryError
from ..layout import CONTINUITY, MANIFEST
from ..parse.manifest import written_by_us
from ..shell.load import extras, load_live
from ..shell.logs import references, unread
from ..shell.repo import Repo
from .due import reactivations
from .report import Report, Result


def context(path: Path, max_bytes: int, hook: bool = False) -> Result:
    """With ``hook``, the view is wrapped as the JSON a SessionStart hook answers with (Claude
    Code, Codex and Gemini CLI all read ``hookSpecificOutput.additionalContext``)."""
    repo = Repo(path)
    repo.refuse_if_interrupted()
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
        import json  # 3 ms to import, paid only by the hook's call

        answer = {"hookEventName": "SessionStart", "additionalContext": text}
        shown = json.dumps({"hookSpecificOutput": answer}, ensure_ascii=False)
    return Result(report._replace(heading=(shown,)), 0)


def not_due(path: Path) -> Result | None:
    """The result of ``review --if-due`` when no review is due, read the session-start way;
    None whenever the full command has something to say or do (due, a pending reactivation, a
    policy error, no memory, a hand-run stamp to adopt, a journal, a path that is not a repo),
    so that it runs and says it. A test checks both agree."""
    try:
        repo = Repo(path)
        repo.refuse_if_interrupted()
        live = load_live(repo)
        stamp = repo.read(MANIFEST)
    except AgentMemoryError:
        return None
    if live.continuity is None or any(p.severity == "error" for p in live.policy_problems):
        return None
    if stamp is not None and not written_by_us(stamp):
        return None
    if due_reasons(live.continuity, live.logs, live.policy):
        return None
    refs = references(repo, unread(live.continuity, live.logs))
    if reactivations(repo, live.continuity, refs.values()):
        return None
    report = Report("review", resources.version(), str(path), "not due", Plan(()), (), {"due": []})
    return Result(report, 0)
