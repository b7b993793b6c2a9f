"""A scripted model on 127.0.0.1 that speaks the three APIs the agents call.

Anthropic's Messages API (Claude Code), OpenAI's Responses API (Codex) and Gemini's
generateContent / streamGenerateContent (Gemini CLI), each streamed as the agent expects. No model:
what it answers is a function of the request, never of the order requests came in, so a retry, a
resume or a side request gets the same answer every time:

* A user message holding ``[[e2e:NAME]]`` starts the script NAME, a list of steps; the step to
  answer is the number of tool results the conversation holds after that message.
* A request that asks for a summary (an agent compacting its history) gets one that ends in
  ``[[e2e-done:NAME:N]]``: the compacted history no longer holds the tool results, so the
  summary carries their count.
* A step whose tool is not offered yet (MCP servers start while the agent already asks) is
  answered with a call that only waits (``e2e-wait``, not counted), at most WAITS times.
* Anything else (a title, a question the CLI asks itself) gets plain words.

Every request is recorded (path, headers, JSON body, what was answered) for the tests.
"""

from __future__ import annotations

import http.server
import itertools
import json
import re
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

MARK = re.compile(r"\[\[e2e:([a-z0-9-]+)\]\]")
# How each agent asks for the summary that replaces the history when it compacts.
SUMMARY_ASKED = re.compile(
    r"detailed summary of the conversation"  # Claude Code
    r"|CONTEXT CHECKPOINT COMPACTION"  # Codex
    r"|<state_snapshot>"  # Gemini CLI
)
WAIT = "e2e-wait"  # marks a call that only waited: its result is not a step's
WAITS = 20  # waits of one prompt, at most
DONE = re.compile(r"\[\[e2e-done:([a-z0-9-]+):([0-9]+)\]\]")
MAX_BODY = 64 << 20  # an agent's request carries the whole conversation; ours stay far below


@dataclass(frozen=True)
class Step:
    """One answer of the model: text, a shell command, a file write, or a call of an MCP tool
    (named by the end of its name: each agent prefixes the server's tools its own way)."""

    kind: str  # "text" | "shell" | "write" | "mcp" | "tool" ("wait": the server's own, see WAIT)
    text: str = ""  # text: the words; shell: the command; write: the file's content
    path: str = ""  # write: the file, absolute
    tool: str = ""  # mcp: the tool's name without the agent's prefix; tool: its whole name
    args: Mapping[str, Any] = field(default_factory=dict)  # mcp: the arguments
    tokens: int = 100  # the prompt's size the answer reports: a large one makes the agent compact


def text(words: str) -> Step:
    return Step("text", text=words)


def shell(command: str, tokens: int = 100) -> Step:
    return Step("shell", text=command, tokens=tokens)


def write(path: str, content: str) -> Step:
    return Step("write", text=content, path=path)


def mcp(tool: str, **args: Any) -> Step:
    return Step("mcp", tool=tool, args=args)


def tool(name: str, **args: Any) -> Step:
    """A call of one agent's own tool, by its exact name (Claude Code's ``Agent``, say)."""
    return Step("tool", tool=name, args=args)


class Turn(NamedTuple):
    """A message of the conversation, the same for every API."""

    role: str  # "user" (the user's words or tool results), "model", or "other" (ignored)
    said: str  # its text
    results: int  # the tool results it carries
    output: str = ""  # what those results say
    waits: int = 0  # the model's calls in it that only waited (see WAIT)


@dataclass(frozen=True)
class Conversation:
    """Where a request stands in its script."""

    script: str | None  # the NAME of the last prompt's [[e2e:NAME]]
    results_after: int  # tool results since that prompt (a compaction summary carries its count)
    waiting: bool  # the last turn is that prompt, a tool result or a summary: the model's move
    tools: tuple[str, ...]  # the names of the tools offered
    waited: int = 0  # calls since that prompt that only waited for a tool to be offered


def follow(turns: Sequence[Turn], tools: Sequence[str]) -> Conversation:
    """The conversation's place in its script. A compaction drops the tool results from the
    history, so the summary we wrote for it (``[[e2e-done:NAME:N]]``) says how many there were."""
    script, results, waiting, waited = None, 0, False, 0
    for turn in turns:
        if turn.role == "model":
            waiting, waited = False, waited + turn.waits
        elif turn.role == "user":
            prompt, done = MARK.findall(turn.said), DONE.findall(turn.said)
            if prompt and not turn.results:
                script, results, waiting, waited = prompt[-1], 0, True, 0
            elif done:  # the prompt itself may be summarized away
                script, results, waiting = done[-1][0], int(done[-1][1]) + turn.results, True
                waited = 0
            elif SUMMARY_ASKED.search(turn.said):  # a compaction: words, not the next step
                results, waiting = results + turn.results, False
            else:
                results, waiting = results + turn.results, turn.results > 0
    return Conversation(script, max(results - waited, 0), waiting, tuple(tools), waited)


@dataclass(frozen=True)
class Call:
    """A step as one API names it: the tool and its arguments."""

    name: str
    args: Mapping[str, Any]


@dataclass
class Recorded:
    api: str
    path: str
    headers: Mapping[str, str]
    body: Any
    answer: Step | None = None  # what the script answered (None: plain text, not scripted)
    at: float = field(default_factory=time.time)  # when it came (seconds since the epoch)

    @property
    def raw(self) -> str:
        return json.dumps(self.body, ensure_ascii=False)


class Script:
    """Scripts by name, and what the server saw."""

    def __init__(self, scripts: Mapping[str, Sequence[Step]]) -> None:
        self.scripts = dict(scripts)
        self.requests: list[Recorded] = []
        self._lock = threading.Lock()

    def record(self, entry: Recorded) -> None:
        with self._lock:
            self.requests.append(entry)

    def answer(self, conversation: Conversation) -> Step | None:
        """The next step; past the last one, words; and when the model is not asked to move
        (a compaction's request for a summary, a title), a summary that says how far it got."""
        name = conversation.script or ""
        steps = self.scripts.get(name)
        if steps is None:
            return None
        if not conversation.waiting:
            done = f"[[e2e-done:{name}:{conversation.results_after}]]"
            return text(f"Summary: working through {name}. {done}")
        if conversation.results_after < len(steps):
            return steps[conversation.results_after]
        return text(f"Done with {name}.")

    def seen(self) -> list[Recorded]:
        with self._lock:
            return list(self.requests)

    def prompted(self, name: str) -> list[Recorded]:
        """The requests of the conversation that script ``name`` runs in (side requests that
        quote the prompt, a title for instance, included)."""
        return [r for r in self.seen() if f"[[e2e:{name}]]" in r.raw]


def _tool(tools: Sequence[str], suffix: str) -> str | None:
    """The offered tool whose name ends in ``suffix`` after a separator (``mcp__server__``,
    ``mcp_server_``, a namespace's ``/``), or is ``suffix``."""
    ends = [t for t in tools if t == suffix or re.search(r"[_/]" + re.escape(suffix) + "$", t)]
    return ends[0] if ends else None


# -- the three APIs -------------------------------------------------------------------------


def _anthropic_turns(body: Mapping[str, Any]) -> tuple[list[Turn], list[str]]:
    """Messages API: ``messages`` of ``user`` / ``assistant``; tool results are ``tool_result``
    blocks of a user message."""
    turns = []
    for message in body.get("messages", []) or []:
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        blocks = [b for b in blocks or [] if isinstance(b, dict)]
        said = " ".join(str(b.get("text", "")) for b in blocks)
        outputs = [json.dumps(b.get("content")) for b in blocks if b.get("type") == "tool_result"]
        calls = [json.dumps(b.get("input")) for b in blocks if b.get("type") == "tool_use"]
        role = {"user": "user", "assistant": "model"}.get(message.get("role"), "other")
        waits = sum(WAIT in call for call in calls)
        turns.append(Turn(role, said, len(outputs), "\n".join(outputs), waits))
    return turns, [t.get("name", "") for t in body.get("tools", []) or []]


def _anthropic_call(step: Step, tools: Sequence[str]) -> Call | None:
    if step.kind == "shell" and "Bash" in tools:
        return Call("Bash", {"command": step.text, "description": "Run a command"})
    if step.kind == "write" and "Write" in tools:
        return Call("Write", {"file_path": step.path, "content": step.text})
    name = _tool(tools, step.tool) if step.kind == "mcp" else None
    return Call(name, dict(step.args)) if name else None


def _responses_turns(body: Mapping[str, Any]) -> tuple[list[Turn], list[str]]:
    """Responses API: ``input`` items; a tool's result is a ``*_call_output`` item, and an MCP
    server's tools come as a ``namespace`` (named here ``<namespace>/<tool>``)."""
    turns = []
    for item in body.get("input", []) or []:
        kind, role = str(item.get("type", "")), item.get("role")
        if kind.endswith("_call_output"):
            turns.append(Turn("user", "", 1, json.dumps(item.get("output"))))
        elif kind == "message" and role == "user":
            parts = [p for p in item.get("content", []) or [] if isinstance(p, dict)]
            turns.append(Turn("user", " ".join(str(p.get("text", "")) for p in parts), 0))
        elif (kind == "message" and role == "assistant") or kind.endswith("_call"):
            waits = int(WAIT in str(item.get("arguments", "")))
            turns.append(Turn("model", "", 0, "", waits))
    tools: list[str] = []
    for tool in body.get("tools", []) or []:
        if tool.get("type") == "namespace":
            tools += [f"{tool.get('name')}/{t.get('name')}" for t in tool.get("tools", [])]
        else:
            tools.append(tool.get("name") or tool.get("type", ""))
    return turns, tools


def _responses_call(step: Step, tools: Sequence[str]) -> Call | None:
    if step.kind == "write":  # Codex 0.169 patches through its shell tool
        patch = "".join("+" + line + "\n" for line in step.text.splitlines())
        command = f"apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: {step.path}\n{patch}"
        step = shell(command + "*** End Patch\nEOF\n")
    if step.kind == "shell":
        if "exec_command" in tools:
            return Call("exec_command", {"cmd": step.text})
        if "shell" in tools:
            return Call("shell", {"command": ["bash", "-lc", step.text]})
        return None
    name = _tool(tools, step.tool) if step.kind == "mcp" else None
    return Call(name, dict(step.args)) if name else None


def _gemini_turns(body: Mapping[str, Any]) -> tuple[list[Turn], list[str]]:
    """generateContent: ``contents`` of ``user`` / ``model``; a tool's result is a
    ``functionResponse`` part of a user turn."""
    turns = []
    for content in body.get("contents", []) or []:
        parts = [p for p in content.get("parts", []) or [] if isinstance(p, dict)]
        said = " ".join(str(p.get("text", "")) for p in parts)
        outputs = [json.dumps(p["functionResponse"]) for p in parts if "functionResponse" in p]
        waits = sum(WAIT in json.dumps(p["functionCall"]) for p in parts if "functionCall" in p)
        role = "model" if content.get("role") == "model" else "user"
        turns.append(Turn(role, said, len(outputs), "\n".join(outputs), waits))
    tools = [
        declaration.get("name", "")
        for group in body.get("tools", []) or []
        for declaration in group.get("functionDeclarations", []) or []
    ]
    return turns, tools


def _gemini_call(step: Step, tools: Sequence[str]) -> Call | None:
    if step.kind == "shell" and "run_shell_command" in tools:
        return Call("run_shell_command", {"command": step.text, "description": "Run a command"})
    if step.kind == "write" and "write_file" in tools:
        return Call("write_file", {"file_path": step.path, "content": step.text})
    name = _tool(tools, step.tool) if step.kind == "mcp" else None
    return Call(name, dict(step.args)) if name else None


# -- the wire: streamed answers -------------------------------------------------------------

_ids = itertools.count(1)


def _sse(events: Sequence[tuple[str | None, Mapping[str, Any]]]) -> Iterator[bytes]:
    for event, data in events:
        head = f"event: {event}\n" if event else ""
        yield (head + "data: " + json.dumps(data) + "\n\n").encode()


def _anthropic_events(call: Call | None, words: str, model: str, tokens: int) -> Iterator[bytes]:
    n = next(_ids)
    usage = {"input_tokens": tokens, "output_tokens": 1}
    start = {"id": f"msg_e2e{n}", "type": "message", "role": "assistant", "model": model}
    start = {**start, "content": [], "stop_reason": None, "stop_sequence": None, "usage": usage}
    if call is None:
        block: dict[str, Any] = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": words}
    else:
        block = {"type": "tool_use", "id": f"toolu_e2e{n}", "name": call.name, "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(call.args)}
    stop = "end_turn" if call is None else "tool_use"
    return _sse(
        [
            ("message_start", {"type": "message_start", "message": start}),
            (
                "content_block_start",
                {"type": "content_block_start", "index": 0, "content_block": block},
            ),
            ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": stop, "stop_sequence": None},
                    "usage": {"output_tokens": 10},
                },
            ),
            ("message_stop", {"type": "message_stop"}),
        ]
    )


def _anthropic_message(call: Call | None, words: str, model: str, tokens: int) -> dict[str, Any]:
    n = next(_ids)
    if call is None:
        content: list[dict[str, Any]] = [{"type": "text", "text": words}]
    else:
        content = [
            {"type": "tool_use", "id": f"toolu_e2e{n}", "name": call.name, "input": call.args}
        ]
    return {
        "id": f"msg_e2e{n}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": "end_turn" if call is None else "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": tokens, "output_tokens": 10},
    }


def _responses_events(call: Call | None, words: str, tokens: int) -> Iterator[bytes]:
    n = next(_ids)
    if call is None:
        item: dict[str, Any] = {
            "type": "message",
            "role": "assistant",
            "id": f"msg_e2e{n}",
            "content": [{"type": "output_text", "text": words, "annotations": []}],
        }
    else:
        namespace, _, name = call.name.rpartition("/")
        item = {
            "type": "function_call",
            "id": f"fc_e2e{n}",
            "call_id": f"call_e2e{n}",
            **({"namespace": namespace} if namespace else {}),
            "name": name,
            "arguments": json.dumps(call.args),
        }
    usage = {
        "input_tokens": tokens,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 10,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": tokens + 10,
    }
    response = {"id": f"resp_e2e{n}", "object": "response", "status": "completed"}
    return _sse(
        [
            ("response.created", {"type": "response.created", "response": response}),
            (
                "response.output_item.done",
                {"type": "response.output_item.done", "output_index": 0, "item": item},
            ),
            (
                "response.completed",
                {"type": "response.completed", "response": {**response, "usage": usage}},
            ),
        ]
    )


def _gemini_response(
    call: Call | None, words: str, tokens: int, body: Mapping[str, Any]
) -> dict[str, Any]:
    config = body.get("generationConfig") or {}
    if call is not None:
        part: dict[str, Any] = {"functionCall": {"name": call.name, "args": dict(call.args)}}
    elif config.get("responseMimeType") == "application/json":
        part = {"text": json.dumps(_json_answer(config))}
    else:
        part = {"text": words}
    return {
        "candidates": [
            {"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}
        ],
        "usageMetadata": {
            "promptTokenCount": tokens,
            "candidatesTokenCount": 10,
            "totalTokenCount": tokens + 10,
        },
        "modelVersion": "e2e",
    }


def _json_answer(config: Mapping[str, Any]) -> dict[str, Any]:
    """A JSON answer of the schema's shape (Gemini CLI asks for one to route or to check who
    speaks next): the user speaks next, and no string is empty."""
    schema = config.get("responseJsonSchema") or config.get("responseSchema") or {}
    out: dict[str, Any] = {}
    for key, spec in (schema.get("properties") or {}).items():
        kind = str(spec.get("type", "string")).lower()
        if "enum" in spec:
            out[key] = "user" if "user" in spec["enum"] else spec["enum"][0]
        elif kind in ("number", "integer"):
            out[key] = 1
        elif kind == "boolean":
            out[key] = False
        else:
            out[key] = "e2e"
    return out


# -- the server -----------------------------------------------------------------------------


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # the agents' noise
        pass

    def do_HEAD(self) -> None:
        self._reply(200, b"", "text/plain")

    def do_GET(self) -> None:
        self._reply(404, b'{"error": "not here"}', "application/json")

    def do_POST(self) -> None:
        size = int(self.headers.get("content-length") or 0)
        if size > MAX_BODY:
            self._reply(413, b"{}", "application/json")
            return
        raw = self.rfile.read(size)
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            body = {"unreadable": raw[:1000].decode("utf-8", "replace")}
        route = self.path.split("?", 1)[0]
        headers = {k.lower(): v for k, v in self.headers.items()}
        entry = Recorded(_api(route), self.path, headers, body)
        self.server.script.record(entry)
        handle = _ROUTES.get(entry.api)
        if handle is None:
            self._reply(404, b'{"error": {"message": "no such route"}}', "application/json")
        else:
            handle(self, entry)

    def _reply(self, status: int, data: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _stream(self, chunks: Iterator[bytes]) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("connection", "close")
        self.end_headers()
        for chunk in chunks:
            self.wfile.write(chunk)
        self.wfile.flush()
        self.close_connection = True


def _api(route: str) -> str:
    if route.endswith("/messages/count_tokens"):
        return "anthropic-count"
    if route.endswith("/messages"):
        return "anthropic"
    if route.endswith("/responses"):
        return "responses"
    if ":streamGenerateContent" in route:
        return "gemini-stream"
    if ":generateContent" in route:
        return "gemini"
    if ":countTokens" in route:
        return "gemini-count"
    return "other"


def _call(
    step: Step, tools: Sequence[str], name: Callable[[Step, Sequence[str]], Call | None]
) -> Call | None:
    if step.kind == "tool":  # one agent's own tool, by its name
        return Call(step.tool, dict(step.args)) if step.tool in tools else None
    return name(step, tools)


def _scripted(
    handler: _Handler,
    entry: Recorded,
    read: Callable[[Mapping[str, Any]], tuple[list[Turn], list[str]]],
    name: Callable[[Step, Sequence[str]], Call | None],
) -> tuple[Call | None, str, int]:
    """The step the conversation is at, as this API names it: a call, or words; and the
    prompt's size to report. A step whose tool is not offered yet (an agent may ask the model
    before its MCP servers are up) is answered with a command that waits, a few times, and
    then with words."""
    conversation = follow(*read(entry.body))
    step = handler.server.script.answer(conversation)
    call = None if step is None or step.kind == "text" else _call(step, conversation.tools, name)
    if step is not None and step.kind != "text" and call is None and conversation.waited < WAITS:
        call = name(shell(f"sleep 1 # {WAIT}"), conversation.tools)
        step = Step("wait", tokens=step.tokens) if call else step
    entry.answer = step if step is None or step.kind == "text" or call else None
    words = step.text if step is not None and step.kind == "text" else "Noted."
    return call, words, step.tokens if step is not None else 100


def _on_anthropic(handler: _Handler, entry: Recorded) -> None:
    call, words, tokens = _scripted(handler, entry, _anthropic_turns, _anthropic_call)
    model = str(entry.body.get("model", "e2e"))
    if entry.body.get("stream"):
        handler._stream(_anthropic_events(call, words, model, tokens))
    else:
        data = json.dumps(_anthropic_message(call, words, model, tokens)).encode()
        handler._reply(200, data, "application/json")


def _on_anthropic_count(handler: _Handler, entry: Recorded) -> None:
    handler._reply(200, b'{"input_tokens": 100}', "application/json")


def _on_responses(handler: _Handler, entry: Recorded) -> None:
    call, words, tokens = _scripted(handler, entry, _responses_turns, _responses_call)
    handler._stream(_responses_events(call, words, tokens))


def _on_gemini(handler: _Handler, entry: Recorded) -> None:
    call, words, tokens = _scripted(handler, entry, _gemini_turns, _gemini_call)
    answer = _gemini_response(call, words, tokens, entry.body)
    if entry.api == "gemini-stream":
        handler._stream(_sse([(None, answer)]))
    else:
        handler._reply(200, json.dumps(answer).encode(), "application/json")


def _on_gemini_count(handler: _Handler, entry: Recorded) -> None:
    handler._reply(200, b'{"totalTokens": 100}', "application/json")


_ROUTES: Mapping[str, Callable[[_Handler, Recorded], None]] = {
    "anthropic": _on_anthropic,
    "anthropic-count": _on_anthropic_count,
    "responses": _on_responses,
    "gemini": _on_gemini,
    "gemini-stream": _on_gemini,
    "gemini-count": _on_gemini_count,
}


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    script: Script


class ModelServer:
    """The server on an ephemeral port of 127.0.0.1, in a thread; a context manager."""

    def __init__(self, script: Script) -> None:
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.script = script
        self.script = script
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> ModelServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=10)


_READERS: Mapping[str, Callable[[Mapping[str, Any]], tuple[list[Turn], list[str]]]] = {
    "anthropic": _anthropic_turns,
    "responses": _responses_turns,
    "gemini": _gemini_turns,
    "gemini-stream": _gemini_turns,
}


def turns(entry: Recorded) -> list[Turn]:
    """The conversation a recorded request carried (empty for one that carries none)."""
    read = _READERS.get(entry.api)
    return read(entry.body)[0] if read else []


def tools(entry: Recorded) -> list[str]:
    """The names of the tools a recorded request offered."""
    read = _READERS.get(entry.api)
    return read(entry.body)[1] if read else []


def asks_for_summary(entry: Recorded) -> bool:
    """Whether the request is an agent's compaction: it asks for the summary of the history."""
    said = [turn.said for turn in turns(entry) if turn.role == "user"]
    return bool(said) and SUMMARY_ASKED.search(said[-1]) is not None
