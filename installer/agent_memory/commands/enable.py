"""``agent-memory enable``: ENABLE.md — A installs, B climbs the ladder (or is up to date), C
migrates."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from packaging.version import Version

from .. import resources
from ..core import enable as core
from ..core import handrun
from ..core.archive import QUARTER_FILE
from ..core.ladder import Files, Ladder
from ..core.plan import Plan
from ..core.vendor_import import TABLE
from ..layout import ARCHIVE_DIR, OPEN_THREADS_DIR
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
    threads = [f"{OPEN_THREADS_DIR}/{n}" for n in repo.list_dir(OPEN_THREADS_DIR) if n[:1] != "."]
    known = [*core.probe_paths(str(current)), ".cursorrules", *archive, *threads, *ladder.reads]
    files = {p: repo.read(p) for p in known}
    sources = matching(repo, [source.pattern for source in TABLE])
    detected = core.detect(files, current, sources)
    day = today(options.today)
    plans: Iterable[Plan]
    if detected.mode == "C":
        contents = {p: repo.read(p) or b"" for p in sources}
        plans = [core.migration(files, contents, vendors, day, str(current), keep_vendor_files)]
    elif detected.mode == "A":
        plans = [core.fresh_install(files, core.choose_vendors(vendors), day, str(current))]
    elif detected.installed == current:
        plans = [Plan(())]
    else:
        plans = core.upgrade_steps(files, detected, ladder, current, day)
    warnings = _unrecognised(repo, files, detected)
    settled = settle(repo, plans, options, "up to date")
    installed = str(detected.installed) if detected.installed else None
    summary = {"mode": detected.mode, "installed": installed, "current": str(current)}
    shown = f"{installed}, enabled by hand" if detected.handrun else installed
    heading = _heading(settled.outcome, detected.mode, current, path, shown)
    report = Report("enable", str(current), str(path), settled.outcome, settled.plan, (), summary)
    report = report._replace(heading=(heading,), closing=tuple(warnings))
    return Result(report, settled.exit_code, settled.diff)


def _unrecognised(repo: Repo, files: Files, detected: core.Detected) -> list[str]:
    """DESIGN §12: a hand-run version newer than any we know is adopted, with a warning."""
    installed = detected.installed
    if not detected.handrun or installed is None or installed <= handrun.NEWEST_KNOWN:
        return []
    found = handrun.unrecognised(files, repo.list_dir("memory"))
    head = (
        f"warning: {installed} is newer than any hand-run version known "
        f"({handrun.NEWEST_KNOWN}); adopted, and kept as is: "
    )
    return [head + (f"{len(found)} things not recognised" if found else "nothing unrecognised")] + [
        f"  {line}" for line in found
    ]


def _heading(outcome: str, mode: str, current: Version, path: Path, installed: str | None) -> str:
    if outcome == "up to date":
        return f"agent-memory {current}: {path} is up to date"
    if mode in ("A", "C"):
        verb = "enabled" if outcome == "changed" else "would enable"
        return f"agent-memory {current}: {verb} {path} (mode {mode})"
    verb = "upgraded" if outcome == "changed" else "would upgrade"
    return f"agent-memory {current}: {verb} {path} from {installed} (mode B)"
