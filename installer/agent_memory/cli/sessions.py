"""Command lines on session logs and the git history: session new / capture, check-logs,
merge-file.

Each ``build`` imports its command's module when the command runs (``table.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..commands.runner import Call, Command, Journal, Needs
from .calls import calls
from .declared import (
    AGENTS,
    HOOK,
    JSON,
    PATH,
    Declared,
    Kind,
    Param,
    Values,
    options,
)

if TYPE_CHECKING:
    from .declared import Built, Progress


def _capture(v: Values, _progress: Progress) -> Built:
    import sys

    from ..commands.capture import CaptureOptions, capture
    from ..commands.hook_payload import HOOK_WAIT

    transcript, hook = v["transcript"], v["hook"]
    stdin = sys.stdin if hook and transcript is None else None
    found = CaptureOptions(transcript, v["agent"], stdin)
    wait = v["wait"] if v["wait"] is not None else HOOK_WAIT if hook else 0.0
    return v["path"], Call(lambda repo: capture(repo, found), options({"wait": wait}))


def _merge_file(v: Values, _progress: Progress) -> Built:
    from ..commands.merge_file import merge_file

    base, ours, theirs, path = v["base"], v["ours"], v["theirs"], v["path"]
    return None, Call(lambda _repo: merge_file(base, ours, theirs, path))


LINES: tuple[Declared, ...] = (
    Declared(
        ("session", "new"),
        "Create memory/sessions/<UTC time>[-slug].md from the schema's template; print its path.",
        Command("session new", Journal.WRITES),
        (
            PATH,
            Param(
                "slug",
                Kind.SLUG,
                ("--slug",),
                "Add -TEXT to the name (kebab-cased).",
                metavar="TEXT",
            ),
            Param(
                "now",
                Kind.MOMENT,
                ("--now",),
                "Time to name the log by (UTC unless an offset is given; default: "
                "SOURCE_DATE_EPOCH, else now).",
                metavar="YYYY-MM-DDTHH:MM:SS",
            ),
            JSON,
        ),
        calls("session", "session_new", "slug", "now"),
    ),
    Declared(
        ("session", "capture"),
        "Write memory/sessions/<start>-<agent>-<session>.md from an agent's transcript: the "
        "ids\nthe agent named, the facts it added or changed, the files it changed; one log per "
        "session,\nrewritten until a review reads it or git records it.",
        Command("session capture", Journal.WRITES),
        (
            PATH,
            Param(
                "transcript",
                Kind.FILE,
                ("--transcript",),
                "The agent's transcript (JSON lines) to write the log from.",
                metavar="FILE",
            ),
            Param(
                "agent",
                Kind.CHOICE,
                ("--agent",),
                "Whose transcript it is (default: recognised from its first record).",
                choices=AGENTS,
            ),
            HOOK,
            JSON,
            Param(
                "wait",
                Kind.SECONDS,
                ("--wait",),
                "Wait up to SECONDS for another run's lock (default: 0; with --hook, 1.5, which "
                "fits Codex's 3 s limit on a session-end hook).",
                metavar="SECONDS",
            ),
        ),
        _capture,
    ),
    Declared(
        ("check-logs",),
        "Fail if a session log that exists at REV was modified or deleted (logs are append-only).",
        Command("check-logs", Journal.READS),
        (
            PATH,
            Param(
                "base",
                Kind.TEXT,
                ("--base",),
                "Git revision to compare with (a pre-commit hook: HEAD; CI: the target branch).",
                default="HEAD",
                metavar="REV",
                show_default=True,
            ),
            JSON,
        ),
        calls("check_logs", "check_logs", "base"),
    ),
    Declared(
        ("merge-file",),
        "Git merge driver: merge BASE, OURS and THEIRS of memory file PATH by fact id, into "
        "OURS.\n\nConfigured by `enable` as `agent-memory merge-file %O %A %B %P` (behind the "
        "tool's own path; MERGE.md); exit 1 when "
        "a fact was\nchanged differently on both sides (marked alone, as git marks conflicts).",
        Command("merge-file", Journal.OWN, Needs.HERE),
        (
            # Any path: merge-file says itself what it refuses (a folder, a FIFO, a link).
            Param("base", Kind.ANY_PATH, required=True),
            Param("ours", Kind.ANY_PATH, required=True),
            Param("theirs", Kind.ANY_PATH, required=True),
            Param("path", Kind.TEXT, required=True),
            JSON,
        ),
        _merge_file,
    ),
)
