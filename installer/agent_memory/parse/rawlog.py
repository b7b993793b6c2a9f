"""What ``git log --raw -z --format=%x01%H %P`` says of a folder's history: each commit, its
parents, and the files it changed there (``shell/git.folder_history`` asks it)."""

import re
from collections.abc import Sequence
from typing import NamedTuple


class Commit(NamedTuple):
    """A commit, its parents, and what it changed directly in a folder against its first
    parent: (name, mode, blob, status letter) of each file, mode "000000" for one removed."""

    commit: str
    parents: tuple[str, ...]
    changes: tuple[tuple[str, str, str, str], ...]


# One line of ``git log --raw -z``: ":old-mode new-mode old-blob new-blob status"; its path is
# the next field, whatever bytes it holds
_RAW = re.compile(r"\n?:[0-7]{6} ([0-7]{6}) [0-9a-f]{40,64} ([0-9a-f]{40,64}) ([A-Z])[0-9]*")
_HEAD = re.compile(r"\n?\x01([0-9a-f]{40,64})((?: [0-9a-f]{40,64})*) *")  # "%x01%H %P"


def commits(fields: Sequence[str], folder: str) -> list[Commit]:
    """The commits of the output's NUL-separated ``fields``, with the files each changed
    directly in ``folder``: a commit's header, then for each file a raw line and its path,
    read as a path whatever it holds (a name may hold a byte of the header's or a raw line's
    shape)."""
    found: list[Commit] = []
    changes: list[tuple[str, str, str, str]] = []
    at = 0
    while at < len(fields):
        field, at = fields[at], at + 1
        raw = _RAW.fullmatch(field)
        if raw is not None and found and at < len(fields):
            path, at = fields[at], at + 1
            name = path.removeprefix(folder + "/")
            if name != path and "/" not in name:
                changes.append((name, raw[1], raw[2], raw[3]))
            continue
        head = _HEAD.fullmatch(field)
        if head is not None:
            if found:
                found[-1] = found[-1]._replace(changes=tuple(changes))
            found.append(Commit(head[1], tuple(head[2].split()), ()))
            changes = []
    if found:
        found[-1] = found[-1]._replace(changes=tuple(changes))
    return found
