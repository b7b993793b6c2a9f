"""User-facing errors: each formats itself as one line and is caught only by the CLI."""

from __future__ import annotations


class AgentMemoryError(Exception):
    """A problem the user can act on; the CLI prints it as one line and exits 1."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class InputError(AgentMemoryError):
    """A file we must read is not in a shape we can interpret safely."""

    def __init__(self, path: str, line: int | None, problem: str, fix: str) -> None:
        self.path, self.line, self.problem, self.fix = path, line, problem, fix
        where = f"{path}:{line}" if line is not None else path
        super().__init__(f"{where}: {problem}; {fix}")


class RefusedError(AgentMemoryError):
    """The repo is readable but we will not act on it (future stamp, unsafe path, ...)."""


class LockedError(AgentMemoryError):
    """Another run holds the repo's lock."""

    def __init__(self, lock_path: str, holder: str) -> None:
        self.lock_path, self.holder = lock_path, holder
        super().__init__(
            f"{lock_path}: another agent-memory run ({holder}) is working on this repo; "
            "wait for it to finish or pass --wait SECONDS"
        )
