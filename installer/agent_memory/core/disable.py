"""``disable``: the plan that takes out what ``enable`` installed, and nothing else.

Our blocks leave the files they sit in (a file that held only our block goes with it); fully
managed files and the stamp go; ``memory/`` is the user's data and stays unless asked
(``--remove-memory``: then every file of it goes, each copied first). Anything removed or
changed that is not byte for byte what we installed (a managed file the user edited, a block
with the user's words in it, the stamp's history) is first copied under
``.agent/backup/disable-<date>/`` — a folder disable never removes, like the rest of
``.agent/backup/`` and ``.agent/migrated/``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from types import MappingProxyType

from .. import resources
from ..layout import (
    AGENTS_MD,
    AGENTS_TEMPLATE,
    BACKUP_DIR,
    FULLY_MANAGED,
    GITATTRIBUTES,
    GITATTRIBUTES_MARKERS,
    GITATTRIBUTES_TEMPLATE,
    GITIGNORE,
    GITIGNORE_BLOCK,
    GITIGNORE_MARKERS,
    MANIFEST,
    VENDORS,
)
from ..parse import manifest
from ..parse.facts import is_blank
from ..parse.text import decode
from .blocks import HTML_MARKERS, Markers, block_of, find_block
from .plan import FileEdit, Outcome, Plan

Files = Mapping[str, bytes | None]


def probe_paths() -> tuple[str, ...]:
    """Every path disable may touch: the known ones only, never a walk of the tree."""
    vendors = [path for path, _template, _kind in VENDORS.values()]
    return tuple(sorted({MANIFEST, AGENTS_MD, GITIGNORE, GITATTRIBUTES, *FULLY_MANAGED, *vendors}))


def backup_dir(today: dt.date) -> str:
    return f"{BACKUP_DIR}/disable-{today.isoformat()}"


def plan_disable(
    files: Files, today: dt.date, memory: Mapping[str, bytes] = MappingProxyType({})
) -> Plan:
    """Remove our blocks, managed files and stamp; back up what we did not write ourselves.
    ``memory`` (path → bytes: the memory files, when they go too) is removed, every file
    copied verbatim into the backup first."""
    stamp = files.get(MANIFEST)
    recorded = manifest.parse(stamp).managed if stamp is not None else {}
    edits: list[FileEdit] = []
    backups: dict[str, bytes] = {}
    managed, blocks = _pieces()
    for path, (template, markers) in blocks.items():
        data = files.get(path)
        if data is None:
            continue
        after, ours = _without_block(path, data, template, markers)
        if after == data:
            continue
        if not ours:
            backups[path] = data
        outcome = Outcome.REMOVED if after is None else Outcome.BLOCK_REMOVED
        edits.append(FileEdit(path, data, after, outcome, "agent-memory block taken out"))
    for path in managed:
        data = files.get(path)
        if data is None:
            continue
        if manifest.sha256(data) != recorded.get(path):
            backups[path] = data
        edits.append(FileEdit(path, data, None, Outcome.REMOVED, "managed by agent-memory"))
    if stamp is not None:
        backups[MANIFEST] = stamp  # the install's history is worth keeping
        edits.append(FileEdit(MANIFEST, stamp, None, Outcome.REMOVED, "the install stamp"))
    for path, data in memory.items():
        backups[path] = data
        edits.append(
            FileEdit(
                path,
                data,
                None,
                Outcome.REMOVED,
                "memory taken out (--remove-memory), copied first",
            )
        )
    folder = backup_dir(today)
    for path, data in backups.items():
        target = f"{folder}/{path}"
        if files.get(target) != data:
            reason = f"backup of {path} before agent-memory removes it"
            edits.append(FileEdit(target, files.get(target), data, Outcome.CREATED, reason))
    return Plan.of(edits)


def _pieces() -> tuple[dict[str, str], dict[str, tuple[bytes, Markers]]]:
    """What enable may install: fully managed files (path → template), and the files it puts a
    block in (path → the block's template and markers)."""
    managed = {**FULLY_MANAGED}
    blocks = {
        AGENTS_MD: (resources.data(AGENTS_TEMPLATE), HTML_MARKERS),
        GITIGNORE: (GITIGNORE_BLOCK.encode(), GITIGNORE_MARKERS),
        GITATTRIBUTES: (resources.data(GITATTRIBUTES_TEMPLATE), GITATTRIBUTES_MARKERS),
    }
    for path, template, kind in VENDORS.values():
        if kind == "managed":
            managed[path] = template
        else:
            blocks[path] = (resources.data(template), HTML_MARKERS)
    return managed, blocks


def _without_block(
    path: str, data: bytes, template: bytes, markers: Markers
) -> tuple[bytes | None, bool]:
    """The file without our block (None when nothing else was in it), and whether the block
    was exactly the one we install (else the file is backed up first)."""
    text = decode(path, data)
    span = find_block(path, text.lines, markers)
    if span is None:
        return data, True
    begin, end = span
    lines = list(text.lines)
    ours = [line.rstrip("\r\n") for line in lines[begin : end + 1]] == [
        line.rstrip("\n") for line in block_of(path, template, markers)
    ]
    rest = lines[:begin] + lines[end + 1 :]
    if all(is_blank(line) for line in rest):
        return None, ours
    if begin > 0 and end + 1 >= len(lines) and is_blank(lines[begin - 1]):
        rest = lines[: begin - 1]  # the blank line enable put before a block it appended
    elif begin == 0 and rest and is_blank(rest[0]):
        rest = rest[1:]  # the blank line enable put after a block it put at the top
    elif 0 < begin < len(rest) and is_blank(rest[begin - 1]) and is_blank(rest[begin]):
        del rest[begin]  # two blank lines would meet where the block was
    return type(text)(text.bom, tuple(rest)).encode(), ours
