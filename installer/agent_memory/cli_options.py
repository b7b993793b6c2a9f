"""The command line's options, defined once: ``cli.py`` holds the commands that use them.

Only click is imported here, so that ``--version`` and ``--help`` stay cheap (see cli.py).
"""

from __future__ import annotations

import datetime as dt
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

import click

AGENT_NAMES = ("claude", "codex", "gemini")


def _parse_today(_ctx: click.Context, _param: click.Parameter, value: str | None) -> dt.date | None:
    if value is None:
        return None
    from .parse.dates import parse_date  # only when --today is given

    day = parse_date(value)
    if day is None:
        raise click.BadParameter(f"{value!r} is not a date; use YYYY-MM-DD")
    return day


def _parse_now(_ctx: click.Context, _param: click.Parameter, value: str | None) -> Any:
    if value is None:
        return None
    try:
        moment = dt.datetime.fromisoformat(value)
    except ValueError:
        raise click.BadParameter(f"{value!r} is not a time; use YYYY-MM-DDTHH:MM:SS") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.timezone.utc)


repo_arg = click.argument(
    "path", type=click.Path(file_okay=False, path_type=Path), default=".", required=False
)
today_opt = click.option(
    "--today",
    callback=_parse_today,
    metavar="YYYY-MM-DD",
    help="Date to use instead of today (default: SOURCE_DATE_EPOCH, else the UTC date).",
)
json_opt = click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
dry_run_opt = click.option(
    "--dry-run", is_flag=True, help="Print the plan and a unified diff; write nothing."
)
check_opt = click.option(
    "--check", is_flag=True, help="Write nothing; exit 1 if the command would change anything."
)
wait_opt = click.option(
    "--wait",
    type=click.FloatRange(min=0),
    default=0.0,
    metavar="SECONDS",
    help="Wait up to SECONDS for another run's lock instead of failing at once.",
)


def writing_options(command: Callable[..., None]) -> Callable[..., None]:
    """--check, --dry-run, --json, --today and --wait: the options of every writing command."""
    for option in reversed((check_opt, dry_run_opt, json_opt, today_opt, wait_opt)):
        command = option(command)
    return command


vendor_opt = click.option(
    "--vendor",
    "vendors",
    multiple=True,
    type=click.Choice(["claude", "gemini", "cursor", "copilot", "none"]),
    help="Bootstrap for this vendor (repeatable; default: claude and gemini; 'none' for none).",
)
keep_vendor_files_opt = click.option(
    "--keep-vendor-files",
    is_flag=True,
    help="Migration (mode C): only add pointer blocks; leave every vendor file's text in place.",
)
full_opt = click.option("--full", is_flag=True, help="Recompute every fact from every session log.")
if_due_opt = click.option(
    "--if-due", is_flag=True, help="Do nothing (exit 0, quietly) unless a review is due."
)
session_opt = click.option(
    "--session",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE",
    help="Append the summary to FILE, the newest session log, unless it already has one.",
)
slug_opt = click.option("--slug", metavar="TEXT", help="Add -TEXT to the name (kebab-cased).")
now_opt = click.option(
    "--now",
    callback=_parse_now,
    metavar="YYYY-MM-DDTHH:MM:SS",
    help="Time to name the log by instead of now (UTC unless an offset is given).",
)
limit_opt = click.option(
    "--limit",
    type=click.IntRange(min=1),
    default=10,
    show_default=True,
    help="List at most this many facts.",
)
base_opt = click.option(
    "--base",
    default="HEAD",
    show_default=True,
    metavar="REV",
    help="Git revision to compare with (a pre-commit hook: HEAD; CI: the target branch).",
)
max_bytes_opt = click.option(
    "--max-bytes",
    type=click.IntRange(min=256),
    default=8192,
    show_default=True,
    help="Print at most this many bytes; facts that do not fit are counted, not shown.",
)
transcript_opt = click.option(
    "--transcript",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE",
    help="The agent's transcript (JSON lines) to write the log from.",
)
transcript_agent_opt = click.option(
    "--agent",
    type=click.Choice(AGENT_NAMES),
    help="Whose transcript it is (default: recognised from its first record).",
)
hook_opt = click.option(
    "--hook", is_flag=True, help="Run as an agent's hook: read or answer its JSON (HOOKS.md)."
)
hooks_agent_opt = click.option(
    "--agent", type=click.Choice(AGENT_NAMES), required=True, help="The agent whose hooks."
)


Command = TypeVar("Command", bound=Callable[..., None])
CONTEXT: dict[str, Any] = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
EPILOG = (
    "Everyday flow: `agent-memory enable` once per repo; at the end of each session "
    "`agent-memory session new` for the log, then `agent-memory review --if-due` — or let "
    "the agent's hooks do it: `agent-memory hooks install --agent NAME`."
)


def bundle(*decorators: Callable[[Any], Any]) -> Callable[[Command], Command]:
    """The options of one command as one decorator, in the order they are listed in --help."""

    def apply(command: Command) -> Command:
        for decorator in reversed(decorators):
            command = decorator(command)
        return command

    return apply


def _version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        from . import resources

        click.echo(f"agent-memory {resources.version()}")
        ctx.exit(0)


version_opt = click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_version,
    help="Print the tool's version and exit.",
)
enable_opts = bundle(repo_arg, vendor_opt, keep_vendor_files_opt, writing_options)
review_opts = bundle(repo_arg, full_opt, if_due_opt, session_opt, writing_options)
read_opts = bundle(repo_arg, json_opt)
only_opt = click.option(
    "--only", multiple=True, metavar="CHECK", help="Report only this check (repeatable): secret, …"
)
lint_opts = bundle(repo_arg, only_opt, json_opt)
context_opts = bundle(repo_arg, max_bytes_opt, hook_opt, json_opt)
session_new_opts = bundle(repo_arg, slug_opt, now_opt, json_opt)
capture_opts = bundle(repo_arg, transcript_opt, transcript_agent_opt, hook_opt, json_opt)
recall_opts = bundle(click.argument("query"), repo_arg, limit_opt, json_opt)
check_logs_opts = bundle(repo_arg, base_opt, json_opt)
hooks_opts = bundle(repo_arg, hooks_agent_opt, writing_options)


def progress(names: Sequence[str]) -> Iterator[str]:
    """A progress bar on stderr for long walks, shown only on a terminal (never when piped)."""
    if len(names) < 500:
        yield from names
        return
    with click.progressbar(names, label="reading session logs", file=sys.stderr) as bar:
        yield from bar
