"""``agent-memory check-logs``: session logs are append-only; fail on any other change."""

from __future__ import annotations

from pathlib import Path

from .. import resources
from ..core.lint import exit_code
from ..errors import Problem
from ..layout import SESSIONS_DIR
from ..parse.sessions import session_date
from ..shell.git import changed_paths
from ..shell.repo import Repo
from .report import Report
from .settle import Result, require_enabled


def check_logs(path: Path, base: str) -> Result:
    """Fail when a session log that exists in git at ``base`` was modified or deleted since."""
    repo = Repo(path)
    require_enabled(repo)
    findings = [
        Problem(
            name,
            None,
            "error",
            "session-log-changed",
            f"{'deleted' if status == 'D' else 'modified'} since {base}; session logs are "
            f"append-only — restore it (git checkout {base} -- {name}) and write a new log instead",
        )
        for status, name in changed_paths(repo.root, base, SESSIONS_DIR)
        if status in ("M", "D", "T") and session_date(name.rsplit("/", 1)[-1]) is not None
    ]
    counts = {"error": len(findings), "base": base}
    closing = () if findings else (f"no session log changed since {base}",)
    outcome = "problems" if findings else "clean"
    report = Report("check-logs", resources.version(), str(path), outcome, None, findings, counts)
    return Result(report._replace(closing=closing), exit_code(findings))
