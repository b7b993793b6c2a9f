"""``agent-memory enable``: ENABLE.md — A installs, B climbs the ladder (or is up to date), C
migrates."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from packaging.version import Version

from .. import resources
from ..core.agents import hooks
from ..core.install import enable as core
from ..core.install import restore, unrecognised
from ..core.install.attributes import attributes_plan
from ..core.install.bootstrap import check_vendors, later_backups, physical
from ..core.install.ladder import Files, Ladder
from ..core.install.pointers import stale_pointers
from ..core.install.repair import budget, unreadable
from ..core.plan import Plan
from ..core.vendors.table import TABLE
from ..errors import Problem
from ..layout import (
    AGENTS_MD,
    CONTINUITY,
    GITATTRIBUTES_TEMPLATE,
    HANDRUN_POINTERS,
    HANDRUN_PROTOCOL,
    MERGE_DRIVER_KEY,
    OPEN_THREADS_DIR,
)
from ..shell.git import line_dates
from ..shell.load import archive_paths, log_names
from ..shell.logs import references
from ..shell.merge_driver import failure, reconcile
from ..shell.repo import Repo
from ..shell.walk import matching
from ..shell.wiring import hooks_of
from ..upgrade.history import NO_HISTORY, History, history, redated
from ..upgrade.rungs import default_ladder
from . import enable_restore
from .report import Report, Result
from .settle import Options, settle


def enable(
    repo: Repo,
    vendors: Sequence[str],
    options: Options,
    ladder: Ladder | None = None,
    keep_vendor_files: bool = False,
    full_diff: bool = False,
) -> Result:
    path = Path(repo.shown)
    result = _enable(repo, path, vendors, options, ladder, keep_vendor_files)
    plan = result.report.plan
    if full_diff or plan is None or not result.diff:
        return result
    return result._replace(diff=user_diff(plan))


def _enable(
    repo: Repo,
    path: Path,
    vendors: Sequence[str],
    options: Options,
    ladder: Ladder | None,
    keep_vendor_files: bool,
) -> Result:
    current = Version(resources.version())
    archive = archive_paths(repo)
    threads = [f"{OPEN_THREADS_DIR}/{n}" for n in repo.list_dir(OPEN_THREADS_DIR) if n[:1] != "."]
    reads = (ladder or default_ladder()).reads
    known = [*core.probe_paths(str(current)), ".cursorrules", *archive, *threads, *reads]
    known += _later_backups(repo, str(current))
    disk, links = repo.read_known(known)
    sources = matching(repo, [source.pattern for source in TABLE])
    restoring = enable_restore.restoring(repo, disk, current, links)
    files = restoring.files if restoring else disk  # what the plans start from
    detected = _detected(files, current, sources, restoring)
    plans: Iterable[Plan] = ()
    if not _restored_alone(restoring, detected, vendors, current):
        plans = _plans(
            repo, files, links, sources, detected, vendors, options, ladder, keep_vendor_files
        )
    plans = _with_first(plans, _attributes(files, detected, current))
    if restoring:
        plans = restore.rebased(plans, disk, restoring)
    settled = settle(repo, plans, options, "up to date")
    driver = reconcile(repo, True, options.check or options.dry_run)
    installed = str(detected.installed) if detected.installed else None
    agents = physical(links, AGENTS_MD)
    final = next((e.after for e in settled.plan.edits if e.path == agents), files.get(agents))
    summary = {
        "mode": detected.mode,
        "installed": installed,
        "current": str(current),
        "agents_md_bytes": len(final or b""),
        "merge_driver": driver,
        "restored_from": restoring.folder if restoring else None,
    }
    if restoring:
        heading = _restored(settled.outcome, restoring, current, path)
    else:
        heading = _heading(settled.outcome, detected.mode, current, path, _installed(detected))
    failed = failure(driver, str(path))
    findings = [*_findings(repo, files, detected, settled.plan, final), *failed]
    report = Report("enable", str(path), settled.outcome, settled.plan, findings, summary)
    closing = [*_unrecognised(repo, files, detected), *_kept(restoring)]
    if driver and driver != "already set" and not failed:
        closing.append(f"git config (local): {MERGE_DRIVER_KEY} {_short(driver)}")
    if any(e.path == agents for e in settled.plan.writes):
        size = "is now" if settled.outcome == "changed" else "would be"
        closing.append(f"{AGENTS_MD} {size} {len(final or b''):,} bytes")
    report = report._replace(heading=(heading,), closing=tuple(closing))
    return Result(report, 1 if failed else settled.exit_code, settled.diff)


def _later_backups(repo: Repo, current: str) -> list[str]:
    """The second, third… backups of a file already there: their few folders listed, not
    walked, and only the names a backup may take kept."""
    names = later_backups(current)
    folders = sorted({name.rpartition("/")[0] for name in names})
    return [f"{f}/{n}" for f in folders for n in repo.list_dir(f) if f"{f}/{n}" in names]


def user_diff(plan: Plan) -> str:
    """What ``--dry-run`` shows: the diff of the user's files, and agent-memory's own files
    (``.agent/``: the protocol documents, the stamp, the originals kept) named only — the same
    text in every repo, hundreds of lines before the diff a person needs."""
    own = [e.path for e in plan.writes if e.path.startswith(".agent/")]
    shown = Plan.of(e for e in plan.edits if e.path not in own).diff()
    if not own:
        return shown
    return shown + f"(not shown: {', '.join(own)}; --full-diff shows them)\n"


def _short(driver: str) -> str:
    """The merge driver's report in a few words: the shell line it sets (some 300 characters)
    is in the JSON summary and in the repo's git config."""
    if driver.startswith(("set to", "would be set to")):
        return driver.split(" to ", 1)[0] + " (MERGE.md § Setup)"
    return driver


def _attributes(files: Files, detected: core.Detected, current: Version) -> Plan:
    """An install, a migration or an upgrade writes the merge attributes; "up to date" none."""
    if detected.mode == "B" and detected.installed == current:
        return Plan(())
    return attributes_plan(files, resources.data(GITATTRIBUTES_TEMPLATE), str(current))


def _installed(detected: core.Detected) -> str | None:
    """What the repo was on, in words: an unstamped hand-run layer has no version to name (the
    3.0.0 it is adopted from is where our stamp's history starts, not what the team ran)."""
    if not detected.handrun:
        return str(detected.installed) if detected.installed else None
    if detected.stamp is None:
        return "an unstamped layer enabled by hand"
    return f"{detected.installed}, enabled by hand"


def _findings(
    repo: Repo, files: Files, detected: core.Detected, plan: Plan, agents_md: bytes | None
) -> list[Problem]:
    """What the run found that the user should do something about, the plan aside."""
    return [
        *budget(AGENTS_MD, agents_md),
        *unreadable(files),
        *_pointers(repo, detected, plan),
        *_old_hooks(repo, detected),
    ]


def _pointers(repo: Repo, detected: core.Detected, plan: Plan) -> list[Problem]:
    """After adopting a hand-run repo: its instruction files that still point at its old
    protocol (core/install/pointers.py), as the plan leaves them."""
    if not detected.handrun:
        return []
    files, links = repo.read_known([*HANDRUN_POINTERS, HANDRUN_PROTOCOL])
    files.update({e.path: e.after for e in plan.edits if e.path in files})
    return stale_pointers(files, links)


def _old_hooks(repo: Repo, detected: core.Detected) -> list[Problem]:
    """A repo of ours whose agents' settings still hold 5.0.0's shell-snippet hooks: an upgrade
    leaves an agent's settings as they are, and only ``hooks install`` replaces those (HOOKS.md
    § Replacing 5.0.0's entries). A file that cannot be read is doctor's to name."""
    if detected.mode != "B":
        return []
    message = (
        "holds 5.0.0's shell-snippet hooks, which fail outside sh and from a subdirectory; "
        "agent-memory hooks install --agent {} replaces them"
    )
    return [
        Problem(spec.path, None, "warning", "hooks", message.format(agent))
        for agent, spec in sorted(hooks.AGENTS.items())
        if hooks_of(repo, agent)[0] == "5.0.0"
    ]


def _unrecognised(repo: Repo, files: Files, detected: core.Detected) -> list[str]:
    """DESIGN §12: a hand-run version newer than any we know is adopted, with a warning."""
    installed = detected.installed
    if not detected.handrun or installed is None or installed <= unrecognised.NEWEST_KNOWN:
        return []
    found = unrecognised.unrecognised(files, repo.list_dir("memory"))
    head = (
        f"warning: {installed} is newer than any hand-run version known "
        f"({unrecognised.NEWEST_KNOWN}); adopted, and kept as is: "
    )
    return [head + (f"{len(found)} things not recognised" if found else "nothing unrecognised")] + [
        f"  {line}" for line in found
    ]


def _plans(
    repo: Repo,
    files: dict[str, bytes | None],
    links: dict[str, str],
    sources: Sequence[str],
    detected: core.Detected,
    vendors: Sequence[str],
    options: Options,
    ladder: Ladder | None,
    keep_vendor_files: bool,
) -> Iterable[Plan]:
    """The plans of the mode ``detected`` found (ENABLE.md step 1). What an adoption or an
    import gives a footer is dated from the repo's history (``upgrade/history.py``)."""
    current = Version(resources.version())
    day = repo.today
    if detected.mode == "C":
        contents, source_links = repo.read_known(sources)
        links |= source_links  # the caller reads AGENTS.md's size through them too
        found = {p: data or b"" for p, data in contents.items() if p in sources}
        migration = core.migration(
            files, found, vendors, day, str(current), keep_vendor_files, links, repo.read
        )
        return [_dated(migration, _history(repo, sorted(found)), day)]
    if detected.mode == "A":
        chosen = core.choose_vendors(vendors)
        return [core.fresh_install(files, chosen, day, str(current), links)]
    if detected.installed == current and detected.stamp is not None:
        requested = [v for v in vendors if v != "none"]
        return [core.repair(files, detected.stamp, str(current), links, requested)]
    if ladder is None:
        ladder = default_ladder(_history(repo, [CONTINUITY]) if detected.handrun else NO_HISTORY)
    return core.upgrade_steps(files, detected, ladder, current, day, links)


def _history(repo: Repo, paths: Sequence[str]) -> History:
    """What git says of the lines of ``paths``, and the logs of the ids they name."""
    names = list(log_names(repo).logs)
    named: dict[str, str] = {}
    for name, refs in references(repo, names).items():
        for fact_id in refs.used:
            named[fact_id] = max(named.get(fact_id, ""), name[:10])
    return history(line_dates(repo.root, paths), named, names)


def _dated(plan: Plan, found: History, day: dt.date) -> Plan:
    """The import's plan with the facts it writes to continuity.md dated from ``found``."""
    edits = [
        edit._replace(after=redated(edit.path, edit.after, found, day))
        if edit.path == CONTINUITY and edit.after is not None
        else edit
        for edit in plan.edits
    ]
    return Plan.of(edits)


def _with_first(plans: Iterable[Plan], extra: Plan) -> Iterator[Plan]:
    """The plans, ``extra``'s edits landing with the first (each plan lands whole or not at all,
    and each is still computed only once the one before it is applied)."""
    first = True
    for plan in plans:
        yield Plan.of([*plan.edits, *extra.edits]) if first else plan
        first = False


def _detected(
    files: Files, current: Version, sources: Sequence[str], restoring: restore.Restore | None
) -> core.Detected:
    """ENABLE.md step 1; a repo disable left is on the version of the stamp it copied."""
    if restoring is not None:
        return core.Detected("B", restoring.stamp.version, restoring.stamp)
    detected = core.detect(files, current, sources)
    if detected.stamp is not None and not detected.handrun:  # a hand-run stamp's are replaced
        check_vendors(detected.stamp)
    return detected


def _kept(restoring: restore.Restore | None) -> list[str]:
    if restoring is None:
        return []
    folder = restoring.folder
    return [
        f"{path} changed since disable: kept as it is (its copy stays in {folder}/)"
        for path in restoring.kept
    ]


def _restored_alone(
    restoring: restore.Restore | None,
    detected: core.Detected,
    vendors: Sequence[str],
    current: Version,
) -> bool:
    """A repo disabled on this version whose every copy came back is exactly as it was: it
    needs nothing more (a repair would replace a managed file the user had edited)."""
    untouched = restoring is not None and not restoring.kept
    return untouched and detected.installed == current and not vendors


def _restored(outcome: str, restoring: restore.Restore, current: Version, path: Path) -> str:
    verb = "restored" if outcome == "changed" else "would restore"
    done = f"agent-memory {current}: {verb} {path} from {restoring.folder}/"
    if restoring.stamp.version != current:
        return f"{done} (mode B: {restoring.stamp.version}, upgraded to {current})"
    return f"{done} (mode B)"  # never "up to date": the stamp itself comes back


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
