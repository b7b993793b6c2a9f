"""The click command line, built from the table of command lines (``table.py``).

Each declared line becomes a click command with the same options, help and checks it declares;
its callback builds the call and hands it to the runner, which prints nothing itself.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, NoReturn

import click

from ..commands.runner import answer
from . import options as checks
from .base import main, progress_bar
from .declared import GROUPS, Declared, Kind, Param
from .table import LINES

__all__ = ["assemble", "main"]


def _type(param: Param) -> Any:
    kind = param.kind
    if kind is Kind.FOLDER:
        return click.Path(file_okay=False, path_type=Path)
    if kind is Kind.FILE:
        return click.Path(dir_okay=False, path_type=Path)
    if kind is Kind.ANY_PATH:
        return click.Path(path_type=Path)
    if kind is Kind.COUNT:
        return click.IntRange(min=param.low)
    if kind is Kind.SECONDS:
        return click.FloatRange(min=0)
    if kind is Kind.CHOICE:
        return click.Choice(param.choices)
    return None


_CALLBACKS = {
    Kind.DATE: checks.parse_today,
    Kind.MOMENT: checks.parse_now,
    Kind.SLUG: checks.check_slug,
    Kind.SECONDS: checks.check_seconds,
}


def _parameter(param: Param) -> click.Parameter:
    # click tells "no default" from ``default=None`` (a required value then goes missing
    # silently): only what is declared is passed.
    extra: dict[str, Any] = {} if param.default is None else {"default": param.default}
    if not param.flags:
        return click.Argument(
            [param.name], type=_type(param), required=param.required, metavar=param.metavar,
            callback=_CALLBACKS.get(param.kind), nargs=-1 if param.multiple else 1, **extra,
        )  # fmt: skip
    if param.kind is Kind.SWITCH:
        on, off = param.flags
        return click.Option([f"{on}/{off}", param.name], help=param.help, **extra)
    if param.kind is Kind.FLAG:
        return click.Option([*param.flags, param.name], is_flag=True, help=param.help)
    return click.Option(
        [*param.flags, param.name],
        type=_type(param),
        required=param.required,
        multiple=param.multiple,
        metavar=param.metavar,
        help=param.help,
        show_default=param.show_default,
        callback=_CALLBACKS.get(param.kind),
        **extra,
    )


def _command(line: Declared) -> click.Command:
    def callback(**values: Any) -> NoReturn:
        as_json = bool(values.get("as_json"))
        terminal = line.progress and not as_json and sys.stderr.isatty()
        given, call = line.build(values, progress_bar if terminal else None)
        said = answer(line.command, given, call, as_json)
        click.echo(said.err, err=True, nl=False)
        click.echo(said.out, nl=False)
        sys.exit(said.code)

    params = [_parameter(p) for p in line.params]
    return click.Command(line.words[-1], callback=callback, params=params, help=line.help)


class _ServeByDefault(click.Group):
    """``mcp [PATH]`` serves; ``mcp install``/``mcp remove`` are subcommands (a repo folder named
    like one is passed as ``./install``)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args or (args[0] not in self.commands and args[0] not in ("-h", "--help")):
            args = ["serve", *args]
        return super().parse_args(ctx, args)


class _FactGroup(click.Group):
    """``fact remove`` and its kin name the commands a fact leaves by, not the nearest
    spelling (click offered ``restore``, the opposite)."""

    _LEAVE = ("remove", "delete", "rm", "del", "drop", "forget")

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        if args and args[0] in self._LEAVE and args[0] not in self.commands:
            raise click.UsageError(
                f"No such command {args[0]!r}. A fact leaves by 'fact retract ID --reason WHY' "
                "(no longer true) or 'fact archive ID' (true, not needed now).",
                ctx,
            )
        return super().resolve_command(ctx, args)


def _group(words: tuple[str, ...]) -> click.Group:
    kinds: dict[tuple[str, ...], type[click.Group]] = {
        ("mcp",): _ServeByDefault,
        ("fact",): _FactGroup,
    }
    cls = kinds.get(words, click.Group)
    return cls(words[-1], help=GROUPS[words])


_assembled: list[bool] = []


def assemble() -> None:
    """Hang every declared command on the root group (once)."""
    if _assembled:
        return
    _assembled.append(True)
    groups: dict[tuple[str, ...], click.Group] = {}
    for line in LINES:
        parent: click.Group = main
        for depth in range(1, len(line.words)):
            words = line.words[:depth]
            if words not in groups:
                groups[words] = _group(words)
                parent.add_command(groups[words])
            parent = groups[words]
        parent.add_command(_command(line))


assemble()
