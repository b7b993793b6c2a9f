"""Agent transcripts (Claude Code, Codex CLI, Gemini CLI) read line by line into what the agent did.

Only the agent's own words and its tool calls come out: never the user's messages, tool results,
thinking or injected context. Each reader streams its JSON lines, so a 50 MB transcript costs one
line of memory at a time (Gemini excepted: it re-appends a message whenever the message changes,
so its messages are folded by id, last write winning, before they are yielded). A line that is not
JSON is reported as ``Bad`` and skipped, never guessed at; unknown record types are ignored.
The formats and their sources: HOOKS.md § Transcripts.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, NamedTuple

from .. import patterns

AGENTS = ("claude", "codex", "gemini")
# Tools that write files, and the argument that names the file.
_CLAUDE_EDITS = {"Edit": "file_path", "Write": "file_path", "MultiEdit": "file_path"}
_CLAUDE_EDITS["NotebookEdit"] = "notebook_path"
_GEMINI_EDITS = frozenset({"write_file", "replace", "edit", "smart_edit"})
_PATCH_FILE = patterns.compile(
    r"^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+?)\s*$", re.M
)


class Call(NamedTuple):
    name: str
    texts: tuple[str, ...]  # every string in its arguments
    files: tuple[str, ...]  # files it writes, as the agent named them


class Record(NamedTuple):
    """One step of the agent: its words and its calls, at line ``line`` of the transcript."""

    line: int
    time: str | None
    texts: tuple[str, ...]
    calls: tuple[Call, ...]


class Meta(NamedTuple):
    """The session: any field the transcript tells (later ``Meta`` fill what earlier lacked)."""

    session_id: str | None
    start: str | None
    cwd: str | None
    project_hash: str | None = None  # Gemini: sha256 of the folder it ran in


class Bad(NamedTuple):
    line: int
    last: bool  # the file's last line, without a newline: a record cut mid-write


Item = Record | Meta | Bad


class NotATranscript(ValueError):
    """The file is not a transcript of a known agent (not JSON lines of a known shape)."""


def strings(value: Any) -> Iterator[str]:
    """Every string inside a JSON value, depth first (keys excluded)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def _object(value: Any) -> dict[str, Any]:
    """``value`` if it is a JSON object, else an empty one: a field of the wrong type is absent."""
    return value if isinstance(value, dict) else {}


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _str(value: Any) -> str | None:
    """A field that must be a string (an id, a time, a path): anything else is absent."""
    return value if isinstance(value, str) and value else None


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def detect(first: Mapping[str, Any]) -> str | None:
    """The agent whose transcript starts with the JSON object ``first``."""
    if first.get("type") == "session_meta" and "payload" in first:
        return "codex"
    if "projectHash" in first or "$set" in first:
        return "gemini"
    if "sessionId" in first or first.get("type") in ("summary", "file-history-snapshot", "user"):
        return "claude"
    return None


def read(lines: Iterable[bytes], agent: str | None = None) -> tuple[str, Iterator[Item]]:
    """The agent (``agent``, or recognised from the first record) and the transcript's items,
    read lazily from its raw lines (with their line endings)."""
    stream = _objects(lines)
    skipped: list[Bad] = []
    first = next(stream, None)
    while isinstance(first, Bad):
        skipped.append(first)
        first = next(stream, None)
    if first is None:
        raise NotATranscript("holds no JSON record")
    number, obj = first
    if "messages" in obj and "sessionId" in obj:  # Gemini's older single-object file
        return agent or "gemini", _gemini_fold([(number, obj)], legacy=True)
    agent = agent or detect(obj)
    if agent not in AGENTS:
        raise NotATranscript("is not a Claude Code, Codex or Gemini CLI transcript")
    return agent, _items(agent, [*skipped, first], stream)


def _items(agent: str, head: list[Any], stream: Iterator[Any]) -> Iterator[Item]:
    both = _chain(head, stream)
    if agent == "gemini":
        yield from _gemini(both)
        return
    step = _claude if agent == "claude" else _codex
    for entry in both:
        if isinstance(entry, Bad):
            yield entry
        else:
            yield from step(*entry)


def _chain(head: list[Any], rest: Iterator[Any]) -> Iterator[Any]:
    yield from head
    yield from rest


def _objects(lines: Iterable[bytes]) -> Iterator[tuple[int, dict[str, Any]] | Bad]:
    """(line number, object) per JSON-object line; a pretty-printed single object (Gemini's
    legacy file) when the first line opens one and does not close it."""
    pending: list[bytes] = []
    number = 0
    for number, raw in enumerate(lines, 1):
        if pending or (number == 1 and raw.strip() == b"{"):
            pending.append(raw)
            continue
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except ValueError:
            yield Bad(number, not raw.endswith(b"\n"))
            continue
        if isinstance(obj, dict):
            yield number, obj
    if pending:
        try:
            obj = json.loads(b"".join(pending))
        except ValueError:
            yield Bad(number, True)
            return
        if isinstance(obj, dict):
            yield 1, obj


# -- Claude Code ---------------------------------------------------------------------------------


def _claude(number: int, obj: dict[str, Any]) -> Iterator[Item]:
    if obj.get("sessionId") or obj.get("timestamp"):
        yield Meta(_str(obj.get("sessionId")), _str(obj.get("timestamp")), _str(obj.get("cwd")))
    if obj.get("type") != "assistant" or obj.get("isSidechain"):
        return
    content = _object(obj.get("message")).get("content")
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    texts: list[str] = []
    calls: list[Call] = []
    for block in content if isinstance(content, list) else ():
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif block.get("type") == "tool_use":
            name = str(block.get("name", ""))
            args = _object(block.get("input"))
            key = _CLAUDE_EDITS.get(name)
            path = args.get(key) if key else None
            files = (path,) if isinstance(path, str) else ()
            calls.append(Call(name, tuple(strings(args)), files))
    if texts or calls:
        yield Record(number, _str(obj.get("timestamp")), tuple(texts), tuple(calls))


# -- Codex CLI -----------------------------------------------------------------------------------


def _codex(number: int, obj: dict[str, Any]) -> Iterator[Item]:
    payload = obj.get("payload")
    if not isinstance(payload, dict):
        return
    kind, time = obj.get("type"), _str(obj.get("timestamp"))
    if kind == "session_meta":
        start = _str(payload.get("timestamp")) or time
        yield Meta(_str(payload.get("id")), start, _str(payload.get("cwd")))
    elif kind == "turn_context":
        yield Meta(None, None, _str(payload.get("cwd")))
    if kind != "response_item":
        return
    item = payload.get("type")
    if item == "message" and payload.get("role") == "assistant":
        texts = tuple(
            part["text"]
            for part in _list(payload.get("content"))
            if isinstance(part, dict)
            and part.get("type") == "output_text"
            and isinstance(part.get("text"), str)
        )
        if texts:
            yield Record(number, time, texts, ())
    elif isinstance(item, str) and item in _CODEX_CALLS:
        yield Record(number, time, (), (_CODEX_CALLS[item](payload),))


def _codex_function(payload: Mapping[str, Any]) -> Call:
    name = str(payload.get("name", ""))
    raw = payload.get("arguments")
    try:
        args = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        args = raw
    texts = tuple(strings(args))
    if name == "apply_patch":
        return Call(name, texts, _patch_files(texts))
    command = args.get("command") if isinstance(args, dict) else None
    return Call(name, texts, _shell_patch_files(command))


def _codex_custom(payload: Mapping[str, Any]) -> Call:
    name = str(payload.get("name", ""))
    text = _text(payload.get("input"))
    return Call(name, (text,), _patch_files((text,)) if name == "apply_patch" else ())


def _codex_local_shell(payload: Mapping[str, Any]) -> Call:
    action = _object(payload.get("action"))
    command = action.get("command")
    return Call("local_shell", tuple(strings(command)), _shell_patch_files(command))


_CODEX_CALLS: Mapping[str, Callable[[Mapping[str, Any]], Call]] = {
    "function_call": _codex_function,
    "custom_tool_call": _codex_custom,
    "local_shell_call": _codex_local_shell,
}


def _patch_files(texts: Iterable[str]) -> tuple[str, ...]:
    return tuple(m.group(1) for text in texts for m in _PATCH_FILE.finditer(text))


def _shell_patch_files(command: Any) -> tuple[str, ...]:
    """Codex intercepts ``apply_patch`` run through its shell tool (argv or a heredoc)."""
    texts = tuple(strings(command))
    if any("*** Begin Patch" in text for text in texts):
        return _patch_files(texts)
    return ()


# -- Gemini CLI ----------------------------------------------------------------------------------


def _gemini(entries: Iterable[Any]) -> Iterator[Item]:
    folded: list[tuple[int, dict[str, Any]]] = []
    for entry in entries:
        if isinstance(entry, Bad):
            yield entry
            continue
        folded.append(entry)
    yield from _gemini_fold(folded, legacy=False)


def _gemini_fold(entries: list[tuple[int, dict[str, Any]]], legacy: bool) -> Iterator[Item]:
    """Messages by id in order of first appearance, each as last written; ``$set.messages``
    replaces them all and ``$rewindTo`` drops a message and every later one."""
    messages: dict[str, tuple[int, dict[str, Any]]] = {}
    for number, obj in entries:
        if "sessionId" in obj:
            session, start = _str(obj.get("sessionId")), _str(obj.get("startTime"))
            yield Meta(session, start, None, _str(obj.get("projectHash")))
        listed = obj.get("messages") if legacy else _object(obj.get("$set")).get("messages")
        if isinstance(listed, list):
            messages = {str(m.get("id")): (number, m) for m in listed if isinstance(m, dict)}
        if isinstance(obj.get("$rewindTo"), str):
            keys = list(messages)
            cut = keys.index(obj["$rewindTo"]) if obj["$rewindTo"] in keys else 0
            messages = {k: messages[k] for k in keys[:cut]}
        if "id" in obj and "type" in obj:
            messages[str(obj["id"])] = (number, obj)
    for number, message in messages.values():
        if message.get("type") == "gemini":
            yield _gemini_record(number, message)


def _gemini_record(number: int, message: Mapping[str, Any]) -> Record:
    content = message.get("content")
    parts = content if isinstance(content, list) else [content]
    texts = tuple(
        part if isinstance(part, str) else part["text"]
        for part in parts
        if isinstance(part, str) or (isinstance(part, dict) and isinstance(part.get("text"), str))
    )
    calls = []
    for call in _list(message.get("toolCalls")):
        if not isinstance(call, dict):
            continue
        name = str(call.get("name", ""))
        args = _object(call.get("args"))
        path = args.get("file_path") or args.get("absolute_path")
        wrote = name in _GEMINI_EDITS and call.get("status") == "success"
        files = (path,) if wrote and isinstance(path, str) else ()
        calls.append(Call(name, tuple(strings(args)), files))
    return Record(number, _str(message.get("timestamp")), texts, tuple(calls))
