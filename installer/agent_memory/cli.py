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

from . import resources

if TYPE_CHECKING:
    from .commands.settle import Result


def _version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        click.echo(f"agent-memory {resources.version()}")
        ctx.exit(0)


def _parse_today(_ctx: click.Context, _param: click.Parameter, value: str | None) -> dt.date | None:
    if value is None:
        return None
    from .parse.dates import parse_date  # only when --today is given

    day = parse_date(value)
    if day is None:
        raise click.BadParameter(f"{value!r} is not a date; use YYYY-MM-DD")
    return day


_repo_arg = click.argument(
    "path", type=click.Path(file_okay=False, path_type=Path), default=".", required=False
)
_today_opt = click.option(
    "--today",
    callback=_parse_today,
    metavar="YYYY-MM-DD",
    help="Date to use instead of today (default: SOURCE_DATE_EPOCH, else the UTC date).",
)
_json_opt = click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
_dry_run_opt = click.option(
    "--dry-run", is_flag=True, help="Print the plan and a unified diff; write nothing."
)
_check_opt = click.option(
    "--check", is_flag=True, help="Write nothing; exit 1 if the command would change anything."
)
_wait_opt = click.option(
    "--wait",
    type=click.FloatRange(min=0),
    default=0.0,
    metavar="SECONDS",
    help="Wait up to SECONDS for another run's lock instead of failing at once.",
)


@click.group(
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
    epilog=(
        "Everyday flow: `agent-memory enable` once per repo; at the end of each session "
        "`agent-memory session new` for the log, then `agent-memory review --if-due`."
    ),
)
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_version,
    help="Print the tool's version and exit.",
)
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


def _progress(names: Sequence[str]) -> Iterator[str]:
    """A progress bar on stderr for long walks, shown only on a terminal (never when piped)."""
    if len(names) < 500:
        yield from names
        return
    with click.progressbar(names, label="reading session logs", file=sys.stderr) as bar:
        yield from bar


def _writing_options(command: Callable[..., None]) -> Callable[..., None]:
    """--check, --dry-run, --json, --today and --wait: the options of every writing command."""
    for option in reversed((_check_opt, _dry_run_opt, _json_opt, _today_opt, _wait_opt)):
        command = option(command)
    return command


@main.command()
@_repo_arg
@click.option(
    "--vendor",
    "vendors",
    multiple=True,
    type=click.Choice(["claude", "gemini", "cursor", "copilot", "none"]),
    help="Bootstrap for this vendor (repeatable; default: claude and gemini; 'none' for none).",
)
@click.option(
    "--keep-vendor-files",
    is_flag=True,
    help="Migration (mode C): only add pointer blocks; leave every vendor file's text in place.",
)
@_writing_options
def enable(
    path: Path, vendors: tuple[str, ...], keep_vendor_files: bool, as_json: bool, **flags: Any
) -> None:
    """Install the memory layer into PATH, migrate what other tools left, or upgrade it in place."""
    from .commands.enable import enable as run
    from .commands.settle import Options

    options = Options(**flags)
    _run(lambda: run(path, vendors, options, keep_vendor_files=keep_vendor_files), as_json)


@main.command()
@_repo_arg
@_json_opt
def lint(path: Path, as_json: bool) -> None:
    """Check the memory files of PATH; exit 1 when there is an error.

    Each finding is printed as `path:line: severity [check] message`.
    """
    from .commands.lint import lint as run

    _run(lambda: run(path), as_json)


@main.command()
@_repo_arg
@click.option("--full", is_flag=True, help="Recompute every fact from every session log.")
@click.option("--if-due", is_flag=True, help="Do nothing (exit 0, quietly) unless a review is due.")
@click.option(
    "--session",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE",
    help="Append the summary to FILE, the newest session log, unless it already has one.",
)
@_writing_options
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
@_repo_arg
@_json_opt
def status(path: Path, as_json: bool) -> None:
    """Show versions, facts per tier, and whether a review is due and why."""
    from .commands.status import status as run

    _run(lambda: run(path), as_json)


@main.group()
def session() -> None:
    """Session logs: the memory's event log."""


def _parse_now(_ctx: click.Context, _param: click.Parameter, value: str | None) -> Any:
    if value is None:
        return None
    try:
        moment = dt.datetime.fromisoformat(value)
    except ValueError:
        raise click.BadParameter(f"{value!r} is not a time; use YYYY-MM-DDTHH:MM:SS") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.timezone.utc)


@session.command("new")
@_repo_arg
@click.option("--slug", metavar="TEXT", help="Add -TEXT to the name (kebab-cased).")
@click.option(
    "--now",
    callback=_parse_now,
    metavar="YYYY-MM-DDTHH:MM:SS",
    help="Time to name the log by instead of now (UTC unless an offset is given).",
)
@_json_opt
def session_new(path: Path, slug: str | None, now: dt.datetime | None, as_json: bool) -> None:
    """Create memory/sessions/<UTC time>[-slug].md from the schema's template; print its path."""
    from .commands.session import session_new as run

    _run(lambda: run(path, slug, now), as_json)


@main.command()
@click.argument("query")
@_repo_arg
@click.option(
    "--limit",
    type=click.IntRange(min=1),
    default=10,
    show_default=True,
    help="List at most this many facts.",
)
@_json_opt
def recall(query: str, path: Path, limit: int, as_json: bool) -> None:
    """Find facts about QUERY in continuity.md and the archive (exit 1 when none match).

    Each line: id, [tier], where it lives (file:line), and its first line.
    """
    from .commands.recall import recall as run

    _run(lambda: run(path, query, limit), as_json)


@main.command("check-logs")
@_repo_arg
@click.option(
    "--base",
    default="HEAD",
    show_default=True,
    metavar="REV",
    help="Git revision to compare with (a pre-commit hook: HEAD; CI: the target branch).",
)
@_json_opt
def check_logs(path: Path, base: str, as_json: bool) -> None:
    """Fail if a session log that exists at REV was modified or deleted (logs are append-only)."""
    from .commands.check_logs import check_logs as run

    _run(lambda: run(path, base), as_json)


class _ServeByDefault(click.Group):
    """``mcp [PATH]`` serves; ``mcp install``/``mcp remove`` are subcommands (a repo folder named
    like one is passed as ``./install``)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args or (args[0] not in self.commands and args[0] not in ("-h", "--help")):
            args = ["serve", *args]
        return super().parse_args(ctx, args)


@main.group(cls=_ServeByDefault)
def mcp() -> None:
    """Serve the memory to agents as MCP tools (needs the extra: pip install 'agent-memory[mcp]').

    `agent-memory mcp [PATH]` runs the stdio server; MCP.md lists its tools.
    """


@mcp.command("serve")
@_repo_arg
@click.option(
    "--wait",
    type=click.FloatRange(min=0),
    default=5.0,
    show_default=True,
    metavar="SECONDS",
    help="How long a tool call waits for another run's lock before it reports that run.",
)
def mcp_serve(path: Path, wait: float) -> None:
    """Run the MCP server for PATH on stdin/stdout until the client disconnects."""
    from .commands.mcp import serve as run

    _run(lambda: run(path, wait), False)


_agent_opt = click.option(
    "--agent",
    "agents",
    multiple=True,
    required=True,
    type=click.Choice(["claude", "codex", "gemini"]),
    help="The agent whose repo-level MCP configuration to change (repeatable).",
)


@mcp.command("install")
@_repo_arg
@_agent_opt
@_check_opt
@_dry_run_opt
@_json_opt
@_wait_opt
def mcp_install(path: Path, agents: tuple[str, ...], as_json: bool, **flags: Any) -> None:
    """Register `agent-memory mcp` in each agent's MCP configuration for PATH (MCP.md lists the
    files); every other key of the file is kept."""
    from .commands.mcp_install import mcp_install as run
    from .commands.settle import Options

    _run(lambda: run(path, agents, Options(**flags), removing=False), as_json)


@mcp.command("remove")
@_repo_arg
@_agent_opt
@_check_opt
@_dry_run_opt
@_json_opt
@_wait_opt
def mcp_remove(path: Path, agents: tuple[str, ...], as_json: bool, **flags: Any) -> None:
    """Take exactly the entry `mcp install` wrote out of each agent's MCP configuration."""
    from .commands.mcp_install import mcp_install as run
    from .commands.settle import Options

    _run(lambda: run(path, agents, Options(**flags), removing=True), as_json)
