"""The memory each session start found, from git (REVIEW.md § Replay): the commit before the one
that added its log, read blob by blob, each blob parsed once. Nothing is written."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

from ..core.agents.relevance import RECENT_SESSIONS
from ..core.replay.history import Log, Start, first_added, latest_logs
from ..core.review.archive import quarter_paths
from ..errors import AgentMemoryError
from ..layout import ARCHIVE_DIR, CONTINUITY, MEMORY_DIR, OPEN_THREADS_DIR, SESSIONS_DIR, VISION
from ..parse import facts
from ..parse.memory import known_ids
from ..parse.sessions import read_refs
from ..parse.sidefiles import parse_file, thread_paths
from . import git
from .files import MAX_FILE_BYTES
from .load import naming

_REGULAR = ("100644", "100755")  # git's modes of a regular file (not a link, not a submodule)
# The folders whose files a start reads, each listed alone (the logs come from the walk)
_FOLDERS = [f"{MEMORY_DIR}/", f"{OPEN_THREADS_DIR}/", f"{ARCHIVE_DIR}/"]


def session_starts(
    root: Path, logs: Sequence[str], used: Sequence[frozenset[str]]
) -> Iterator[tuple[int, Start]]:
    """(index in ``logs``, the memory its session start found) for each log a commit of HEAD's
    history added, in order: the memory files of that commit's first parent, up to how commits
    batch sessions; ``used``: the ids each log used, which its start's archive is asked about.
    A log with no such commit, or whose parent holds no continuity.md, is left out (the replay
    projects its state). The logs each commit holds come from one walk of the sessions
    folder's history: a commit's own listing of it would cost as much as the folder is long."""
    walk = git.folder_history(root, SESSIONS_DIR)
    added = first_added(walk)
    states = [added.get(name) for name in logs]
    recent = latest_logs(walk, {s for s in states if s is not None}, RECENT_SESSIONS)
    blobs = {blob for found in recent.values() for _, _, blob in found}
    reader = _Reader(root, git.sizes(root, blobs))
    for index, commit in enumerate(states):
        found = reader.start(commit, recent[commit]) if commit in recent else None
        if found is None:
            continue
        try:
            archived = reader.archived(used[index])
        except AgentMemoryError:  # a quarter then that no reader takes: projected
            continue
        yield index, found._replace(archived=archived)


class _Reader:
    """The memory of one commit after another, each blob read and parsed once."""

    def __init__(self, root: Path, sizes: dict[str, int]) -> None:
        self.root = root
        self.sizes = sizes  # the recent logs' blobs: their bytes
        self.docs: dict[tuple[str, str], facts.Document] = {}  # (path, blob): a live file
        self.quarters: dict[tuple[str, str], bytes] = {}  # (path, blob) of a quarter: its bytes
        self.ids: dict[tuple[str, str], frozenset[str]] = {}  # the ids of those parsed
        self.used: dict[str, frozenset[str]] = {}  # a log's blob: the ids it used
        self.last: tuple[str, Start | None] = ("", None)

    def start(self, commit: str, logs: Sequence[Log]) -> Start | None:
        """The memory of ``commit``, whose newest logs are ``logs``."""
        if commit == self.last[0]:
            return self.last[1]
        try:
            listed = git.entries(self.root, commit, _FOLDERS)
        except AgentMemoryError:  # a commit this clone does not have
            return None
        # what the work tree's reader would read: regular files, none over its bound
        tree = {
            path: e.object
            for path, e in listed.items()
            if e.kind == "blob" and e.mode in _REGULAR and (e.size or 0) <= MAX_FILE_BYTES
        }
        recent = []
        for name, mode, blob in logs:
            path = f"{SESSIONS_DIR}/{name}"
            recent.append(path)
            if mode in _REGULAR and self.sizes.get(blob, MAX_FILE_BYTES + 1) <= MAX_FILE_BYTES:
                tree[path] = blob
        try:
            found = self._start(tree, [*sorted(listed), *recent], recent)
        except AgentMemoryError:  # a file then that no reader takes: its session is projected
            found = None
        self.last = (commit, found)
        return found

    def _start(self, tree: dict[str, str], listed: Sequence[str], recent: Sequence[str]) -> Start:
        """The memory of a commit whose files git lists as ``listed``, ``tree`` those a reader
        takes (path: blob), ``recent`` its newest logs; raises when a file it would read is not
        among them, or it holds no continuity.md."""
        folders: dict[str, list[str]] = {}
        for path in listed:
            folder, _, name = path.rpartition("/")
            folders.setdefault(folder, []).append(name)
        threads = thread_paths(folders.get(OPEN_THREADS_DIR, ()))
        quarters = quarter_paths(folders.get(ARCHIVE_DIR, ()))
        if CONTINUITY not in listed:
            raise AgentMemoryError("holds no continuity.md", CONTINUITY)
        live = [CONTINUITY, *threads, *([VISION] if VISION in listed else [])]
        unread = [p for p in (*live, *quarters, *recent) if p not in tree]
        if unread:
            raise AgentMemoryError("a link, a submodule or past the size bound", unread[0])
        wanted = [p for p in live if (p, tree[p]) not in self.docs]
        wanted += [p for p in quarters if (p, tree[p]) not in self.quarters]
        wanted += [p for p in recent if tree[p] not in self.used]
        read = git.blobs(self.root, list(dict.fromkeys(tree[p] for p in wanted)))
        for path in wanted:
            data = read[tree[path]]
            if path in recent:
                self.used[tree[path]] = read_refs(data).used
            elif path in quarters:
                self.quarters[path, tree[path]] = data
            else:
                self.docs[path, tree[path]] = parse_file(path, data)
        # only this commit's blobs are kept: the next commit shares most of them
        self.docs = {(p, tree[p]): self.docs[p, tree[p]] for p in live}
        self.quarters = {(p, tree[p]): self.quarters[p, tree[p]] for p in quarters}
        self.ids = {key: ids for key, ids in self.ids.items() if key in self.quarters}
        self.used = {tree[p]: self.used[tree[p]] for p in recent}
        return Start(
            tuple(self.docs.values()), frozenset(), tuple(self.used[tree[p]] for p in recent)
        )

    def archived(self, ids: frozenset[str]) -> frozenset[str]:
        """Those of ``ids`` the last commit's archive holds: only a quarter naming one of them
        is parsed, once (an archive may hold thousands of facts, in every commit)."""
        found: set[str] = set()
        for key, data in self.quarters.items() if ids else ():
            if key not in self.ids and naming([(key[0], data)], ids):
                self.ids[key] = known_ids([facts.parse(key[0], data)])
            found |= ids & self.ids.get(key, frozenset())
        return frozenset(found)
