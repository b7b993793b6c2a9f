"""Commands on session logs and the git history: session new / capture, check-logs, merge-file."""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path

import click

from . import options as opts
from .base import execute, main


@main.group()
def session() -> None:
    """Session logs: the memory's event log."""


@session.command("new")
@opts.session_new
def session_new(path: Path, slug: str | None, now: dt.datetime | None, as_json: bool) -> None:
    """Create memory/sessions/<UTC time>[-slug].md from the schema's template; print its path."""
    from ..commands.session import session_new as run

    execute(lambda: run(path, slug, now), as_json)


@session.command("capture")
@opts.capture
def session_capture(
    path: Path, transcript: Path | None, agent: str | None, hook: bool, as_json: bool
) -> None:
    """Write memory/sessions/<start>-<agent>-<session>.md from an agent's transcript: the ids
    the agent named, the facts it added or changed, the files it changed; never overwrites."""
    from ..commands.capture import CaptureOptions
    from ..commands.capture import capture as run

    stdin = sys.stdin if hook and transcript is None else None
    execute(lambda: run(path, CaptureOptions(transcript, agent, stdin)), as_json)


@main.command("check-logs")
@opts.check_logs
def check_logs(path: Path, base: str, as_json: bool) -> None:
    """Fail if a session log that exists at REV was modified or deleted (logs are append-only)."""
    from ..commands.check_logs import check_logs as run

    execute(lambda: run(path, base), as_json)


@main.command("merge-file")
@click.argument("base", type=click.Path(path_type=Path))
@click.argument("ours", type=click.Path(path_type=Path))
@click.argument("theirs", type=click.Path(path_type=Path))
@click.argument("path")
@opts.json_opt
def merge_file(base: Path, ours: Path, theirs: Path, path: str, as_json: bool) -> None:
    """Git merge driver: merge BASE, OURS and THEIRS of memory file PATH by fact id, into OURS.

    Configured by `enable` as `agent-memory merge-file %O %A %B %P`; exit 1 when a fact was
    changed differently on both sides (marked alone, as git marks conflicts).
    """
    from ..commands.merge_file import merge_file as run

    execute(lambda: run(base, ours, theirs, path), as_json)
