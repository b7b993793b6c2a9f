"""The MCP server's commands: serve (the default), install and remove its registration."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from . import options as opts
from .base import execute, main


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
@opts.repo_arg
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
    from ..commands.mcp.serve import serve as run

    execute(lambda: run(path, wait), False)


@mcp.command("install")
@opts.mcp_registration
def mcp_install(path: Path, agents: tuple[str, ...], as_json: bool, **flags: Any) -> None:
    """Register `agent-memory mcp` in each agent's MCP configuration for PATH (MCP.md lists the
    files); every other key of the file is kept."""
    from ..commands.mcp.install import mcp_install as run
    from ..commands.settle import Options

    execute(lambda: run(path, agents, Options(**flags), removing=False), as_json)


@mcp.command("remove")
@opts.mcp_registration
def mcp_remove(path: Path, agents: tuple[str, ...], as_json: bool, **flags: Any) -> None:
    """Take exactly the entry `mcp install` wrote out of each agent's MCP configuration."""
    from ..commands.mcp.install import mcp_install as run
    from ..commands.settle import Options

    execute(lambda: run(path, agents, Options(**flags), removing=True), as_json)
