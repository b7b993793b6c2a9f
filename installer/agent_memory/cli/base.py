"""The group every command hangs on, and click's own ways of talking to the user: usage errors
with ``--json``, and the progress bar.

Each command's module is imported only when that command runs: ``--version`` and ``--help``
then import click alone (importing every command module costs about 25 ms, more than the
whole start-up they would slow down).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NoReturn

import click

from . import options as opts


class _Group(click.Group):
    """The root group: a usage error (exit 2) with ``--json`` on the command line also prints
    the error document on stdout, as every other error does; click's text stays on stderr."""

    def make_context(
        self,
        info_name: str | None,
        args: list[str],
        parent: click.Context | None = None,
        **extra: Any,
    ) -> click.Context:
        argv = list(args)  # parsing consumes the list it is given
        try:
            ctx = super().make_context(info_name, args, parent, **extra)
        except click.UsageError as exc:
            _usage_json(exc, argv)
        ctx.meta[_ARGV] = argv
        return ctx

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except click.UsageError as exc:
            _usage_json(exc, ctx.meta.get(_ARGV, []))

    # The commands are built from the table the first time one is asked for, so that
    # ``--version`` (answered while the options are parsed) never imports the table: ``load``
    # is set by the entry point (``cli/__init__.py``), above both this module and ``app``.
    load: Callable[[], object] = staticmethod(lambda: None)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        self.load()
        return super().get_command(ctx, cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        self.load()
        return super().list_commands(ctx)


_ARGV = "agent_memory.argv"


def _usage_json(exc: click.UsageError, argv: Sequence[str]) -> NoReturn:
    """Print the error document when ``--json`` was given (before any ``--``), then let click
    report the usage error as it always does."""
    words = argv[: argv.index("--")] if "--" in argv else argv
    if "--json" in words:
        from ..commands.report import error_json
        from ..errors import Problem

        ctx = exc.ctx
        command = " ".join(ctx.command_path.split(" ")[1:]) if ctx is not None else ""
        repo = ctx.params.get("path") if ctx is not None else None
        problem = Problem("", None, "error", "usage", exc.format_message())
        click.echo(error_json(command, str(repo or ""), problem))
    raise exc


@click.group(
    cls=_Group,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
    epilog=(
        "Everyday flow: `agent-memory enable` once per repo; at the end of each session "
        "`agent-memory session new` for the log, then `agent-memory review --if-due`."
    ),
)
@opts.version
def main() -> None:
    """Git-committed, vendor-neutral long-term memory for coding agents."""


def progress_bar(names: Sequence[str]) -> Iterator[str]:
    """A progress bar on stderr for long walks, shown only on a terminal (never when piped)."""
    if len(names) < 500:
        yield from names
        return
    with click.progressbar(names, label="reading session logs", file=sys.stderr) as bar:
        yield from bar
