"""``agent-memory explain ID``: a fact's events, the rule that decided its tier, what comes next."""

from __future__ import annotations

from ..core.checks.citations import citations, mark, statuses
from ..core.facts.curate import Place, locate
from ..core.facts.explain import explain as explaining
from ..core.facts.explain import lines
from ..core.facts.relations import line, related
from ..layout import ARCHIVE_DIR, CONTINUITY, OPEN_THREADS_DIR, VISION
from ..parse.untrusted import one_line
from ..shell.cited import work_tree
from ..shell.git import Introduced, introduced
from ..shell.load import load_personal, with_related
from ..shell.repo import Repo
from .report import Report, Result
from .review_inputs import judged
from .settle import memory_of


def explain(repo: Repo, fact_id: str, full: bool) -> Result:
    """By default only the logs the last review has not read are read (the footer holds the
    rest); ``full`` reads every log and lists each one that names the fact. Its tier is judged
    on the run's date (``--today``: ``Repo.today``)."""
    mine = load_personal(repo)
    if mine is not None and any(f.id == fact_id for f in mine.facts):
        return _personal(repo, locate([mine], fact_id))
    memory, inputs = judged(repo, memory_of(repo, archives=False)[0], fact_id, full, repo.today)
    found = explaining(inputs, fact_id)
    verdict = found.verdict
    docs = with_related(repo, memory.documents, fact_id)
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
    report = Report("explain", repo.shown, "ok", None, (), summary, tuple(text))
    return Result(report, 0)


def _personal(repo: Repo, place: Place) -> Result:
    """A personal fact: no log names it and no review reads its file (DECAY.md § Personal
    facts); its footer is all there is to say."""
    fields = place.fields
    tier = fields.get("tier", "working")
    rule = "personal: the review does not read memory/personal.md; its tier is as written"
    summary = {
        "id": place.id,
        "path": place.doc.path,
        "line": place.fact.line,
        "section": place.fact.section,
        "tier": tier,
        "rule": rule,
        "footer": fields,
        "recomputed": fields,
        "events": [],
        "related": [f.id for _doc, f in related([place.doc], place.id)],
    }
    text = (
        f"{place.id}: {tier} (personal, {place.where})",
        f"  {rule}; uses {fields.get('uses', '1')}, last used {fields.get('last_used', '?')},"
        " counted in its own footer",
    )
    report = Report("explain", repo.shown, "ok", None, (), summary, text)
    return Result(report, 0)


def _introduced(commit: Introduced) -> str:
    """Where the footer came from in git; the author and subject are anyone's text."""
    said = f"{commit.commit[:12]} {commit.date} {commit.author}: {commit.subject}"
    return f"introduced: {one_line(said)}"
