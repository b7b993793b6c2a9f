"""``agent-memory check-logs``: session logs are append-only; fail on any other change."""

from __future__ import annotations

from ..core.checks.lint import exit_code
from ..core.merge.log_append import is_review_append
from ..errors import Problem
from ..layout import SESSION_NAME, SESSIONS_DIR
from ..shell.git import blob, changed_paths
from ..shell.repo import Repo
from .report import Report, Result


def check_logs(repo: Repo, base: str) -> Result:
    """Fail when a session log that exists in git at ``base`` was modified or deleted since,
    except by the one append ``review --session`` makes (its ``## Memory Review`` summary)."""
    findings = []
    appended = 0
    for status, name in changed_paths(repo.root, base, SESSIONS_DIR):
        if status not in ("M", "D", "T") or not SESSION_NAME.match(name.rsplit("/", 1)[-1]):
            continue
        if status == "M" and is_review_append(blob(repo.root, base, name), repo.read(name) or b""):
            appended += 1
            continue
        findings.append(_changed(name, status, base))
    counts = {"error": len(findings), "base": base, "review_summaries_appended": appended}
    closing = () if findings else (f"no session log changed since {base}",)
    if appended and not findings:
        closing = (f"no session log changed since {base} but for {appended} review summary",)
    outcome = "problems" if findings else "clean"
    report = Report("check-logs", repo.shown, outcome, None, findings, counts)
    return Result(report._replace(closing=closing), exit_code(findings))


def _changed(name: str, status: str, base: str) -> Problem:
    return Problem(
        name,
        None,
        "error",
        "session-log-changed",
        f"{'deleted' if status == 'D' else 'modified'} since {base}; session logs are "
        "append-only (only review --session may append its ## Memory Review summary) — "
        f"restore it (git checkout {base} -- {name}) and write a new log instead",
    )
