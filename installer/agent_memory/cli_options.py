"""The options the commands share, defined once for ``cli.py`` (options only, no commands)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click


def parse_today(_ctx: click.Context, _param: click.Parameter, value: str | None) -> dt.date | None:
    if value is None:
        return None
    from .parse.dates import parse_date  # only when --today is given

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


def writing_options(command: Callable[..., None]) -> Callable[..., None]:
    """--check, --dry-run, --json, --today and --wait: the options of every writing command."""
    for option in reversed((check_opt, dry_run_opt, json_opt, today_opt, wait_opt)):
        command = option(command)
    return command


def parse_now(_ctx: click.Context, _param: click.Parameter, value: str | None) -> Any:
    if value is None:
        return None
    try:
        moment = dt.datetime.fromisoformat(value)
    except ValueError:
        raise click.BadParameter(f"{value!r} is not a time; use YYYY-MM-DDTHH:MM:SS") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.timezone.utc)
