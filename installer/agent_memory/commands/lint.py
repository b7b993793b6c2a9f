"""``agent-memory lint``: every problem in the memory files, one line each."""

from __future__ import annotations

from collections.abc import Sequence

from .. import resources
from ..core.checks import lint as linting
from ..core.checks.citations import cited_paths, mentioned
from ..core.install import enable
from ..core.install.bootstrap import check_vendors, physical
from ..core.install.pointers import stale_pointers
from ..core.install.repair import budget, damage
from ..errors import InputError, Problem, RefusedError
from ..layout import (
    AGENTS_MD,
    ARCHIVE_INDEX,
    HANDRUN_POINTERS,
    HANDRUN_PROTOCOL,
    MANIFEST,
    PERSONAL,
    POLICY,
    REJECTED,
    SESSIONS_DIR,
)
from ..parse.manifest import parse as parse_manifest
from ..parse.memory import Memory
from ..shell.cited import existing, sources
from ..shell.load import load
from ..shell.repo import Repo
from .personal import shared_by_git
from .report import Report, Result

_SEVERITIES = ("error", "warning", "advisory")


def _bootstrap(repo: Repo) -> list[Problem]:
    """What ``enable`` would repair on a repo stamped with this release, and AGENTS.md's size."""
    current = resources.version()
    files, links = repo.read_known(enable.probe_paths(current))
    agents = files.get(physical(links, AGENTS_MD))
    stamp_data = files.get(MANIFEST)
    if stamp_data is None:
        return budget(AGENTS_MD, agents)
    try:
        stamp = parse_manifest(stamp_data)
    except InputError:
        return budget(AGENTS_MD, agents)  # reported as manifest-invalid
    if str(stamp.version) != current:
        return budget(AGENTS_MD, agents)  # an upgrade is pending: enable says what it does
    try:
        check_vendors(stamp)
        plan = enable.repair(files, stamp, current, links)
    except (InputError, RefusedError) as exc:
        return [exc.problem._replace(severity="error", check="bootstrap")]
    return damage(plan) + budget(AGENTS_MD, agents)


def code_of(repo: Repo, memory: Memory, rev: str | None) -> linting.Code:
    """The files the live facts cite and which paths they name exist (DECAY.md § Citations), in
    the work tree or at ``rev``."""
    mine = (memory.personal,) if memory.personal is not None else ()  # lint checks it too
    live = (*memory.documents[: len(memory.documents) - len(memory.archives)], *mine)
    named = mentioned(live)
    cited = sources(repo, cited_paths(live), rev)
    return linting.Code(cited, existing(repo, list(named), rev), f" at {rev}" if rev else "", named)


def lint(repo: Repo, only: Sequence[str] = (), rev: str | None = None) -> Result:
    """``only``: the checks to report (the pre-commit secret guard asks for ``secret``);
    ``rev``: check citations against that git revision instead of the work tree (for CI)."""
    memory = load(repo)
    texts = [
        (POLICY, repo.read(POLICY)),
        (ARCHIVE_INDEX, memory.archive_index),
        (REJECTED, repo.read(REJECTED)),
    ]
    logs = repo.read_each(SESSIONS_DIR, memory.logs)
    present = [(p, data) for p, data in texts if data is not None]
    code = code_of(repo, memory, rev)
    manifest = (MANIFEST, repo.read(MANIFEST))
    findings = linting.lint(memory, manifest, logs, present, code, repo.today)
    findings += _bootstrap(repo)
    if memory.personal is not None and (why := shared_by_git(repo)) is not None:
        findings.append(Problem(PERSONAL, None, "error", "personal-shared", why))
    findings += stale_pointers(*repo.read_known([*HANDRUN_POINTERS, HANDRUN_PROTOCOL]))
    if only:
        findings = [f for f in findings if f.check in only]
    counts = {s: sum(1 for f in findings if f.severity == s) for s in _SEVERITIES}
    closing = ", ".join(
        f"{counts[severity]} {severity if counts[severity] == 1 else plural}"
        for severity, plural in zip(_SEVERITIES, ("errors", "warnings", "advisories"), strict=True)
    )
    outcome = "problems" if counts["error"] else "clean"
    report = Report("lint", repo.shown, outcome, None, findings, counts)
    return Result(report._replace(closing=(closing,)), linting.exit_code(findings))
