"""``agent-memory disable``: take out what enable installed; keep memory/ and every backup."""

from __future__ import annotations

from pathlib import Path

from .. import resources
from ..core.disable import plan_disable, probe_paths
from ..errors import RefusedError
from ..parse.dates import today
from ..shell.repo import Repo
from .report import Report
from .settle import Options, Result, guarded, settle


def disable(path: Path, options: Options) -> Result:
    repo = Repo(path)
    with guarded(repo, options):
        day = today(options.today)
        files = {rel: repo.read(rel) for rel in probe_paths()}
        plan = plan_disable(files, day)
        if not plan.writes:
            raise RefusedError(
                "has nothing of agent-memory's to take out (no stamp, managed file or block): "
                "it is not enabled (agent-memory enable installs it)",
                str(path),
            )
        # Only paths the plan names are read back, so backups already there count.
        files.update({e.path: repo.read(e.path) for e in plan.edits if e.path not in files})
        plan = plan_disable(files, day)
        settled = settle(repo, [plan], options, "unchanged")
    heading = (f"agent-memory {resources.version()}: disabled {path} (memory/ kept)",)
    report = Report(
        "disable", resources.version(), str(path), settled.outcome, settled.plan, (), {}, heading
    )
    return Result(report, settled.exit_code, settled.diff)
