"""The command lines that hooks and git run on their own, answered without click.

An agent's session-start hook runs ``review --if-due PATH`` and ``context --hook PATH`` at every
session, and git runs ``merge-file %O %A %B %P`` at every merge of a memory file. Importing click
costs about 70M instructions (30 ms), more than these commands' own work, so their usual
command lines are parsed here: a strict subset of each command's grammar, with the same defaults.
Anything else (another option, ``--help``, a value click would refuse, output click would change)
is left to the full command line, which runs the command again and says it the usual way:
context and review --if-due only read, and merge-file is left to it before it runs. Errors are
printed as the full command line prints them (``report.failure``). Each branch imports only its
own command.
A test runs both ways over generated command lines and requires the same bytes and exit code.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import AgentMemoryError

if TYPE_CHECKING:
    from ..commands.report import Result

_MIN_MAX_BYTES = 256  # the click option's IntRange minimum


def answer(argv: Sequence[str]) -> None:
    """Run and print the command ``argv`` and exit, when it is one answered here; else return."""
    # click re-wraps a stdout that cannot encode all of Unicode: that output is left to it.
    if (sys.stdout.encoding or "").lower().replace("-", "") != "utf8" or not argv:
        return
    command, rest = argv[0], list(argv[1:])
    as_json = _flag(rest, "--json")
    run = _parse(command, rest)
    if run is None:
        return
    call, repo = run
    try:
        result = call()
    except (AgentMemoryError, OSError) as exc:
        from ..commands.report import failure

        err, out = failure(command, repo, exc, as_json)
        code = 1
    else:
        if result is None:
            return
        out, err, code = result.output(as_json), "", result.exit_code
    # click.echo removes terminal escapes from piped output. Only a read-only command gets
    # here with one: merge-file refuses a word holding one before it runs.
    if "\x1b" in out + err:
        return
    sys.stderr.write(err)
    sys.stdout.write(out)
    sys.stdout.flush()
    sys.exit(code)


# How to run the command, and its PATH as the report names it.
_Run = tuple[Callable[[], "Result | None"], str]


def _parse(command: str, rest: list[str]) -> _Run | None:
    if command == "context":
        return _context(rest)
    if command == "review" and _flag(rest, "--if-due"):
        return _if_due(rest)
    if command == "merge-file":
        return _merge_file(rest)
    return None


def _flag(rest: list[str], flag: str) -> bool:
    """Whether ``flag`` is in ``rest`` (taken out of it); given twice, it stays for the caller
    to refuse the whole line."""
    if rest.count(flag) != 1:
        return False
    rest.remove(flag)
    return True


def _context(rest: list[str]) -> _Run | None:
    from ..commands.context import context
    from ..core.context import DEFAULT_MAX_BYTES

    hook = _flag(rest, "--hook")
    max_bytes = _option(rest, "--max-bytes")
    if max_bytes is not None and not (_number(max_bytes) and int(max_bytes) >= _MIN_MAX_BYTES):
        return None
    size = DEFAULT_MAX_BYTES if max_bytes is None else int(max_bytes)
    path = _directory(rest)
    return None if path is None else ((lambda: context(path, size, hook)), str(path))


def _option(rest: list[str], name: str) -> str | None:
    """The value of ``name VALUE`` or ``name=VALUE`` in ``rest`` (both taken out of it); given
    twice, or without a value, both stay for the caller to refuse the whole line."""
    at = [i for i, word in enumerate(rest) if word == name or word.startswith(f"{name}=")]
    if len(at) != 1:
        return None
    i = at[0]
    if rest[i] != name:
        return rest.pop(i)[len(name) + 1 :]
    if i + 1 == len(rest):
        return None
    value = rest[i + 1]
    del rest[i : i + 2]
    return value


def _number(word: str) -> bool:
    """ASCII digits without a leading zero: the numbers click and this parser read alike."""
    return word.isascii() and word.isdigit() and not word.startswith("0") and len(word) < 10


def _if_due(rest: list[str]) -> _Run | None:
    from ..commands.due import not_due

    if not _today(rest):
        return None
    path = _directory(rest)
    return None if path is None else ((lambda: not_due(path)), str(path))


def _today(rest: list[str]) -> bool:
    """Whether ``review``'s date is one click takes: ``--today`` a date, or else
    SOURCE_DATE_EPOCH unset or a time. Whether a review is due does not depend on it."""
    from ..parse.dates import epoch_date, parse_date

    value = _option(rest, "--today")
    if value is not None:
        return parse_date(value) is not None
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    return not epoch or epoch_date(epoch) is not None


def _merge_file(rest: list[str]) -> _Run | None:
    from ..commands.merge_file import merge_file

    if len(rest) != 4 or any(_refused(word) for word in rest):
        return None
    base, ours, theirs = (Path(word) for word in rest[:3])
    if any(p.is_dir() for p in (base, ours, theirs)):  # click.Path(dir_okay=False)
        return None
    return (lambda: merge_file(base, ours, theirs, rest[3])), rest[3]


def _directory(rest: list[str]) -> Path | None:
    """The one optional PATH argument (default "."), when nothing else is left and it is not a
    file (click.Path(file_okay=False))."""
    if len(rest) > 1 or (rest and _refused(rest[0])):
        return None
    path = Path(rest[0] if rest else ".")
    return None if path.exists() and not path.is_dir() else path


def _refused(word: str) -> bool:
    """A word click would read as an option (or the end of options), could not take as a path,
    or would print changed (a terminal escape)."""
    return word.startswith("-") or not word or "\x00" in word or "\x1b" in word
