"""``agent-memory hook <event>``: what an agent's hook runs, with no shell around it.

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
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, Any

from .. import resources
from ..core.agents import prompt_recall
from ..errors import AgentMemoryError
from ..layout import CONTEXT_BYTES
from ..parse.hookinput import Payload
from ..shell.git import focus
from ..shell.load import Live, load_live
from ..shell.repo import Repo
from .context import context
from .due import not_due
from .hook_payload import read_payload, where
from .recall import indexes_for
from .report import Report, Result
from .runner import Call, Command, Journal, execute
from .settle import Options

# The work an event needs beyond what this module imports: each costs more to import than a
# session start may spend when it has nothing to do, so the command line hands it in.
Run = Callable[[Repo], Result]

_REVIEW = Command("review", Journal.WRITES)
_CONTEXT = Command("context", Journal.READS)
_RECALL = Command("recall", Journal.READS)
_EVENT = {"session-start": "SessionStart", "prompt": "UserPromptSubmit"}  # when none is named
_ANSWERED = {"session-start": ("SessionStart",), "prompt": ("UserPromptSubmit", "BeforeAgent")}


def session_start(stdin: IO[str] | None, review: Run) -> Result:
    """A review when one is due, then the context, as the JSON the agent adds to the session.
    A review that cannot run now (another run holds the lock) does not keep the context from
    the session: the context then says the review is due."""
    payload = read_payload(stdin)
    found = where(payload)
    # What the due check reads of the memory, the context reads again unless the review ran.
    kept: dict[Path, Live] = {}

    def read(repo: Repo) -> Live:
        return kept.get(repo.root) or kept.setdefault(repo.root, load_live(repo))

    def check(repo: Repo) -> Result | None:
        found = not_due(repo, read)
        if found is None:  # the review runs and may write
            kept.clear()
        return found

    with contextlib.suppress(AgentMemoryError):  # the context below then says "due"
        execute(_REVIEW, found, Call(review, Options(), check))
    shown = execute(_CONTEXT, found, Call(lambda repo: _context(repo, payload, read)))
    text = str(shown.report.summary["markdown"])
    data = {"focus": shown.report.summary["focus"]}
    return _answer("hook session-start", _event("session-start", payload), text, data)


def _context(repo: Repo, payload: Payload, read: Callable[[Repo], Live]) -> Result:
    """The context of what the session is about (HOOKS.md § Session start): the paths its
    branch and work tree changed (none changed, or no git: not known, and scoped facts are all
    shown) and its first prompt when the payload carries one, as ``context --task --paths``."""
    found = focus(repo.root, payload.prompt)
    task, paths = found.task or "", found.paths or None
    shown = context(repo, CONTEXT_BYTES, task=task, paths=paths, read=read)
    data = {**shown.report.summary, "focus": {"paths": list(found.paths), "task": found.task}}
    return shown._replace(report=shown.report._replace(summary=data))


def prompt(stdin: IO[str] | None) -> Result:
    """The facts that match the user's prompt and that the session-start context did not show,
    as the JSON the agent adds to this turn; nothing when none clears the floor."""
    payload = read_payload(stdin)
    if not payload.prompt:
        return _silent("hook prompt")
    query = payload.prompt

    def hits(repo: Repo) -> Result:
        def shown() -> str:
            # as the session start laid it out: with the paths git gives now (its first
            # prompt is not known here)
            paths = focus(repo.root, None).paths or None
            return str(context(repo, CONTEXT_BYTES, paths=paths).report.summary["markdown"])

        searched = " ".join(prompt_recall.terms(query))
        indexes = indexes_for(repo, searched, prompt_recall.FLOOR)
        found = prompt_recall.select(query, indexes, shown)
        data = {"hits": [hit.id for hit in found]}
        report = Report("recall", resources.version(), repo.shown, "ok", None, (), data)
        return Result(report._replace(heading=prompt_recall.lines(found)), 0)

    done = execute(_RECALL, where(payload), Call(hits))
    if not done.report.heading:
        return _silent("hook prompt")
    text = "\n".join(done.report.heading) + "\n"
    return _answer("hook prompt", _event("prompt", payload), text, done.report.summary)


def _event(name: str, payload: Payload) -> str:
    """The event the answer names: the one the payload named, when it is one this command
    answers (Gemini CLI calls the prompt event BeforeAgent), else the common name."""
    return payload.event if payload.event in _ANSWERED[name] else _EVENT[name]


def _answer(command: str, event: str, text: str, data: Mapping[str, Any]) -> Result:
    """The one line every agent reads from a hook that adds context: Claude Code, Codex and
    Gemini CLI all take ``hookSpecificOutput.additionalContext``."""
    answer = {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}
    shown = json.dumps(answer, ensure_ascii=False)
    report = Report(command, resources.version(), ".", "ok", None, (), data, (shown,))
    return Result(report, 0)


def _silent(command: str) -> Result:
    return Result(Report(command, resources.version(), ".", "nothing to add"), 0)
