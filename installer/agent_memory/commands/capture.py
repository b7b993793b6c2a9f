"""``agent-memory session capture``: write the session log from the agent's transcript.

The one file it may create is a new ``memory/sessions/<start>-<agent>-<session>.md``; an existing
log is never touched (the plan's ``before`` is "absent", which the applier re-checks under the
lock). With ``--hook`` the transcript's path comes from the JSON an agent's hook passes on stdin,
and another run's lock is waited for up to ``HOOK_WAIT`` seconds unless ``--wait`` says otherwise.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import IO, NamedTuple

from .. import resources
from ..core.agents import capture as capturing
from ..core.agents import proposals
from ..core.plan import FileEdit, Outcome, Plan
from ..errors import AgentMemoryError, InputError
from ..layout import CONTINUITY, SESSIONS_DIR
from ..parse import facts, hookinput, transcripts
from ..parse.facts import Document
from ..parse.transcripts import Item, Meta
from ..parse.untrusted import moment, one_line
from ..shell.git import file_before
from ..shell.load import load
from ..shell.repo import Repo
from ..shell.stream import hook_input, lines
from .report import Report, Result
from .settle import Options, not_enabled, settle

# Seconds a hook waits for another run's lock: Codex gives a session-end hook 3 s in all
# (it clamps any longer timeout), which must also cover start-up and the capture itself.
HOOK_WAIT = 1.5
_HEAD_MAX = 1000  # records read before the one that names the session, at most


class CaptureOptions(NamedTuple):
    transcript: Path | None
    agent: str | None = None
    hook: IO[str] | None = None  # stdin of a hook: JSON with "transcript_path"


def capture(repo: Repo, options: CaptureOptions) -> Result:
    transcript = options.transcript or _from_hook(options.hook)
    return _capture(repo, Path(repo.shown), transcript, options.agent)


def _from_hook(stdin: IO[str] | None) -> Path:
    """The transcript named by a hook's stdin payload (all three agents call it the same)."""
    if stdin is None or stdin.isatty():  # a person at a terminal: do not wait for input
        raise AgentMemoryError("pass --transcript FILE, or --hook with the hook's JSON on stdin")
    most, seconds = hookinput.PAYLOAD_MAX, hookinput.PAYLOAD_SECONDS
    return Path(hookinput.transcript_path(hook_input(stdin, hookinput.whole, most, seconds)))


def _capture(repo: Repo, path: Path, transcript: Path, agent: str | None) -> Result:
    memory = load(repo)
    if memory.continuity is None:
        raise not_enabled(repo)
    known = memory.known_ids
    shown = one_line(str(transcript))
    try:
        agent, items = transcripts.read(lines(transcript, transcripts.LINE_MAX), agent)
        head, meta = _until_session_id(items)
        if meta is None or not meta.session_id:
            raise transcripts.NotATranscript(
                "names no session id (ASCII letters, digits, '.', '_', ':' and '-')"
            )
        suffixes = capturing.log_suffixes(agent, meta.session_id)
        ours = [name for name in memory.logs if name.endswith(suffixes)]
        before = capturing.earlier(repo.read_each(SESSIONS_DIR, ours), meta.session_id)
        proposed = proposals.Gathered()
        seen = proposals.watching(_chain(head, items), before.last_line, proposed)
        session = capturing.collect(seen, known, before.last_line)
    except transcripts.NotATranscript as exc:
        raise InputError(shown, None, str(exc), "pass a transcript file") from None
    if session.last_line == 0:
        said = (
            f"already captured in {', '.join(before.logs)}"
            if before.logs
            else "the agent did nothing"
        )
        return _report(path, "unchanged", (f"nothing new to capture: {said}",), {})
    if session.start is None or moment(session.start) is None:
        raise InputError(shown, None, "holds no start time", "pass a transcript file")
    start_doc = _parsed(file_before(repo.root, session.start, CONTINUITY))
    found = capturing.changes(start_doc, memory.continuity, session.start, before.created)
    files = capturing.repo_paths(session.files, session.cwd, session.project_hash)
    name = capturing.log_name(agent, session, frozenset(memory.logs))
    log = capturing.render(agent, session, name, files, found, proposals.render(proposed))
    rel = f"{SESSIONS_DIR}/{name}"
    if repo.exists(rel):  # a log of that name not written from this transcript's lines
        raise AgentMemoryError("already exists and session logs are never overwritten", rel)
    plan = Plan.of([FileEdit(rel, None, log.text.encode(), Outcome.CREATED, "captured")])
    settled = settle(repo, [plan], Options(), "unchanged")
    redacted = sum(log.redacted.values())
    said = f"; {redacted} secrets redacted" if redacted else ""
    closing = (rel, f"captured {agent} session {meta.session_id}{said}")
    data = {"path": rel, "agent": agent, "redacted": dict(log.redacted)}
    return _report(path, settled.outcome, closing, data)


def _until_session_id(items: Iterator[Item]) -> tuple[list[Item], Meta | None]:
    """The items up to the first that names the session (the first line, in practice), held
    until then: at most ``_HEAD_MAX`` of them."""
    head: list[Item] = []
    for item in items:
        head.append(item)
        if isinstance(item, Meta) and item.session_id:
            return head, item
        if len(head) >= _HEAD_MAX:
            break
    return head, None


def _chain(head: list[Item], rest: Iterator[Item]) -> Iterator[Item]:
    yield from head
    yield from rest


def _parsed(data: bytes | None) -> Document | None:
    if data is None:
        return None
    try:
        return facts.parse(CONTINUITY, data)
    except AgentMemoryError:  # a broken old version: no start state, as without git
        return None


def _report(
    path: Path, outcome: str, closing: tuple[str, ...], data: Mapping[str, object]
) -> Result:
    report = Report("session capture", resources.version(), str(path), outcome, None, (), data)
    return Result(report._replace(closing=closing), 0)
