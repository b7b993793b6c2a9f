"""The command line: parses options (``cli_options``), calls one module of ``commands``, prints.

A command's module is imported only when it runs: ``--version`` and ``--help`` import click
alone (importing every command module costs about 25 ms, more than the whole start-up).
"""

from __future__ import annotations

import datetime as dt
import gc
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from . import cli_options as opts
from . import resources

if TYPE_CHECKING:
    from .commands.settle import Result


@click.group(
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
    epilog=(
        "Everyday flow: `agent-memory enable` once per repo; at the end of each session "
        "`agent-memory session new` for the log, then `agent-memory review --if-due`."
    ),
)
@opts.version
def main() -> None:
    """Git-committed, vendor-neutral long-term memory for coding agents."""


def entry() -> None:
    """``main`` with the cycle collector off: a run builds many small values without cycles and
    exits; the collector would only rescan them (a tenth of a full review's time)."""
    gc.disable()
    main(prog_name="agent-memory")


def _run(call: Callable[[], Result], as_json: bool) -> None:
    """Run a command and print its report; a user-facing error is one line on stderr, exit 1
    (and, with --json, one document on stdout that says so)."""
    from .errors import AgentMemoryError

    try:
        result = call()
    except AgentMemoryError as exc:
        click.echo(f"agent-memory: {exc}", err=True)
        if as_json:
            from .commands.report import error_json

            ctx = click.get_current_context()
            command = ctx.command_path.split(" ", 1)[-1]
            repo = str(ctx.params.get("path", ""))
            click.echo(error_json(command, resources.version(), repo, exc.problem))
        sys.exit(1)
    report = result.report
    if as_json:
        click.echo(report.to_json())
    elif report.outcome != "not due":
        for line in report.lines():
            click.echo(line)
        click.echo(result.diff, nl=False)
    sys.exit(result.exit_code)


def _progress(names: Sequence[str]) -> Iterator[str]:
    """A progress bar on stderr for long walks, shown only on a terminal (never when piped)."""
    if len(names) < 500:
        yield from names
        return
    with click.progressbar(names, label="reading session logs", file=sys.stderr) as bar:
        yield from bar


@main.command()
@opts.enable
def enable(
    path: Path, vendors: tuple[str, ...], keep_vendor_files: bool, as_json: bool, **flags: Any
) -> None:
    """Install the memory layer into PATH, migrate what other tools left, or upgrade it in place."""
    from .commands.enable import enable as run
    from .commands.settle import Options

    options = Options(**flags)
    _run(lambda: run(path, vendors, options, keep_vendor_files=keep_vendor_files), as_json)


@main.command()
@opts.read
def lint(path: Path, as_json: bool) -> None:
    """Check the memory files of PATH (`path:line: severity [check] message`); exit 1 on errors."""
    from .commands.lint import lint as run

    _run(lambda: run(path), as_json)


@main.command()
@opts.review
def review(
    path: Path, full: bool, if_due: bool, session: Path | None, as_json: bool, **flags: Any
) -> None:
    """Recompute usage and tiers from the session logs; archive, sweep and reactivate facts."""
    from .commands.review import ReviewOptions
    from .commands.review import review as run
    from .commands.settle import Options

    progress = None if as_json or not sys.stderr.isatty() else _progress
    options = Options(**flags, progress=progress)
    review_options = ReviewOptions(full=full, if_due=if_due, session=session)
    _run(lambda: run(path, review_options, options), as_json)


@main.command()
@opts.read
def status(path: Path, as_json: bool) -> None:
    """Show versions, facts per tier, and whether a review is due and why."""
    from .commands.status import status as run

    _run(lambda: run(path), as_json)


@main.group()
def session() -> None:
    """Session logs: the memory's event log."""


@session.command("new")
@opts.session_new
def session_new(path: Path, slug: str | None, now: dt.datetime | None, as_json: bool) -> None:
    """Create memory/sessions/<UTC time>[-slug].md from the schema's template; print its path."""
    from .commands.session import session_new as run

    _run(lambda: run(path, slug, now), as_json)


@main.command()
@opts.recall
def recall(query: str, path: Path, limit: int, as_json: bool) -> None:
    """Find facts about QUERY in continuity.md and the archive: id, [tier], file:line, first line
    (exit 1 when none match)."""
    from .commands.recall import recall as run

    _run(lambda: run(path, query, limit), as_json)


@main.command("check-logs")
@opts.check_logs
def check_logs(path: Path, base: str, as_json: bool) -> None:
    """Fail if a session log that exists at REV was modified or deleted (logs are append-only)."""
    from .commands.check_logs import check_logs as run

    _run(lambda: run(path, base), as_json)


@main.group()
def fact() -> None:
    """Facts in memory/continuity.md."""


@fact.command("add")
@opts.fact_add
def fact_add(
    text: str, path: Path, section: str | None, fact_id: str | None, thread: bool, **flags: Any
) -> None:
    """Add TEXT as a fact the review tracks (id, created today, tier working); print its id."""
    from .commands.fact import FactOptions
    from .commands.fact import fact_add as run
    from .commands.settle import Options

    as_json = flags.pop("as_json")
    new = FactOptions(text, section, fact_id, thread)
    _run(lambda: run(path, new, Options(**flags)), as_json)


@main.command()
@opts.explain
def explain(fact_id: str, path: Path, full: bool, today: Any, as_json: bool) -> None:
    """Why fact ID has its tier: its events, the DECAY rule that matched, and what comes next."""
    from .commands.explain import explain as run

    _run(lambda: run(path, fact_id, full, today), as_json)


@main.command()
@opts.disable
def disable(path: Path, as_json: bool, **flags: Any) -> None:
    """Take out what enable installed (blocks, managed files, stamp); memory/ is kept."""
    from .commands.disable import disable as run
    from .commands.settle import Options

    _run(lambda: run(path, Options(**flags)), as_json)
