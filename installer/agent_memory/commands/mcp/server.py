"""``agent-memory mcp``: the memory as MCP tools over stdio, on the official SDK's low-level server.

Only this module imports the SDK (the optional extra ``agent-memory[mcp]``), and only the ``mcp``
command imports this module, so no other command pays for it at start-up. Each call runs in a
worker thread, one at a time per session (a call waiting for the repo's lock must not stall the
connection, and two references of one session must not race for its log).
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

import anyio
import mcp_types as types
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server

from ... import resources
from .tools import TOOLS, McpSession, call


def serve(path: Path, wait: float) -> None:
    """Serve the repo at ``path`` until the client closes stdin."""
    server = build(McpSession(path.resolve(), wait))

    async def run() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(run)


def build(session: McpSession) -> Server[object]:
    turn = threading.Lock()

    async def list_tools(
        _ctx: ServerRequestContext[object], _params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        tools = [
            types.Tool(
                name=tool.name,
                description=tool.description,
                input_schema=dict(tool.input_schema),
                output_schema=dict(tool.output_schema),
            )
            for tool in TOOLS.values()
        ]
        return types.ListToolsResult(tools=tools)

    def answer(name: str, arguments: object) -> types.CallToolResult:
        with turn:
            done = call(session, name, arguments)
        if done.result is None:  # the line the CLI prints for the same error
            text = types.TextContent(type="text", text=done.err.rstrip("\n"))
            return types.CallToolResult(content=[text], is_error=True)
        result = dict(done.result.report.summary)
        text = types.TextContent(type="text", text=json.dumps(result, ensure_ascii=False))
        return types.CallToolResult(content=[text], structured_content=result)

    async def call_tool(
        _ctx: ServerRequestContext[object], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        arguments = {} if params.arguments is None else params.arguments
        return await anyio.to_thread.run_sync(answer, params.name, arguments)

    return Server(
        "agent-memory",
        version=resources.version(),
        instructions="Memory of this repo: recall facts before saying there is no context; "
        "reference the facts you used.",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )
