"""Agent transcripts (Claude Code, Codex CLI, Gemini CLI) read line by line into what the agent did.

Only the agent's own words and its tool calls come out: never the user's messages, tool results,
thinking or injected context. Each reader streams its JSON lines, a line of memory at a time
(Gemini re-appends a message whenever it changes: its messages are folded by id, each kept as the
little a ``Record`` holds). A line that is not JSON, nested past what the decoder takes, or over
``LINE_MAX`` bytes (never held) is ``Bad`` and skipped, never guessed at. Unknown record types are
ignored; a session id or time of the wrong shape (``untrusted``) is absent. The formats and their
sources: HOOKS.md § Transcripts.
"""

import itertools
import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

from .packed import Packed
from .patches import patch_files, shell_patch_files
from .prompts import user_text
from .untrusted import session_id, timestamp

AGENTS = ("claude", "codex", "gemini")
# Tools that write files, and the argument that names the file.
_CLAUDE_EDITS = {"Edit": "file_path", "Write": "file_path", "MultiEdit": "file_path"}
_CLAUDE_EDITS["NotebookEdit"] = "notebook_path"
_GEMINI_EDITS = frozenset({"write_file", "replace", "edit", "smart_edit"})
# Gemini calls whose arguments the fold keeps by name; of the others, only their strings.
_GEMINI_KEPT = frozenset({"save_memory"})
_NO_ARGS: Mapping[str, Any] = MappingProxyType({})
# The longest line read: one JSON line costs up to about 25 times its size once decoded, so a
# line of 8 MiB (no real record comes near it) can cost about 200 MB, and a longer one nothing.
LINE_MAX = 8 << 20
_LEADING_BAD_MAX = 1000  # unreadable lines before the first record: a transcript starts with one


class Call(NamedTuple):
    name: str
    texts: tuple[str, ...]  # every string in its arguments
    files: tuple[str, ...]  # files it writes, as the agent named them
    # Its arguments as decoded (a JSON object, else empty), for what reads them by name; and
    # False when the transcript says it failed or was cancelled (Gemini's status).
    args: Mapping[str, Any] = _NO_ARGS
    ok: bool = True


class Record(NamedTuple):
    """One step of the agent: its words and its calls, at line ``line`` of the transcript."""

    line: int
    time: str | None
    texts: tuple[str, ...]
    calls: tuple[Call, ...]
    files: tuple[str, ...] = ()  # files a tool wrote, told by a record of its own (Codex)


class Meta(NamedTuple):
    """The session: any field the transcript tells (later ``Meta`` fill what earlier lacked)."""

    session_id: str | None
    start: str | None
    cwd: str | None
    project_hash: str | None = None  # Gemini: sha256 of the folder it ran in
    prompt: str | None = None  # a prompt of the user's (``prompts.user_text``)


class Bad(NamedTuple):
    line: int
    last: bool  # the file's last line, without a newline: a record cut mid-write
    long: bool = False  # over LINE_MAX bytes: skipped unread


Item = Record | Meta | Bad


class NotATranscript(ValueError):
    """The file is not a transcript of a known agent (not JSON lines of a known shape)."""


def strings(value: Any) -> Iterator[str]:
    """Every string inside a JSON value, depth first (keys excluded); a loop, not recursion, so
    that a value nested as deep as the decoder allows costs no stack."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, Mapping):
            stack.extend(list(item.values())[::-1])
        elif isinstance(item, list):
            stack.extend(item[::-1])


def _object(value: Any) -> dict[str, Any]:
    """``value`` if it is a JSON object, else an empty one: a field of the wrong type is absent."""
    return value if isinstance(value, dict) else {}


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _str(value: Any) -> str | None:
    """A field that must be a string (a path, a hash): anything else is absent."""
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


def read(lines: Iterable[bytes | None], agent: str | None = None) -> tuple[str, Iterator[Item]]:
    """The agent (``agent``, or recognised from the first record) and the transcript's items,
    read lazily from its raw lines (with their line endings; None for a line over LINE_MAX)."""
    stream = _objects(lines)
    skipped: list[Bad] = []
    first = next(stream, None)
    while isinstance(first, Bad):
        skipped.append(first)
        if len(skipped) > _LEADING_BAD_MAX:  # kept until the agent is known: bounded
            raise NotATranscript(f"holds {_LEADING_BAD_MAX} unreadable lines before any record")
        first = next(stream, None)
    if first is None:
        over = any(bad.long for bad in skipped)
        raise NotATranscript(
            f"holds no JSON record{f' (lines over {LINE_MAX >> 20} MiB are not read)' * over}"
        )
    number, obj = first
    if "messages" in obj and "sessionId" in obj:  # Gemini's older single-object file
        return agent or "gemini", _gemini([(number, obj)], legacy=True)
    agent = agent or detect(obj)
    if agent not in AGENTS:
        raise NotATranscript("is not a Claude Code, Codex or Gemini CLI transcript")
    return agent, _items(agent, [*skipped, first], stream)


def _items(agent: str, head: list[Any], stream: Iterator[Any]) -> Iterator[Item]:
    both = itertools.chain(head, stream)
    if agent == "gemini":
        yield from _gemini(both)
        return
    step = _claude if agent == "claude" else _codex
    for entry in both:
        if isinstance(entry, Bad):
            yield entry
        else:
            yield from step(*entry)


def _objects(lines: Iterable[bytes | None]) -> Iterator[tuple[int, dict[str, Any]] | Bad]:
    """(line number, object) per JSON-object line; a pretty-printed single object (Gemini's
    legacy file) when the first line opens one and does not close it: at most LINE_MAX bytes."""
    legacy: list[bytes] | None = None
    size = number = 0
    for number, raw in enumerate(lines, 1):
        if number == 1 and raw is not None and raw.strip() == b"{":
            legacy = []
        if legacy is not None:
            size += LINE_MAX + 1 if raw is None else len(raw)
            if raw is not None and size <= LINE_MAX:
                legacy.append(raw)
            else:
                legacy.clear()  # never held: the whole file is one record over the bound
            continue
        if raw is None:
            yield Bad(number, False, long=True)
            continue
        if not raw.strip():
            continue
        obj = _decode(raw)
        if isinstance(obj, Bad):
            yield Bad(number, not raw.endswith(b"\n"))
        elif isinstance(obj, dict):
            yield number, obj
    if size > LINE_MAX:
        yield Bad(1, False, long=True)
    elif legacy:
        obj = _decode(b"".join(legacy))
        if isinstance(obj, Bad):
            yield Bad(number, True)
        elif isinstance(obj, dict):
            yield 1, obj


def _decode(raw: bytes | str) -> Any:
    """The JSON value of ``raw``, or ``Bad`` when it is not JSON or is nested past what the
    decoder takes (it raises RecursionError there, a thousand levels or so)."""
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        return Bad(0, False)


# -- Claude Code ---------------------------------------------------------------------------------


def _claude(number: int, obj: dict[str, Any]) -> Iterator[Item]:
    when = timestamp(obj.get("timestamp"))
    prompt = _claude_prompt(obj) if obj.get("type") == "user" else None
    if obj.get("sessionId") or when or prompt:
        yield Meta(session_id(obj.get("sessionId")), when, _str(obj.get("cwd")), None, prompt)
    if obj.get("type") != "assistant":  # a subagent's (isSidechain) too: the session's work
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
            name = _text(block.get("name"))
            args = _object(block.get("input"))
            key = _CLAUDE_EDITS.get(name)
            path = args.get(key) if key else None
            files = (path,) if isinstance(path, str) else ()
            calls.append(Call(name, tuple(strings(args)), files, args))
    if texts or calls:
        yield Record(number, when, tuple(texts), tuple(calls))


def _claude_prompt(obj: Mapping[str, Any]) -> str | None:
    """What the user typed: not a line Claude Code adds (``isMeta``, a compaction's summary),
    not a subagent's task (``isSidechain``: the agent's words), not a tool's result."""
    if any(obj.get(flag) for flag in ("isMeta", "isSidechain", "isCompactSummary")):
        return None
    return user_text(_object(obj.get("message")).get("content"))


# -- Codex CLI -----------------------------------------------------------------------------------


def _codex(number: int, obj: dict[str, Any]) -> Iterator[Item]:
    payload = obj.get("payload")
    if not isinstance(payload, dict):
        return
    kind, time = obj.get("type"), timestamp(obj.get("timestamp"))
    if kind == "session_meta":
        start = timestamp(payload.get("timestamp")) or time
        yield Meta(session_id(payload.get("id")), start, _str(payload.get("cwd")))
    elif kind == "turn_context":
        yield Meta(None, None, _str(payload.get("cwd")))
    elif kind == "event_msg" and payload.get("type") == "user_message":  # the typed prompt
        yield Meta(None, None, None, None, user_text(payload.get("message")))
    if kind == "event_msg" and payload.get("type") == "patch_apply_end":
        files = _patched(payload)
        if files:
            yield Record(number, time, (), (), files)
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
    name = _text(payload.get("name"))
    raw = payload.get("arguments")
    args = _decode(raw) if isinstance(raw, str) else raw
    if isinstance(args, Bad):  # not JSON after all: its text is still the call's
        args = raw
    texts = tuple(strings(args))
    if name == "apply_patch":
        return Call(name, texts, patch_files(texts), _object(args))
    workdir = _object(args).get("workdir")  # shell, exec_command (cmd), …
    return Call(name, texts, shell_patch_files(texts, workdir), _object(args))


def _codex_custom(payload: Mapping[str, Any]) -> Call:
    name = _text(payload.get("name"))
    text = _text(payload.get("input"))
    return Call(name, (text,), patch_files((text,)) if name == "apply_patch" else ())


def _codex_local_shell(payload: Mapping[str, Any]) -> Call:
    action = _object(payload.get("action"))
    texts = tuple(strings(action.get("command")))
    files = shell_patch_files(texts, action.get("working_directory"))
    return Call("local_shell", texts, files)


_CODEX_CALLS: Mapping[str, Callable[[Mapping[str, Any]], Call]] = {
    "function_call": _codex_function,
    "custom_tool_call": _codex_custom,
    "local_shell_call": _codex_local_shell,
}


def _patched(payload: Mapping[str, Any]) -> tuple[str, ...]:
    """The files a ``patch_apply_end`` event says a patch changed (the keys of ``changes``, and
    where an update moved a file to): whichever tool ran the patch, and only when it applied."""
    if payload.get("success") is not True:
        return ()
    files: list[str] = []
    for path, change in _object(payload.get("changes")).items():
        moved = _str(_object(change).get("move_path"))
        files.extend((path, moved) if moved else (path,))
    return tuple(files)


# -- Gemini CLI ----------------------------------------------------------------------------------


def _gemini(entries: Iterable[Any], legacy: bool = False) -> Iterator[Item]:
    """Messages by id in order of first appearance, each as last written (packed: None when it
    is not the agent's); ``$rewindTo`` drops a message and every later one. ``$set.messages``,
    the history the CLI rebuilt on a resume or a compression, adds no work and takes none away.
    """
    messages = Packed()
    for entry in entries:
        if isinstance(entry, Bad):
            yield entry
            continue
        number, obj = entry
        if "sessionId" in obj:
            session, start = session_id(obj.get("sessionId")), timestamp(obj.get("startTime"))
            yield Meta(session, start, None, _str(obj.get("projectHash")))
        listed = obj.get("messages") if legacy else _object(obj.get("$set")).get("messages")
        for message in _list(listed):
            _fold(messages, number, message, rebuilt=not legacy)
        for message in (*(_list(listed) if legacy else ()), obj):  # not a rebuilt history's
            if isinstance(message, dict) and message.get("type") == "user":  # as typed, not as
                typed = message.get("displayContent", message.get("content"))  # sent (@path files)
                yield Meta(None, None, None, None, user_text(typed))
        rewind = obj.get("$rewindTo")
        if isinstance(rewind, str):
            keys = messages.keys()
            messages.keep(keys[: keys.index(rewind) if rewind in keys else 0])
        if "type" in obj:
            _fold(messages, number, obj)
    for line, time, texts, calls, files in messages.values():
        yield Record(line, time, texts, tuple(Call(*call) for call in calls), files)


def _fold(messages: Packed, number: int, message: Any, rebuilt: bool = False) -> None:
    """Message ``message`` (line ``number``) over any earlier copy of it (its id is a string or
    a number); a copy that changed nothing keeps its line: a later part must not count it again.
    A ``rebuilt`` history's message is not work: a new id is only a place a rewind can name."""
    key = message.get("id") if isinstance(message, dict) else None
    if not isinstance(key, str | int | float) or isinstance(key, bool):
        return
    if rebuilt:
        if str(key) not in messages:
            messages.put(str(key), None)
        return
    record = _gemini_record(number, message) if message.get("type") == "gemini" else None
    old = messages.get(str(key))
    if record is not None and old is not None and old[1:] == record[1:]:
        record = (old[0], *record[1:])
    messages.put(str(key), record)


def _gemini_record(number: int, message: Mapping[str, Any]) -> tuple[Any, ...]:
    """A message of the agent's as ``Record``'s fields, in plain tuples (``Packed`` holds it)."""
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
        name = _text(call.get("name"))
        args = _object(call.get("args"))
        path = args.get("file_path") or args.get("absolute_path")
        ok = call.get("status") == "success"
        files = (path,) if ok and name in _GEMINI_EDITS and isinstance(path, str) else ()
        kept = args if name in _GEMINI_KEPT else {}  # a dict: Packed holds plain values
        calls.append((name, tuple(strings(args)), files, kept, ok))
    return (number, timestamp(message.get("timestamp")), texts, tuple(calls), ())
