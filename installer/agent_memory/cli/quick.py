"""The command lines that agents, their hooks and git run, answered without click.

An agent's hooks run ``review --if-due`` and ``context --hook`` at every session start, agents
run ``review`` at the end of one, and git runs ``merge-file %O %A %B %P`` at every merge of a
memory file. Importing click and every command's options costs about 90M instructions (30 ms),
more than those commands' own work on most repos. So their command lines are parsed here: a
strict subset of each command's grammar, with click's defaults and checks. Anything else
(another command or option, ``--help``, a value click would refuse, a terminal on stderr, where
the review shows a progress bar) is left to the full command line (``app``) before anything
runs. Output goes out as click.echo sends it, errors as ``report.failure`` words them for both,
and a reader that went away or a Ctrl-C ends the run as click ends it.
Each branch imports only its own command. A test runs both ways over generated command lines
and requires the same stdout, stderr, exit code and files.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal, NoReturn, TextIO

from .. import patterns
from ..layout import CONTEXT_BYTES, CONTEXT_MIN_BYTES

if TYPE_CHECKING:
    import datetime as dt

    from ..commands.report import Result

# The options that take a value: click takes the next word as it, whatever it looks like.
_VALUED = frozenset({"--max-bytes", "--today", "--wait", "--session"})
_ANSI = patterns.compile(r"\033\[[;?0-9]*[a-zA-Z]")  # click's own pattern for a terminal escape


def answer(argv: Sequence[str]) -> None:
    """Run and print the command ``argv`` and exit, when it is one answered here; else return."""
    # click re-wraps a stdout that cannot encode all of Unicode, and copes with a closed one
    # (None): that output is left to it.
    encoding = getattr(sys.stdout, "encoding", None) or ""
    if encoding.lower().replace("-", "") != "utf8" or sys.stderr is None or not argv:
        return
    command, rest = argv[0], list(argv[1:])
    # "--today --check": click reads "--check" as the date, and flags are taken out first here.
    pairs = zip(rest, [*rest[1:], ""], strict=False)  # the last word is followed by nothing
    if any(word in _VALUED and after[:1] in ("-", "") for word, after in pairs):
        return
    as_json = _flag(rest, "--json")
    try:
        run = _parse(command, rest)
    except OSError:  # a path the system cannot look at (too long, no access): click says so
        return
    except (KeyboardInterrupt, EOFError):
        _aborted()
    if run is None:
        return
    # Here, not at the top: every command line, --version's too, passes through this module,
    # and the errors module builds a named tuple (1M instructions) the command imports anyway.
    from ..errors import AgentMemoryError

    call, repo = run
    try:
        result = call()
    except (AgentMemoryError, OSError) as exc:
        from ..commands.report import failure

        err, out = failure(command, repo, exc, as_json)
        code = 1
    except (KeyboardInterrupt, EOFError):
        _aborted()
    else:
        out, err, code = result.output(as_json), "", result.exit_code
    try:
        _echo(err, sys.stderr)
        _echo(out, sys.stdout)
    except BrokenPipeError:
        # As click does: the reader went away (``| head``); exit 1 without a word, and without
        # Python's own complaint when it flushes stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
    sys.exit(code)


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


# How to run the command, and its PATH as the report names it.
_Run = tuple[Callable[[], "Result"], str]


def _parse(command: str, rest: list[str]) -> _Run | None:
    if command == "context":
        return _context(rest)
    if command == "review":
        return _review(rest)
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

    hook = _flag(rest, "--hook")
    max_bytes = _option(rest, "--max-bytes")
    if max_bytes is not None and not (_number(max_bytes) and int(max_bytes) >= CONTEXT_MIN_BYTES):
        return None
    size = CONTEXT_BYTES if max_bytes is None else int(max_bytes)
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


def _review(rest: list[str]) -> _Run | None:
    from ..commands.review_entry import review_unless_quiet

    if_due, full = _flag(rest, "--if-due"), _flag(rest, "--full")
    dry_run, check = _flag(rest, "--dry-run"), _flag(rest, "--check")
    today, wait, session = _today(rest), _option(rest, "--wait"), _option(rest, "--session")
    path = _directory(rest)
    # On a terminal the full command line shows a progress bar over a long history.
    if path is None or today is False or sys.stderr.isatty():
        return None
    if wait is not None and not _seconds(wait):
        return None
    if session is not None and (_refused(session) or not _file(Path(session))):
        return None

    from ..commands.settle import Options

    options = Options(dry_run, check, today, float(wait or 0))
    file = None if session is None else Path(session)
    return (lambda: review_unless_quiet(path, full, if_due, file, options)), str(path)


def _today(rest: list[str]) -> dt.date | Literal[False] | None:
    """``review``'s date when click would take it (None: not given, and SOURCE_DATE_EPOCH unset
    or a time); False when it would refuse it."""
    from ..parse.dates import epoch_date, parse_date

    value = _option(rest, "--today")
    if value is not None:
        return parse_date(value) or False
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    return None if not epoch or epoch_date(epoch) is not None else False


def _seconds(word: str) -> bool:
    """ASCII digits with an optional fraction: the seconds click and this parser read alike."""
    whole, _, fraction = word.partition(".")
    return all(part.isascii() and part.isdigit() for part in (whole, fraction or "0"))


def _file(path: Path) -> bool:
    """What click.Path(dir_okay=False) takes: no folder, and readable when it exists."""
    return not path.is_dir() and _readable(path)


def _readable(path: Path) -> bool:
    """What click.Path() takes: readable when it exists (merge-file refuses a folder itself)."""
    return not path.exists() or os.access(path, os.R_OK)


def _merge_file(rest: list[str]) -> _Run | None:
    from ..commands.merge_file import merge_file

    if len(rest) != 4 or any(_refused(word) for word in rest):
        return None
    base, ours, theirs = (Path(word) for word in rest[:3])
    if not all(_readable(p) for p in (base, ours, theirs)):
        return None
    return (lambda: merge_file(base, ours, theirs, rest[3])), rest[3]


def _directory(rest: list[str]) -> Path | None:
    """The one optional PATH argument (default "."), when nothing else is left and it is not a
    file (click.Path(file_okay=False))."""
    if len(rest) > 1 or (rest and _refused(rest[0])):
        return None
    path = Path(rest[0] if rest else ".")
    if path.exists() and not (path.is_dir() and os.access(path, os.R_OK)):
        return None  # click.Path(file_okay=False): a folder, readable when it exists
    return path


def _refused(word: str) -> bool:
    """A word click would read as an option (or the end of options), or could not take as a
    path."""
    return word.startswith("-") or not word or "\x00" in word
