"""``agent-memory session new``: a correctly named, empty session log from the schema."""

from __future__ import annotations

import datetime as dt

from .. import resources
from ..core.plan import FileEdit, Outcome, Plan
from ..errors import AgentMemoryError
from ..layout import SCHEMA, SESSIONS_DIR
from ..parse.newlog import log_name, new_log
from ..shell.discovery import from_here
from ..shell.repo import Repo
from .report import Report, Result
from .settle import Options, settle

_SCHEMA_TEMPLATE = "templates/.agent/schema.md"


def session_new(repo: Repo, slug: str | None, now: dt.datetime | None) -> Result:
    """The log named by ``now`` (``--now``), else by the run's time (``Repo.now``: the clock, or
    SOURCE_DATE_EPOCH)."""
    moment = now or repo.now
    name = log_name(moment, slug)
    rel = f"{SESSIONS_DIR}/{name}"
    if repo.exists(rel):
        hint = "run again in a second" + ("" if slug else " or pass --slug")
        raise AgentMemoryError(
            f"already exists and session logs are never overwritten; {hint}", rel
        )
    content = fresh_log(repo, name)
    plan = Plan.of([FileEdit(rel, None, content, Outcome.CREATED, "new session log")])
    settled = settle(repo, [plan], Options(), "unchanged")
    # Only the path on stdout, so that `log=$(agent-memory session new)` just works: as it
    # works from where the user stands (--json's summary: as the repo names it).
    report = Report("session new", repo.shown, settled.outcome, plan, (), {"path": rel})
    shown = from_here(repo.root, rel)
    return Result(report._replace(heading=(shown,), show_plan=False), settled.exit_code)


def fresh_log(repo: Repo, name: str) -> bytes:
    """A new log called ``name``, from the repo's schema (or ours, if it lost the template)."""
    schema = repo.read(SCHEMA) or resources.data(_SCHEMA_TEMPLATE)
    try:
        return new_log(schema.decode("utf-8", errors="replace"), name)
    except ValueError:  # a schema edited until it lost the template: ours still has it
        return new_log(resources.data(_SCHEMA_TEMPLATE).decode("utf-8"), name)
