"""``agent-memory hook session-start`` (and, in ``hook_payload`` and ``hook_prompt``, the
other events): what an agent's hook runs, with no shell around it.

Each reads the hook's JSON on stdin, finds the repo from its ``cwd`` (a session started in a
subdirectory finds it above, as git finds its own), does the event's work through the runner,
and prints exactly what the agent reads: on stdout the JSON of an event whose answer the agent
adds to the session, nothing at all otherwise — and nothing on stderr unless it fails (Gemini CLI
shows a hook's stderr as a message to the user when stdout is empty). A failure is one line on
stderr and exit 1, which every agent reports and goes past (exit 2 would block the prompt).
HOOKS.md § Hooks per agent.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import IO

from ..core.agents.context import TITLE
from ..errors import AgentMemoryError
from ..layout import CONTEXT_BYTES
from ..parse import hookcontext
from ..parse.hookinput import Payload
from ..shell.discovery import below
from ..shell.focus import Asked, ask, drop, focus
from ..shell.load import Live, load_live
from ..shell.repo import Repo
from .context import context
from .due import not_due, nothing_due
from .hook_payload import (
    HOOK_WAIT,
    answer,
    event_of,
    read_payload,
    silent,
    transcript_end,
    where,
)
from .report import Result
from .runner import Call, Command, Journal, execute
from .settle import Options

# The work an event needs beyond what this module imports: each costs more to import than a
# session start may spend when it has nothing to do, so the command line hands it in.
Run = Callable[[Repo], Result]

_REVIEW = Command("review", Journal.WRITES)
_CONTEXT = Command("context", Journal.READS)


def session_start(stdin: IO[str] | None, review: Run) -> Result:
    """A review when one is due, then the context, as the JSON the agent adds to the session.
    A review that cannot run now (another run holds the lock) does not keep the context from
    the session: the context then says the review is due. A resumed session whose agent still
    holds a context of ours goes on with it, as a session that was never left does: nothing is
    added."""
    payload = read_payload(stdin)
    found = where(payload)
    # What the due check reads of the memory, the context reads again unless the review ran.
    kept: dict[Path, Live] = {}
    # git's questions, started before the memory is read: git answers meanwhile.
    asked: dict[Path, Asked] = {}

    def read(repo: Repo) -> Live:
        return kept.get(repo.root) or kept.setdefault(repo.root, load_live(repo))

    def check(repo: Repo) -> Result | None:
        asked.setdefault(repo.root, ask(repo.root))
        if read(repo).policy.agent_writes != "direct":  # the review gate: a person reviews
            return nothing_due(repo)
        found = not_due(repo, read)
        if found is None:  # the review runs and may write
            kept.clear()
        return found

    def shown_for(repo: Repo) -> Result:
        return _context(repo, payload, read, asked.pop(repo.root, None))

    try:
        with contextlib.suppress(AgentMemoryError):  # the context below then says "due"
            execute(_REVIEW, found, Call(review, Options(), check))
        if payload.source == "resume" and hookcontext.held(transcript_end(payload), TITLE):
            return silent("hook session-start")  # it goes on with the view it holds
        shown = execute(_CONTEXT, found, Call(shown_for, Options(wait=HOOK_WAIT)))
    finally:
        for question in asked.values():  # not answered: no context, or it failed before
            drop(question)
    text = str(shown.report.summary["markdown"])
    data = {"focus": shown.report.summary["focus"]}
    return answer("hook session-start", event_of("session-start", payload), text, data)


def _context(
    repo: Repo, payload: Payload, read: Callable[[Repo], Live], asked: Asked | None
) -> Result:
    """The context of what the session is about (HOOKS.md § Session start): the paths its
    branch and work tree changed (none changed, or no git: not known, and scoped facts are all
    shown) and its first prompt when the payload carries one, as ``context --task --paths``."""
    found = focus(repo.root, payload.prompt, asked)
    here = below(repo.root, where(payload) or Path.cwd())  # the folder it started in: touched
    touched = (*found.paths, here) if here else found.paths
    task, paths = found.task or "", touched or None
    shown = context(repo, CONTEXT_BYTES, task=task, paths=paths, read=read)
    data = {**shown.report.summary, "focus": {"paths": list(touched), "task": found.task}}
    return shown._replace(report=shown.report._replace(summary=data))
