"""docs/reference.md from the command line's own help, and MCP.md's schemas from the MCP tools
the declarations make: run ``python tests/cli_reference.py``.

Only click's public API on the root group is used (contexts made as ``--help`` makes them,
groups walked through ``list_commands``/``get_command``), so the page follows the help wherever
the commands are declared. In MCP.md each tool's section keeps its prose; what lies between its
two markers is generated: whether it writes, its input and its output schema, as the server
lists them. ``tests/test_docs.py`` fails when the pages and the generated text differ.
"""

from __future__ import annotations

import json
import re
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click

PAGE = Path(__file__).resolve().parents[1] / "docs/reference.md"
MCP_PAGE = PAGE.parents[1] / "MCP.md"
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


START = f"<!-- generated from the tool's declaration: {COMMAND} -->\n"
END = "<!-- end of generated text -->"
SECTION = re.compile(
    rf"^### `(memory_[a-z_]+)`\n(?:(?!^##).)*?^{re.escape(START)}(.*?)^{re.escape(END)}$",
    re.MULTILINE | re.DOTALL,
)
JSON_WIDTH = 100


def _json(value: Any, used: int = 0, level: int = 0) -> str:
    """``value`` as JSON, on one line when it fits in ``JSON_WIDTH`` after the ``used``
    columns before it, else one member a line, each laid out the same way."""
    flat = json.dumps(value, ensure_ascii=False)
    if used + len(flat) <= JSON_WIDTH or not isinstance(value, dict | list) or not value:
        return flat
    pad = "  " * (level + 1)
    if isinstance(value, dict):
        heads = {key: f"{pad}{json.dumps(key, ensure_ascii=False)}: " for key in value}
        items = [heads[k] + _json(v, len(heads[k]), level + 1) for k, v in value.items()]
    else:
        items = [pad + _json(v, len(pad), level + 1) for v in value]
    opening, closing = ("{", "}") if isinstance(value, dict) else ("[", "]")
    return opening + "\n" + ",\n".join(items) + "\n" + "  " * level + closing


def _tool(tool: Any) -> str:
    listed = textwrap.fill(f"Listed to the client as: {tool.description}", JSON_WIDTH)
    writes = "It writes (through the plan and lock of every writing command)."
    said = writes if tool.journal.name == "WRITES" else "It reads only."
    return (
        f"{listed}\n\n{said}\n\nInput:\n\n```json\n{_json(dict(tool.input_schema))}\n```\n\n"
        f"Output:\n\n```json\n{_json(dict(tool.output_schema))}\n```\n"
    )


def render_mcp(page: str) -> str:
    """``page`` (MCP.md) with each tool's generated text made again from the tools."""
    from agent_memory.cli.mcp.tools import TOOLS

    def again(found: re.Match[str]) -> str:
        start, end = found.span(2)
        whole = found.group(0)
        at = found.start(0)
        return whole[: start - at] + _tool(TOOLS[found.group(1)]) + whole[end - at :]

    return SECTION.sub(again, page)


def documented_tools(page: str) -> list[str]:
    """The tools whose section in MCP.md holds generated text, in the page's order."""
    return [found.group(1) for found in SECTION.finditer(page)]


if __name__ == "__main__":
    sys.path.insert(0, str(PAGE.parents[1] / "installer"))
    PAGE.parent.mkdir(exist_ok=True)
    PAGE.write_text(render())
    MCP_PAGE.write_text(render_mcp(MCP_PAGE.read_text()))
    print(f"wrote {PAGE.relative_to(PAGE.parents[1])} and {MCP_PAGE.name}")
