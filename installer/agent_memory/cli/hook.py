"""Command lines an agent's hooks run: ``hook session-start``, ``pre-compact``, ``session-end``
and ``prompt``, one per event, each reading the hook's JSON on stdin (HOOKS.md).

Each ``build`` imports its command's module when the command runs (``table.py``); the review and
capture a hook may need are imported only when it needs them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..commands.runner import Call, Command, Journal, Needs
from ..core.agents.hook_entries import PRE_COMPACT, PROMPT, SESSION_END, SESSION_START
from .declared import Declared, Values

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from ..commands.hook_prompt import Held
    from ..commands.report import Result
    from ..parse.facts import Document
    from ..shell.repo import Repo
    from .declared import Built, Progress


def _session_start(_v: Values, _progress: Progress) -> Built:
    import sys

    from ..commands.hook import session_start

    def review(repo: Repo) -> Result:
        # 60M instructions (25 ms): paid only when a review is due
        from ..commands.review import ReviewOptions, review
        from ..commands.settle import Options

        return review(repo, ReviewOptions(if_due=True), Options())

    return None, Call(lambda _repo: session_start(sys.stdin, review))


def _capture(event: str) -> Any:
    def build(_v: Values, _progress: Progress) -> Built:
        import sys

        from ..commands.capture import capture_transcript
        from ..commands.hook_payload import HOOK_WAIT
        from ..commands.hook_payload import capture as hooked

        def run(repo: Repo, transcript: Path | None, session: str | None) -> Result:
            return capture_transcript(repo, transcript, None, session)

        return None, Call(lambda _repo: hooked(sys.stdin, event, run, HOOK_WAIT))

    return build


def _prompt(_v: Values, _progress: Progress) -> Built:
    import sys

    from ..commands.hook_prompt import prompt

    def shown(
        repo: Repo, found: Sequence[Document], here: str | None, held: Held
    ) -> frozenset[str]:
        # the context and git: paid only for a live fact's hit over the floor
        from ..commands.context import listed_at_start

        return listed_at_start(repo, found, here, held)

    return None, Call(lambda _repo: prompt(sys.stdin, shown))


def _line(event: str, help: str, build: Any) -> Declared:
    # The repo is found from the payload's cwd, not from a PATH: the hook names no folder.
    command = Command(f"hook {event}", Journal.OWN, Needs.HERE)
    return Declared(("hook", event), help, command, (), build)


LINES: tuple[Declared, ...] = (
    _line(
        SESSION_START,
        "Session start: review if due, then print the context as the JSON the agent adds to "
        "the session.",
        _session_start,
    ),
    _line(
        PRE_COMPACT,
        "Before compaction: capture the session's log from the transcript the hook's JSON "
        "names; print nothing.",
        _capture(PRE_COMPACT),
    ),
    _line(
        SESSION_END,
        "Session end: capture the session's log from the transcript the hook's JSON names; "
        "print nothing.",
        _capture(SESSION_END),
    ),
    _line(
        PROMPT,
        "Each prompt (opt-in): the facts matching it that the session was not shown, as the "
        "JSON the agent adds to the turn.",
        _prompt,
    ),
)
