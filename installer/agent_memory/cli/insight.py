"""Command lines that look back over the history: replay and report (DESIGN §23).

Each ``build`` imports its command's module when the command runs (``table.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..commands.runner import Call, Command, Journal
from ..layout import CONTEXT_BYTES, CONTEXT_MIN_BYTES
from .declared import JSON, PATH, TODAY, Declared, Kind, Param, Values, options

if TYPE_CHECKING:
    from .declared import Built, Progress

MAX_BYTES = Param(
    "max_bytes",
    Kind.COUNT,
    ("--max-bytes",),
    "The budget of the view replayed (as context --max-bytes).",
    default=CONTEXT_BYTES,
    low=CONTEXT_MIN_BYTES,
    show_default=True,
)


def _replay(v: Values, _progress: Progress) -> Built:
    from ..commands.replay import replay_command

    items, size = tuple(v["policy"] or ()), v["max_bytes"]
    return v["path"], Call(lambda repo: replay_command(repo, items, size))


def _report(v: Values, _progress: Progress) -> Built:
    from ..commands.report_page import report_page

    target, form = v["html"], v["form"]
    return v["path"], Call(lambda repo: report_page(repo, target, form), options(v))


LINES: tuple[Declared, ...] = (
    Declared(
        ("replay",),
        "Replay the session logs in order: for each, the memory as it stood and the context it\n"
        "would have shown (the log's text as the task); of the facts each session used, how\n"
        "many were shown in full, named, cut by the budget, or archived. Writes nothing.",
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
            JSON,
        ),
        _replay,
    ),
    Declared(
        ("report",),
        "Report whether the memory works: the replay's hit rate over time, facts per tier,\n"
        "archive growth, the facts used most and least, stale and expiring facts, pending\n"
        "proposals and whether a review is due. Without --html, Markdown on stdout.",
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
        _report,
    ),
)
