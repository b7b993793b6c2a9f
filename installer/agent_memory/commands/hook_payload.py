"""What every ``agent-memory hook`` command reads first: the hook's JSON payload, and the repo
it names; and the capture hooks, which need nothing more. The session-start and prompt hooks
(``hook``) import the context and the search; a capture hook, which Codex gives 3 s at session
end, does not load them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import IO

from ..errors import AgentMemoryError
from ..parse import hookinput
from ..parse.hookinput import Payload
from ..shell.repo import Repo
from ..shell.stream import hook_input
from .report import Result
from .runner import Call, Command, Journal, execute
from .settle import Options

# ``session capture`` of a transcript (None: the hook named none), with the hook's session id
Capture = Callable[[Repo, Path | None, str | None], Result]
_CAPTURE = Command("session capture", Journal.WRITES)


def read_payload(stdin: IO[str] | None) -> Payload:
    """The hook's payload, read as soon as its JSON object is whole (HOOKS.md)."""
    if stdin is None or stdin.isatty():  # a person at a terminal: do not wait for input
        raise AgentMemoryError("reads the JSON an agent's hook passes on stdin (HOOKS.md)")
    most, seconds = hookinput.PAYLOAD_MAX, hookinput.PAYLOAD_SECONDS
    return hookinput.payload(hook_input(stdin, hookinput.whole, most, seconds))


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
