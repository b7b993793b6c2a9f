"""The command line: parses options, calls ``commands``, prints, exits. Nothing else lives here."""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path
from typing import Any

import click

from . import resources


def _version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        click.echo(f"agent-memory {resources.version()}")
        ctx.exit(0)


def _parse_today(_ctx: click.Context, _param: click.Parameter, value: str | None) -> dt.date | None:
    if value is None:
        return None
    from .dates import parse_date

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


def _finish(result: Any, as_json: bool) -> None:
    report = result.report
    if as_json:
        click.echo(report.to_json())
    else:
        _print_text(report)
        if result.diff:
            click.echo(result.diff, nl=False)
    sys.exit(result.exit_code)


def _print_text(report: Any) -> None:
    summary = report.summary
    if report.command == "enable":
        if report.outcome == "up to date":
            click.echo(f"agent-memory {summary['current']}: {report.repo} is up to date")
            return
        verb = {"changed": "enabled", "would change": "would enable"}[report.outcome]
        mode = summary["mode"]
        click.echo(f"agent-memory {summary['current']}: {verb} {report.repo} (mode {mode})")
    if report.command != "review" or report.outcome != "not due":
        for line in report.plan_lines():
            click.echo(line)
    for finding in report.findings:
        click.echo(str(finding))
    if report.command == "status":
        tiers = ", ".join(f"{n} {t}" for t, n in summary["tiers"].items()) or "none"
        click.echo(f"installed {summary['installed']}, tool {summary['tool']}")
        click.echo(f"facts: {summary['facts']} ({tiers})")
        click.echo(
            f"continuity.md: {summary['decaying_facts']}/{summary['max_facts']} decaying facts, "
            f"{summary['lines']}/{summary['max_lines']} lines"
        )
        click.echo(
            f"last review: {summary['last_review'] or 'never'}; "
            f"{summary['sessions_since_review']} of {summary['sessions']} session logs since "
            f"(review_every: {summary['review_every']})"
        )
        click.echo(
            f"archive: {summary['archived_facts']} facts in {summary['archive_files']} files"
        )
        click.echo(
            "review: due — " + "; ".join(summary["due"]) if summary["due"] else "review: not due"
        )
        return
    if report.command == "review":
        if report.outcome == "not due":
            return
        click.echo(summary["markdown"], nl=False)
        for reason in summary["due"]:
            click.echo(f"(due: {reason})")
        if report.outcome == "unchanged":
            click.echo("nothing to change")
    if report.command == "lint":
        s = summary
        click.echo(f"{s['error']} errors, {s['warning']} warnings, {s['advisory']} advisories")


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
    "--check", is_flag=True, help="Write nothing; exit 1 if enable would change anything."
)
@_dry_run_opt
@_json_opt
@_today_opt
@_wait_opt
def enable(
    path: Path,
    vendors: tuple[str, ...],
    check: bool,
    dry_run: bool,
    as_json: bool,
    today: dt.date | None,
    wait: float,
) -> None:
    """Install the memory layer into PATH, or upgrade it in place, or report it up to date."""
    from . import commands

    options = commands.Options(dry_run=dry_run, check=check, today=today, wait=wait)
    _run(lambda: commands.enable(path, vendors, options), as_json)


def _run(call: Any, as_json: bool) -> None:
    """Run a command; a user-facing error becomes one line on stderr and exit 1."""
    from .errors import AgentMemoryError

    try:
        result = call()
    except AgentMemoryError as exc:
        click.echo(f"agent-memory: {exc}", err=True)
        sys.exit(1)
    _finish(result, as_json)


@main.command()
@_repo_arg
@_json_opt
def lint(path: Path, as_json: bool) -> None:
    """Check the memory files of PATH; exit 1 when there is an error.

    Each finding is printed as `path:line: severity [check] message`.
    """
    from . import commands

    _run(lambda: commands.lint(path), as_json)


@main.command()
@_repo_arg
@click.option("--full", is_flag=True, help="Recompute every fact from every session log.")
@click.option("--if-due", is_flag=True, help="Do nothing (exit 0, quietly) unless a review is due.")
@click.option(
    "--check", is_flag=True, help="Write nothing; exit 1 if a review would change anything."
)
@click.option(
    "--session",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE",
    help="Append the summary to FILE, the newest session log, unless it already has one.",
)
@_dry_run_opt
@_json_opt
@_today_opt
@_wait_opt
def review(
    path: Path,
    full: bool,
    if_due: bool,
    check: bool,
    session: Path | None,
    dry_run: bool,
    as_json: bool,
    today: dt.date | None,
    wait: float,
) -> None:
    """Recompute usage and tiers from the session logs; archive, sweep and reactivate facts."""
    from . import commands

    options = commands.Options(dry_run=dry_run, check=check, today=today, wait=wait)
    review_options = commands.ReviewOptions(full=full, if_due=if_due, session=session)
    _run(lambda: commands.review(path, review_options, options), as_json)


@main.command()
@_repo_arg
@_json_opt
def status(path: Path, as_json: bool) -> None:
    """Show versions, facts per tier, and whether a review is due and why."""
    from . import commands

    _run(lambda: commands.status(path), as_json)
