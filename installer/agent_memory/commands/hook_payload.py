"""What every ``agent-memory hook`` command reads first and answers last: the hook's JSON
payload, the repo it names, and the one line an agent adds to its session; and the capture
hooks, which need nothing more. The session start (``hook``) imports the context, the prompt
(``hook_prompt``) the search; a capture hook, which Codex gives 3 s at session end, loads
neither, and a prompt loads the context only for a hit.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, Any

from ..errors import AgentMemoryError
from ..parse import hookinput
from ..parse.hookinput import Payload
from ..parse.untrusted import hook_json
from ..shell.repo import Repo
from ..shell.stream import hook_input, tail
from .report import Report, Result
from .runner import Call, Command, Journal, execute
from .settle import Options

# Seconds a hook waits for another run: its lock (a capture), or its journal while it writes (the
# context and a prompt's recall, which never take the lock). Codex gives a session-end hook 3 s in
# all (it clamps any longer timeout), which must also cover start-up and the capture itself.
HOOK_WAIT = 1.5

# ``session capture`` of a transcript (None: the hook named none), with the hook's session id
Capture = Callable[[Repo, Path | None, str | None], Result]
_CAPTURE = Command("session capture", Journal.WRITES)
_EVENT = {"session-start": "SessionStart", "prompt": "UserPromptSubmit"}  # when none is named
_ANSWERED = {"session-start": ("SessionStart",), "prompt": ("UserPromptSubmit", "BeforeAgent")}
# The end of a transcript read for what the agent holds of our hooks' context: a record before it
# is missed (its text sent again), a compaction before it never matters (nothing after it is).
# What a session adds between two compactions is about its context window, 200,000 tokens: under
# a few MB even as JSON. Reading 8 MiB cost a fresh process 11 ms of CPU, each search 2-3 ms.
TRANSCRIPT_TAIL = 4 << 20


def read_payload(stdin: IO[str] | None) -> Payload:
    """The hook's payload, read as soon as its JSON object is whole (HOOKS.md)."""
    if stdin is None or stdin.isatty():  # a person at a terminal: do not wait for input
        raise AgentMemoryError("reads the JSON an agent's hook passes on stdin (HOOKS.md)")
    most, seconds = hookinput.PAYLOAD_MAX, hookinput.PAYLOAD_SECONDS
    return hookinput.payload(hook_input(stdin, hookinput.whole, most, seconds, hookinput.HOOK_FIX))


def where(payload: Payload) -> Path | None:
    """Where the repo is looked for: the payload's ``cwd`` (the working directory without one)."""
    return Path(payload.cwd) if payload.cwd else None


def capture(stdin: IO[str] | None, event: str, run: Capture, wait: float) -> Result:
    """``session capture`` of the payload's transcript, found from its ``cwd``, with its
    ``session_id`` for a transcript that names none; silent when it succeeds (its report is
    in ``--json``'s summary only)."""
    payload = read_payload(stdin)
    transcript = hookinput.hook_transcript(payload)
    named = Path(transcript) if transcript is not None else None
    call = Call(lambda repo: run(repo, named, payload.session_id), Options(wait=wait))
    done = execute(_CAPTURE, where(payload), call)
    report = done.report._replace(command=f"hook {event}", plan=None, heading=(), closing=())
    return Result(report, done.exit_code)


def event_of(name: str, payload: Payload) -> str:
    """The event an answer names: the one the payload named, when it is one the command
    ``name`` answers (Gemini CLI calls the prompt event BeforeAgent), else the common name."""
    return payload.event if payload.event in _ANSWERED[name] else _EVENT[name]


def answer(command: str, event: str, text: str, data: Mapping[str, Any]) -> Result:
    """The one line every agent reads from a hook that adds context (``hook_json``)."""
    report = Report(command, ".", "ok", None, (), data, (hook_json(event, text),))
    return Result(report, 0)


def transcript_end(payload: Payload) -> bytes:
    """The end of the payload's transcript, where ``hookcontext`` finds what the agent holds of
    our hooks' context; nothing when it names none, or none that can be read: a hook never
    fails over a transcript, it adds its context again."""
    try:
        named = hookinput.hook_transcript(payload)
        return b"" if named is None else tail(Path(named), TRANSCRIPT_TAIL)
    except AgentMemoryError:
        return b""


def silent(command: str) -> Result:
    return Result(Report(command, ".", "nothing to add"), 0)
