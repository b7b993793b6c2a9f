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
from .plan import FileEdit
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
    from .layout import MIGRATION_SOURCES

    sources = [p for p in MIGRATION_SOURCES if repo.exists(p)]
    result = plan_enable(files, vendors or None, today(options.today), sources)
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
    logs = repo.read_each(SESSIONS_DIR, memory.logs)
    findings = linting.lint(memory, (MANIFEST, repo.read(MANIFEST)), logs, texts)
    counts = {
        s: sum(1 for f in findings if f.severity == s) for s in ("error", "warning", "advisory")
    }
    outcome = "problems" if counts["error"] else "clean"
    report = Report("lint", resources.version(), str(path), outcome, None, findings, counts)
    return Result(report, linting.exit_code(findings))


@dataclass(frozen=True, slots=True)
class ReviewOptions:
    full: bool = False
    if_due: bool = False
    session: Path | None = None


def review(path: Path, review_options: ReviewOptions, options: Options) -> Result:
    from .continuity import last_review
    from .dates import today
    from .errors import AgentMemoryError, InputError
    from .layout import CONTINUITY, SESSIONS_DIR
    from .memory import load
    from .plan import Plan
    from .projection import Inputs
    from .projection import review as project
    from .sessions import read_refs
    from .triggers import due_reasons, window

    repo = Repo(path)
    repo.recover(options.wait)
    memory = load(repo)
    version = resources.version()
    if memory.continuity is None:
        raise AgentMemoryError(f"{CONTINUITY}: not found; run agent-memory enable first")
    for problem in memory.policy_problems:
        if problem.severity == "error":
            raise InputError(problem.path, problem.line, problem.message, "then review again")
    reasons = due_reasons(memory.continuity, memory.logs, memory.policy)
    if review_options.if_due and not reasons:
        report = Report("review", version, str(path), "not due", Plan(()), (), {"due": []})
        return Result(report, 0)
    through = last_review(memory.continuity).through
    wanted = list(window(memory.logs, None if review_options.full else through))
    if memory.policy.enabled:
        span = memory.policy.review_every * memory.policy.core_min_reviews
        wanted = sorted(set(wanted) | set(memory.logs[-span:]))
    refs = {name: read_refs(data) for name, data in repo.read_each(SESSIONS_DIR, wanted)}
    inputs = Inputs(
        continuity=memory.continuity,
        archives=memory.archives,
        index=memory.index,
        index_template=resources.data("templates/memory/archive/INDEX.md"),
        policy=memory.policy,
        logs=memory.logs,
        refs=refs,
        full=review_options.full,
        today=today(options.today),
    )
    plan, summary = project(inputs)
    if review_options.session is not None:
        plan = Plan.of(
            [
                *plan.edits,
                _session_summary(repo, memory.logs, review_options.session, summary.markdown()),
            ]
        )
    changes = bool(plan.writes)
    if not changes:
        outcome = "unchanged"
    elif options.check or options.dry_run:
        outcome = "would change"
    else:
        repo.apply(plan, options.wait)
        outcome = "changed"
    data = {
        "date": summary.date,
        "through": summary.through,
        "window": summary.window,
        "due": reasons,
        "reactivated": list(summary.reactivated),
        "archived": list(summary.archived),
        "swept": list(summary.swept),
        "tier_changes": [list(c) for c in summary.tier_changes],
        "archive_candidates": list(summary.candidates),
        "promoted": list(summary.promoted),
        "archive_file": summary.archive_file,
        "markdown": summary.markdown(),
    }
    report = Report("review", version, str(path), outcome, plan, (), data)
    exit_code = 1 if options.check and changes else 0
    return Result(report, exit_code, plan.diff() if options.dry_run else "")


def _session_summary(repo: Repo, logs: Sequence[str], session: Path, block: str) -> FileEdit:
    """REVIEW.md step 8: the one write ever made to a session log, to the newest one, once."""
    from .errors import AgentMemoryError
    from .layout import SESSIONS_DIR
    from .plan import Outcome
    from .text import decode

    if not logs or session.name != logs[-1]:
        newest = logs[-1] if logs else "(none)"
        raise AgentMemoryError(
            f"{session}: --session takes the newest session log ({SESSIONS_DIR}/{newest}); "
            "older logs are never modified"
        )
    rel = f"{SESSIONS_DIR}/{logs[-1]}"
    data = repo.read(rel) or b""
    text = decode(rel, data)
    if any(line.lower().startswith("## memory review") for line in text.lines):
        return FileEdit(rel, data, data, Outcome.UNCHANGED, "already has a Memory Review")
    newline = text.newline
    lead = ("" if data.endswith(b"\n") or not data else newline) + (newline if data else "")
    after = data + (lead + block.replace("\n", newline)).encode()
    return FileEdit(rel, data, after, Outcome.UPDATED, "review summary appended")


def status(path: Path) -> Result:
    """Installed vs tool version, tiers, the review trigger, and the archive's size."""
    from collections import Counter

    from . import manifest
    from .continuity import last_review
    from .errors import AgentMemoryError
    from .layout import CONTINUITY, MANIFEST
    from .memory import load
    from .triggers import decays, due_reasons, window

    repo = Repo(path)
    repo.recover()
    memory = load(repo)
    if memory.continuity is None:
        raise AgentMemoryError(f"{CONTINUITY}: not found; run agent-memory enable first")
    stamp = repo.read(MANIFEST)
    installed = str(manifest.parse(stamp).version) if stamp is not None else "2.x (no stamp)"
    tiers = Counter(f.field("tier") or "(no footer)" for f in memory.continuity.facts)
    review = last_review(memory.continuity)
    reasons = due_reasons(memory.continuity, memory.logs, memory.policy)
    data = {
        "installed": installed,
        "tool": resources.version(),
        "facts": len(memory.continuity.facts),
        "tiers": dict(sorted(tiers.items())),
        "decaying_facts": sum(1 for f in memory.continuity.facts if decays(f)),
        "max_facts": memory.policy.continuity_max_facts,
        "lines": len(memory.continuity.text.lines),
        "max_lines": memory.policy.continuity_max_lines,
        "last_review": review.date,
        "through": review.through,
        "sessions": len(memory.logs),
        "sessions_since_review": len(window(memory.logs, review.through)),
        "review_every": memory.policy.review_every,
        "due": reasons,
        "archived_facts": sum(len(doc.facts) for doc in memory.archives),
        "archive_files": len(memory.archives),
    }
    outcome = "due" if reasons else "ok"
    report = Report("status", resources.version(), str(path), outcome, None, (), data)
    return Result(report, 0)
