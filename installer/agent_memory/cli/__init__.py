"""The command line: options only.

``app`` is the click group: each module declares some commands on it and hands each call to one
module of ``commands``. ``quick`` answers the command lines that hooks and git run, before click
is imported.
"""

from __future__ import annotations

import gc
import sys

from .quick import answer


def entry() -> None:
    """The ``agent-memory`` command, with the cycle collector off for the process.

    A run builds many small values that hold no cycles (facts, session references) and exits; the
    collector would only rescan them, a tenth of a full review's time, and once more at exit.
    """
    gc.disable()
    answer(sys.argv[1:])  # exits when it answered
    from .app import main  # click and every command's options: 70M instructions, paid here only

    main(prog_name="agent-memory")
