"""``agent-memory disable``: take out what enable installed; keep memory/ (unless told) and
every backup."""

from __future__ import annotations

from .. import resources
from ..core.install.disable import backup_dir, migrated, plan_disable, probe_paths
from ..errors import RefusedError
from ..layout import CONTINUITY, MERGE_DRIVER_KEY, PERSONAL
from ..shell.discovery import git_folder, work_tree_top
from ..shell.merge_driver import failure, reconcile
from ..shell.repo import Repo
from ..shell.store import FILE, FOLDER
from ..shell.walk import files_under
from .report import Report, Result
from .settle import Options, settle


def disable(repo: Repo, options: Options, *, keep_memory: bool = True) -> Result:
    path = repo.shown
    if repo.exists(PERSONAL):  # its ignore rule goes with our block (ENABLE.md § Disable)
        raise RefusedError(
            "one person's own facts, which git would take once disable removes their ignore "
            "rule; share what the team should keep (agent-memory fact share ID), move the file "
            "out of the repo, then disable again",
            PERSONAL,
        )
    folder = backup_dir(repo.today, repo.exists)
    files, links = repo.read_known(probe_paths())
    memory = {} if keep_memory else _memory(repo)
    plan = plan_disable(files, folder, memory, links, migrated(repo.list_dir, repo.read))
    if not plan.writes:
        raise RefusedError(
            "has nothing of agent-memory's to take out (no stamp, managed file or block): "
            "it is not enabled (agent-memory enable installs it)",
            path,
        )
    settled = settle(repo, [plan], options, "unchanged")
    driver = reconcile(repo, False, options.check or options.dry_run)
    heading = (_heading(path, settled.outcome == "changed", keep_memory, folder),)
    summary = {"memory": "kept" if keep_memory else "removed", "backup": folder}
    summary["merge_driver"] = driver
    failed = failure(driver, path)
    report = Report("disable", path, settled.outcome, settled.plan, failed, summary)
    closing = (f"git config (local): {MERGE_DRIVER_KEY} {driver}",) if driver else ()
    closing = (*closing, *_store(repo))
    report = report._replace(heading=heading, closing=() if failed else closing)
    return Result(report, 1 if failed else settled.exit_code, settled.diff)


def _heading(path: str, done: bool, keep_memory: bool, folder: str) -> str:
    """What the run did, or (--dry-run, --check) what it would do."""
    memory = "kept" if keep_memory else "removed"
    head = f"agent-memory {resources.version()}:"
    if done:
        return f"{head} disabled {path} (memory/ {memory}; copies in {folder}/)"
    return f"{head} would disable {path} (memory/ would be {memory}; copies would go to {folder}/)"


def _store(repo: Repo) -> tuple[str, ...]:
    """The derived store is left (HOOKS.md § Recall on each prompt): it is no file enable wrote,
    only a cache of the memory files in git's folder, which a person may delete."""
    top = work_tree_top(repo.root)
    found = git_folder(top) if top is not None else None
    path = found / FOLDER / FILE if found is not None else None
    if path is None or not path.is_file():
        return ()
    shown = path.relative_to(repo.root) if path.is_relative_to(repo.root) else path
    return (f"left: {shown} (recall's cache of the memory files; delete it at will)",)


def _memory(repo: Repo) -> dict[str, bytes]:
    """Every file of memory/, when it is ours (it has continuity.md): a folder of that name
    that never held our memory is not taken out."""
    if repo.read(CONTINUITY) is None:
        return {}
    return {rel: repo.read(rel) or b"" for rel in files_under(repo, "memory")}
