"""How every command runs: the command line, its quick path and the MCP server all call this.

A command is declared once, by its front end, as a ``Command`` (what it needs of its PATH, and
whether it writes) and a ``Call`` (the work, given the opened repo). The runner finds and opens
the repo, applies the journal rule — a command that only reads, and every ``--check`` and
``--dry-run``, never takes the lock and never rolls back or deletes a journal; a writing run
holds the lock from its first read to its last write — and turns an error into the one line the
user reads. Nothing else in the package catches ``AgentMemoryError``.
"""

import datetime as dt
import enum
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from ..errors import AgentMemoryError
from ..layout import CONTINUITY
from ..shell import clock, discovery
from ..shell.repo import Repo
from .report import Result, failure
from .settle import Options, not_enabled


class Needs(enum.Enum):
    """What a command needs of its PATH."""

    HERE = "the folder itself"  # merge-file: git runs it at the work tree's top
    TARGET = "the folder to enable"  # enable: discovery.enable_target
    REPO = "the enclosing repo, enabled or not"  # disable, recover, mcp: else PATH itself
    ENABLED = "the enclosing enabled repo"  # every other command


class Journal(enum.Enum):
    READS = "reads"  # refuses (after waiting --wait) while a journal is pending
    WRITES = "writes"  # the lock, rolling back a dead run's journal; --check/--dry-run: READS
    OWN = "its own"  # recover is the rule; merge-file, mcp serve: no journal of the repo


class Command(NamedTuple):
    name: str  # as reports name it: "fact add"
    journal: Journal
    needs: Needs = Needs.ENABLED


class Call(NamedTuple):
    """One run of a command: its work on the opened repo, and the options the runner applies."""

    run: Callable[[Repo], Result]
    options: Options = Options()
    # An answer found without the lock, before the work (review --if-due when nothing is due).
    quiet: Callable[[Repo], Result | None] | None = None


class Answer(NamedTuple):
    """What a front end prints — stdout, stderr, the exit code — and, for the MCP server, which
    answers with data rather than text, the error or the result."""

    out: str
    err: str
    code: int
    error: AgentMemoryError | OSError | None
    result: Result | None


def execute(command: Command, given: Path | None, call: Call) -> Result:
    """Run ``call`` on the repo ``command`` works on, found from ``given`` (None: the working
    directory), under the journal rule. Raises the command's error."""
    repo = open_repo(command.needs, given, call.options.today)  # the run's date, once
    if command.needs is Needs.ENABLED and not repo.exists(CONTINUITY):
        repo.refuse_if_interrupted()  # an interrupted enable says so, rather than "not enabled"
        raise not_enabled(repo)
    options = call.options
    if call.quiet is not None:  # it reads nothing a journal may be rolling back: it checks
        quiet = call.quiet(repo)
        if quiet is not None:
            return quiet
    if command.journal is Journal.OWN:
        return call.run(repo)
    if command.journal is Journal.READS or options.check or options.dry_run:
        repo.refuse_if_interrupted(options.wait)
        return call.run(repo)
    with repo.locked(options.wait):
        return call.run(repo)


def answer(command: Command, given: Path | None, call: Call, as_json: bool) -> Answer:
    """``execute``, printed: the report (text or JSON) and its exit code, or the error's one line
    (and, with --json, the error document), exit 1. The one place an error is caught."""
    try:
        result = execute(command, given, call)
    except (AgentMemoryError, OSError) as exc:
        shown = str(given) if given is not None else "."
        err, out = failure(command.name, shown, exc, as_json)
        return Answer(out, err, 1, exc, None)
    notes = "" if as_json else result.notes_text()
    return Answer(result.output(as_json), notes, result.exit_code, None, result)


def open_repo(needs: Needs, given: Path | None, today: dt.date | None = None) -> Repo:
    """The repo a command works on, named in its report as the user named it, on the run's
    time: ``today`` (``--today``), else SOURCE_DATE_EPOCH, else the clock (``clock``, which
    refuses a SOURCE_DATE_EPOCH that is not a time before anything is read)."""
    start = given if given is not None else Path()
    moment = clock.now(today)
    if needs is Needs.HERE:
        return Repo(start, now=moment)
    if needs is Needs.TARGET:
        target = discovery.enable_target(given, Path.cwd())
        return Repo(target, str(start if target == given else _shown(target)), moment)
    if not start.is_dir():
        return Repo(start, now=moment)  # refused, in Repo's words
    found = discovery.search(start)
    if found.found is None:
        if needs is Needs.ENABLED:
            raise found.not_enabled(str(start))
        return Repo(start, now=moment)
    if found.found == found.start:
        return Repo(start, str(start), moment)
    return Repo(found.found, _shown(found.found), moment)


def _shown(root: Path) -> str:
    """How a report names a repo found above where the command started: "." when that is the
    working directory, else its absolute path."""
    return "." if root == Path.cwd() else str(root)
