"""Finding the files of known folders that match table patterns (MIGRATE.md's sources).

Only the folders the patterns name are listed, and only ``**`` patterns descend, below their own
folder; a symlinked folder is never entered (a link to ``.`` would loop), and the walk stops at
a fixed number of folders, so a hostile tree cannot make it run forever.
"""

from __future__ import annotations

import itertools
import os
import stat
from collections.abc import Iterator, Sequence

from ..core.vendors.table import matches
from ..errors import RefusedError
from .repo import Repo

MAX_FOLDERS = 10_000


def matching(repo: Repo, patterns: Sequence[str]) -> list[str]:
    """The regular files (or links to them) under ``repo`` that match one of ``patterns``."""
    found: set[str] = set()
    counted = itertools.count(1)  # the folders of every pattern's walk, together
    too_many = (
        f"more than {MAX_FOLDERS} folders under the vendor rule folders; "
        "move what is not a rule file elsewhere"
    )
    for pattern in patterns:
        if "*" not in pattern:
            if repo.exists(pattern) and not repo.is_dir(pattern):
                found.add(pattern)
            continue
        top, deep = pattern.split("/*", 1)[0], "**" in pattern
        for candidate in _walk(repo, top, deep, too_many, counted):
            if matches(pattern, candidate) and not repo.is_dir(candidate):
                found.add(candidate)
    return sorted(found)


def files_under(repo: Repo, folder: str) -> list[str]:
    """Every entry under ``folder`` that is not a real folder (files, and links or special
    files, which the read or the write then refuses by name), sorted; a symlinked folder is
    listed, never entered, and the walk stops at ``MAX_FOLDERS`` folders."""
    if not _is_real_dir(repo, folder):
        return []
    too_many = (
        f"more than {MAX_FOLDERS} folders under {folder}; move what is not memory "
        "elsewhere, or take the folder out yourself"
    )
    return sorted(_walk(repo, folder, True, too_many, itertools.count(1)))


def _walk(repo: Repo, top: str, deep: bool, too_many: str, counted: Iterator[int]) -> Iterator[str]:
    """The entries under ``top`` not walked into: with ``deep`` every real folder is (a
    symlinked one never), else none. ``too_many`` refuses a walk past ``MAX_FOLDERS`` folders,
    as ``counted`` numbers them."""
    folders = [top]
    while folders:
        if next(counted) > MAX_FOLDERS:
            raise RefusedError(too_many, folders[-1])
        current = folders.pop()
        for name in repo.list_dir(current):
            candidate = f"{current}/{name}"
            if deep and _is_real_dir(repo, candidate):
                folders.append(candidate)
            else:
                yield candidate


def _is_real_dir(repo: Repo, rel: str) -> bool:
    """A directory, not a symlink to one."""
    try:
        return stat.S_ISDIR(os.lstat(repo.root / rel).st_mode)
    except OSError:
        return False
