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
from pathlib import Path
from typing import Any, NoReturn, TextIO

from .. import patterns
from .declared import Declared, Kind, Param, slug_fits

_ANSI = patterns.compile(r"\033\[[;?0-9]*[a-zA-Z]")  # click's own pattern for a terminal escape


class _Refused(Exception):
    """A word this parser leaves to click."""


def answer(argv: Sequence[str]) -> None:
    """Run and print the command ``argv`` and exit, when it is one answered here; else return."""
    # click re-wraps a stdout that cannot encode all of Unicode, and copes with a closed one
    # (None): that output is left to it.
    encoding = getattr(sys.stdout, "encoding", None) or ""
    if encoding.lower().replace("-", "") != "utf8" or sys.stderr is None or not argv:
        return
    if argv[0].startswith("-"):  # --version, --help: click's own, and it has nothing to import
        return
    from .table import BY_WORDS

    line = BY_WORDS.get(tuple(argv[:1])) or BY_WORDS.get(tuple(argv[:2]))
    if line is None or line.words[0] == "mcp":  # mcp: its group reads PATH as serve's
        return
    try:
        values = parse(line, argv[len(line.words) :])
    except (_Refused, OSError):  # OSError: a path the system cannot look at; click says so
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


def parse(line: Declared, words: Sequence[str]) -> dict[str, Any]:
    """The values click would pass for ``words``, or ``_Refused``."""
    by_flag = {flag: p for p in line.params for flag in p.flags}
    given: dict[str, list[Any]] = {}
    positional: list[str] = []
    rest = list(words)
    while rest:
        word = rest.pop(0)
        if not word.startswith("-"):
            positional.append(word)
            continue
        name, has_value, value = word.partition("=")
        param = by_flag.get(name)
        if param is None or (param.name in given and not param.multiple):
            raise _Refused
        if param.kind in (Kind.FLAG, Kind.SWITCH):
            if has_value:
                raise _Refused
            given[param.name] = [param.kind is Kind.FLAG or name == param.flags[0]]
            continue
        if not has_value:
            if not rest or rest[0][:1] in ("-", ""):  # click might read it as an option
                raise _Refused
            value = rest.pop(0)
        given.setdefault(param.name, []).append(_value(param, value))
    return _assigned(line, given, positional)


def _assigned(line: Declared, given: dict[str, list[Any]], positional: list[str]) -> dict[str, Any]:
    """Every parameter's value: the positionals in order, then each default."""
    arguments = [p for p in line.params if not p.flags]
    if len(positional) > len(arguments):
        raise _Refused
    for param, word in zip(arguments, positional, strict=False):
        given[param.name] = [_value(param, word)]
    values: dict[str, Any] = {}
    for param in line.params:
        found = given.get(param.name)
        if found is None:
            if param.required:
                raise _Refused
            values[param.name] = _default(param)
        else:
            values[param.name] = tuple(found) if param.multiple else found[0]
    return values


def _default(param: Param) -> Any:
    if param.multiple:
        return ()
    if param.kind is Kind.FLAG:
        return False
    if param.kind is Kind.DATE:
        _epoch()
    return param.default


def _value(param: Param, word: str) -> Any:
    """``word`` read as click reads ``param``'s value; ``_Refused`` where click would refuse it
    or where the two might differ."""
    if not word or "\x00" in word or (word.startswith("-") and not param.flags):
        raise _Refused
    kind = param.kind
    if kind is Kind.FOLDER:
        return _folder(word)
    if kind is Kind.FILE:
        return _file(word)
    if kind is Kind.COUNT:
        if not _number(word) or int(word) < param.low:
            raise _Refused
        return int(word)
    if kind is Kind.SECONDS:
        if not _seconds(word):
            raise _Refused
        return float(word)
    if kind is Kind.CHOICE and word not in param.choices:
        raise _Refused
    if kind is Kind.DATE:
        return _parsed(word, "parse_date")
    if kind is Kind.MOMENT:
        return _parsed(word, "parse_moment")
    if kind is Kind.SLUG and not slug_fits(word):
        raise _Refused
    return word


def _parsed(word: str, reader: str) -> Any:
    from ..parse import dates

    found = getattr(dates, reader)(word)
    if found is None:
        raise _Refused
    return found


def _epoch() -> None:
    """An unset ``--today`` reads SOURCE_DATE_EPOCH, which click refuses when it is no time."""
    from ..parse.dates import epoch_date

    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch and epoch_date(epoch) is None:
        raise _Refused


def _number(word: str) -> bool:
    """ASCII digits without a leading zero: the numbers click and this parser read alike."""
    return word.isascii() and word.isdigit() and not word.startswith("0") and len(word) < 10


def _seconds(word: str) -> bool:
    """ASCII digits with an optional fraction: the seconds click and this parser read alike."""
    whole, _, fraction = word.partition(".")
    return all(part.isascii() and part.isdigit() for part in (whole, fraction or "0"))


def _folder(word: str) -> Path:
    """What click.Path(file_okay=False) takes: a folder, readable when it exists."""
    path = Path(word)
    if path.exists() and not (path.is_dir() and os.access(path, os.R_OK)):
        raise _Refused
    return path


def _file(word: str) -> Path:
    """What click.Path(dir_okay=False) takes: no folder, and readable when it exists."""
    path = Path(word)
    if path.is_dir() or (path.exists() and not os.access(path, os.R_OK)):
        raise _Refused
    return path


def _aborted() -> NoReturn:
    """A Ctrl-C, as click says it."""
    _echo("\nAborted!\n", sys.stderr)
    sys.exit(1)


def _echo(text: str, stream: TextIO) -> None:
    """What click.echo does with text: terminal escapes are removed from output that does not
    go to a terminal (the test of this module holds it to click's own)."""
    if text and not stream.isatty():
        text = _ANSI.sub("", text)
    stream.write(text)
    stream.flush()
