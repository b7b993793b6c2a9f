"""``agent-memory explain ID``: a fact's events, the rule that decided its tier, what comes next."""

from __future__ import annotations

import datetime as dt

from .. import resources
from ..core.checks.citations import citations, mark, statuses
from ..core.facts.explain import explain as explaining
from ..core.facts.explain import lines
from ..core.facts.relations import line, related, related_ids, see_of
from ..core.review.projection import Inputs
from ..parse import facts
from ..parse.dates import today
from ..parse.memory import Memory
from ..shell.cited import work_tree
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
    names = memory.logs if full else unread(memory.continuity, memory.sessions)
    inputs = Inputs(
        continuity=continuity,
        archives=memory.archives,
        archive_index=memory.archive_index,
        index_template=b"",
        policy=memory.policy,
        logs=memory.logs,
        refs=references(repo, names),
        full=full,
        today=today(day),
        threads=memory.threads,
        vision=memory.vision,
    )
    found = explaining(inputs, fact_id)
    docs = _with_related(repo, memory, fact_id)
    near = related(docs, fact_id)
    place = next(f for doc in docs for f in doc.facts if f.id == fact_id)
    cited = statuses(place, work_tree(repo, {c.path for c in citations(place)}))
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
        "cites": [{"place": s.citation.place, "state": s.state, "words": s.words()} for s in cited],
        "stale": mark(cited),
        "related": [f.id for _doc, f in near],
    }
    text = [
        *lines(found),
        *(f"cites: {state.words()}" for state in cited),
        *(f"related: {line(doc, f)}" for doc, f in near),
    ]
    report = Report(
        "explain", resources.version(), repo.shown, "ok", None, (), summary, tuple(text)
    )
    return Result(report, 0)


def _with_related(repo: Repo, memory: Memory, fact_id: str) -> tuple[facts.Document, ...]:
    """The documents read, and the archive files holding the facts its ``see`` names (a
    relation is shown beside the fact, whether the related fact is live or archived)."""
    docs = memory.documents
    wanted = set(related_ids(fact_id, see_of(docs))) - {
        f.id for doc in docs for f in doc.facts if f.id
    }
    read = {doc.path for doc in docs}
    more = [
        facts.parse(rel, data)
        for rel, data in archive_files(repo)
        if rel not in read and any(i.encode() in data for i in wanted)
    ]
    return (*docs, *more)
