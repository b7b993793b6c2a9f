"""What ``enable`` reads to give back a disabled repo: the newest disable folder's copies
(``core/install/restore.py`` decides; ENABLE.md Step 1)."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from packaging.version import Version

from ..core.install import restore
from ..core.install.disable import migrated, probe_paths
from ..errors import AgentMemoryError
from ..layout import BACKUP_DIR, CONTINUITY, MANIFEST
from ..shell.repo import Repo


def restoring(
    repo: Repo,
    files: dict[str, bytes | None],
    current: Version,
    links: Mapping[str, str] = MappingProxyType({}),
) -> restore.Restore | None:
    """The restore of a repo disable left (memory/ there, no stamp, a disable folder with a
    stamp), or None. ``files`` gains the paths disable touches that enable does not read;
    ``links`` are the known paths that are symlinks (disable took our piece out of the files
    they lead to, and copied those)."""
    if files.get(MANIFEST) is not None or files.get(CONTINUITY) is None:
        return None
    for name in restore.folders(repo.list_dir(BACKUP_DIR)):
        folder = f"{BACKUP_DIR}/{name}"
        data = _copy(repo, folder, MANIFEST)
        if data is None:
            continue  # a disable of an already disabled repo (--remove-memory): no stamp
        stamp = restore.stamp_of(folder, data, current)
        files.update({p: repo.read(p) for p in probe_paths() if p not in files})
        paths = sorted({links.get(p, p) for p in probe_paths()})
        copies = {p: _copy(repo, folder, p) for p in paths}
        originals = migrated(repo.list_dir, repo.read)
        return restore.restore(files, copies, folder, stamp, links, originals)
    return None


def _copy(repo: Repo, folder: str, path: str) -> bytes | None:
    """A copy in the folder, read as any file of the repo is (a link that leads out, a FIFO,
    a huge file: refused), with the way on named."""
    where = f"{folder}/{path}"
    try:
        return repo.read(where)
    except AgentMemoryError as exc:
        raise restore.refusal(folder, where, exc.message, exc.line) from None
