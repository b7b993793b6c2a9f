"""``agent-memory recall``: find facts in continuity.md and the archive."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

from .. import resources
from ..core import recall as searching
from ..shell.load import load
from ..shell.repo import Repo
from .report import Report
from .settle import Result, require_enabled


def recall(path: Path, query: str, limit: int) -> Result:
    """Exit 1 when nothing matches, so a script can tell."""
    repo = Repo(path)
    repo.refuse_if_interrupted()
    require_enabled(repo)
    memory = load(repo)
    docs = list(memory.documents)
    hits = searching.recall(query, docs, limit)
    text = tuple(searching.lines(hits)) or (f"no fact matches {query!r}",)
    summary = {"query": query, "hits": [asdict(h) for h in hits]}
    outcome = "found" if hits else "not found"
    report = Report("recall", resources.version(), str(path), outcome, None, (), summary, text)
    return Result(report, 0 if hits else 1)
