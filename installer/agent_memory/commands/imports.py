"""``agent-memory import SOURCE``: what an agent remembers on its own, made facts of the team's
memory through the same function as ``fact add`` (MIGRATE.md § Importing an agent's memory).

The secret check runs on every file of the source before anything else; an entry whose text a
fact already has is skipped and reported (a second import adds nothing); one that cannot be a
fact stops the import with one line naming its file and line, and nothing is written.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Sequence
from typing import Any

from ..core.facts.add import NewFact
from ..core.facts.bulk import Wanted, add_all
from ..core.facts.elsewhere import Elsewhere, duplicates
from ..core.facts.imports import Entry, entries
from ..core.plan import FileEdit, Outcome, Plan
from ..core.secrets import refuse_source
from ..errors import InputError
from ..layout import CONTINUITY, PERSONAL
from ..parse import facts
from ..parse.facts import Document
from ..parse.footer import safe_value
from ..parse.untrusted import one_line
from ..shell import sources
from ..shell.load import elsewhere, newest_log
from ..shell.repo import Repo
from .fact import similar_lines
from .personal import target
from .report import Report, Result
from .settle import Options, not_enabled, review_date, settle


def import_memory(
    repo: Repo, kind: str, given: str | None, options: Options, personal: bool = False
) -> Result:
    """``given``: the source's folder or file (None: where its agent keeps it); ``personal``:
    into the personal file (DECAY.md § Personal facts), an entry the team has skipped."""
    raw = repo.read(CONTINUITY)
    if raw is None:
        raise not_enabled(repo)
    path, raw, old = target(repo, raw, personal)
    day = review_date(repo.today, newest_log(repo))
    source = sources.read(kind, repo, given, os.environ)
    _refuse_secrets(source, kind)
    roots = () if source.own else [str(root) for root in sources.repo_roots(repo.root)]
    try:
        found = entries(kind, source.files, roots, day)
    except InputError as exc:
        inside = exc.path and kind in sources.FOLDERS
        where = f"{source.shown}/{exc.path}" if inside else source.shown
        raise InputError(where, exc.line, exc.wrong, _FIX) from None
    before = facts.parse(path, raw)
    beside = elsewhere(repo, CONTINUITY if personal else PERSONAL)
    after, added, skipped = _add_all(before, beside, found, day, source.shown)
    edit = FileEdit(path, old, after.render(), Outcome.written(old), _reason(kind, added))
    plan = Plan.of([edit] if added else [])
    settled = settle(repo, [plan], options, "unchanged")
    summary: dict[str, Any] = {
        "source": kind,
        "from": source.shown,
        "entries": len(found),
        "added": [_added(new, entry) for new, entry in added],
        "skipped": [{"origin": e.origin, "line": e.line, "existing": i} for e, i in skipped],
    }
    text = [
        *(f"added {new.id} ({new.section}) from {one_line(e.origin)}" for new, e in added),
        *(f"skipped {one_line(e.origin)}:{e.line}: already {i}" for e, i in skipped),
        f"{len(added)} facts added, {len(skipped)} already known, from {len(found)} entries",
    ]
    report = Report(
        "import",
        repo.shown,
        settled.outcome,
        plan,
        (),
        summary,
        (),
        tuple(text),
    )
    notes = tuple(line for new, _e in added for line in similar_lines(new.similar))
    return Result(report, settled.exit_code, settled.diff, notes)


_FIX = "fix the source or name another with --from, then import again"


def _refuse_secrets(source: sources.Source, kind: str) -> None:
    """The secret check runs first: a source holding a credential is refused whole."""
    for name, data in source.files:
        where = f"{source.shown}/{name}" if kind in sources.FOLDERS else source.shown
        refuse_source(where, data, "remove it from the source, then import again")


def _add_all(
    doc: Document, others: Elsewhere, found: Sequence[Entry], day: dt.date, shown: str
) -> tuple[Document, list[tuple[NewFact, Entry]], list[tuple[Entry, str]]]:
    """Each entry added in turn, each checked against the memory and the entries before it."""
    known: list[tuple[int, str]] = []  # a body that is already a fact, its name put before it
    kept: list[int] = []
    for index, entry in enumerate(found):
        same = duplicates(entry.body, doc, others).same if entry.body else None
        if same is None:
            kept.append(index)
        else:
            known.append((index, same.id))
    after, added, skipped = add_all(doc, others, [_wanted(found[i]) for i in kept], day, shown)
    skipped_all = sorted([*known, *((kept[i], same) for i, same in skipped)])
    return (
        after,
        [(new, found[kept[i]]) for i, new in added],
        [(found[i], x) for i, x in skipped_all],
    )


def _wanted(e: Entry) -> Wanted:
    fields = {**e.fields, "origin": safe_value(e.origin)}
    where = one_line(f"{e.origin}:{e.line}")
    return Wanted(e.text, e.section, e.wanted_id, e.task == " ", e.task == "x", fields, where)


def _added(new: NewFact, entry: Entry) -> dict[str, Any]:
    return {
        "id": new.id,
        "section": new.section,
        "tier": new.tier,
        "origin": entry.origin,
        "similar": [match._asdict() for match in new.similar],
    }


def _reason(kind: str, added: Sequence[tuple[NewFact, Entry]]) -> str:
    return f"{len(added)} facts imported from {kind}"
