"""Commands on the memory itself: review, status, lint, context, recall, explain, fact add."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from . import options as opts
from .base import execute, main, progress_bar


@main.command()
@opts.review
def review(
    path: Path, full: bool, if_due: bool, session: Path | None, as_json: bool, **flags: Any
) -> None:
    """Recompute usage and tiers from the session logs; archive, sweep and reactivate facts."""
    from ..commands.review_entry import review_unless_quiet
    from ..commands.settle import Options

    progress = None if as_json or not sys.stderr.isatty() else progress_bar
    options = Options(**flags, progress=progress)
    execute(lambda: review_unless_quiet(path, full, if_due, session, options), as_json)


@main.command()
@opts.read
def status(path: Path, as_json: bool) -> None:
    """Show versions, facts per tier, and whether a review is due and why."""
    from ..commands.status import status as run

    execute(lambda: run(path), as_json)


@main.command()
@opts.lint
def lint(path: Path, only: tuple[str, ...], as_json: bool) -> None:
    """Check the memory files of PATH; exit 1 when there is an error.

    Each finding is printed as `path:line: severity [check] message`.
    """
    from ..commands.lint import lint as run

    execute(lambda: run(path, only), as_json)


@main.command()
@opts.context
def context(path: Path, max_bytes: int, hook: bool, as_json: bool) -> None:
    """Print what an agent should read at session start: core facts and invariants, open
    threads, active and working facts, and whether a review is due."""
    from ..commands.context import context as run

    execute(lambda: run(path, max_bytes, hook), as_json)


@main.command()
@opts.recall
def recall(query: str, path: Path, limit: int, as_json: bool) -> None:
    """Find facts about QUERY in continuity.md and the archive (exit 1 when none match).

    Each line: id, [tier], where it lives (file:line), and its first line.
    """
    from ..commands.recall import recall as run

    execute(lambda: run(path, query, limit), as_json)


@main.command()
@opts.explain
def explain(fact_id: str, path: Path, full: bool, today: Any, as_json: bool) -> None:
    """Why fact ID has its tier: its events, the DECAY rule that matched, and what comes next."""
    from ..commands.explain import explain as run

    execute(lambda: run(path, fact_id, full, today), as_json)


@main.group()
def fact() -> None:
    """Facts in memory/continuity.md."""


@fact.command("add")
@opts.fact_add
def fact_add(
    text: str,
    path: Path,
    section: str | None,
    new_section: bool,
    fact_id: str | None,
    thread: bool,
    **flags: Any,
) -> None:
    """Add TEXT as a fact the review tracks (id, created today, tier working); print its id."""
    from ..commands.fact import FactOptions
    from ..commands.fact import fact_add as run
    from ..commands.settle import Options

    as_json = flags.pop("as_json")
    new = FactOptions(text, section, fact_id, thread, new_section)
    execute(lambda: run(path, new, Options(**flags)), as_json)
