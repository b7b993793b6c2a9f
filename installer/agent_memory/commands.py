"""The imperative shell: each command reads the repo through ``disk.Repo``, calls the pure core,
applies the resulting plan (or only shows it) and returns a report and an exit code.
"""

from __future__ import annotations

import contextlib
import datetime as dt
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from . import resources
from .disk import Repo
from .plan import FileEdit, Plan
from .report import Report

if TYPE_CHECKING:
    from .facts import Document
    from .ladder import Ladder
    from .memory import Memory


class Options(NamedTuple):
    """Options every writing command shares."""

    dry_run: bool = False
    check: bool = False
    today: dt.date | None = None
    wait: float = 0.0
    # Wraps a long list the command walks (the session logs) to show progress; None: silent.
    progress: Callable[[Sequence[str]], Iterable[str]] | None = None


class Result(NamedTuple):
    report: Report
    exit_code: int
    diff: str = ""


@contextlib.contextmanager
def _guard(repo: Repo, options: Options) -> Iterator[None]:
    """A run that may write holds the lock from its first read to its last write, so two runs
    never plan on the same state; --check and --dry-run only roll back an interrupted run."""
    if options.check or options.dry_run:
        repo.recover(options.wait)
        yield
    else:
        with repo.locked(options.wait):
            yield


def _settle(repo: Repo, plan: Plan, options: Options, idle: str) -> tuple[str, int, str]:
    """Apply a plan, or only show it: (outcome, exit code, diff). ``idle`` names a no-op."""
    if not plan.writes:
        return idle, 0, ""
    diff = plan.diff() if options.dry_run else ""
    if options.check or options.dry_run:
        return "would change", 1 if options.check else 0, diff
    repo.apply(plan, options.wait)
    return "changed", 0, diff


def _memory(repo: Repo, archives: bool = True) -> tuple[Memory, Document]:
    """The repo's memory and its continuity.md, which commands other than enable need."""
    from .errors import AgentMemoryError
    from .layout import CONTINUITY
    from .memory import load, survey

    memory = load(repo) if archives else survey(repo)
    if memory.continuity is None:
        raise AgentMemoryError(f"{CONTINUITY}: not found; run agent-memory enable first")
    return memory, memory.continuity


def enable(
    path: Path,
    vendors: Sequence[str],
    options: Options,
    ladder: Ladder | None = None,
    keep_vendor_files: bool = False,
) -> Result:
    """ENABLE.md: A installs, B climbs the ladder (or is up to date), C migrates."""
    from .ladder import default

    repo = Repo(path)
    with _guard(repo, options):
        return _enable(repo, path, vendors, options, ladder or default(), keep_vendor_files)


def _enable(
    repo: Repo,
    path: Path,
    vendors: Sequence[str],
    options: Options,
    ladder: Ladder,
    keep_vendor_files: bool,
) -> Result:
    from packaging.version import Version

    from . import enable as core
    from .archive import QUARTER_FILE
    from .dates import today
    from .layout import ARCHIVE_DIR

    current = Version(resources.version())
    archive = [f"{ARCHIVE_DIR}/{n}" for n in repo.list_dir(ARCHIVE_DIR) if QUARTER_FILE.match(n)]
    known = [*core.probe_paths(str(current)), ".cursorrules", *archive, *ladder.reads]
    files = {p: repo.read(p) for p in known}
    sources = _migration_sources(repo)
    detected = core.detect(files, current, sources)
    day = today(options.today)
    if detected.mode == "C":
        contents = {p: repo.read(p) or b"" for p in sources}
        plan = core.migration(files, contents, vendors, day, str(current), keep_vendor_files)
        outcome, exit_code, diff = _settle(repo, plan, options, "up to date")
    elif detected.mode == "A":
        plan = core.fresh_install(files, core.choose_vendors(vendors), day, str(current))
        outcome, exit_code, diff = _settle(repo, plan, options, "up to date")
    elif detected.installed == current:
        plan, outcome, exit_code, diff = Plan(()), "up to date", 0, ""
    else:
        steps = core.upgrade_steps(files, detected, ladder, current, day)
        if options.check or options.dry_run:
            plan = core.combined(files, list(steps))
            outcome, exit_code, diff = _settle(repo, plan, options, "up to date")
        else:
            applied = []
            for step in steps:  # each rung lands (and is recorded) before the next is computed
                repo.apply(step.plan, options.wait)
                applied.append(step)
            plan = core.combined(files, applied)
            outcome, exit_code, diff = ("changed" if plan.writes else "up to date"), 0, ""
    installed = str(detected.installed) if detected.installed else None
    summary = {"mode": detected.mode, "installed": installed, "current": str(current)}
    if outcome == "up to date":
        heading = f"agent-memory {current}: {path} is up to date"
    elif detected.mode in ("A", "C"):
        verb = "enabled" if outcome == "changed" else "would enable"
        heading = f"agent-memory {current}: {verb} {path} (mode {detected.mode})"
    else:
        verb = "upgraded" if outcome == "changed" else "would upgrade"
        heading = f"agent-memory {current}: {verb} {path} from {installed} (mode B)"
    report = Report("enable", str(current), str(path), outcome, plan, (), summary, (heading,))
    return Result(report, exit_code, diff)


def _migration_sources(repo: Repo) -> list[str]:
    """The files of MIGRATE.md's table that exist: known folders are listed, never walked."""
    from .migrate import TABLE, matches

    found: list[str] = []
    for source in TABLE:
        pattern = source.pattern
        if "*" not in pattern:
            if repo.exists(pattern) and not repo.is_dir(pattern):
                found.append(pattern)
            continue
        folder = pattern.split("/*", 1)[0]
        folders = [folder]
        while folders:  # only ** patterns descend, and only below their own folder
            current = folders.pop()
            for name in repo.list_dir(current):
                candidate = f"{current}/{name}"
                if "**" in pattern and repo.is_dir(candidate):
                    folders.append(candidate)
                elif matches(pattern, candidate) and not repo.is_dir(candidate):
                    found.append(candidate)
    return sorted(set(found))


def lint(path: Path) -> Result:
    from . import lint as linting
    from .layout import ARCHIVE_INDEX, MANIFEST, POLICY, SESSIONS_DIR
    from .memory import load

    repo = Repo(path)
    repo.recover()
    memory = load(repo)
    texts = [(POLICY, repo.read(POLICY)), (ARCHIVE_INDEX, memory.archive_index)]
    logs = repo.read_each(SESSIONS_DIR, memory.logs)
    present = [(p, data) for p, data in texts if data is not None]
    findings = linting.lint(memory, (MANIFEST, repo.read(MANIFEST)), logs, present)
    counts = {
        s: sum(1 for f in findings if f.severity == s) for s in ("error", "warning", "advisory")
    }
    closing = (
        f"{counts['error']} errors, {counts['warning']} warnings, {counts['advisory']} advisories"
    )
    outcome = "problems" if counts["error"] else "clean"
    report = Report(
        "lint", resources.version(), str(path), outcome, None, findings, counts, (), (closing,)
    )
    return Result(report, linting.exit_code(findings))


class ReviewOptions(NamedTuple):
    full: bool = False
    if_due: bool = False
    session: Path | None = None


def review(path: Path, review_options: ReviewOptions, options: Options) -> Result:
    """REVIEW.md: recompute, archive, sweep, reactivate, stamp."""
    repo = Repo(path)
    with _guard(repo, options):
        return _review(repo, path, review_options, options)


def _review(repo: Repo, path: Path, review_options: ReviewOptions, options: Options) -> Result:
    from .continuity import cursor, last_review
    from .dates import today
    from .errors import InputError
    from .layout import SESSIONS_DIR
    from .memory import load_archives
    from .projection import Inputs
    from .projection import review as project
    from .sessions import log_refs
    from .triggers import due_reasons, window

    memory, continuity = _memory(repo, archives=False)
    version = resources.version()

    def archives() -> tuple[Document, ...]:
        """The archive, then the policy's errors: the order a review reports problems in."""
        found = load_archives(repo)
        for problem in memory.policy_problems:
            if problem.severity == "error":
                raise InputError(problem.path, problem.line, problem.message, "then review again")
        return found

    reasons = due_reasons(continuity, memory.logs, memory.policy)
    if review_options.if_due and not reasons:
        archives()
        report = Report("review", version, str(path), "not due", Plan(()), (), {"due": []})
        return Result(report, 0)
    through = cursor(last_review(continuity), memory.logs)
    wanted = list(window(memory.logs, None if review_options.full else through))
    if memory.policy.enabled:
        span = memory.policy.review_every * memory.policy.core_min_reviews
        wanted = sorted(set(wanted) | set(memory.logs[-span:]))
    # The archive is parsed while a worker (when there is one) reads the logs.
    rows, archived = repo.map_each(SESSIONS_DIR, wanted, log_refs, archives, options.progress)
    refs = dict(zip(wanted, rows, strict=True))
    inputs = Inputs(
        continuity=continuity,
        archives=archived,
        archive_index=memory.archive_index,
        index_template=resources.data("templates/memory/archive/INDEX.md"),
        policy=memory.policy,
        logs=memory.logs,
        refs=refs,
        full=review_options.full,
        today=today(options.today),
    )
    plan, summary = project(inputs)
    if review_options.session is not None:
        block = summary.markdown()
        plan = Plan.of(
            [*plan.edits, _session_summary(repo, memory.logs, review_options.session, block)]
        )
    outcome, exit_code, diff = _settle(repo, plan, options, "unchanged")
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
    closing = [*summary.markdown().splitlines(), *(f"(due: {r})" for r in reasons)]
    if outcome == "unchanged":
        closing.append("nothing to change")
    report = Report("review", version, str(path), outcome, plan, (), data, (), tuple(closing))
    return Result(report, exit_code, diff)


def _session_summary(repo: Repo, logs: Sequence[str], session: Path, block: str) -> FileEdit:
    """REVIEW.md step 8: the one write ever made to a session log, to the newest one, once."""
    from .errors import AgentMemoryError
    from .layout import SESSIONS_DIR
    from .plan import Outcome
    from .text import decode

    rel = f"{SESSIONS_DIR}/{logs[-1]}" if logs else None
    if rel is None or session.resolve() != repo.real(rel):
        raise AgentMemoryError(
            f"{session}: --session takes the newest session log of the repo "
            f"({rel or 'there is none'}); older logs are never modified"
        )
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
    from .continuity import cursor, last_review
    from .layout import MANIFEST
    from .triggers import decays, due_reasons, window

    repo = Repo(path)
    repo.recover()
    memory, continuity = _memory(repo)
    stamp = repo.read(MANIFEST)
    installed = str(manifest.parse(stamp).version) if stamp is not None else "2.x (no stamp)"
    tiers = dict(
        sorted(Counter(f.field("tier") or "(no footer)" for f in continuity.facts).items())
    )
    review = last_review(continuity)
    through = cursor(review, memory.logs)
    reasons = due_reasons(continuity, memory.logs, memory.policy)
    policy = memory.policy
    data = {
        "installed": installed,
        "tool": resources.version(),
        "facts": len(continuity.facts),
        "tiers": tiers,
        "decaying_facts": sum(1 for f in continuity.facts if decays(f)),
        "max_facts": policy.continuity_max_facts,
        "lines": len(continuity.text.lines),
        "max_lines": policy.continuity_max_lines,
        "last_review": review.date,
        "through": through,
        "sessions": len(memory.logs),
        "sessions_since_review": len(window(memory.logs, through)),
        "review_every": policy.review_every,
        "due": reasons,
        "archived_facts": sum(len(doc.facts) for doc in memory.archives),
        "archive_files": len(memory.archives),
    }
    text = (
        f"installed {installed}, tool {data['tool']}",
        f"facts: {data['facts']} ({', '.join(f'{n} {t}' for t, n in tiers.items()) or 'none'})",
        f"continuity.md: {data['decaying_facts']}/{policy.continuity_max_facts} decaying facts, "
        f"{data['lines']}/{policy.continuity_max_lines} lines",
        f"last review: {review.date or 'never'}; {data['sessions_since_review']} of "
        f"{data['sessions']} session logs since (review_every: {policy.review_every})",
        f"archive: {data['archived_facts']} facts in {data['archive_files']} files",
        "review: due — " + "; ".join(reasons) if reasons else "review: not due",
    )
    outcome = "due" if reasons else "ok"
    report = Report("status", resources.version(), str(path), outcome, None, (), data, text)
    return Result(report, 0)


def session_new(path: Path, slug: str | None, now: dt.datetime | None) -> Result:
    """Create a correctly named, empty session log from the schema's template."""
    repo = Repo(path)
    with repo.locked():
        return _session_new(repo, path, slug, now)


def _session_new(repo: Repo, path: Path, slug: str | None, now: dt.datetime | None) -> Result:
    from .errors import AgentMemoryError
    from .layout import SCHEMA, SESSIONS_DIR
    from .plan import Outcome
    from .sessions import log_name, new_log

    moment = now or dt.datetime.now(tz=dt.timezone.utc)
    name = log_name(moment, slug)
    rel = f"{SESSIONS_DIR}/{name}"
    if repo.exists(rel):
        raise AgentMemoryError(
            f"{rel}: already exists and session logs are never overwritten; "
            "run again in a second or pass --slug"
        )
    schema = repo.read(SCHEMA) or resources.data("templates/.agent/schema.md")
    try:
        content = new_log(schema.decode("utf-8", errors="replace"), name)
    except ValueError:
        content = new_log(resources.data("templates/.agent/schema.md").decode("utf-8"), name)
    plan = Plan.of([FileEdit(rel, None, content, Outcome.CREATED, "new session log")])
    repo.apply(plan)
    # Only the path on stdout, so that `log=$(agent-memory session new)` just works.
    report = Report(
        "session new", resources.version(), str(path), "changed", None, (), {"path": rel}, (rel,)
    )
    return Result(report, 0)


def recall(path: Path, query: str, limit: int) -> Result:
    """Search continuity.md and the archive; exit 1 when nothing matches."""
    from dataclasses import asdict

    from . import recall as searching
    from .memory import load

    repo = Repo(path)
    repo.recover()
    memory = load(repo)
    docs = [*([memory.continuity] if memory.continuity else []), *memory.archives]
    hits = searching.recall(query, docs, limit)
    text = tuple(searching.lines(hits)) or (f"no fact matches {query!r}",)
    summary = {"query": query, "hits": [asdict(h) for h in hits]}
    outcome = "found" if hits else "not found"
    report = Report("recall", resources.version(), str(path), outcome, None, (), summary, text)
    return Result(report, 0 if hits else 1)


def check_logs(path: Path, base: str) -> Result:
    """Fail when a session log that exists in git at ``base`` was modified or deleted since."""
    import subprocess

    from .errors import AgentMemoryError
    from .layout import SESSIONS_DIR
    from .lint import exit_code
    from .report import Finding
    from .sessions import session_date

    repo = Repo(path)
    command = ["git", "diff", "--name-status", "--no-renames", base, "--", SESSIONS_DIR]
    try:
        done = subprocess.run(command, cwd=repo.root, capture_output=True, text=True, check=False)
    except FileNotFoundError:
        raise AgentMemoryError("git: not found; check-logs compares against git history") from None
    if done.returncode != 0:
        problem = (done.stderr.strip().splitlines() or ["git diff failed"])[-1]
        raise AgentMemoryError(f"{path}: {problem}; run check-logs inside a git repo with {base}")
    findings = []
    for line in done.stdout.splitlines():
        status, _, name = line.partition("\t")
        if status in ("M", "D", "T") and session_date(name.rsplit("/", 1)[-1]) is not None:
            verb = "deleted" if status == "D" else "modified"
            findings.append(
                Finding(
                    name,
                    None,
                    "error",
                    "session-log-changed",
                    f"{verb} since {base}; session logs are append-only — restore it "
                    f"(git checkout {base} -- {name}) and write a new log instead",
                )
            )
    counts = {"error": len(findings), "base": base}
    closing = () if findings else (f"no session log changed since {base}",)
    outcome = "problems" if findings else "clean"
    report = Report(
        "check-logs", resources.version(), str(path), outcome, None, findings, counts, (), closing
    )
    return Result(report, exit_code(findings))
