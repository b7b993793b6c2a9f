"""``agent-memory mcp``: the memory as MCP tools over stdio, on the official SDK's low-level server.

Only this module imports the SDK (the optional extra ``agent-memory[mcp]``), and only the ``mcp``
command imports this module, so no other command pays for it at start-up. Each call runs in a
worker thread, one at a time per session (a call waiting for the repo's lock must not stall the
connection, and two references of one session must not race for its log). A call the client
cancels is called off: it stops waiting for the lock and writes nothing (MCP.md).

The stdio transport is ours, not the SDK's ``stdio_server``, which drops a line it cannot read
while the client waits forever for the answer: here every line is read by ``parse.jsonrpc``
and answered, within a bound on its length.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import IO

import anyio
import mcp_types as types
import pydantic
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.server import Server, ServerRequestContext
from mcp.shared.message import SessionMessage

from ... import resources
from ...commands.runner import Journal
from ...parse import jsonrpc
from ...shell.lock import unless_called_off
from .tools import TOOLS, McpSession, call, error_line, refusal

Incoming = MemoryObjectSendStream[SessionMessage | Exception]
Outgoing = MemoryObjectSendStream[SessionMessage]


def serve(path: Path, wait: float) -> None:
    """Serve the repo at ``path`` until the client closes stdin."""
    gc.enable()  # off for a command's short run (``cli.entry``); a server runs for hours
    server = build(McpSession(path.resolve(), wait))

    async def run() -> None:
        async with _stdio() as (read, write):
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
                # a client may run a tool that only reads without asking; none goes online
                annotations=types.ToolAnnotations(
                    read_only_hint=tool.journal is Journal.READS, open_world_hint=False
                ),
            )
            for tool in TOOLS.values()
        ]
        return types.ListToolsResult(tools=tools)

    def answer(name: str, arguments: object, called_off: threading.Event) -> types.CallToolResult:
        with turn, unless_called_off(called_off.is_set):
            done = call(session, name, arguments)
        if done.result is None:  # the line the CLI prints for the same error
            return _tool_error(done.err.rstrip("\n"))
        result = dict(done.result.report.summary)
        text = types.TextContent(type="text", text=json.dumps(result, ensure_ascii=False))
        return types.CallToolResult(content=[text], structured_content=result)

    async def call_tool(
        ctx: ServerRequestContext[object], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        arguments = {} if params.arguments is None else params.arguments
        client = ctx.session.client_params
        if client is not None and not session.client:
            session.client = client.client_info.name
        called_off = threading.Event()
        try:
            return await anyio.to_thread.run_sync(
                answer, params.name, arguments, called_off, abandon_on_cancel=True
            )
        except anyio.get_cancelled_exc_class():
            # The client cancelled (or left): the worker stops before it writes; no answer goes.
            called_off.set()
            raise

    return Server(
        "agent-memory",
        version=resources.version(),
        instructions="Memory of this repo: recall facts before saying there is no context; "
        "reference the facts you used.",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def _tool_error(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)


# -- the wire --------------------------------------------------------------------------------


@contextlib.asynccontextmanager
async def _stdio() -> AsyncIterator[
    tuple[MemoryObjectReceiveStream[SessionMessage | Exception], Outgoing]
]:
    """The server's two streams over stdin and stdout, read and written by two tasks."""
    wire_in, wire_out = _claim()
    incoming, read = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write, outgoing = anyio.create_memory_object_stream[SessionMessage](0)
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(_read, wire_in, incoming, write.clone())
        tasks.start_soon(_write, wire_out, outgoing)
        yield read, write


def _claim() -> tuple[IO[bytes], IO[bytes]]:
    """The wire on descriptors of its own, while fd 0 reads nothing and fd 1 writes to stderr:
    no child process (git) can read the client's messages or write into the server's."""
    wire_in, wire_out = os.fdopen(os.dup(0), "rb"), os.fdopen(os.dup(1), "wb")
    nothing = os.open(os.devnull, os.O_RDONLY)
    os.dup2(nothing, 0)
    os.close(nothing)
    os.dup2(2, 1)
    return wire_in, wire_out


async def _read(wire: IO[bytes], incoming: Incoming, replies: Outgoing) -> None:
    """Each line of the wire to the server as a message, or answered here when it is not one."""
    async with incoming, replies:
        while True:
            line, too_long = await anyio.to_thread.run_sync(_line, wire, abandon_on_cancel=True)
            if not line and not too_long:
                return  # the client closed stdin
            if not too_long and not line.strip():
                continue  # nothing to read, nothing to answer
            found = jsonrpc.oversized() if too_long else jsonrpc.read(line)
            message, reply = _route(found)
            if message is not None:
                await incoming.send(message)
            if reply is not None:
                await replies.send(SessionMessage(reply))


def _line(wire: IO[bytes]) -> tuple[bytes, bool]:
    """The next line, and whether it was longer than a message may be (then it is skipped to
    its end, never held whole); (b"", False) at the end of the input."""
    line = wire.readline(jsonrpc.MAX_LINE + 1)
    if len(line) <= jsonrpc.MAX_LINE or line.endswith(b"\n"):
        return line, False
    while (rest := wire.readline(1 << 16)) and not rest.endswith(b"\n"):
        pass
    return b"", True


def _route(
    found: dict[str, object] | jsonrpc.Unreadable,
) -> tuple[SessionMessage | None, types.JSONRPCMessage | None]:
    """(the message for the server, or the reply the wire gets at once)."""
    if isinstance(found, jsonrpc.Unreadable):
        if found.tool is None:
            error = types.ErrorData(code=found.code, message=found.message)
            return None, types.JSONRPCError(jsonrpc="2.0", id=found.id, error=error)
        return None, _result(found.id, _refused(found.tool, None, found.message))
    ident = found.get("id")
    ident = ident if isinstance(ident, str) or type(ident) is int else None
    if (odd := jsonrpc.arguments_not_an_object(found)) is not None:
        return None, _result(ident, _refused(*odd))
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_python(found)), None
    except pydantic.ValidationError:
        error = types.ErrorData(code=jsonrpc.INVALID_REQUEST, message="Invalid Request")
        return None, types.JSONRPCError(jsonrpc="2.0", id=ident, error=error)


def _refused(name: str, arguments: object, problem: str | None = None) -> str:
    """The tool error's line for a call refused before it runs: an unknown tool, arguments
    that do not match its schema, or ``problem``."""
    why = refusal(name, arguments, problem)
    return error_line(why or refusal(name, None, "the arguments are not an object") or "")


def _result(ident: str | int | None, text: str) -> types.JSONRPCMessage:
    result = _tool_error(text).model_dump(by_alias=True, mode="json", exclude_none=True)
    if ident is None:  # a tool error for a call without an id: answered as JSON-RPC allows
        error = types.ErrorData(code=jsonrpc.INVALID_REQUEST, message=text)
        return types.JSONRPCError(jsonrpc="2.0", id=None, error=error)
    return types.JSONRPCResponse(jsonrpc="2.0", id=ident, result=result)


async def _write(wire: IO[bytes], outgoing: MemoryObjectReceiveStream[SessionMessage]) -> None:
    async with outgoing:
        async for message in outgoing:
            data = message.message.model_dump_json(by_alias=True, exclude_unset=True)
            await anyio.to_thread.run_sync(_send, wire, (data + "\n").encode("utf-8", "replace"))


def _send(wire: IO[bytes], data: bytes) -> None:
    wire.write(data)
    wire.flush()
