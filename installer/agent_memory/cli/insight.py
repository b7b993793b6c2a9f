"""Command lines that look back over the history: replay and report (DESIGN §23).

Each ``build`` imports its command's module when the command runs (``table.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..commands.runner import Call, Command, Journal
from ..layout import CONTEXT_BYTES, CONTEXT_MIN_BYTES
from .calls import calls
from .declared import JSON, PATH, TODAY, Declared, Kind, Param, Values

if TYPE_CHECKING:
    from .declared import Built, Progress

MAX_BYTES = Param(
    "max_bytes",
    Kind.TEXT,
    ("--max-bytes",),
    "The budget of the view replayed (as context --max-bytes, at least "
    f"{CONTEXT_MIN_BYTES}); several, comma-separated (4096,8192,16384), compares them side by "
    "side.",
    default=str(CONTEXT_BYTES),
    metavar="BYTES[,BYTES...]",
    show_default=True,
)
TASK_FROM = Param(
    "task_from",
    Kind.CHOICE,
    ("--task-from",),
    "Each view's task: the session's first prompt where its log records one, else none "
    "(prompt); none; or the log's own text (log: an upper bound, as the log was written after "
    "the work).",
    default="prompt",
    choices=("prompt", "none", "log"),
    show_default=True,
)


def _replay(v: Values, _progress: Progress) -> Built:
    from ..commands.replay import replay_command

    items, size, source = tuple(v["policy"] or ()), v["max_bytes"], v["task_from"]
    return v["path"], Call(lambda repo: replay_command(repo, items, size, source))


LINES: tuple[Declared, ...] = (
    Declared(
        ("replay",),
        "Replay the session logs in order: for each, the memory as it stood and the context it\n"
        "would have shown (its task: what the session start knew); of the facts each session\n"
        "used, how many were shown in full (the headline), named only, cut by the budget, or\n"
        "archived. Writes nothing.",
        Command("replay", Journal.READS),
        (
            PATH,
            Param(
                "policy",
                Kind.TEXT,
                ("--policy",),
                "Replay also with this policy value (repeatable, e.g. active_window=12) and "
                "compare.",
                multiple=True,
                metavar="KEY=VALUE",
            ),
            MAX_BYTES,
            TASK_FROM,
            JSON,
        ),
        _replay,
    ),
    Declared(
        ("report",),
        "Report whether the memory works: the replay's share in full over time and by budget,\n"
        "facts per tier, archive growth, the facts used most and least, stale and expiring\n"
        "facts, pending proposals and whether a review is due. Without --html, Markdown on\n"
        "stdout.",
        Command("report", Journal.READS),
        (
            PATH,
            Param(
                "html",
                Kind.FILE,
                ("--html",),
                "Write the report to FILE: one self-contained page (never inside memory/).",
                metavar="FILE",
            ),
            Param(
                "form",
                Kind.CHOICE,
                ("--format",),
                "What to write: html (the page; the default with --html) or md (Markdown, for a "
                "pull request's comment; the default without).",
                choices=("html", "md"),
            ),
            TODAY,
            JSON,
        ),
        calls("report_page", "report_page", "html", "form"),
    ),
)
