"""What click needs beyond the table of command lines: ``--version``, and the checks of the values
whose errors click words (``--today``, ``--now``, ``--slug``, ``--wait``)."""

from __future__ import annotations

import datetime as dt
import math
from typing import Any

import click

from .. import resources
from ..layout import MAX_SLUG, slug_fits


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
    """A ``--today`` or ``--until`` date; unset, it is None (the runner works out the date:
    ``shell/clock.py``, where a SOURCE_DATE_EPOCH that is not a time is refused)."""
    if value is None:
        return None
    from ..parse.dates import parse_date  # only when --today is given

    day = parse_date(value)
    if day is None:
        raise click.BadParameter(f"{value!r} is not a date; use YYYY-MM-DD")
    return day


def parse_now(_ctx: click.Context, _param: click.Parameter, value: str | None) -> Any:
    if value is None:
        return None
    from ..parse.dates import parse_moment

    moment = parse_moment(value)
    if moment is None:
        raise click.BadParameter(f"{value!r} is not a time; use YYYY-MM-DDTHH:MM:SS")
    return moment


def check_slug(_ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    if value is not None and not slug_fits(value):
        raise click.BadParameter(f"is longer than {MAX_SLUG} bytes; use a short kebab-case word")
    return value


def check_seconds(
    _ctx: click.Context, _param: click.Parameter, value: float | None
) -> float | None:
    """click's FloatRange(min=0) takes ``nan`` (no comparison holds) and ``inf``: a lock
    awaited forever."""
    if value is not None and not math.isfinite(value):
        raise click.BadParameter(f"{value} is not a number of seconds; use one such as 1.5")
    return value
