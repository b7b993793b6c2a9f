"""``lint``: every problem in a repo's memory files, as ``path:line: severity [check] message``."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

from ..errors import InputError, Problem
from ..layout import CONTINUITY, SESSIONS_DIR
from ..parse.facts import Document, conflict_markers, id_clashes
from ..parse.manifest import parse as parse_manifest
from ..parse.memory import Memory
from ..parse.sessions import read_refs
from .supersede_lint import superseded_since, supersession_problems
from .triggers import due_reasons

_SEVERITY_ORDER = {"error": 0, "warning": 1, "advisory": 2}


def lint(
    memory: Memory,
    manifest: tuple[str, bytes | None],
    logs: Iterable[tuple[str, bytes]],
    texts: Iterable[tuple[str, bytes]],
) -> list[Problem]:
    """All findings, sorted by file, line and check; ``texts`` are files to scan for conflicts."""
    found: list[Problem] = list(memory.problems)
    found += _manifest(*manifest)
    for path, data in texts:
        found += conflict_markers(path, data.decode("utf-8", errors="replace"))
    docs = memory.documents
    found += _facts(docs)
    found += supersession_problems(docs)
    found += _logs(memory, logs, docs)
    found += [
        Problem(
            CONTINUITY,
            None,
            "advisory",
            "review-due",
            f"a review is due: {reason}; run agent-memory review",
        )
        for reason in due_reasons(memory.continuity, memory.logs, memory.policy)
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


def _facts(docs: Sequence[Document]) -> list[Problem]:
    """Facts the review cannot track (no id) and ids that are not unique."""
    found = [
        Problem(
            doc.path,
            fact.line,
            "warning",
            "fact-no-id",
            "fact has no id footer; the review cannot track it",
        )
        for doc in docs
        if doc.path == CONTINUITY
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
    memory: Memory, logs: Iterable[tuple[str, bytes]], docs: Sequence[Document]
) -> list[Problem]:
    """Misnamed logs, unreadable references, unknown ids, and an id created twice."""
    known = {f.id for doc in docs for f in doc.facts if f.id is not None}
    replaced = superseded_since(docs)
    found = [
        Problem(
            f"{SESSIONS_DIR}/{name}",
            None,
            "warning",
            "session-name",
            "not named YYYY-MM-DD-HHMMSS[-slug].md; the review ignores it",
        )
        for name in memory.stray_logs
    ]
    created_in: dict[str, list[str]] = defaultdict(list)
    for name, data in logs:
        refs = read_refs(data)
        path = f"{SESSIONS_DIR}/{name}"
        found += conflict_markers(path, data.decode("utf-8", errors="replace"))
        found += [warning._replace(path=path) for warning in refs.warnings]
        named = refs.used | {i for pair in refs.superseded for i in pair}
        found += [
            Problem(path, None, "warning", "unknown-id", f"references {i!r}, which exists nowhere")
            for i in sorted(named - known)
        ]
        found += [
            Problem(path, None, "warning", "superseded", f"references {i!r}, superseded by {by}")
            for i in sorted(refs.used)
            if i in replaced and name[:10] > replaced[i][1]
            for by in (replaced[i][0],)
        ]
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


def exit_code(findings: Iterable[Problem]) -> int:
    return 1 if any(f.severity == "error" for f in findings) else 0
