"""``agent-memory fact cite|recite|show``: the code a fact describes, and the fact as it stands.

A citation is read from the work tree through the shell's path-safe readers (``shell/cited.py``):
a path outside the repo, a link out of it, a FIFO, a directory or a file too large to be source
is refused in one line, and nothing outside the repo is opened.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..core.checks.citations import Status, citations, statuses
from ..core.facts import footers
from ..core.facts.curate import Place, locate, rewrite
from ..core.facts.relations import line, related
from ..core.review import moves
from ..errors import AgentMemoryError
from ..parse.cites import Citation, Skipped, cite, parse_place
from ..parse.memory import Memory
from ..parse.text import strip_eol
from ..shell.cited import work_tree
from ..shell.load import with_related
from ..shell.repo import Repo
from .curate import finish, footer_command, index_of, memory_read
from .report import Report, Result
from .settle import Options

_TOP = "paths are relative to the repo's top, as `git ls-files --full-name` shows them"


def fact_cite(repo: Repo, fact_id: str, place_text: str, options: Options) -> Result:
    """Cite ``FILE[:A-B]`` as it is in the work tree now."""

    def change(place: Place, _memory: Memory) -> footers.Change:
        citation = cite_now(repo, place_text)
        same = {c.path for c in citations(place.fact)} & {citation.path}
        stale = [s.citation.place for s in statuses(place.fact, work_tree(repo, same)) if s.stale]
        return footers.cite(place, citation, stale)

    return footer_command(repo, "cite", fact_id, options, change)


def cited(repo: Repo, places: Sequence[str]) -> list[Citation]:
    """``fact add --cite``: each ``FILE[:A-B]`` cited as the work tree has it now."""
    return [cite_now(repo, text) for text in places]


def cite_now(repo: Repo, place_text: str) -> Citation:
    """A citation of ``FILE[:A-B]`` as the work tree has it; a refusal says what is wrong."""
    try:
        path, start, end = parse_place(place_text)
    except ValueError as exc:
        raise AgentMemoryError(f"cannot cite {place_text[:200]!r}: {exc}; {_TOP}") from None
    source = work_tree(repo, [path])[path]
    if source is None:
        raise AgentMemoryError(f"{path} does not exist; cite a file of the repo ({_TOP})")
    if isinstance(source, Skipped):
        raise AgentMemoryError(f"{path} {source.reason}; cite a regular file of the repo")
    try:
        return cite(path, start, end, source)
    except ValueError as exc:
        raise AgentMemoryError(f"cannot cite {place_text!r}: {exc}; cite lines it has") from None


def fact_recite(repo: Repo, fact_id: str, options: Options) -> Result:
    """Citations whose block moved follow it; any other stale one is refused, naming what to
    do (lines that changed need a person to check the fact)."""
    memory = memory_read(repo, fact_id)
    place = locate(memory.curated, fact_id)
    cited = citations(place.fact)
    if not cited:
        raise AgentMemoryError(
            f"{fact_id!r} cites nothing; agent-memory fact cite {fact_id} FILE[:A-B] cites the "
            "code it describes"
        )
    found = statuses(place.fact, work_tree(repo, {c.path for c in cited}))
    for state in found:
        if state.state not in ("current", "moved"):
            raise AgentMemoryError(
                f"{fact_id!r} cites {state.words()}; check the fact, then cite the code as it is "
                f"with agent-memory fact cite {fact_id} FILE[:A-B] (recite only follows moved "
                "lines)"
            )
    done = footers.recited(place, [state.now for state in found])
    reason = f"fact recite: {fact_id}"
    edits = rewrite([(place, done.fields)], reason, memory.archives, index_of(memory))
    if not edits:
        done = done._replace(said=f"{fact_id}: its citations are current")
    return finish(repo, "fact recite", edits, options, place, done.said)


def fact_show(repo: Repo, fact_id: str) -> Result:
    """The fact as written (footer included), where it lives, its citations, its relations."""
    memory = memory_read(repo, fact_id)
    place = locate(memory.curated, fact_id)
    cited = citations(place.fact)
    found = statuses(place.fact, work_tree(repo, {c.path for c in cited})) if cited else []
    near = related(with_related(repo, memory.curated, fact_id), fact_id)
    summary = _summary(place, found)
    summary["related"] = [
        {
            "id": f.id,
            "tier": f.field("tier") or "working",
            "where": f"{doc.path}:{f.line}",
            "text": f.first_line,
        }
        for doc, f in near
    ]
    lines = [
        f"{place.where}  [{summary['tier']}]  {summary['section']}",
        *summary["text"].splitlines(),
        *(f"cites: {state.words()}" for state in found),
        *(f"related: {line(doc, f)}" for doc, f in near),
    ]
    report = Report("fact show", repo.shown, "ok", None, (), summary)
    return Result(report._replace(heading=tuple(lines)), 0)


def _summary(place: Place, found: list[Status]) -> dict[str, Any]:
    fact = place.fact
    return {
        "id": place.id,
        "path": place.doc.path,
        "line": fact.line,
        "section": moves.section_of(fact.field("from")) or fact.section,
        "tier": fact.field("tier") or "working",
        "text": "\n".join(strip_eol(text) for text in place.doc.text.lines[fact.start : fact.end]),
        "footer": dict(fact.fields),
        "cites": [{"place": s.citation.place, "state": s.state, "words": s.words()} for s in found],
    }
