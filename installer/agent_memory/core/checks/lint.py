"""``lint``: every problem in a repo's memory files, as ``path:line: severity [check] message``."""

import datetime as dt
import difflib
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence, Set
from types import MappingProxyType
from typing import NamedTuple

from ... import patterns
from ...errors import InputError, Problem
from ...layout import CONTINUITY, SESSIONS_DIR
from ...parse import proposed, scopes
from ...parse.cites import Source
from ...parse.continuity import cursor, last_review
from ...parse.facts import Document, Fact, conflict_markers, id_clashes
from ...parse.footer import ID
from ...parse.manifest import parse as parse_manifest
from ...parse.memory import Memory, known_ids
from ...parse.sessions import EMPTY, SessionRefs, read_refs, reference_sections
from ...parse.untrusted import controls_in
from ..facts import conflicts
from ..facts.duplicates import pairs
from ..review.triggers import advice, due_reasons, pending_reactivations, window
from ..secrets import scan
from .citations import missing_paths, stale_problems
from .supersessions import log_problems, see_problems, superseded_since, supersession_problems

# A run an id may be part of: an id stands alone where such a run is the id (``ID_PATTERN``).
_WORD = patterns.compile(r"[a-z0-9.-]+")
# The unknown ids of a log that get a "did you mean": each is compared with every id there is.
_HINTED = 100

_SEVERITY_ORDER = {"error": 0, "warning": 1, "advisory": 2}


class Code(NamedTuple):
    """What the facts say of the code, as the shell read it: the cited files, the paths the
    facts name (``citations.mentioned``) and which of them exist, and where all were read (""
    the work tree, " at REV")."""

    cited: Mapping[str, Source] = MappingProxyType({})
    existing: frozenset[str] = frozenset()
    at: str = ""
    mentioned: Mapping[str, list[tuple[str, Fact, int]]] = MappingProxyType({})


def lint(
    memory: Memory,
    manifest: tuple[str, bytes | None],
    logs: Iterable[tuple[str, bytes]],
    texts: Iterable[tuple[str, bytes]],
    code: Code | None = None,
    today: dt.date | None = None,
) -> list[Problem]:
    """All findings, sorted by file, line and check; ``texts`` are the other committed memory
    files (the policy, INDEX.md, rejected.md), scanned for conflicts and credentials; ``today``
    is the date a fact's ``valid-until`` is compared with (none: no fact expired)."""
    mine = (memory.personal,) if memory.personal is not None else ()  # the same checks
    found: list[Problem] = [*memory.problems, *(p for doc in mine for p in doc.problems)]
    found += _manifest(*manifest)
    for path, data in texts:
        text = data.decode("utf-8", errors="replace")
        found += conflict_markers(path, text) + secrets(path, text)
    docs = memory.documents
    known = known_ids(docs)
    live = (*docs[: len(docs) - len(memory.archives)], *mine)
    found += _facts((*docs, *mine))
    found += supersession_problems((*docs, *mine), known_ids((*docs, *mine)))
    found += see_problems((*docs, *mine))
    found += pairs(live)
    found += conflicts.problems(live)
    found += _section_scopes((*docs, *mine))
    if code is not None:
        found += stale_problems(live, code.cited, code.at)
        found += missing_paths(code.mentioned, code.existing)
    for doc in (*docs, *mine):
        found += secrets(doc.path, doc.text.body)
        found += controls(doc.path, doc.text.body)
    unread: dict[str, SessionRefs] = {}
    if memory.continuity is not None:
        through = cursor(last_review(memory.continuity), memory.logs)
        unread = dict.fromkeys(window(memory.logs, through), EMPTY)
    found += _logs(memory, logs, known, unread, superseded_since(docs))
    reactivating = pending_reactivations(memory.archives, unread.values(), today)
    found += [
        Problem(
            CONTINUITY,
            None,
            "advisory",
            "review-due",
            f"a review is due: {reason}; run agent-memory review",
        )
        for reason in due_reasons(
            memory.continuity, memory.sessions, memory.policy, reactivating, today
        )
    ]
    found += [
        Problem(CONTINUITY, None, "advisory", "continuity-size", note)
        for note in advice(memory.continuity, memory.sessions, memory.policy, today)
    ]
    return sorted(
        set(found),
        key=lambda f: (f.path, f.line or 0, _SEVERITY_ORDER[f.severity], f.check, f.message),
    )


def _manifest(path: str, data: bytes | None) -> list[Problem]:
    if data is None:
        return []
    try:
        parse_manifest(data)
    except InputError as exc:
        return [exc.problem._replace(path=path, check="manifest-invalid")]
    return []


def _section_scopes(docs: Sequence[Document]) -> list[Problem]:
    """A section's ``<!-- paths: … -->`` line whose globs are wrong (a fact's footer is checked
    with its other fields)."""
    return [
        Problem(doc.path, line, "error", "footer-value", wrong)
        for doc in docs
        for value, line, _ in scopes.section_scopes(doc).values()
        if (wrong := scopes.problem(value)) is not None
    ]


def _facts(docs: Sequence[Document]) -> list[Problem]:
    """Facts nothing can see (no id) — in continuity.md, a thread file or the archive — and ids
    that are not unique."""
    found = [
        Problem(
            doc.path,
            fact.line,
            "warning",
            "fact-no-id",
            "fact has no id footer; the review, recall and explain cannot see it",
        )
        for doc in docs
        for fact in doc.facts
        if fact.id is None
    ]
    for doc, fact, first in id_clashes(docs):
        first_path = first.rsplit(":", 1)[0]
        both = first_path != doc.path and CONTINUITY in (first_path, doc.path)
        found.append(
            Problem(
                doc.path,
                fact.line,
                "error",
                "id-in-both" if both else "duplicate-id",
                f"id {fact.id!r} also at {first}; ids must be unique — rename one",
            )
        )
    return found


def _logs(
    memory: Memory,
    logs: Iterable[tuple[str, bytes]],
    known: Set[str],
    unread: dict[str, SessionRefs],
    replaced: Mapping[str, tuple[str, str]],
) -> list[Problem]:
    """Misnamed logs, unreadable references, unknown ids, and an id created twice; the
    references of the logs named in ``unread`` are kept there for the due-check."""
    found = [
        Problem(
            f"{SESSIONS_DIR}/{name}",
            None,
            "warning",
            "session-name",
            "not named YYYY-MM-DD-HHMMSS[-slug].md; the review ignores it",
        )
        for name in memory.sessions.strays
    ]
    created_in: dict[str, list[str]] = defaultdict(list)
    ordered = sorted(known)
    for name, data in logs:
        refs = read_refs(data)
        if name in unread:
            unread[name] = refs
        path = f"{SESSIONS_DIR}/{name}"
        text = data.decode("utf-8", errors="replace")
        found += conflict_markers(path, text)
        found += secrets(path, text)
        notes = [warning._replace(path=path) for warning in refs.warnings]
        notes += _references(path, refs, known, ordered, data)
        notes += log_problems(path, name[:10], refs, known, replaced)
        notes += [
            Problem(path, at[1], "warning", "proposal-number", proposed.twice(number, at))
            for number, at in proposed.numbered_twice(text).items()
            if proposed.has_proposals(data)
        ]
        found += notes if name in unread else _once(path, notes)
        for fact_id in refs.created:
            created_in[fact_id].append(name)
    found += [
        Problem(
            f"{SESSIONS_DIR}/{names[1]}",
            None,
            "warning",
            "created-twice",
            f"{fact_id!r} is listed under Created in {', '.join(names)}",
        )
        for fact_id, names in sorted(created_in.items())
        if len(names) > 1
    ]
    return found


def _once(path: str, notes: Sequence[Problem]) -> list[Problem]:
    """A log the review has already read cannot be edited (logs are append-only): its notes
    are one advisory, at its first line, instead of warnings that would never go away."""
    if not notes:
        return []
    first = min(notes, key=lambda n: n.line or 0)
    more = f" (and {len(notes) - 1} more notes)" if len(notes) > 1 else ""
    message = (
        f"{first.message}{more}; this log was already reviewed and is never edited — "
        "write references correctly in the next log"
    )
    return [Problem(path, first.line, "advisory", "reviewed-log", message)]


def _references(
    path: str, refs: SessionRefs, known: Set[str], ordered: list[str], data: bytes
) -> list[Problem]:
    """Ids that exist nowhere, and segments that look like a meant id but are not one (case,
    underscores, spaces): each a warning naming the nearest existing id."""
    found = []
    for written in refs.written:
        if ID.match(written.token):
            continue
        meant = _kebab(written.token)
        if ID.match(meant):
            hint = _nearest([meant, _kebab(written.segment)], known, ordered)
            found.append(
                Problem(
                    path,
                    written.line,
                    "warning",
                    "id-misspelt",
                    f"{written.token!r} is not an id (ids are lowercase kebab-case) and does "
                    f"not count{hint}",
                )
            )
    unknown = sorted(refs.used - known)
    spelt: dict[str, list[str]] = {fact_id: [] for fact_id in unknown}
    lines: dict[str, int] = {}
    for written in refs.written:  # once over the log, however many ids it names
        if written.token in spelt:
            spelt[written.token].append(_kebab(written.segment))
            lines.setdefault(written.token, written.line)
    missing = [fact_id for fact_id in unknown if fact_id not in lines]
    if missing:
        lines.update(_lines_of(data, missing))
    for n, fact_id in enumerate(unknown):
        hint = _nearest([*spelt[fact_id], fact_id], known, ordered) if n < _HINTED else ""
        message = f"references {fact_id!r}, which exists nowhere{hint}"
        found.append(Problem(path, lines.get(fact_id), "warning", "unknown-id", message))
    return found


def _lines_of(data: bytes, wanted: Sequence[str]) -> dict[str, int]:
    """The first line of the references sections naming each of ``wanted`` (the fast reader,
    which most logs take, keeps no lines: lint looks again, for the rare unknown id), in one
    pass over the sections' words."""
    text = data.decode("utf-8", errors="replace").lstrip("\ufeff").replace("\r\n", "\n")
    left, found = set(wanted), {}
    for first, section in reference_sections(text):
        for number, line in enumerate(section, first):
            for word in _WORD.findall(line):
                if word in left:
                    left.discard(word)
                    found[word] = number
    return found


def _kebab(text: str) -> str:
    return re.sub(r"[\s_]+", "-", text.strip().lower())


def _nearest(candidates: Sequence[str], known: Set[str], ordered: list[str]) -> str:
    """ "; did you mean 'x'?" for the first candidate that is, or is close to, an existing id."""
    for candidate in candidates:
        if candidate in known:
            return f"; did you mean {candidate!r}?"
    for candidate in candidates:
        close = difflib.get_close_matches(candidate, ordered, n=1, cutoff=0.75)
        if close:
            return f"; did you mean {close[0]!r}?"
    return ""


def controls(path: str, text: str) -> list[Problem]:
    """A finding per line holding a character a terminal obeys rather than shows (an escape
    sequence's ESC, a bell): every command prints it escaped, but an editor or ``cat`` does not."""
    found: dict[int, str] = {}
    line, counted = 1, 0
    for at, what in controls_in(text):
        line, counted = line + text.count("\n", counted, at), at  # each line break counted once
        found.setdefault(line, what)
    return [
        Problem(
            path,
            line,
            "warning",
            "control-character",
            f"holds the control character {what}, which a terminal obeys; remove it",
        )
        for line, what in found.items()
    ]


def secrets(path: str, text: str) -> list[Problem]:
    """A finding per credential-shaped string: where and what kind, never the text itself
    (the finding is printed, and may end up in a CI log)."""
    return [
        Problem(
            path,
            secret.line,
            "error",
            "secret",
            f"a {secret.kind} at column {secret.start + 1}; remove it, and rotate it if it was "
            "ever committed (git history keeps it)",
        )
        for secret in scan(text)
    ]


def exit_code(findings: Iterable[Problem]) -> int:
    return 1 if any(f.severity == "error" for f in findings) else 0
