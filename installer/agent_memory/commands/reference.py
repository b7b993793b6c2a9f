"""Record that this session used facts: ids under a label in the session's own log.

The MCP server's ``memory_reference`` calls ``reference`` with the log it created earlier in the
same session (None before its first use). A log is this session's to write only while it is open
(``own_log``, the rule capture follows too: no review has read it, git does not hold it): after
that, or when it is gone, the session goes on in a new log, so a log a review counted or git
recorded never changes. A new log never takes the name of an existing one.

When the client is an agent whose session-end hook this repo registers, the session's capture
writes its one log from the transcript, which holds this call: the server then writes none, so
that the session counts once (MCP.md § The session's log).
"""

import datetime as dt
from collections.abc import Sequence
from typing import NamedTuple

from ..core.agents import hooks, jsontext, mcp_config
from ..core.agents.references import add_references
from ..core.facts.curate import locate
from ..core.facts.personal_edits import used
from ..core.plan import FileEdit, Outcome, Plan
from ..errors import AgentMemoryError
from ..layout import PERSONAL, SESSION_NAME, SESSIONS_DIR
from ..parse import facts
from ..parse.continuity import cursor, last_review
from ..parse.facts import Document
from ..parse.footer import nearest_id
from ..parse.memory import Memory, known_ids
from ..parse.newlog import log_name
from ..shell.repo import Repo
from ..shell.wiring import hooks_run
from .own_log import still_open
from .report import Report, Result
from .session import fresh_log
from .settle import Options, memory_of, settle

SLUG = "mcp"
_MAX_TRIES = 100  # names tried for a new log within one second


def reference(
    repo: Repo,
    ids: Sequence[str],
    label: str,
    own_log: str | None,
    now: dt.datetime | None = None,
    captured: str | None = None,
) -> Result:
    """``label`` is one of ``core.references.LABELS``; the summary's ``log`` is the log to pass
    as ``own_log`` next time. ``captured``: the settings file whose hooks capture the session
    (``capturing``), when they do: the ids are checked and nothing is written."""
    memory, continuity = memory_of(repo)
    _check_known(ids, memory)
    personal = _personal_ids(memory, ids)
    if personal:  # counted in their own footers, never named in a log (DECAY.md § Personal facts)
        _used(repo, memory, personal)
        ids = [fact_id for fact_id in ids if fact_id not in personal]
        if not ids:
            summary = {"log": "", "label": label, "ids": [], "outcome": "personal"}
            report = Report("reference", repo.shown, "personal", None, ())
            return Result(report._replace(summary=summary), 0)
    if captured is not None:
        note = f"the session's capture writes them to its log (the hooks in {captured})"
        summary = {"log": "", "label": label, "ids": list(ids), "outcome": "captured"}
        report = Report("reference", repo.shown, "captured", None, (), summary)
        return Result(report._replace(closing=(note,)), 0)
    log = session_log(repo, memory, continuity, own_log, now)
    rel, before = log.rel, log.before
    after = add_references(log.text.encode(), label, ids)
    edit = FileEdit(rel, before, after, Outcome.written(before), f"{label}: {', '.join(ids)}")
    plan = Plan.of([edit])
    settled = settle(repo, [plan], Options(), "unchanged")
    summary = {"log": rel, "label": label, "ids": list(ids), "outcome": settled.outcome}
    report = Report("reference", repo.shown, settled.outcome, plan, (), summary)
    return Result(report, settled.exit_code)


class Log(NamedTuple):
    """The log an MCP session writes to: its name, path, bytes on disk (None: new) and text."""

    name: str
    rel: str
    before: bytes | None
    text: str


def session_log(
    repo: Repo, memory: Memory, continuity: Document, own: str | None, now: dt.datetime | None
) -> Log:
    """The session's own log (``own``) while it is open, else a new one (``new_name``), read
    as text; a log that is not UTF-8 is refused in one line."""
    through = cursor(last_review(continuity), memory.logs)
    mine = own if own is not None and still_open(repo, memory, own) else None
    name = mine or new_name(repo, through, now)
    rel = f"{SESSIONS_DIR}/{name}"
    before = repo.read(rel)
    try:
        text = (before or fresh_log(repo, name)).decode("utf-8")
    except UnicodeDecodeError:
        raise AgentMemoryError(
            "is not UTF-8 text; fix or remove the bytes that are not, then call again", rel
        ) from None
    return Log(name, rel, before, text)


def capturing(repo: Repo, client: str) -> str | None:
    """The settings file of the agent the MCP client ``client`` is (its ``clientInfo.name``),
    when it registers our session-end hook and the agent loads it (``doctor``'s verdict on the
    agent's trust); None otherwise, or when it cannot be read (the server then keeps its own
    log, as before)."""
    agent = mcp_config.CLIENTS.get(client)
    if agent is None:
        return None
    path = hooks.AGENTS[agent].path
    try:
        data = repo.read(path, limit=jsontext.MAX_BYTES)
        found = data is not None and hooks.captures(data.decode("utf-8"), agent)
    except (AgentMemoryError, jsontext.BadJSON, hooks.NotAnObject, UnicodeDecodeError):
        return None
    return path if found and hooks_run(repo, agent) else None


def _personal_ids(memory: Memory, ids: Sequence[str]) -> list[str]:
    """Those of ``ids`` only the personal file holds."""
    if memory.personal is None:
        return []
    team = memory.known_ids
    return [i for i in ids if i in known_ids([memory.personal]) and i not in team]


def _used(repo: Repo, memory: Memory, ids: Sequence[str]) -> None:
    """One more use of each personal fact, today, in its own footer."""
    assert memory.personal is not None
    doc = memory.personal
    for fact_id in ids:
        doc = facts.parse(PERSONAL, used(locate([doc], fact_id), repo.today).encode())
    edit = FileEdit(PERSONAL, memory.personal.render(), doc.render(), Outcome.UPDATED, "used")
    settle(repo, [Plan.of([edit])], Options(), "unchanged")


def _check_known(ids: Sequence[str], memory: Memory) -> None:
    known = known_ids(memory.curated)
    for fact_id in ids:
        if fact_id in known:
            continue
        close = nearest_id(fact_id, known)
        hint = f"did you mean {close!r}?" if close else "memory_recall lists the ids that exist"
        raise AgentMemoryError(f"no fact has the id {fact_id!r} in the memory's files; {hint}")


def new_name(repo: Repo, through: str | None, now: dt.datetime | None) -> str:
    """A free name that sorts after the last log a review read, so the next review reads it:
    named by now (``now``, else the run's: ``Repo.now``), or by the second after that log when
    now is not later (same second, skew)."""
    moment = (now or repo.now).astimezone(dt.timezone.utc)
    mark = SESSION_NAME.match(f"{through}.md") if through else None
    if mark is not None:
        read = dt.datetime.strptime(mark.group(1) + mark.group(2), "%Y-%m-%d%H%M%S")
        moment = max(moment, read.replace(tzinfo=dt.timezone.utc) + dt.timedelta(seconds=1))
    for n in range(1, _MAX_TRIES + 1):
        name = log_name(moment, SLUG if n == 1 else f"{SLUG}-{n}")
        if not repo.exists(f"{SESSIONS_DIR}/{name}"):
            return name
    raise AgentMemoryError(
        f"{_MAX_TRIES} session logs already have this second's name; call again", SESSIONS_DIR
    )
