"""``agent-memory session capture``: write the session log from the agent's transcript.

The one file it may create is a new ``memory/sessions/<start>-<agent>-<session>.md``; an existing
log is never touched (the plan's ``before`` is "absent", which the applier re-checks under the
lock). With ``--hook`` the transcript's path comes from the JSON an agent's hook passes on stdin.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import IO, NamedTuple

from .. import resources
from ..core.agents import capture as capturing
from ..core.plan import FileEdit, Outcome, Plan
from ..errors import AgentMemoryError, InputError
from ..layout import CONTINUITY, SESSIONS_DIR
from ..parse import facts, transcripts
from ..parse.facts import Document
from ..parse.transcripts import Item, Meta
from ..shell.git import file_before
from ..shell.load import load
from ..shell.repo import Repo
from ..shell.stream import lines
from .report import Report, Result
from .settle import Options, settle


class CaptureOptions(NamedTuple):
    transcript: Path | None
    agent: str | None = None
    hook: IO[str] | None = None  # stdin of a hook: JSON with "transcript_path"


def capture(path: Path, options: CaptureOptions) -> Result:
    transcript = options.transcript or _from_hook(options.hook)
    repo = Repo(path)
    with repo.locked():
        return _capture(repo, path, transcript, options.agent)


def _from_hook(stdin: IO[str] | None) -> Path:
    """The transcript named by a hook's stdin payload (all three agents call it the same)."""
    if stdin is None or stdin.isatty():  # a person at a terminal: do not wait for input
        raise AgentMemoryError("pass --transcript FILE, or --hook with the hook's JSON on stdin")
    try:
        payload = json.loads(stdin.read(1 << 20) or "null")
    except ValueError:
        payload = None
    where = payload.get("transcript_path") if isinstance(payload, dict) else None
    if not isinstance(where, str) or not where:
        raise InputError(
            "<stdin>", None, "the hook's JSON names no transcript_path",
            "run from an agent's hook, or pass --transcript FILE",
        )  # fmt: skip
    return Path(where)


def _capture(repo: Repo, path: Path, transcript: Path, agent: str | None) -> Result:
    memory = load(repo)
    if memory.continuity is None:
        raise AgentMemoryError("not found; run agent-memory enable first", CONTINUITY)
    known = memory.known_ids
    try:
        agent, items = transcripts.read(lines(transcript), agent)
        head, meta = _until_session_id(items)
        if meta is None or not meta.session_id:
            raise transcripts.NotATranscript("names no session id")
        slug = capturing.slug(agent, meta.session_id)
        ours = [n for n in memory.logs if n.endswith(f"-{slug}.md")]
        before = capturing.earlier(repo.read_each(SESSIONS_DIR, ours))
        session = capturing.collect(_chain(head, items), known, before.last_line)
    except transcripts.NotATranscript as exc:
        raise InputError(str(transcript), None, str(exc), "pass a transcript file") from None
    if session.last_line == 0:
        said = f"already captured in {', '.join(ours)}" if ours else "the agent did nothing"
        return _report(path, "unchanged", (f"nothing new to capture: {said}",), {})
    if session.start is None or capturing.moment(session.start) is None:
        raise InputError(str(transcript), None, "holds no start time", "pass a transcript file")
    start_doc = _parsed(file_before(repo.root, session.start, CONTINUITY))
    found = capturing.changes(start_doc, memory.continuity, session.start, before.created)
    files = capturing.repo_paths(session.files, session.cwd, session.project_hash)
    log = capturing.render(agent, session, files, found)
    rel = f"{SESSIONS_DIR}/{log.name}"
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
    """The items up to the first that names the session (the first line, in practice)."""
    head: list[Item] = []
    for item in items:
        head.append(item)
        if isinstance(item, Meta) and item.session_id:
            return head, item
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
