"""What every command shares: its options, its result, and the one place a plan is settled.

``settle`` is the only code that decides between checking, showing and applying a plan; every
writing command ends in it, so ``--check`` and ``--dry-run`` mean the same everywhere.
"""

from __future__ import annotations

import contextlib
import datetime as dt
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import NamedTuple

from ..core.plan import Plan
from ..errors import AgentMemoryError
from ..layout import CONTINUITY, SESSIONS_DIR
from ..parse.dates import today
from ..parse.facts import Document
from ..parse.memory import Memory
from ..shell.load import load
from ..shell.repo import Repo


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


@contextlib.contextmanager
def guarded(repo: Repo, options: Options) -> Iterator[None]:
    """A run that may write holds the lock from its first read to its last write, so two runs
    never plan on the same state; --check and --dry-run write nothing, so they refuse to read a
    tree that an interrupted run left half-written (``agent-memory recover`` rolls it back)."""
    if options.check or options.dry_run:
        repo.refuse_if_interrupted()
        yield
    else:
        with repo.locked(options.wait):
            yield


def settle(repo: Repo, plans: Iterable[Plan], options: Options, idle: str) -> Settled:
    """Check, show or apply plans meant to land one after the other (most commands have one).

    Each plan is applied before the next is computed, so a run killed in between keeps the ones
    before it (the ladder records each rung in the manifest it writes); ``idle`` names a no-op.
    """
    if options.check or options.dry_run:
        whole = Plan.chain(list(plans))
        if not whole.writes:
            return Settled(whole, idle, 0, "")
        repo.check_writes(whole)  # what the real run would refuse, refused now
        if options.check:
            return Settled(whole, "would change", 1, "")
        return Settled(whole, "would change", 0, whole.diff())
    applied = []
    for plan in plans:
        repo.apply(plan, options.wait)
        applied.append(plan)
    whole = Plan.chain(applied)
    return Settled(whole, "changed" if whole.writes else idle, 0, "")


def memory_of(repo: Repo, *, archives: bool = True) -> tuple[Memory, Document]:
    """The repo's memory and its continuity.md, which every command but enable needs."""
    require_enabled(repo)
    memory = load(repo, archives=archives)
    if memory.continuity is None:
        raise NOT_ENABLED
    return memory, memory.continuity


NOT_ENABLED = AgentMemoryError(
    "not found: this is not an agent-memory repo; run agent-memory enable first", CONTINUITY
)


def review_date(explicit: dt.date | None, newest: str | None) -> dt.date:
    """The date a writing command stamps (``--today``), refused when it is before the newest
    session log (its name, ``newest``): facts and reviews dated before logs that already exist
    would count those logs as coming after them."""
    day = today(explicit)
    if newest is not None and day.isoformat() < newest[:10]:
        raise AgentMemoryError(
            f"is dated {newest[:10]}, after the review date {day.isoformat()}; pass --today "
            f"{newest[:10]} or later (or fix the clock / SOURCE_DATE_EPOCH)",
            f"{SESSIONS_DIR}/{newest}",
        )
    return day


def require_enabled(repo: Repo) -> None:
    """Refuse, before writing anything, a repo that was never enabled: every command but
    enable works only inside one (outside, lint would find nothing wrong and session new would
    create memory/ where nobody reads it). A repo whose continuity.md is missing while a journal
    is pending may be an interrupted enable: that says so instead (and writes nothing)."""
    if not repo.exists(CONTINUITY):
        repo.refuse_if_interrupted()
        raise NOT_ENABLED
