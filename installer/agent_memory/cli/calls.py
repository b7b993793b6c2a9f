"""The build of a plain command line: its command's function called with the repo and some of
the line's values, as most lines are.

The command's module is imported when the line runs (``table.py``), by its name under
``commands/``, so a family's declarations cost no command module.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..commands.runner import Call
from .declared import Values, options

if TYPE_CHECKING:
    from ..commands.report import Result
    from .declared import Built, Progress


def calls(
    module: str, function: str, *keys: str, with_options: bool = False
) -> Callable[[Values, Progress], Built]:
    """The build of a line that runs ``commands.<module>.<function>(repo, *values)``: the values
    of ``keys``, then (``with_options``) the writing options, which the runner applies too."""

    def build(v: Values, _progress: Progress) -> Built:
        found = importlib.import_module(f"..commands.{module}", __package__)
        command: Callable[..., Result] = getattr(found, function)
        opts = options(v)
        given = [v[key] for key in keys] + ([opts] if with_options else [])
        return v["path"], Call(lambda repo: command(repo, *given), opts)

    return build
