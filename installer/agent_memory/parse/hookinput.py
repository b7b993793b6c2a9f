"""The JSON object an agent passes its session-end hook on stdin, and the transcript it names.

All three agents write one object (``session_id``, ``transcript_path``, ``cwd``, …) and may keep
stdin open after it, so the reader stops at the object's end (``whole``) instead of waiting for
end of file. The path is refused unless it could be a file's: it is only ever opened, never
written into anything.
"""

import json
from typing import Any, NamedTuple

from ..errors import InputError
from .untrusted import first_unsafe, session_id

PAYLOAD_MAX = 1 << 20  # bytes read from stdin at most; the agents send well under 4 KiB
PAYLOAD_SECONDS = 2.0  # agents write the object as they start the hook
PATH_MAX = 4096  # bytes: Linux's limit for a path
CAPTURE_FIX = "run it from an agent's hook, or pass --transcript FILE"


def whole(data: bytes) -> bool:
    """Whether ``data`` holds a whole JSON value, so reading may stop: a payload ends with its
    object's ``}``, so only then is it decoded."""
    if not data.rstrip().endswith(b"}"):
        return False
    return _decoded(data) is not _PARTIAL


def transcript_path(data: bytes) -> str | None:
    """The ``transcript_path`` of the hook's payload ``data`` (``session capture --hook``):
    None when it is missing, null or empty (a hook fired with no session: ``claude mcp list``,
    a Codex or Gemini payload without one); a value no file could have, or input that is no
    JSON object, is one line."""
    payload = _decoded(data)
    if not isinstance(payload, dict):
        raise InputError("<stdin>", None, "the hook's input is not a JSON object", CAPTURE_FIX)
    return _path(payload.get("transcript_path"), "transcript_path", CAPTURE_FIX)


def hook_transcript(payload: "Payload") -> str | None:
    """``transcript_path`` of a hook command's payload, checked as ``transcript_path`` checks
    it: the capture hooks refuse a value no file could have; the other hooks then read none."""
    return _path(payload.transcript, "transcript_path", HOOK_FIX)


def _path(where: object, key: str, fix: str) -> str | None:
    """The path a payload gives under ``key``: None when it is missing, null or empty; one
    that is no string, or that no file could have, is one line."""
    if where is None or where == "":
        return None
    if not isinstance(where, str):
        raise InputError("<stdin>", None, f"the hook's {key} is not a string", fix)
    unsafe = first_unsafe(where)
    if unsafe is not None or len(where.encode(errors="surrogatepass")) > PATH_MAX:
        what = f"holds {unsafe}" if unsafe else f"is over {PATH_MAX} bytes"
        raise InputError("<stdin>", None, f"the hook's {key} {what}, so it names no file", fix)
    return where


_PARTIAL = object()


def _decoded(data: bytes) -> Any:
    """The JSON value of ``data``; ``_PARTIAL`` when it is not (yet) JSON, None when it nests
    past what the decoder takes (RecursionError: no payload is like that)."""
    try:
        return json.loads(data)
    except ValueError:
        return _PARTIAL
    except RecursionError:
        return None


class Payload(NamedTuple):
    """What a hook command reads of its payload; each field None when the agent sent none."""

    cwd: str | None  # where the session runs: the repo is found from there
    event: str | None  # hook_event_name, answered back as the agent named it
    session_id: str | None
    prompt: str | None  # the user's prompt (UserPromptSubmit, BeforeAgent)
    transcript: object  # transcript_path as sent: capture checks it (``hook_transcript``)
    source: str | None = None  # why a session starts: startup, resume, compact, clear


HOOK_FIX = "run it from an agent's hook, which writes its JSON on stdin"
PROMPT_MAX = 1 << 16  # characters of a prompt a search reads; the rest adds no word worth it


def payload(data: bytes) -> Payload:
    """The fields of a hook's payload ``data``; input that is not a JSON object, or a ``cwd``
    that cannot be a folder's path, is one line."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError("<stdin>", None, "the hook's input is not UTF-8", HOOK_FIX) from None
    found = _decoded(data)
    if not isinstance(found, dict):
        raise InputError("<stdin>", None, "the hook's input is not a JSON object", HOOK_FIX)
    event, prompt, source = found.get("hook_event_name"), found.get("prompt"), found.get("source")
    return Payload(
        _path(found.get("cwd"), "cwd", HOOK_FIX),
        event if isinstance(event, str) else None,
        session_id(found.get("session_id")),
        prompt[:PROMPT_MAX] if isinstance(prompt, str) else None,
        found.get("transcript_path"),
        source if isinstance(source, str) else None,
    )
