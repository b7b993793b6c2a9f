"""The command line: parses options, calls one module of ``commands``, prints, exits.

Each command's module is imported only when that command runs: ``--version`` and ``--help``
then import click alone (importing every command module costs about 25 ms, more than the
whole start-up they would slow down).
"""

from __future__ import annotations

import datetime as dt
import gc
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from . import cli_options as o
from . import resources

if TYPE_CHECKING:
    from .commands.settle import Result


@click.group(context_settings=o.CONTEXT, epilog=o.EPILOG)
@o.version_opt
def main() -> None:
    """Git-committed, vendor-neutral long-term memory for coding agents."""


def entry() -> None:
    """The ``agent-memory`` command: ``main`` with the cycle collector off for the process.

    A run builds many small values that hold no cycles (facts, session references) and exits; the
    collector would only rescan them, a tenth of a full review's time, and once more at exit.
    """
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

            click.echo(error_json(resources.version(), exc.problem))
        sys.exit(1)
    report = result.report
    if as_json:
        click.echo(report.to_json())
    elif report.outcome != "not due":
        for line in report.lines():
            click.echo(line)
        click.echo(result.diff, nl=False)
    sys.exit(result.exit_code)


@main.command()
@o.enable_opts
def enable(
    path: Path, vendors: tuple[str, ...], keep_vendor_files: bool, as_json: bool, **flags: Any
) -> None:
    """Install the memory layer into PATH, migrate what other tools left, or upgrade it in place."""
    from .commands.enable import enable as run
    from .commands.settle import Options

    _run(lambda: run(path, vendors, Options(**flags), keep_vendor_files=keep_vendor_files), as_json)


@main.command()
@o.lint_opts
def lint(path: Path, only: tuple[str, ...], as_json: bool) -> None:
    """Check the memory files of PATH; exit 1 when there is an error.

    Each finding is printed as `path:line: severity [check] message`.
    """
    from .commands.lint import lint as run

    _run(lambda: run(path, only), as_json)


@main.command()
@o.review_opts
def review(
    path: Path, full: bool, if_due: bool, session: Path | None, as_json: bool, **flags: Any
) -> None:
    """Recompute usage and tiers from the session logs; archive, sweep and reactivate facts."""
    if if_due and not as_json:
        from .commands.context import not_due  # a session-start hook: skip the review's imports

        if not_due(path):
            sys.exit(0)
    from .commands.review import ReviewOptions
    from .commands.review import review as run
    from .commands.settle import Options

    progress = None if as_json or not sys.stderr.isatty() else o.progress
    options = Options(**flags, progress=progress)
    _run(lambda: run(path, ReviewOptions(full, if_due, session), options), as_json)


@main.command()
@o.read_opts
def status(path: Path, as_json: bool) -> None:
    """Show versions, facts per tier, and whether a review is due and why."""
    from .commands.status import status as run

    _run(lambda: run(path), as_json)


@main.command()
@o.context_opts
def context(path: Path, max_bytes: int, hook: bool, as_json: bool) -> None:
    """Print what an agent should read at session start: core facts and invariants, open
    threads, active and working facts, and whether a review is due."""
    from .commands.context import context as run

    _run(lambda: run(path, max_bytes, hook), as_json)


@main.group()
def session() -> None:
    """Session logs: the memory's event log."""


@session.command("new")
@o.session_new_opts
def session_new(path: Path, slug: str | None, now: dt.datetime | None, as_json: bool) -> None:
    """Create memory/sessions/<UTC time>[-slug].md from the schema's template; print its path."""
    from .commands.session import session_new as run

    _run(lambda: run(path, slug, now), as_json)


@session.command("capture")
@o.capture_opts
def session_capture(
    path: Path, transcript: Path | None, agent: str | None, hook: bool, as_json: bool
) -> None:
    """Write memory/sessions/<start>-<agent>-<session>.md from an agent's transcript: the ids
    the agent named, the facts it added or changed, the files it changed; never overwrites."""
    from .commands.capture import CaptureOptions
    from .commands.capture import capture as run

    stdin = click.get_text_stream("stdin") if hook and transcript is None else None
    _run(lambda: run(path, CaptureOptions(transcript, agent, stdin)), as_json)


@main.command()
@o.recall_opts
def recall(query: str, path: Path, limit: int, as_json: bool) -> None:
    """Find facts about QUERY in continuity.md and the archive (exit 1 when none match).

    Each line: id, [tier], where it lives (file:line), and its first line.
    """
    from .commands.recall import recall as run

    _run(lambda: run(path, query, limit), as_json)


@main.command("check-logs")
@o.check_logs_opts
def check_logs(path: Path, base: str, as_json: bool) -> None:
    """Fail if a session log that exists at REV was modified or deleted (logs are append-only)."""
    from .commands.check_logs import check_logs as run

    _run(lambda: run(path, base), as_json)


@main.group()
def hooks() -> None:
    """An agent's repo-level hooks: context at session start, capture at its end (HOOKS.md)."""


@hooks.command("install")
@o.hooks_opts
def hooks_install(path: Path, agent: str, as_json: bool, **flags: Any) -> None:
    """Add our hooks to the agent's settings in PATH; every other byte of the file is kept."""
    from .commands.hooks import hooks_install as run

    _run(lambda: run(path, agent, flags), as_json)


@hooks.command("remove")
@o.hooks_opts
def hooks_remove(path: Path, agent: str, as_json: bool, **flags: Any) -> None:
    """Take our hooks out of the agent's settings in PATH, giving back the bytes from before."""
    from .commands.hooks import hooks_remove as run

    _run(lambda: run(path, agent, flags), as_json)
