"""``agent-memory recall``: find facts in continuity.md and the archive."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

from .. import resources
from ..core.agents import recall as searching
from ..layout import CONTINUITY
from ..shell.load import archive_paths, extras
from ..shell.repo import Repo
from .report import Report, Result

# The search index of one memory file (None when it does not exist). The MCP server passes one
# that keeps the index of a file until the file changes; a command reads each file once.
Indexer = Callable[[Repo, str], searching.Index | None]


def read_index(repo: Repo, rel: str) -> searching.Index | None:
    return build_index(rel, raw) if (raw := repo.read(rel)) is not None else None


def build_index(rel: str, raw: bytes) -> searching.Index:
    return searching.read(rel, raw)


def query_and_path(words: Sequence[str]) -> tuple[str, Path | None]:
    """recall's words: the last is PATH when it names a folder and words come before it; every
    other word is the query's, so ``recall bridge json`` looks for both (docs/usage.md)."""
    # os.path.isdir: False, not an error, for a name no system takes (too long, a NUL)
    if len(words) > 1 and os.path.isdir(words[-1]):  # noqa: PTH112
        return " ".join(words[:-1]), Path(words[-1])
    return " ".join(words), None


def recall(repo: Repo, query: str, limit: int, index_of: Indexer = read_index) -> Result:
    """Exit 1 when nothing matches, so a script can tell."""
    indexes = recall_indexes(repo, index_of)
    hits = searching.search(query, indexes, limit)
    near = searching.related(hits, indexes)
    text = tuple(searching.lines(hits, near)) or (f"no fact matches {query!r}",)
    summary = {
        "query": query,
        "hits": [h._asdict() | {"related": [r.id for r in near.get(h.id, ())]} for h in hits],
    }
    outcome = "found" if hits else "not found"
    report = Report("recall", resources.version(), repo.shown, outcome, None, (), summary, text)
    return Result(report, 0 if hits else 1)


def recall_indexes(repo: Repo, index_of: Indexer = read_index) -> list[searching.Index]:
    """The index of every file a search reads: continuity.md, the archive, the side files."""
    found = [index_of(repo, rel) for rel in (CONTINUITY, *archive_paths(repo))]
    found += [searching.index(doc) for doc in extras(repo)]  # few, small: not kept
    return [ix for ix in found if ix is not None]
