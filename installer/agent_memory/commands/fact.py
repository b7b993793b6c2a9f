"""``agent-memory fact add``: a fact the review can track, written through the normal plan."""

from __future__ import annotations

import datetime as dt
from typing import NamedTuple

from .. import resources
from ..core.facts.add import add_fact
from ..core.facts.footers import with_fields
from ..core.plan import FileEdit, Outcome, Plan
from ..errors import AgentMemoryError
from ..layout import CONTINUITY
from ..parse import facts, scopes
from ..parse.footer import ids_in
from ..shell.load import archive_files, extra_files, newest_log
from ..shell.repo import Repo
from .cite import cited
from .report import Report, Result
from .settle import Options, not_enabled, review_date, settle


class FactOptions(NamedTuple):
    text: str
    section: str | None = None
    id: str | None = None
    thread: bool = False
    new_section: bool = False  # a section neither continuity.md nor the schema has is meant
    cites: tuple[str, ...] = ()  # FILE[:A-B], each cited as the work tree has it
    until: dt.date | None = None  # valid-until
    paths: tuple[str, ...] = ()  # the globs of its scope


def fact_add(repo: Repo, fact: FactOptions, options: Options) -> Result:
    raw = repo.read(CONTINUITY)
    if raw is None:
        raise not_enabled(repo)
    continuity = facts.parse(CONTINUITY, raw)
    # Ids held elsewhere, found without parsing: the archive may hold thousands of facts.
    elsewhere: dict[str, str] = {}
    for rel, data in (*archive_files(repo), *extra_files(repo)):
        elsewhere.update(ids_in(rel, data.decode("utf-8", errors="replace")))
    day = review_date(options.today, newest_log(repo))
    new = add_fact(
        continuity, elsewhere, fact.text, fact.section, fact.id, fact.thread, day,
        fact.new_section,
    )  # fmt: skip
    if fact.paths and (wrong := scopes.problem(", ".join(fact.paths))) is not None:
        raise AgentMemoryError(f"--paths: {wrong.removeprefix('paths: ')}")
    if fact.cites or fact.until is not None or fact.paths:
        found = cited(repo, fact.cites)
        new = new._replace(after=with_fields(new, found, fact.until, fact.paths))
    reason = f"fact {new.id} added to {new.section} ({new.tier})"
    edit = FileEdit(CONTINUITY, continuity.render(), new.after, Outcome.UPDATED, reason)
    plan = Plan.of([edit])
    settled = settle(repo, [plan], options, "unchanged")
    summary = {"id": new.id, "section": new.section, "tier": new.tier, "created": day.isoformat()}
    # Only the id on stdout, so that `id=$(agent-memory fact add "…")` just works.
    report = Report(
        "fact add", resources.version(), repo.shown, settled.outcome, plan, (), summary, (new.id,)
    )
    return Result(report._replace(show_plan=False), settled.exit_code, settled.diff)
