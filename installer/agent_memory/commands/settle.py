"""What every command shares: its options, its result, and the one place a plan is settled.

``settle`` is the only code that decides between checking, showing and applying a plan; every
writing command ends in it, so ``--check`` and ``--dry-run`` mean the same everywhere. Whether
the run holds the lock is the runner's to decide (``runner.py``), before the command starts.
"""

import datetime as dt
from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple

from ..core.facts.personal import leak, leak_line
from ..core.plan import Plan
from ..errors import AgentMemoryError
from ..layout import PERSONAL, SESSIONS_DIR
from ..parse.facts import Document
from ..parse.memory import Memory
from ..shell.discovery import search
from ..shell.load import archives_naming, load, load_personal
from ..shell.repo import Repo
from .personal import private_or_refuse


class Options(NamedTuple):
    """Options every writing command shares."""

    dry_run: bool = False
    check: bool = False
    today: dt.date | None = None
    wait: float = 0.0
    # Wraps a long list the command walks (the session logs) to show progress; None: silent.
    progress: Callable[[Sequence[str]], Iterable[str]] | None = None


class Settled(NamedTuple):
    plan: Plan  # everything the plans change, as one
    outcome: str  # "changed", "would change", or the command's word for nothing to do
    exit_code: int
    diff: str


def settle(repo: Repo, plans: Iterable[Plan], options: Options, idle: str) -> Settled:
    """Check, show or apply plans meant to land one after the other (most commands have one).

    Each plan is applied before the next is computed, so a run killed in between keeps the ones
    before it (the ladder records each rung in the manifest it writes); ``idle`` names a no-op.
    """
    personal = load_personal(repo)
    if options.check or options.dry_run:
        whole = Plan.chain(list(plans))
        if not whole.writes:
            return Settled(whole, idle, 0, "")
        _refuse_leak(repo, whole, personal)
        repo.check_writes(whole)  # what the real run would refuse, refused now
        if options.check:
            return Settled(whole, "would change", 1, "")
        return Settled(whole, "would change", 0, whole.diff())
    applied = []
    for plan in plans:
        _refuse_leak(repo, plan, personal)
        repo.apply(plan, options.wait)
        applied.append(plan)
    whole = Plan.chain(applied)
    return Settled(whole, "changed" if whole.writes else idle, 0, "")


def _refuse_leak(repo: Repo, plan: Plan, personal: Document | None) -> None:
    """Nothing personal reaches a shared file (DECAY.md § Personal facts), whatever the command:
    no plan names a personal id elsewhere, and the personal file is written only while git
    ignores it and does not track it."""
    if any(edit.path == PERSONAL for edit in plan.writes):
        private_or_refuse(repo)
    if personal is None:
        return
    found = leak(plan.writes, personal, lambda fact_id: _the_team_s(repo, fact_id))
    if found is not None:
        raise AgentMemoryError(leak_line(*found))


def _the_team_s(repo: Repo, fact_id: str) -> bool:
    """Whether the team's memory holds ``fact_id`` too (asked only of an id a plan would name)."""
    return fact_id in load(repo, archives=False).known_ids or bool(archives_naming(repo, [fact_id]))


def memory_of(repo: Repo, *, archives: bool = True) -> tuple[Memory, Document]:
    """The repo's memory and its continuity.md, which every command but enable needs."""
    memory = load(repo, archives=archives)
    if memory.continuity is None:  # gone since the runner looked
        raise not_enabled(repo)
    return memory, memory.continuity


def not_enabled(repo: Repo) -> AgentMemoryError:
    """The one "not enabled" error (``discovery`` words it)."""
    return search(repo.root).not_enabled(repo.shown)


def review_date(day: dt.date, newest: str | None) -> dt.date:
    """The date a writing command stamps, the run's (``Repo.today``), refused when it is before
    the newest session log (its name, ``newest``): facts and reviews dated before logs that
    already exist would count those logs as coming after them."""
    if newest is not None and day.isoformat() < newest[:10]:
        raise AgentMemoryError(
            f"is dated {newest[:10]}, after the review date {day.isoformat()}; pass --today "
            f"{newest[:10]} or later (or fix the clock / SOURCE_DATE_EPOCH)",
            f"{SESSIONS_DIR}/{newest}",
        )
    return day
