"""``agent-memory recall``: find facts in continuity.md, the personal file and the archive."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from ..core.agents import ranking
from ..core.agents import recall as searching
from ..layout import CONTINUITY, PERSONAL
from ..parse.facts import Document
from ..shell.load import archive_paths, extras
from ..shell.repo import Repo
from ..shell.store import searched
from .report import Report, Result

# The search index of one memory file (None when it does not exist). The MCP server passes one
# that keeps the index of a file until the file changes; a command reads the derived store.
Indexer = Callable[[Repo, str], ranking.Index | None]
T = TypeVar("T")
Found = tuple[list[ranking.Hit], dict[str, list[ranking.Hit]]]


def build_index(rel: str, raw: bytes) -> ranking.Index:
    return searching.read(rel, raw)


def query_and_path(words: Sequence[str]) -> tuple[str, Path | None]:
    """recall's words: the last is PATH when it names a folder and words come before it; every
    other word is the query's, so ``recall bridge json`` looks for both (docs/usage.md)."""
    # os.path.isdir: False, not an error, for a name no system takes (too long, a NUL)
    if len(words) > 1 and os.path.isdir(words[-1]):  # noqa: PTH112
        return " ".join(words[:-1]), Path(words[-1])
    return " ".join(words), None


def recall(repo: Repo, query: str, limit: int, index_of: Indexer | None = None) -> Result:
    """Exit 1 when nothing matches, so a script can tell."""

    def found(indexes: Sequence[ranking.Searched]) -> Found:
        hits = ranking.search(query, indexes, limit)
        return hits, ranking.related(hits, indexes)

    hits, near = in_memory(repo, found, None, index_of)
    text = tuple(searching.lines(hits, near)) or (f"no fact matches {query!r}",)
    summary = {
        "query": query,
        "hits": [h._asdict() | {"related": [r.id for r in near.get(h.id, ())]} for h in hits],
    }
    outcome = "found" if hits else "not found"
    report = Report("recall", repo.shown, outcome, None, (), summary, text)
    return Result(report, 0 if hits else 1)


def in_memory(
    repo: Repo,
    search: Callable[[list[ranking.Searched]], T],
    found: Sequence[Document] | None = None,
    index_of: Indexer | None = None,
) -> T:
    """``search`` over the index of every file a search reads: continuity.md, the personal file,
    the archive (from ``index_of``, else the derived store), the side files (``found``, else
    read: few, small)."""
    side = [searching.index(doc) for doc in (extras(repo) if found is None else found)]
    paths = (CONTINUITY, PERSONAL, *archive_paths(repo))
    if index_of is not None:
        given = [index_of(repo, rel) for rel in paths]
        return search([*(ix for ix in given if ix is not None), *side])
    read = [(rel, repo.read(rel)) for rel in paths]
    files = [(rel, raw) for rel, raw in read if raw is not None]
    return searched(repo.root, files, side, search)
