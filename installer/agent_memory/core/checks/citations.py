"""Facts kept true: citations that went stale, paths a fact names that are gone (DECAY.md
§ Citations).

Pure: the shell reads the cited files (from the work tree or a git revision) and says which
named paths exist; this module compares. A stale citation is a warning, never an archive: the
fact may still hold, and a person (or agent) decides.
"""

from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

from ... import patterns
from ...errors import Problem
from ...parse import footer
from ...parse.cites import (
    HASH_CHARS,
    MAX_SEARCH,
    Citation,
    Skipped,
    Source,
    lines_of,
    normalised,
    parse_value,
    path_problem,
)
from ...parse.facts import Document, Fact

HASHED = 2_000_000  # lines of cited files one run hashes, all told: about a second
# A path a fact names in backticks: no spaces, none of the characters of code, URLs, globs or
# options, and at least one "/" (checked apart: a character class alone stays linear).
_PATHLIKE = patterns.compile(r"[A-Za-z0-9_.][^\s*?\[\]{}()<>=:;,'\"|!$@#%^&~\\]*")


class Status(NamedTuple):
    citation: Citation
    state: str  # current, moved, changed, beyond, gone or skipped
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


def checked(cites: Iterable[Citation], sources: Mapping[str, Source]) -> dict[Citation, Status]:
    """How each citation stands against what its path holds now, file by file: a file's lines
    are split and normalised once, whatever number of facts cite it, each block length is
    searched for moved blocks once, and one run hashes at most ``HASHED`` lines of cited files
    (40 facts citing one 200,000-line file took 14 s when each searched it). A citation past
    that budget is skipped, and says so."""
    by_path: dict[str, set[Citation]] = {}
    for citation in cites:
        by_path.setdefault(citation.path, set()).add(citation)
    found: dict[Citation, Status] = {}
    spent = 0
    for path in sorted(by_path):
        group = sorted(by_path[path], key=lambda c: (c.start or 0, c.end or 0, c.hash))
        source = sources.get(path)
        if source is None:
            found.update((c, Status(c, "gone")) for c in group)
        elif isinstance(source, Skipped):
            found.update((c, Status(c, "skipped", reason=source.reason)) for c in group)
        else:
            states, spent = _file(group, lines_of(source), spent)
            found.update(states)
    return found


def _file(
    group: Sequence[Citation], lines: Sequence[bytes], spent: int
) -> tuple[dict[Citation, Status], int]:
    """``checked`` for the citations of one file holding ``lines``; ``spent``: the lines the
    run hashed before, and after."""
    found: dict[Citation, Status] = {}
    joined: list[bytes] | None = None  # normalised when a citation needs it
    windows: dict[int, dict[str, list[int]]] = {}
    for c in group:
        if c.start is not None and c.end is not None and c.end > len(lines):
            found[c] = Status(c, "beyond", lines=len(lines))
            continue
        if joined is None:
            if spent + len(lines) > HASHED:
                spent_all = f"is past the {HASHED:,} lines of cited files one run hashes"
                found[c] = Status(c, "skipped", reason=spent_all)
                continue
            spent += len(lines)
            joined = [normalised(line) + b"\n" for line in lines]
        if c.start is None or c.end is None:
            found[c] = Status(c, "current" if _digest(joined) == c.hash else "changed")
            continue
        if _digest(joined[c.start - 1 : c.end]) == c.hash:
            found[c] = Status(c, "current")
            continue
        length = c.end - c.start + 1
        if length not in windows:
            cost = len(lines) * length
            searchable = cost <= MAX_SEARCH and spent + cost <= HASHED
            spent += cost if searchable else 0
            windows[length] = _blocks(joined, length) if searchable else {}
        old = c.start
        near = windows[length].get(c.hash, ())
        moved = min(near, key=lambda at: (abs(at - old), at), default=None)
        found[c] = Status(c, "changed" if moved is None else "moved", moved_to=moved)
    return found, spent


def _blocks(joined: Sequence[bytes], length: int) -> dict[str, list[int]]:
    """Each block of ``length`` lines by its hash: the 1-based lines it starts at."""
    found: dict[str, list[int]] = {}
    for first in range(len(joined) - length + 1):
        found.setdefault(_digest(joined[first : first + length]), []).append(first + 1)
    return found


def _digest(joined: Sequence[bytes]) -> str:
    """``block_hash`` of lines already normalised, each with its line feed."""
    import hashlib  # as block_hash: only what checks citations pays for it at start-up

    return hashlib.sha256(b"".join(joined)).hexdigest()[:HASH_CHARS]


def citations(fact: Fact) -> tuple[Citation, ...]:
    value = fact.field("cites")
    return parse_value(value)[0] if value is not None else ()


def cited_paths(docs: Iterable[Document]) -> list[str]:
    """Every path the facts of ``docs`` cite, once each, sorted (what the shell reads)."""
    return sorted({c.path for doc in docs for fact in doc.facts for c in citations(fact)})


def statuses(fact: Fact, sources: Mapping[str, Source]) -> list[Status]:
    cites = citations(fact)
    found = checked(cites, sources)
    return [found[c] for c in cites]


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
    states = checked((c for doc in docs for fact in doc.facts for c in citations(fact)), sources)
    for doc in docs:
        for fact in doc.facts:
            for state in (states[c] for c in citations(fact)):
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
