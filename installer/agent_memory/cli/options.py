"""The options the commands share, defined once (options only, no commands)."""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from .. import resources
from ..layout import CONTEXT_BYTES, CONTEXT_MIN_BYTES


def _version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        click.echo(f"agent-memory {resources.version()}")
        ctx.exit(0)


version = click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_version,
    help="Print the tool's version and exit.",
)


def parse_today(_ctx: click.Context, _param: click.Parameter, value: str | None) -> dt.date | None:
    if value is None:
        epoch = os.environ.get("SOURCE_DATE_EPOCH")
        if epoch:  # checked here so that a bad value is a usage error (exit 2), never ignored
            from ..parse.dates import epoch_date

            if epoch_date(epoch) is None:
                raise click.UsageError(
                    f"SOURCE_DATE_EPOCH={epoch[:40]!r} is not a time; use whole seconds since "
                    "1970 (ASCII digits, a representable date) or unset it"
                )
        return None
    from ..parse.dates import parse_date  # only when --today is given

    day = parse_date(value)
    if day is None:
        raise click.BadParameter(f"{value!r} is not a date; use YYYY-MM-DD")
    return day


repo_arg = click.argument(
    "path", type=click.Path(file_okay=False, path_type=Path), default=".", required=False
)
today_opt = click.option(
    "--today",
    callback=parse_today,
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


Decorator = Callable[[Callable[..., None]], Callable[..., None]]


def _all(*options: Decorator) -> Decorator:
    """The options in the order given (as if stacked in that order above the function)."""

    def apply(command: Callable[..., None]) -> Callable[..., None]:
        for option in reversed(options):
            command = option(command)
        return command

    return apply


# --check, --dry-run, --json, --today and --wait: the options of every writing command.
writing_options = _all(check_opt, dry_run_opt, json_opt, today_opt, wait_opt)
read = _all(repo_arg, json_opt)


def parse_now(_ctx: click.Context, _param: click.Parameter, value: str | None) -> Any:
    if value is None:
        return None
    try:
        moment = dt.datetime.fromisoformat(value)
        moment = moment if moment.tzinfo else moment.replace(tzinfo=dt.timezone.utc)
        moment.astimezone(dt.timezone.utc)  # 9999-12-31T23:59:59-14:00 is past year 9999
    except (ValueError, OverflowError):
        raise click.BadParameter(f"{value!r} is not a time; use YYYY-MM-DDTHH:MM:SS") from None
    return moment


_MAX_SLUG = 80  # a log's name stays far below the file systems' 255-byte limit


def check_slug(_ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    if value is not None and len(value.encode("utf-8", errors="replace")) > _MAX_SLUG:
        raise click.BadParameter(f"is longer than {_MAX_SLUG} bytes; use a short kebab-case word")
    return value


enable = _all(
    repo_arg,
    click.option(
        "--vendor",
        "vendors",
        multiple=True,
        type=click.Choice(["claude", "gemini", "cursor", "copilot", "none"]),
        help="Bootstrap for this vendor (repeatable; default: claude and gemini; 'none' for none).",
    ),
    click.option(
        "--keep-vendor-files",
        is_flag=True,
        help=(
            "Migration (mode C): only add pointer blocks; leave every vendor file's text in place."
        ),
    ),
    writing_options,
)
review = _all(
    repo_arg,
    click.option("--full", is_flag=True, help="Recompute every fact from every session log."),
    click.option(
        "--if-due", is_flag=True, help="Do nothing (exit 0, quietly) unless a review is due."
    ),
    click.option(
        "--session",
        type=click.Path(dir_okay=False, path_type=Path),
        metavar="FILE",
        help="Append the summary to FILE, the newest session log, unless it already has one.",
    ),
    writing_options,
)
session_new = _all(
    repo_arg,
    click.option(
        "--slug", callback=check_slug, metavar="TEXT", help="Add -TEXT to the name (kebab-cased)."
    ),
    click.option(
        "--now",
        callback=parse_now,
        metavar="YYYY-MM-DDTHH:MM:SS",
        help="Time to name the log by instead of now (UTC unless an offset is given).",
    ),
    json_opt,
)
recall = _all(
    click.argument("query"),
    repo_arg,
    click.option(
        "--limit",
        type=click.IntRange(min=1),
        default=10,
        show_default=True,
        help="List at most this many facts.",
    ),
    json_opt,
)
check_logs = _all(
    repo_arg,
    click.option(
        "--base",
        default="HEAD",
        show_default=True,
        metavar="REV",
        help="Git revision to compare with (a pre-commit hook: HEAD; CI: the target branch).",
    ),
    json_opt,
)
fact_add = _all(
    click.argument("text"),
    repo_arg,
    click.option(
        "--section",
        metavar="S",
        help="Section to add it to (default: Key Decisions): one continuity.md has, or one of "
        "the schema's; any other is refused as a likely typo unless --new-section is given.",
    ),
    click.option(
        "--new-section",
        is_flag=True,
        help="Start section S when continuity.md has none by that name.",
    ),
    click.option("--id", "fact_id", metavar="ID", help="Its id (default: derived from its words)."),
    click.option(
        "--thread", is_flag=True, help="An open thread `- [ ]` (default: in Open Threads)."
    ),
    writing_options,
)
explain = _all(
    click.argument("fact_id", metavar="ID"),
    repo_arg,
    click.option(
        "--full", is_flag=True, help="Read every session log and list each that names it."
    ),
    today_opt,
    json_opt,
)
AGENT_NAMES = ("claude", "codex", "gemini")
hook_opt = click.option(
    "--hook", is_flag=True, help="Run as an agent's hook: read or answer its JSON (HOOKS.md)."
)
lint = _all(
    repo_arg,
    click.option(
        "--only",
        multiple=True,
        metavar="CHECK",
        help="Report only this check (repeatable): secret, …",
    ),
    json_opt,
)
context = _all(
    repo_arg,
    click.option(
        "--max-bytes",
        type=click.IntRange(min=CONTEXT_MIN_BYTES),
        default=CONTEXT_BYTES,
        show_default=True,
        help="Print at most this many bytes; facts that do not fit are counted, not shown.",
    ),
    hook_opt,
    json_opt,
)
capture = _all(
    repo_arg,
    click.option(
        "--transcript",
        type=click.Path(dir_okay=False, path_type=Path),
        metavar="FILE",
        help="The agent's transcript (JSON lines) to write the log from.",
    ),
    click.option(
        "--agent",
        type=click.Choice(AGENT_NAMES),
        help="Whose transcript it is (default: recognised from its first record).",
    ),
    hook_opt,
    json_opt,
    click.option(
        "--wait",
        type=click.FloatRange(min=0),
        default=None,
        metavar="SECONDS",
        help="Wait up to SECONDS for another run's lock (default: 0; with --hook, 1.5, which "
        "fits Codex's 3 s limit on a session-end hook).",
    ),
)
hooks = _all(
    repo_arg,
    click.option(
        "--agent", type=click.Choice(AGENT_NAMES), required=True, help="The agent whose hooks."
    ),
    writing_options,
)
disable = _all(
    repo_arg,
    click.option(
        "--keep-memory/--remove-memory",
        default=True,
        help=(
            "Keep memory/ (the default), or take it out too, every file copied first to "
            ".agent/backup/disable-<date>/memory/."
        ),
    ),
    writing_options,
)
mcp_registration = _all(
    repo_arg,
    click.option(
        "--agent",
        "agents",
        multiple=True,
        required=True,
        type=click.Choice(AGENT_NAMES),
        help="The agent whose repo-level MCP configuration to change (repeatable).",
    ),
    check_opt,
    dry_run_opt,
    json_opt,
    wait_opt,
)
