"""Facts kept true: citations that went stale, paths a fact names that are gone (DECAY.md
§ Citations).

Pure: the shell reads the cited files (from the work tree or a git revision) and says which
named paths exist; this module compares. A stale citation is a warning, never an archive: the
fact may still hold, and a person (or agent) decides.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

from ... import patterns
from ...errors import Problem
from ...parse import footer
from ...parse.cites import (
    Citation,
    Skipped,
    Source,
    find_block,
    lines_of,
    parse_value,
    path_problem,
)
from ...parse.cites import block_hash as hash_of
from ...parse.facts import Document, Fact

STATES = ("current", "moved", "changed", "beyond", "gone", "skipped")
# A path a fact names in backticks: no spaces, none of the characters of code, URLs, globs or
# options, and at least one "/" (checked apart: a character class alone stays linear).
_PATHLIKE = patterns.compile(r"[A-Za-z0-9_.][^\s*?\[\]{}()<>=:;,'\"|!$@#%^&~\\]*")


class Status(NamedTuple):
    citation: Citation
    state: str  # one of STATES
    moved_to: int | None = None  # "moved": the block's first line now
    lines: int = 0  # "beyond": the lines the file has
    reason: str = ""  # "skipped": why

    @property
    def stale(self) -> bool:
        return self.state in ("moved", "changed", "beyond", "gone")

    @property
    def now(self) -> Citation:
        """The citation as ``fact recite`` writes it (a moved block: its new range)."""
        c = self.citation
        if self.moved_to is None or c.start is None or c.end is None:
            return c
        return c._replace(start=self.moved_to, end=self.moved_to + c.end - c.start)

    def words(self) -> str:
        """How the citation stands, in a few words."""
        if self.state == "moved":
            now = self.now
            return f"{self.citation.place} moved to lines {now.start}-{now.end}"
        if self.state == "beyond":
            return f"{self.citation.place} is beyond the file's {self.lines} lines"
        if self.state == "skipped":
            return f"{self.citation.path} {self.reason}"
        if self.state == "gone":
            return f"{self.citation.path} no longer exists"
        return f"{self.citation.place} {self.state}"


def status(citation: Citation, source: Source) -> Status:
    """How one citation stands against what its path holds now."""
    if source is None:
        return Status(citation, "gone")
    if isinstance(source, Skipped):
        return Status(citation, "skipped", reason=source.reason)
    lines = lines_of(source)
    if citation.start is None or citation.end is None:
        return Status(citation, "current" if hash_of(lines) == citation.hash else "changed")
    if citation.end > len(lines):
        return Status(citation, "beyond", lines=len(lines))
    if hash_of(lines[citation.start - 1 : citation.end]) == citation.hash:
        return Status(citation, "current")
    moved = find_block(lines, citation)
    return Status(citation, "changed" if moved is None else "moved", moved_to=moved)


def citations(fact: Fact) -> tuple[Citation, ...]:
    value = fact.field("cites")
    return parse_value(value)[0] if value is not None else ()


def cited_paths(docs: Iterable[Document]) -> list[str]:
    """Every path the facts of ``docs`` cite, once each, sorted (what the shell reads)."""
    return sorted({c.path for doc in docs for fact in doc.facts for c in citations(fact)})


def statuses(fact: Fact, sources: Mapping[str, Source]) -> list[Status]:
    return [status(c, sources.get(c.path)) for c in citations(fact)]


def mark(found: Sequence[Status]) -> str:
    """What ``context`` and ``explain`` say of a fact with stale citations ("" when none)."""
    stale = [s.words() for s in found if s.stale]
    return f"stale: {'; '.join(stale)}" if stale else ""


def stale_problems(
    docs: Sequence[Document], sources: Mapping[str, Source], at: str
) -> list[Problem]:
    """lint's ``stale`` warnings and ``cites-unreadable`` notes for the live facts; ``at``
    says where the files were read ("" for the work tree, " at REV")."""
    found = []
    for doc in docs:
        for fact in doc.facts:
            for state in statuses(fact, sources):
                message = _message(fact.id or "", state, at)
                if message is not None:
                    check = "cites-unreadable" if state.state == "skipped" else "stale"
                    found.append(Problem(doc.path, fact.line, "warning", check, message))
    return found


def _message(fact_id: str, state: Status, at: str) -> str | None:
    c = state.citation
    cites = f"{fact_id!r} cites {c.place}"
    again = f"agent-memory fact cite {fact_id} PATH[:A-B]"
    if state.state == "gone":
        return f"{cites}, which no longer exists{at}; cite where it went ({again}) or edit the fact"
    if state.state == "beyond":
        return f"{cites}, beyond the file's {state.lines} lines{at}; check the fact, then {again}"
    if state.state == "changed":
        what = "lines" if c.start is not None else "content"
        return (
            f"{cites}, whose {what} changed{at}; check the fact still holds, then "
            f"agent-memory fact cite {fact_id} {c.place} cites them as they are"
        )
    if state.state == "moved":
        now = state.now
        return (
            f"{cites}, whose lines moved to {now.start}-{now.end}{at}; "
            f"agent-memory fact recite {fact_id} updates it"
        )
    if state.state == "skipped":
        return f"{cites}: {c.path} {state.reason}; not checked"
    return None


def mentioned(docs: Iterable[Document]) -> dict[str, list[tuple[str, Fact, int]]]:
    """Each relative path the facts' text names in backticks → (file, fact, line) of each
    mention (a path with a "/" and nothing of code in it; a footer is not text)."""
    found: dict[str, list[tuple[str, Fact, int]]] = {}
    for doc in docs:
        for fact in doc.facts:
            for index in range(fact.start, fact.end):
                line = doc.text.lines[index]
                if "`" not in line:
                    continue
                spans = footer.without_footers(line).split("`")[1:-1:2]  # inside backticks
                for span in spans:
                    path = span.removeprefix("./").rstrip("/")
                    if _path_like(path):
                        found.setdefault(path, []).append((doc.path, fact, index + 1))
    return found


def _path_like(text: str) -> bool:
    """A relative path, not code, a URL without its scheme (``docs.python.org/3``) or a glob."""
    first = text.partition("/")[0]
    domain = "." in first and not first.startswith(".")
    return (
        "/" in text
        and not domain
        and _PATHLIKE.fullmatch(text) is not None
        and path_problem(text) is None
    )


def missing_paths(
    mentions: Mapping[str, list[tuple[str, Fact, int]]], existing: frozenset[str]
) -> list[Problem]:
    """An advisory for each path a fact names that does not exist."""
    return [
        Problem(
            path,
            line,
            "advisory",
            "missing-path",
            f"{fact.id or 'a fact'} names `{named}`, which does not exist; update the fact, or "
            "cite the file it became",
        )
        for named, places in sorted(mentions.items())
        if named not in existing
        for path, fact, line in places
    ]
