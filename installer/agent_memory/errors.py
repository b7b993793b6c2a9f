"""What can go wrong: a ``Problem`` at a place in a file, and the errors raised from one.

Parsers return problems, lint prints them and ``--json`` carries them; a problem the command
cannot go on with is raised as an ``AgentMemoryError``, caught only by the CLI, which prints the
one line it formats and exits 1.
"""

from collections.abc import Iterable
from typing import NamedTuple


class Problem(NamedTuple):
    """A finding: where (``line`` is 1-based, None for the whole file), how bad, which check."""

    path: str
    line: int | None
    severity: str  # error, warning, advisory
    check: str
    message: str

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}" if self.line is not None else self.path

    def __str__(self) -> str:
        return f"{self.where}: {self.severity} [{self.check}] {self.message}"


class AgentMemoryError(Exception):
    """A problem the user can act on; the CLI prints it as one line and exits 1."""

    check = "refused"

    def __init__(self, message: str, path: str = "", line: int | None = None) -> None:
        super().__init__(message)
        self.message, self.path, self.line = message, path, line

    @property
    def problem(self) -> Problem:
        return Problem(self.path, self.line, "error", self.check, self.message)

    def __str__(self) -> str:
        return f"{self.problem.where}: {self.message}" if self.path else self.message


class InputError(AgentMemoryError):
    """A file we must read is not in a shape we can interpret safely: what is wrong, what to do."""

    check = "input"

    def __init__(self, path: str, line: int | None, problem: str, fix: str) -> None:
        super().__init__(f"{problem}; {fix}", path, line)
        self.wrong = problem  # apart from its fix: a caller may give its own


class RefusedError(AgentMemoryError):
    """The repo is readable but we will not act on it (future stamp, unsafe path, ...)."""


class DuplicateError(AgentMemoryError):
    """A new fact says what an existing one says: its id is the one to reference instead."""

    check = "duplicate"

    def __init__(self, message: str, existing: str) -> None:
        super().__init__(message)
        self.existing = existing


class LockedError(AgentMemoryError):
    """Another run holds the repo's lock."""

    check = "locked"

    def __init__(self, lock_path: str, holder: str) -> None:
        self.holder = holder
        super().__init__(
            f"another agent-memory run ({holder}) is working on this repo; "
            "wait for it to finish or pass --wait SECONDS",
            lock_path,
        )


class CalledOffError(AgentMemoryError):
    """The caller called the run off (a cancelled MCP call) before it wrote anything."""

    check = "cancelled"

    def __init__(self) -> None:
        super().__init__("called off before it wrote anything; nothing was written")


def refuse_errors(problems: Iterable[Problem], fix: str) -> None:
    """Stop on the first error among ``problems`` (a file the command cannot act on safely),
    as one line naming its file and line and ending with ``fix``."""
    for problem in problems:
        if problem.severity == "error":
            raise InputError(problem.path, problem.line, problem.message, fix)
