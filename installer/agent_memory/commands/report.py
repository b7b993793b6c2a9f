"""What a command tells its user: one shape for text and for ``--json``.

Every command's JSON is ``{command, version, repo, outcome, plan, findings, summary}``; the text
form prints the same data as lines, with every character a terminal would obey rather than show
(a fact's ``\x1b]0;PWNED\x07``) escaped: a memory file is a stranger's text.
"""

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any, NamedTuple

from .. import resources
from ..core.plan import Plan
from ..errors import AgentMemoryError, Problem
from ..parse.untrusted import shown
from ..shell.files import os_error


class Report(NamedTuple):
    command: str
    repo: str
    outcome: str
    plan: Plan | None = None
    findings: Sequence[Problem] = ()
    summary: Mapping[str, Any] = MappingProxyType({})
    # What a person reads around the plan and the findings; JSON carries the same data.
    heading: tuple[str, ...] = ()
    closing: tuple[str, ...] = ()
    # False where stdout is one value a script captures (a path, an id); JSON still has the plan.
    show_plan: bool = True

    def lines(self) -> list[str]:
        plan = self.plan_lines() if self.show_plan else []
        return [*self.heading, *plan, *map(str, self.findings), *self.closing]

    def to_json(self) -> str:
        import json  # only --json prints JSON

        doc = {
            "command": self.command,
            "version": resources.version(),
            "repo": self.repo,
            "outcome": self.outcome,
            "plan": [
                {"path": e.path, "outcome": e.outcome.value, "reason": e.reason}
                for e in (self.plan.edits if self.plan else ())
            ],
            "findings": [f._asdict() for f in self.findings],
            "summary": dict(self.summary),
        }
        return json.dumps(doc, indent=2, sort_keys=False, ensure_ascii=False)

    def plan_lines(self) -> list[str]:
        if self.plan is None:
            return []
        width = max((len(e.outcome.value) for e in self.plan.edits), default=0)
        return [f"  {e.outcome.value:<{width}}  {e.path}  ({e.reason})" for e in self.plan.edits]


def failure(
    command: str, repo: str, exc: AgentMemoryError | OSError, as_json: bool
) -> tuple[str, str]:
    """What the command line prints when a command stops on a user-facing error: one line for
    stderr and, with --json, the error document for stdout. An OSError the shell did not name
    (it rolls back before it raises) is still one line."""
    error = exc if isinstance(exc, AgentMemoryError) else os_error(exc, str(exc.filename or "repo"))
    document = error_json(command, repo, error.problem) + "\n"
    return f"agent-memory: {shown(str(error))}\n", document if as_json else ""


def error_json(command: str, repo: str, problem: Problem) -> str:
    """The one ``--json`` document of a command that stopped on an error: the same shape as
    every other (``schema/report.schema.json``), its one finding the error."""
    return Report(command, repo, "error", None, (problem,)).to_json()


class Result(NamedTuple):
    """What a command hands the CLI: its report, its exit code, and the diff of a --dry-run."""

    report: Report
    exit_code: int
    diff: str = ""
    notes: tuple[str, ...] = ()  # lines for stderr in the text form (the JSON has their data)

    def output(self, as_json: bool) -> str:
        """What the command line prints on stdout: the JSON document, or the report's lines and
        the diff (nothing at all for a review that was not due)."""
        if as_json:
            return self.report.to_json() + "\n"
        if self.report.outcome == "not due":
            return ""
        return shown("".join(f"{line}\n" for line in self.report.lines()) + self.diff)

    def notes_text(self) -> str:
        """The notes as the text form prints them on stderr."""
        return shown("".join(f"{note}\n" for note in self.notes))
