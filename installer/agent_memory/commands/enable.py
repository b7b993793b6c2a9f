"""``agent-memory enable``: ENABLE.md — A installs, B climbs the ladder (or is up to date), C
migrates."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from packaging.version import Version

from .. import resources
from ..core import enable as core
from ..core.archive import QUARTER_FILE
from ..core.bootstrap import physical
from ..core.integrity import budget
from ..core.ladder import Ladder
from ..core.plan import Plan
from ..core.vendor_table import TABLE
from ..layout import AGENTS_MD, ARCHIVE_DIR
from ..parse.dates import today
from ..shell.repo import Repo
from ..shell.walk import matching
from ..upgrade.rungs import default_ladder
from .report import Report
from .settle import Options, Result, guarded, settle


def enable(
    path: Path,
    vendors: Sequence[str],
    options: Options,
    ladder: Ladder | None = None,
    keep_vendor_files: bool = False,
) -> Result:
    repo = Repo(path)
    with guarded(repo, options):
        return _enable(repo, path, vendors, options, ladder or default_ladder(), keep_vendor_files)


def _enable(
    repo: Repo,
    path: Path,
    vendors: Sequence[str],
    options: Options,
    ladder: Ladder,
    keep_vendor_files: bool,
) -> Result:
    current = Version(resources.version())
    archive = [f"{ARCHIVE_DIR}/{n}" for n in repo.list_dir(ARCHIVE_DIR) if QUARTER_FILE.match(n)]
    known = [*core.probe_paths(str(current)), ".cursorrules", *archive, *ladder.reads]
    files, links = repo.read_known(known)
    sources = matching(repo, [source.pattern for source in TABLE])
    detected = core.detect(files, current, sources)
    plans = _plans(
        repo, files, links, sources, detected, vendors, options, ladder, keep_vendor_files
    )
    settled = settle(repo, plans, options, "up to date")
    installed = str(detected.installed) if detected.installed else None
    agents = physical(links, AGENTS_MD)
    final = next((e.after for e in settled.plan.edits if e.path == agents), files.get(agents))
    summary = {
        "mode": detected.mode,
        "installed": installed,
        "current": str(current),
        "agents_md_bytes": len(final or b""),
    }
    heading = _heading(settled.outcome, detected.mode, current, path, installed)
    findings = budget(AGENTS_MD, final)
    report = Report(
        "enable", str(current), str(path), settled.outcome, settled.plan, findings, summary
    )
    written = any(e.path == agents for e in settled.plan.writes)
    closing = (f"{AGENTS_MD} is now {len(final or b''):,} bytes",) if written else ()
    report = report._replace(heading=(heading,), closing=closing)
    return Result(report, settled.exit_code, settled.diff)


def _plans(
    repo: Repo,
    files: dict[str, bytes | None],
    links: dict[str, str],
    sources: Sequence[str],
    detected: core.Detected,
    vendors: Sequence[str],
    options: Options,
    ladder: Ladder,
    keep_vendor_files: bool,
) -> Iterable[Plan]:
    """The plans of the mode ``detected`` found (ENABLE.md step 1)."""
    current = Version(resources.version())
    day = today(options.today)
    if detected.mode == "C":
        contents, source_links = repo.read_known(sources)
        links |= source_links  # the caller reads AGENTS.md's size through them too
        found = {p: data or b"" for p, data in contents.items() if p in sources}
        return [core.migration(files, found, vendors, day, str(current), keep_vendor_files, links)]
    if detected.mode == "A":
        chosen = core.choose_vendors(vendors)
        return [core.fresh_install(files, chosen, day, str(current), links)]
    if detected.installed == current and detected.stamp is not None:
        requested = [v for v in vendors if v != "none"]
        return [core.repair(files, detected.stamp, str(current), links, requested)]
    return core.upgrade_steps(files, detected, ladder, current, day, links)


def _heading(outcome: str, mode: str, current: Version, path: Path, installed: str | None) -> str:
    if outcome == "up to date":
        return f"agent-memory {current}: {path} is up to date"
    if mode in ("A", "C"):
        verb = "enabled" if outcome == "changed" else "would enable"
        return f"agent-memory {current}: {verb} {path} (mode {mode})"
    if installed == str(current):
        verb = "repaired" if outcome == "changed" else "would repair"
        return f"agent-memory {current}: {verb} {path} (mode B)"
    verb = "upgraded" if outcome == "changed" else "would upgrade"
    return f"agent-memory {current}: {verb} {path} from {installed} (mode B)"
