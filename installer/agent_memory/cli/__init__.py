"""The front ends: the command line and the MCP server (``mcp/``), options only.

Every command is declared once (``table``); ``quick`` answers a command line by that grammar
before click is imported, ``app`` is the click group built from the same table for everything
else (``--help``, usage errors, a progress bar on a terminal), and ``mcp/tools`` makes the MCP
tools from the same declarations. All hand the call to the runner.
"""

from __future__ import annotations

import gc
import sys

from .quick import answer
from .streams import escaping


def entry() -> None:
    """The ``agent-memory`` command, with the cycle collector off for the process.

    A run builds many small values that hold no cycles (facts, session references) and exits; the
    collector would only rescan them, a tenth of a full review's time, and once more at exit.
    The servers (``ui``, ``mcp``), which run for hours, turn it back on.
    """
    gc.disable()
    escaping()  # a character the output cannot encode is escaped, never a traceback
    _refuse_bytes(sys.argv[1:])
    answer(sys.argv[1:])  # exits when it answered
    from .base import main  # click: paid here only; the commands are built when one is asked for

    main.load = _commands
    main(prog_name="agent-memory")


def _commands() -> None:
    """Every declared command hung on the root group, once."""
    from .app import assemble  # the table and every command's options: only when needed

    assemble()


def _refuse_bytes(words: list[str]) -> None:
    """An argument holding bytes that are not UTF-8 (``$'\\xff'``) reaches Python as a lone
    surrogate, which no file we write and no terminal can encode: one line, before anything."""
    for word in words:
        try:
            word.encode("utf-8")
        except UnicodeEncodeError:
            sys.stderr.write(
                f"agent-memory: the argument {ascii(word)[:80]} is not UTF-8 text; pass UTF-8 "
                "(rename a file or folder whose name is not)\n"
            )
            sys.exit(1)
