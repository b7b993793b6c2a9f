"""``agent-memory fact add``: a fact the review can track, written through the normal plan."""

import datetime as dt
from collections.abc import Sequence
from typing import NamedTuple

from ..core.facts import personal
from ..core.facts.add import add_fact, past_until
from ..core.facts.conflicts import Conflict
from ..core.facts.duplicates import Match
from ..core.plan import FileEdit, Outcome, Plan
from ..errors import AgentMemoryError
from ..layout import CONTINUITY, PERSONAL
from ..parse import facts, scopes
from ..parse.cites import render_value
from ..shell.load import elsewhere, newest_log
from ..shell.repo import Repo
from .personal import target
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
    personal: bool = False  # in memory/personal.md (DECAY.md § Personal facts)


def fact_add(repo: Repo, fact: FactOptions, options: Options) -> Result:
    raw = repo.read(CONTINUITY)
    if raw is None:
        raise not_enabled(repo)
    path, raw, before = target(repo, raw, fact.personal)
    section = fact.section
    if fact.personal:
        section = section or (None if fact.thread else personal.DEFAULT_SECTION)
    continuity = facts.parse(path, raw)
    day = review_date(repo.today, newest_log(repo))
    beside = elsewhere(repo, CONTINUITY if fact.personal else PERSONAL)
    new = add_fact(
        continuity, beside, fact.text, section, fact.id, fact.thread, day, fact.new_section,
        imported=_fields(repo, fact),
    )  # fmt: skip
    reason = f"fact {new.id} added to {new.section} ({new.tier})"
    edit = FileEdit(path, before, new.after, Outcome.written(before), reason)
    plan = Plan.of([edit])
    settled = settle(repo, [plan], options, "unchanged")
    summary: dict[str, object] = {
        "id": new.id,
        "path": path,
        "section": new.section,
        "tier": new.tier,
        "created": day.isoformat(),
        "similar": [match._asdict() for match in new.similar],
        "conflicts": [conflict_json(c) for c in new.conflicts],
    }
    # Only the id on stdout, so that `id=$(agent-memory fact add "…")` just works.
    report = Report("fact add", repo.shown, settled.outcome, plan, (), summary, (new.id,))
    notes = similar_lines(new.similar) + conflict_lines(new.conflicts)
    if fact.until is not None and fact.until < day:
        notes += (past_until(new.id, fact.until, day, path) or "",)
    return Result(report._replace(show_plan=False), settled.exit_code, settled.diff, notes)


def _fields(repo: Repo, fact: FactOptions) -> dict[str, str]:
    """The new fact's ``--until``, ``--paths`` and ``--cite`` footer fields. Citing's modules
    are loaded only when a fact cites: 19M instructions, which a plain ``fact add`` (320M)
    cannot spare under its goal of 1.5x ``--version``."""
    if fact.paths and (wrong := scopes.problem(", ".join(fact.paths))) is not None:
        raise AgentMemoryError(f"--paths: {wrong.removeprefix('paths: ')}")
    fields = {"valid-until": fact.until.isoformat()} if fact.until is not None else {}
    if fact.paths:
        fields["paths"] = ", ".join(fact.paths)
    if fact.cites:
        from .cite import cited

        fields["cites"] = render_value(cited(repo, fact.cites))
    return fields


def similar_lines(similar: Sequence[Match]) -> tuple[str, ...]:
    """What a person is told of the facts a new one is much like: each, and the way back for an
    archived one."""
    return tuple(
        f"similar: {m.id} ({m.path}:{m.line}, {m.similarity:.2f}): {m.first_line}"
        + (f" — archived; agent-memory fact restore {m.id} brings it back" if m.archived else "")
        for m in similar
    )


def conflict_lines(found: Sequence[Conflict]) -> tuple[str, ...]:
    """What a person is told of the live facts a new one may contradict (DECAY.md §
    Contradictions)."""
    return tuple(
        f"conflict: {c.other.id} ({c.other.path}:{c.other.line}, {c.kind} {c.detail}): "
        f"{c.other.first_line}"
        for c in found
    )


def conflict_json(c: Conflict) -> dict[str, object]:
    """A conflict of a new fact as ``--json`` and MCP give it: the fact held, and what differs."""
    return {
        "id": c.other.id,
        "path": c.other.path,
        "line": c.other.line,
        "kind": c.kind,
        "detail": c.detail,
        "similarity": c.similarity,
        "first_line": c.other.first_line,
    }
