"""``agent-memory review``: REVIEW.md — recompute, archive, sweep, reactivate, stamp."""

from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from ..core.merge.log_append import has_review
from ..core.plan import FileEdit, Outcome, Plan
from ..core.review.projection import review as project
from ..core.review.summary import Summary
from ..errors import AgentMemoryError, refuse_errors
from ..layout import MANIFEST, SESSIONS_DIR
from ..parse.manifest import parse as parse_manifest
from ..parse.text import decode
from ..shell.repo import Repo
from .due import held, nothing_due, why_due
from .report import Report, Result
from .review_inputs import read_logs, review_inputs
from .settle import Options, memory_of, review_date, settle


class ReviewOptions(NamedTuple):
    full: bool = False
    if_due: bool = False
    session: Path | None = None


def review(repo: Repo, review_options: ReviewOptions, options: Options) -> Result:
    memory, continuity = memory_of(repo)
    if not (options.dry_run or options.check):
        _refuse_unadopted(repo)
    refuse_errors(memory.policy_problems, "then review again")
    reasons, early = why_due(repo, memory)
    if review_options.if_due and not reasons:
        return nothing_due(repo)
    if review_options.if_due and memory.policy.agent_writes != "direct":
        return held(repo, reasons)  # the review gate: what runs unattended reviews nothing
    day = review_date(repo.today, memory.sessions.newest)
    logs = read_logs(repo, memory, continuity, review_options.full, early, options.progress)
    inputs = review_inputs(repo, memory, continuity, logs, day, options.progress)
    plan, summary = project(inputs)
    if review_options.session is not None:
        block = summary.markdown()
        edit = _session_summary(repo, memory.logs, review_options.session, block)
        plan = Plan.of([*plan.edits, edit])
    settled = settle(repo, [plan], options, "unchanged")
    closing = [*summary.markdown().splitlines(), *(f"(due: {r})" for r in reasons)]
    if settled.outcome == "unchanged":
        closing.append("nothing to change")
    data = _summary_data(summary, reasons)
    report = Report("review", repo.shown, settled.outcome, plan, (), data)
    return Result(report._replace(closing=tuple(closing)), settled.exit_code, settled.diff)


def _summary_data(summary: Summary, reasons: Sequence[str]) -> dict[str, Any]:
    return {
        "date": summary.date,
        "through": summary.through,
        "window": summary.window,
        "due": list(reasons),
        "reactivated": list(summary.reactivated),
        "archived": list(summary.archived),
        "expired": list(summary.expired),
        "swept": list(summary.swept),
        "tier_changes": [list(c) for c in summary.tier_changes],
        "unused": list(summary.unused),
        "archive_candidates": list(summary.candidates),
        "promoted": list(summary.promoted),
        "archive_file": summary.archive_file,
        "full_rebuild": summary.reason,
        "markdown": summary.markdown(),
    }


def _session_summary(repo: Repo, logs: Sequence[str], session: Path, block: str) -> FileEdit:
    """REVIEW.md step 8: the one write ever made to a session log, to the newest one, once."""
    rel = f"{SESSIONS_DIR}/{logs[-1]}" if logs else None
    if rel is None or session.resolve() != repo.real(rel):
        raise AgentMemoryError(
            "--session takes the newest session log of the repo "
            f"({rel or 'there is none'}); older logs are never modified",
            str(session),
        )
    data = repo.read(rel) or b""
    text = decode(rel, data)
    if has_review(data):
        return FileEdit(rel, data, data, Outcome.UNCHANGED, "already has a Memory Review")
    newline = text.newline
    lead = ("" if data.endswith(b"\n") or not data else newline) + (newline if data else "")
    after = data + (lead + block.replace("\n", newline)).encode()
    return FileEdit(rel, data, after, Outcome.UPDATED, "review summary appended")


def _refuse_unadopted(repo: Repo) -> None:
    """DESIGN §12: a repo stamped by hand is read as it is, but written only once adopted.

    (An unstamped layer is read and reviewed leniently; enable adopts it when asked.)
    """
    stamp = repo.read(MANIFEST)
    found = parse_manifest(stamp) if stamp is not None else None
    if found is None or found.ours:
        return
    raise AgentMemoryError(
        f"stamped {found.version} by hand (no '## Managed files'); run agent-memory enable first "
        "to adopt it",
        MANIFEST,
        found.version_line,
    )
