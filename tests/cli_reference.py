"""docs/reference.md from the command line's own help: run ``python tests/cli_reference.py``.

Only click's public API on the root group is used (contexts made as ``--help`` makes them,
groups walked through ``list_commands``/``get_command``), so the page follows the help wherever
the commands are declared. ``tests/test_docs.py`` fails when the page and the help differ.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import click

PAGE = Path(__file__).resolve().parents[1] / "docs/reference.md"
COMMAND = "python tests/cli_reference.py"
WIDTH = 80  # the help as an 82-column terminal shows it, whatever terminal runs this

HEADER = f"""# Command reference

Every command's `--help`, as the command line prints it. This page is generated: run
`{COMMAND}` after changing a command's help; `tests/test_docs.py` fails until
the two agree. The guides say when to use each command: [usage](usage.md),
[teams and branches](teams.md), [agents](agents.md), [adopting a repo](adopting.md).
"""


def _contexts(
    command: click.Command, name: str, parent: click.Context | None
) -> Iterator[click.Context]:
    """The context of ``command`` and, for a group, of every command under it, by name."""
    ctx = command.make_context(
        name, [], parent=parent, resilient_parsing=True, terminal_width=WIDTH
    )
    yield ctx
    if isinstance(command, click.Group):
        for sub in sorted(command.list_commands(ctx)):
            child = command.get_command(ctx, sub)
            if child is not None and not child.hidden:
                yield from _contexts(child, sub, ctx)


def render() -> str:
    """The whole page: a header, then each command's help in a text block."""
    from agent_memory.cli.app import main

    parts = [HEADER]
    for ctx in _contexts(main, "agent-memory", None):
        text = "\n".join(line.rstrip() for line in ctx.get_help().splitlines())
        parts.append(f"## `{ctx.command_path}`\n\n```text\n{text}\n```\n")
    return "\n".join(parts)


if __name__ == "__main__":
    sys.path.insert(0, str(PAGE.parents[1] / "installer"))
    PAGE.parent.mkdir(exist_ok=True)
    PAGE.write_text(render())
    print(f"wrote {PAGE.relative_to(PAGE.parents[1])}")
