"""``agent-memory explain ID``: a fact's events, the rule that decided its tier, what comes next."""

from __future__ import annotations

import datetime as dt

from .. import resources
from ..core.facts.explain import explain as explaining
from ..core.facts.explain import lines
from ..core.review.projection import Inputs
from ..parse import facts
from ..parse.dates import today
from ..shell.load import archive_files
from ..shell.logs import references, unread
from ..shell.repo import Repo
from .report import Report, Result
from .settle import memory_of


def explain(repo: Repo, fact_id: str, full: bool, day: dt.date | None) -> Result:
    """By default only the logs the last review has not read are read (the footer holds the
    rest); ``full`` reads every log and lists each one that names the fact."""
    memory, continuity = memory_of(repo, archives=False)
    if not any(f.id == fact_id for f in continuity.facts):
        # Parse only the archive files that hold the id: the archive may hold thousands of facts.
        needle = fact_id.encode()
        files = archive_files(repo)
        held = [facts.parse(rel, data) for rel, data in files if needle in data]
        held = held or [facts.parse(rel, data) for rel, data in files]  # to suggest a near id
        memory = memory._replace(archives=tuple(held))
    logs = memory.logs  # sorted first: the unread ones are then found by a bisect
    names = logs if full else unread(memory.continuity, memory.sessions)
    inputs = Inputs(
        continuity=continuity,
        archives=memory.archives,
        archive_index=memory.archive_index,
        index_template=b"",
        policy=memory.policy,
        logs=logs,
        refs=references(repo, names),
        full=full,
        today=today(day),
        threads=memory.threads,
        vision=memory.vision,
    )
    found = explaining(inputs, fact_id)
    summary = {
        "id": found.id,
        "path": found.path,
        "line": found.line,
        "section": found.section,
        "tier": found.fields["tier"],
        "rule": found.decision.rule,
        "footer": dict(found.stored),
        "recomputed": dict(found.fields),
        "events": [event._asdict() for event in found.events],
        "sessions_since_last_use": found.idle,
        "next": found.move._asdict() if found.move else None,
    }
    report = Report(
        "explain", resources.version(), repo.shown, "ok", None, (), summary, tuple(lines(found))
    )
    return Result(report, 0)
