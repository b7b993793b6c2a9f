"""The command line that serves the memory to a browser: ``ui`` (DESIGN §28).

Its ``build`` imports the server only when the command runs (``table.py``); the server's pages
import the other families, whose lines they run, and never this one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..commands.runner import Call, Command, Journal
from .declared import PATH, TODAY, WAIT, Declared, Kind, Param, Values

if TYPE_CHECKING:
    from .declared import Built, Progress


def _ui(v: Values, _progress: Progress) -> Built:
    from .ui.actions import Setting
    from .ui.serve import serve

    setting = Setting(v["today"], float(v["wait"] or 0.0), bool(v["read_only"]))
    port, browser = int(v["port"] or 0), not v["no_browser"]
    return v["path"], Call(lambda repo: serve(repo, setting, port, browser))


LINES: tuple[Declared, ...] = (
    Declared(
        ("ui",),
        "Serve PATH's memory to a browser on 127.0.0.1 until Ctrl-C: the facts, search, the\n"
        "inbox of proposals, health, and each curation command, previewed as its --dry-run\n"
        "diff and applied as the command line applies it. Prints the address, with its token.",
        # Each page and each change runs its own command through the runner (its journal rule).
        Command("ui", Journal.OWN),
        (
            PATH,
            Param(
                "port",
                Kind.COUNT,
                ("--port",),
                "Serve on this port (default: a free one).",
                default=0,
                metavar="PORT",
            ),
            Param("no_browser", Kind.FLAG, ("--no-browser",), "Print the address; open nothing."),
            Param(
                "read_only",
                Kind.FLAG,
                ("--read-only",),
                "Serve the pages without any change.",
            ),
            TODAY,
            WAIT,
        ),
        _ui,
    ),
)
