"""``agent-memory lint``: every problem in the memory files, one line each."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from .. import resources
from ..core import lint as linting
from ..layout import ARCHIVE_INDEX, MANIFEST, POLICY, SESSIONS_DIR
from ..shell.load import load
from ..shell.repo import Repo
from .report import Report
from .settle import Result

_SEVERITIES = ("error", "warning", "advisory")


def lint(path: Path, only: Sequence[str] = ()) -> Result:
    """``only``: the checks to report (the pre-commit secret guard asks for ``secret``)."""
    repo = Repo(path)
    repo.recover()
    memory = load(repo)
    texts = [(POLICY, repo.read(POLICY)), (ARCHIVE_INDEX, memory.archive_index)]
    logs = repo.read_each(SESSIONS_DIR, memory.logs)
    present = [(p, data) for p, data in texts if data is not None]
    findings = linting.lint(memory, (MANIFEST, repo.read(MANIFEST)), logs, present)
    if only:
        findings = [f for f in findings if f.check in only]
    counts = {s: sum(1 for f in findings if f.severity == s) for s in _SEVERITIES}
    closing = (
        f"{counts['error']} errors, {counts['warning']} warnings, {counts['advisory']} advisories"
    )
    outcome = "problems" if counts["error"] else "clean"
    report = Report("lint", resources.version(), str(path), outcome, None, findings, counts)
    return Result(report._replace(closing=(closing,)), linting.exit_code(findings))
