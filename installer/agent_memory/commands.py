"""The imperative shell: each command reads the repo through ``disk.Repo``, calls the pure core,
applies the resulting plan (or only shows it) and returns a report and an exit code.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from . import resources
from .disk import Repo
from .report import Report


@dataclass(frozen=True, slots=True)
class Options:
    """Options every writing command shares."""

    dry_run: bool = False
    check: bool = False
    today: dt.date | None = None
    wait: float = 0.0


@dataclass(frozen=True, slots=True)
class Result:
    report: Report
    exit_code: int
    diff: str = ""


def enable(path: Path, vendors: Sequence[str], options: Options) -> Result:
    from .dates import today
    from .enable import plan_enable, probe_paths

    repo = Repo(path)
    repo.recover(options.wait)
    files = {p: repo.read(p) for p in probe_paths()}
    result = plan_enable(files, vendors or None, today(options.today))
    plan = result.plan
    summary = {"mode": result.mode, "installed": result.installed, "current": result.current}
    if result.up_to_date:
        outcome = "up to date"
    elif options.check or options.dry_run:
        outcome = "would change"
    else:
        repo.apply(plan, options.wait)
        outcome = "changed"
    report = Report("enable", resources.version(), str(path), outcome, plan, (), summary)
    exit_code = 1 if options.check and not result.up_to_date else 0
    return Result(report, exit_code, plan.diff() if options.dry_run else "")


def lint(path: Path) -> Result:
    from . import lint as linting
    from .layout import (
        ARCHIVE_INDEX,
        CONTINUITY,
        MANIFEST,
        POLICY,
        SESSIONS_DIR,
    )
    from .memory import load

    repo = Repo(path)
    repo.recover()
    memory = load(repo)
    texts = [
        (p, data)
        for p in (CONTINUITY, POLICY, ARCHIVE_INDEX, *(d.path for d in memory.archives))
        if (data := repo.read(p)) is not None
    ]
    logs = ((name, repo.read(f"{SESSIONS_DIR}/{name}") or b"") for name in memory.logs)
    findings = linting.lint(memory, (MANIFEST, repo.read(MANIFEST)), logs, texts)
    counts = {
        s: sum(1 for f in findings if f.severity == s) for s in ("error", "warning", "advisory")
    }
    outcome = "problems" if counts["error"] else "clean"
    report = Report("lint", resources.version(), str(path), outcome, None, findings, counts)
    return Result(report, linting.exit_code(findings))
