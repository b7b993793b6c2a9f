"""``agent-memory merge-file BASE OURS THEIRS PATH``: git's merge driver for memory files.

Git runs it as ``agent-memory merge-file %O %A %B %P`` and reads the result from OURS; exit 0 is
a clean merge, 1 leaves conflict markers (MERGE.md says how to resolve them by hand).
"""

from __future__ import annotations

from pathlib import Path

from ..core.merge.facts import merge_file as merge
from ..shell.git import text_merge
from ..shell.merge_files import read_version, write_result
from .report import Report, Result


def merge_file(base: Path, ours: Path, theirs: Path, path: str) -> Result:
    """Merge by fact id when PATH is a memory file it can read, else by git's text merge."""
    merged = merge(path, *(read_version(p) for p in (base, ours, theirs)))
    how = "by fact id"
    if merged.data is None:
        data, conflicts = text_merge(ours, base, theirs)
        how = "by git's text merge"
    else:
        data, conflicts = merged.data, merged.conflicts
    write_result(ours, data)
    marked = f", {conflicts} conflict(s) marked — see MERGE.md" if conflicts else ""
    closing = (f"agent-memory merge-file: {path} merged {how}{marked}",)
    summary = {"path": path, "how": how, "conflicts": conflicts}
    outcome = "conflicts" if conflicts else "merged"
    report = Report("merge-file", path, outcome, None, (), summary, (), closing)
    return Result(report, 1 if conflicts else 0)
