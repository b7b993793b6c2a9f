"""Command lines answered without click, by the grammar the table of command lines declares.

Agents' hooks run ``context`` and ``review --if-due`` at every session start, git runs
``merge-file`` at every merge of a memory file, and agents call ``status``, ``recall`` and
``explain`` as tools. Importing click and building every command's options costs about 90M
instructions (30 ms), more than most of those commands' own work. So a command line is parsed
here first, from the same declarations click is built from (``table.py``): a strict subset of
click's grammar, with click's defaults and checks. Anything else — an unknown word, ``--help``,
``--``, an option given twice, a value click would refuse or might read otherwise, a terminal on
stderr where the command shows a progress bar — is left to click before anything runs. Output
goes out as click.echo sends it, and a reader that went away or a Ctrl-C ends the run as click
ends it. A test runs generated command lines both ways and requires the same stdout, stderr,
exit code and files.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import NoReturn, TextIO

from .. import patterns

_ANSI = patterns.compile(r"\033\[[;?0-9]*[a-zA-Z]")  # click's own pattern for a terminal escape


def answer(argv: Sequence[str]) -> None:
    """Run and print the command ``argv`` and exit, when it is one answered here; else return."""
    # click re-wraps a stdout that cannot encode all of Unicode, and copes with a closed one
    # (None): that output is left to it.
    encoding = getattr(sys.stdout, "encoding", None) or ""
    if encoding.lower().replace("-", "") != "utf8" or sys.stderr is None or not argv:
        return
    if argv[0].startswith("-"):  # --version, --help: click's own, and it has nothing to import
        return
    from .families import declared
    from .grammar import Refused, parse

    line = declared(argv)
    if line is None or line.words[0] == "mcp":  # mcp: its group reads PATH as serve's
        return
    try:
        values = parse(line, argv[len(line.words) :])
    except (Refused, OSError):  # OSError: a path the system cannot look at; click says so
        return
    except (KeyboardInterrupt, EOFError):
        _aborted()
    if line.progress and not values.get("as_json") and sys.stderr.isatty():
        return  # click's progress bar
    from ..commands.runner import answer as run

    try:
        given, call = line.build(values, None)
        said = run(line.command, given, call, bool(values.get("as_json")))
    except (KeyboardInterrupt, EOFError):
        _aborted()
    try:
        _echo(said.err, sys.stderr)
        _echo(said.out, sys.stdout)
    except BrokenPipeError:
        # As click does: the reader went away (``| head``); exit 1 without a word, and without
        # Python's own complaint when it flushes stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
    sys.exit(said.code)


def _aborted() -> NoReturn:
    """A Ctrl-C, as click says it."""
    _echo("\nAborted!\n", sys.stderr)
    sys.exit(1)


def _echo(text: str, stream: TextIO) -> None:
    """What click.echo does with text: terminal escapes are removed from output that does not
    go to a terminal (the test of this module holds it to click's own)."""
    if "\033" in text and not stream.isatty():  # an escape starts with one; else no compiling
        text = _ANSI.sub("", text)
    stream.write(text)
    stream.flush()
