"""``agent-memory explain ID``: a fact's events, the rule that decided its tier, what comes next."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping

from .. import resources
from ..core.checks.citations import citations, mark, statuses
from ..core.facts.explain import explain as explaining
from ..core.facts.explain import lines
from ..core.facts.relations import line, related, related_ids, see_of
from ..layout import ARCHIVE_DIR, CONTINUITY, OPEN_THREADS_DIR, VISION
from ..parse import facts
from ..parse.dates import today
from ..parse.memory import Memory
from ..parse.sessions import SessionRefs
from ..parse.untrusted import one_line
from ..shell.cited import work_tree
from ..shell.git import Introduced, introduced
from ..shell.load import archive_files
from ..shell.repo import Repo
from .report import Report, Result
from .review_inputs import read_logs, review_inputs
from .settle import memory_of


def explain(repo: Repo, fact_id: str, full: bool, day: dt.date | None) -> Result:
    """By default only the logs the last review has not read are read (the footer holds the
    rest); ``full`` reads every log and lists each one that names the fact."""
    memory, continuity = memory_of(repo, archives=False)
    logs = read_logs(repo, memory, continuity, full, {})
    memory = _with_archives(repo, memory, fact_id, logs[1])
    found = explaining(review_inputs(repo, memory, continuity, logs, today(day)), fact_id)
    verdict = found.verdict
    docs = _with_related(repo, memory, fact_id)
    near = related(docs, fact_id)
    place = next(f for doc in docs for f in doc.facts if f.id == fact_id)
    cited = statuses(place, work_tree(repo, {c.path for c in citations(place)}))
    origin = dict(verdict.fact.fields).get("origin")
    commit = introduced(repo.root, fact_id, (CONTINUITY, ARCHIVE_DIR, OPEN_THREADS_DIR, VISION))
    summary = {
        "id": verdict.id,
        "path": verdict.path,
        "line": verdict.fact.line,
        "section": verdict.section,
        "tier": verdict.tier,
        "rule": verdict.rule,
        "footer": dict(verdict.fact.fields),
        "recomputed": dict(verdict.fields),
        "events": [event._asdict() for event in found.events],
        "sessions_since_last_use": verdict.idle,
        "next": found.move._asdict() if found.move else None,
        "cites": [{"place": s.citation.place, "state": s.state, "words": s.words()} for s in cited],
        "stale": mark(cited),
        "related": [f.id for _doc, f in near],
        "origin": origin,
        "introduced": commit._asdict() if commit is not None else None,
    }
    text = [
        *lines(found),
        *(f"cites: {state.words()}" for state in cited),
        *(f"related: {line(doc, f)}" for doc, f in near),
        *([f"origin: {origin}"] if origin is not None else []),
        *([_introduced(commit)] if commit is not None else []),
    ]
    report = Report(
        "explain", resources.version(), repo.shown, "ok", None, (), summary, tuple(text)
    )
    return Result(report, 0)


def _introduced(commit: Introduced) -> str:
    """Where the footer came from in git; the author and subject are anyone's text."""
    said = f"{commit.commit[:12]} {commit.date} {commit.author}: {commit.subject}"
    return f"introduced: {one_line(said)}"


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


def _with_archives(
    repo: Repo, memory: Memory, fact_id: str, refs: Mapping[str, SessionRefs]
) -> Memory:
    """``memory`` with the archive files the fact's verdict depends on: those holding its id, or
    an id a log read pairs it with in a ``Superseded:`` line, when the live files do not. The
    archive may hold thousands of facts; the other files are not parsed."""
    live = memory.known_ids
    paired = {
        i for found in refs.values() for pair in found.superseded if fact_id in pair for i in pair
    }
    wanted = sorted(({fact_id} | paired) - live)
    if not wanted:
        return memory
    files = archive_files(repo)
    held = [
        facts.parse(rel, data) for rel, data in files if any(i.encode() in data for i in wanted)
    ]
    if fact_id not in live and not any(fact_id.encode() in data for _, data in files):
        held = [facts.parse(rel, data) for rel, data in files]  # to suggest a near id
    return memory._replace(archives=tuple(held))
