"""``agent-memory disable``: take out what enable installed; keep memory/ (unless told) and
every backup."""

from __future__ import annotations

from pathlib import Path

from .. import resources
from ..core.install.disable import backup_dir, plan_disable, probe_paths
from ..errors import RefusedError
from ..layout import CONTINUITY, MERGE_DRIVER_KEY
from ..parse.dates import today
from ..shell.merge_driver import reconcile
from ..shell.repo import Repo
from ..shell.walk import files_under
from .report import Report, Result
from .settle import Options, guarded, settle


def disable(path: Path, options: Options, *, keep_memory: bool = True) -> Result:
    repo = Repo(path)
    with guarded(repo, options):
        folder = backup_dir(today(options.today), repo.exists)
        files = {rel: repo.read(rel) for rel in probe_paths()}
        memory = {} if keep_memory else _memory(repo)
        plan = plan_disable(files, folder, memory)
        if not plan.writes:
            raise RefusedError(
                "has nothing of agent-memory's to take out (no stamp, managed file or block): "
                "it is not enabled (agent-memory enable installs it)",
                str(path),
            )
        settled = settle(repo, [plan], options, "unchanged")
        driver = reconcile(repo, False, options.check or options.dry_run)
    kept = "memory/ kept" if keep_memory else "memory/ removed"
    heading = (
        f"agent-memory {resources.version()}: disabled {path} ({kept}; copies in {folder}/)",
    )
    summary = {"memory": "kept" if keep_memory else "removed", "backup": folder}
    summary["merge_driver"] = driver
    report = Report(
        "disable", resources.version(), str(path), settled.outcome, settled.plan, (), summary
    )
    closing = (f"git config (local): {MERGE_DRIVER_KEY} {driver}",) if driver else ()
    report = report._replace(heading=heading, closing=closing)
    return Result(report, settled.exit_code, settled.diff)


def _memory(repo: Repo) -> dict[str, bytes]:
    """Every file of memory/, when it is ours (it has continuity.md): a folder of that name
    that never held our memory is not taken out."""
    if repo.read(CONTINUITY) is None:
        return {}
    return {rel: repo.read(rel) or b"" for rel in files_under(repo, "memory")}
