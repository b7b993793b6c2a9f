"""``enable`` after ``disable``: the repo given back as it was, from disable's copies.

disable copies every file it removes or changes, the stamp with its history included, into a
folder of its own under ``.agent/backup/``. ``enable`` on a repo with ``memory/`` but no stamp
takes the newest such folder that holds a stamp and treats the repo as that stamp's version: a
file comes back from its copy when disabling the copy gives exactly what the repo holds now
(nobody touched it since); one changed since is left as it is and goes the usual way. The
folder is input like any file of the repo (DESIGN §15): only the paths disable writes are read
from it, the stamp goes through the stamp parser and must be one of ours, no newer than the
tool, naming only vendors we know; anything else stops the run with one line.
"""

from collections.abc import Iterable, Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import NamedTuple

from packaging.version import Version

from ...errors import InputError, RefusedError
from ...layout import DISABLE_FOLDER, MANIFEST
from ...parse import manifest
from ...parse.dates import parse_date
from ..plan import FileEdit, Outcome, Plan
from .bootstrap import check_vendors
from .disable import plan_disable

Files = Mapping[str, bytes | None]


class Restore(NamedTuple):
    folder: str  # the backup folder the copies come from
    stamp: manifest.Manifest  # its stamp: the version the repo is treated as
    files: dict[str, bytes | None]  # the repo's known files, with the copies given back
    restored: tuple[str, ...]  # paths given back from their copies
    kept: tuple[str, ...]  # paths changed since disable: left as they are now


def folders(names: Sequence[str]) -> list[str]:
    """The disable folders among ``names`` (the entries of .agent/backup/), newest first: by
    date, then by number; a name that is not a real date is no folder of ours."""
    dated = []
    for name in names:
        match = DISABLE_FOLDER.match(name)
        if match and parse_date(match[1]) is not None:
            dated.append((match[1], int(match[2] or 1), name))
    return [name for *_key, name in sorted(dated, reverse=True)]


def refusal(folder: str, where: str, what: str, line: int | None = None) -> RefusedError:
    """Why a backup folder cannot be restored from, and the way on."""
    return RefusedError(
        f"{what}; enable will not restore from it — move {folder} out of .agent/backup/ to "
        "enable afresh, or replace it with disable's copy",
        where,
        line,
    )


def stamp_of(folder: str, data: bytes, current: Version) -> manifest.Manifest:
    """The copied stamp, if it is one enable can restore: ours, not newer than the tool,
    naming only known vendors."""
    where = f"{folder}/{MANIFEST}"
    try:
        stamp = manifest.parse(data)
    except InputError as exc:
        what = f"is not a stamp agent-memory can read ({exc.message})"
        raise refusal(folder, where, what, exc.line) from None
    if not stamp.ours:
        raise refusal(folder, where, "was not written by agent-memory (no '## Managed files')")
    if stamp.version > current:
        raise refusal(
            folder, where, f"is agent-memory {stamp.version}, newer than this tool ({current})"
        )
    try:
        check_vendors(stamp)
    except RefusedError as exc:
        raise refusal(folder, where, exc.message) from None
    return stamp


def restore(
    files: Files,
    copies: Files,
    folder: str,
    stamp: manifest.Manifest,
    links: Mapping[str, str] = MappingProxyType({}),
    originals: Mapping[str, bytes] = MappingProxyType({}),
) -> Restore:
    """The repo's known ``files`` with each of disable's ``copies`` (the stamp's among them)
    given back whose disabling gives what is there now (``links`` and Mode C's ``originals``
    as disable saw them)."""
    present = {path: data for path, data in copies.items() if data is not None}
    candidate = {**files, **present}
    plan = plan_disable(candidate, folder, links=links, originals=originals)
    disabled = {e.path: e.after for e in plan.edits}
    restored: list[str] = []
    kept: list[str] = []
    for path in sorted(present):
        same = disabled.get(path, candidate[path]) == files.get(path)
        (restored if same else kept).append(path)
    state = {**files, **{path: present[path] for path in restored}}
    return Restore(folder, stamp, state, tuple(restored), tuple(kept))


def rebased(plans: Iterable[Plan], disk: Files, restoring: Restore) -> Iterator[Plan]:
    """The plans computed on the restored files, the first of them starting from what is on
    disk: it also writes what the copies give back (and lands whole, with the rest of it)."""
    first = True
    for plan in [*plans] or [Plan(())]:
        if not first:
            yield plan
            continue
        first = False
        edits = {e.path: _from_disk(e, disk.get(e.path)) for e in plan.edits}
        reason = f"restored from {restoring.folder}/"
        for path in restoring.restored:
            before, after = disk.get(path), restoring.files.get(path)
            if path not in edits and after != before:
                edits[path] = FileEdit(path, before, after, Outcome.written(before), reason)
        yield Plan.of(edits.values())


def _from_disk(edit: FileEdit, before: bytes | None) -> FileEdit:
    if before == edit.before:
        return edit
    if edit.after is None:
        return edit._replace(before=before, outcome=Outcome.REMOVED)
    quiet = (Outcome.UNCHANGED, Outcome.PRESERVED, Outcome.LINKED)
    outcome = Outcome.written(before) if edit.outcome in quiet or before is None else edit.outcome
    return edit._replace(before=before, outcome=outcome)
