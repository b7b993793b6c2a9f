"""``agent-memory fact share``: the one way a personal fact becomes the team's (DECAY.md §
Personal facts)."""

from __future__ import annotations

from ..core.facts import personal_edits as personal
from ..core.facts.add import add_fact
from ..core.facts.curate import locate
from ..core.plan import FileEdit, Outcome, Plan
from ..errors import AgentMemoryError
from ..layout import CONTINUITY, PERSONAL
from ..parse import facts
from ..shell.load import elsewhere, load_personal, newest_log
from ..shell.repo import Repo
from .report import Report, Result
from .settle import Options, not_enabled, review_date, settle


def fact_share(repo: Repo, fact_id: str, options: Options) -> Result:
    """Move a personal fact into continuity.md, as ``fact add`` would write it there (its id,
    its text, its section; a duplicate or a taken id refused), in one plan."""
    raw = repo.read(CONTINUITY)
    if raw is None:
        raise not_enabled(repo)
    mine = load_personal(repo)
    if mine is None:
        raise AgentMemoryError(f"{PERSONAL} does not exist; fact add --personal writes it")
    place = locate([mine], fact_id)
    if place.fields.get("tier") in ("archived", "superseded"):
        raise AgentMemoryError(
            f"{fact_id!r} is {place.fields['tier']} in {PERSONAL}; fact restore {fact_id} first, "
            "if the team should have it"
        )
    continuity = facts.parse(CONTINUITY, raw)
    day = review_date(repo.today, newest_log(repo))
    section = place.fact.section
    known = {s.title.lower() for s in continuity.sections}
    new = add_fact(
        continuity,
        elsewhere(repo, None),
        personal.text_of(place),
        section,
        fact_id,
        place.fact.task == " ",
        day,
        new_section=section.lower() not in known,
        imported=personal.shared_fields(place),
        checked=place.fact.task in ("x", "X"),
    )
    reason = f"fact share: {fact_id}"
    left = personal.without(place).encode()
    edits = [
        FileEdit(CONTINUITY, continuity.render(), new.after, Outcome.UPDATED, reason),
        FileEdit(PERSONAL, mine.render(), left, Outcome.UPDATED, reason),
    ]
    plan = Plan.of(edits)
    settled = settle(repo, [plan], options, "unchanged")
    said = f"{fact_id} shared: now in {CONTINUITY} § {new.section} ({new.tier})"
    shared = facts.parse(CONTINUITY, new.after)
    fields = next(dict(f.fields) for f in shared.facts if f.id == fact_id)
    summary = {"id": fact_id, "path": CONTINUITY, "footer": fields, "message": said}
    name = "fact share"
    report = Report(name, repo.shown, settled.outcome, plan, (), summary)
    return Result(report._replace(closing=(said,)), settled.exit_code, settled.diff)
