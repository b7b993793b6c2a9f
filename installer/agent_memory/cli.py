"""The command line: parses options, calls one module of ``commands``, prints, exits.

Each command's module is imported only when that command runs: ``--version`` and ``--help``
then import click alone (importing every command module costs about 25 ms, more than the
whole start-up they would slow down).
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
    except (AgentMemoryError, OSError) as exc:
        # An OSError the shell did not name (it rolls back before it raises) is still one line.
        error = exc if isinstance(exc, AgentMemoryError) else _os_error(exc)
        click.echo(f"agent-memory: {error}", err=True)
        if as_json:
            from .commands.report import error_json

            ctx = click.get_current_context()
            command = ctx.command_path.split(" ", 1)[-1]
            repo = str(ctx.params.get("path", ""))
            click.echo(error_json(command, resources.version(), repo, error.problem))
        sys.exit(1)
    report = result.report
    if as_json:
        click.echo(report.to_json())
    elif report.outcome != "not due":
        for line in report.lines():
            click.echo(line)
        click.echo(result.diff, nl=False)
    sys.exit(result.exit_code)


def _os_error(exc: OSError) -> Any:
    from .shell.files import os_error

    return os_error(exc, str(exc.filename or "repo"))


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
@opts.lint
def lint(path: Path, only: tuple[str, ...], as_json: bool) -> None:
    """Check the memory files of PATH; exit 1 when there is an error.

    Each finding is printed as `path:line: severity [check] message`.
    """
    from .commands.lint import lint as run

    _run(lambda: run(path, only), as_json)


@main.command()
@opts.context
def context(path: Path, max_bytes: int, hook: bool, as_json: bool) -> None:
    """Print what an agent should read at session start: core facts and invariants, open
    threads, active and working facts, and whether a review is due."""
    from .commands.context import context as run

    _run(lambda: run(path, max_bytes, hook), as_json)


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
    """Find facts about QUERY in continuity.md and the archive (exit 1 when none match).

    Each line: id, [tier], where it lives (file:line), and its first line.
    """
    from .commands.recall import recall as run

    _run(lambda: run(path, query, limit), as_json)


@main.command("check-logs")
@opts.check_logs
def check_logs(path: Path, base: str, as_json: bool) -> None:
    """Fail if a session log that exists at REV was modified or deleted (logs are append-only)."""
    from .commands.check_logs import check_logs as run

    _run(lambda: run(path, base), as_json)


@main.command()
@opts.repo_arg
@opts.wait_opt
@opts.json_opt
def recover(path: Path, wait: float, as_json: bool) -> None:
    """Roll back the plan an interrupted run left half-applied (its journal), and nothing else.

    Every writing command does this first; read-only ones (lint, status, recall, --check,
    --dry-run) never write, so they refuse while a journal is present.
    """
    from .commands.recover import recover as run

    _run(lambda: run(path, wait), as_json)


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


@session.command("capture")
@opts.capture
def session_capture(
    path: Path, transcript: Path | None, agent: str | None, hook: bool, as_json: bool
) -> None:
    """Write memory/sessions/<start>-<agent>-<session>.md from an agent's transcript: the ids
    the agent named, the facts it added or changed, the files it changed; never overwrites."""
    from .commands.capture import CaptureOptions
    from .commands.capture import capture as run

    stdin = click.get_text_stream("stdin") if hook and transcript is None else None
    _run(lambda: run(path, CaptureOptions(transcript, agent, stdin)), as_json)


@main.group()
def hooks() -> None:
    """An agent's repo-level hooks: context at session start, capture at its end (HOOKS.md)."""


@hooks.command("install")
@opts.hooks
def hooks_install(path: Path, agent: str, as_json: bool, **flags: Any) -> None:
    """Add our hooks to the agent's settings in PATH; every other byte of the file is kept."""
    from .commands.hooks import hooks_install as run

    _run(lambda: run(path, agent, flags), as_json)


@hooks.command("remove")
@opts.hooks
def hooks_remove(path: Path, agent: str, as_json: bool, **flags: Any) -> None:
    """Take our hooks out of the agent's settings in PATH, giving back the bytes from before."""
    from .commands.hooks import hooks_remove as run

    _run(lambda: run(path, agent, flags), as_json)


@main.command("merge-file")
@click.argument("base", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("ours", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("theirs", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("path")
@opts.json_opt
def merge_file(base: Path, ours: Path, theirs: Path, path: str, as_json: bool) -> None:
    """Git merge driver: merge BASE, OURS and THEIRS of memory file PATH by fact id, into OURS.

    Configured by `enable` as `agent-memory merge-file %O %A %B %P`; exit 1 when a fact was
    changed differently on both sides (marked alone, as git marks conflicts).
    """
    from .commands.merge_file import merge_file as run

    _run(lambda: run(base, ours, theirs, path), as_json)
