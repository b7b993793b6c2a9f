"""``disable``: the plan that takes out what ``enable`` installed, and nothing else.

Our blocks leave the files they sit in (a file that held only our block goes with it); fully
managed files, the stamp and the hooks the stamp records go; ``memory/`` is the user's data and
stays unless asked (``--remove-memory``: then every file of it goes). Every file removed or
changed is first copied, as it was, into a folder of its own, ``.agent/backup/disable-<date>/``
(``-2``, ``-3``… when that one exists): what the user edited is never lost, and ``enable``
can give the repo back exactly (``core/install/restore.py``). disable never removes a backup, nor
``.agent/migrated/``: a vendor file Mode C made a pointer, and that holds nothing else still, gets
its original text back from there (ENABLE.md § Disable); else the report names the copy.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType

from ...errors import InputError
from ...layout import (
    AGENTS_MD,
    BACKUP_DIR,
    FULLY_MANAGED,
    GITATTRIBUTES,
    GITATTRIBUTES_MARKERS,
    GITIGNORE,
    GITIGNORE_MARKERS,
    MANIFEST,
    VENDORS,
)
from ...parse.facts import is_blank
from ...parse.text import decode, strip_eol
from ..agents import hooks
from ..agents.jsontext import BadJSON
from ..blocks import HTML_MARKERS, Markers, find_block
from ..plan import FileEdit, Outcome, Plan
from ..vendors import rules

Files = Mapping[str, bytes | None]


def probe_paths() -> tuple[str, ...]:
    """Every path disable may touch: the known ones only, never a walk of the tree."""
    vendors = [path for path, _template, _kind in VENDORS.values()]
    settings = [agent.path for agent in hooks.AGENTS.values()]
    known = {MANIFEST, AGENTS_MD, GITIGNORE, GITATTRIBUTES, *FULLY_MANAGED, *vendors, *settings}
    return tuple(sorted(known))


def migrated(
    list_dir: Callable[[str], Sequence[str]], read: Callable[[str], bytes | None]
) -> dict[str, bytes]:
    """Mode C's copies (path → bytes) of the vendor files disable takes a block out of."""
    found = {}
    for path in _vendor_blocks():
        names = rules.copy_names(path)
        there = set(list_dir(names[0].rpartition("/")[0]))
        for copy in names:
            data = read(copy) if copy.rpartition("/")[2] in there else None
            if data is not None:
                found[copy] = data
    return found


def backup_dir(today: dt.date, taken: Callable[[str], bool] = lambda _folder: False) -> str:
    """The first backup folder of ``today`` not ``taken`` (a disable never mixes its copies
    with an earlier one's)."""
    folder, number = f"{BACKUP_DIR}/disable-{today.isoformat()}", 1
    while taken(folder if number == 1 else f"{folder}-{number}"):
        number += 1
    return folder if number == 1 else f"{folder}-{number}"


def plan_disable(
    files: Files,
    folder: str,
    memory: Mapping[str, bytes] = MappingProxyType({}),
    links: Mapping[str, str] = MappingProxyType({}),
    originals: Mapping[str, bytes] = MappingProxyType({}),
) -> Plan:
    """Remove our blocks, managed files, hooks and stamp, and ``memory`` (path → bytes: the
    memory files, when they go too); every file removed or changed is copied to ``folder``.
    ``originals`` are Mode C's copies (``migrated``): a pointer gets its original back.

    ``links`` maps each known path that is a symlink to the in-repo path it leads to (ENABLE.md
    § Symlinks): a link is left as it is, and our piece is taken out of the file it leads to,
    once — the file enable wrote it into.
    """
    edits = [
        *_block_edits(files, links, originals),
        *_managed_edits(files, links),
        *_hook_edits(files, links),
    ]
    stamp = files.get(MANIFEST)
    if stamp is not None:
        edits.append(FileEdit(MANIFEST, stamp, None, Outcome.REMOVED, "the install stamp"))
    reason = "memory taken out (--remove-memory), copied first"
    edits += [FileEdit(path, data, None, Outcome.REMOVED, reason) for path, data in memory.items()]
    for edit in list(edits):
        if edit.before is not None and edit.writes:
            target = f"{folder}/{edit.path}"
            why = f"copy of {edit.path} before agent-memory changes it"
            edits.append(FileEdit(target, files.get(target), edit.before, Outcome.CREATED, why))
    return Plan.of(edits)


def _block_edits(
    files: Files, links: Mapping[str, str], originals: Mapping[str, bytes]
) -> list[FileEdit]:
    edits = []
    done: set[str] = set()
    for path, markers in _pieces()[1].items():
        data = files.get(path)
        if data is None:
            continue
        target = links.get(path, path)
        if target != path:
            edits.append(_linked(path, data, target))
            data = files.get(target)
            if data is None:
                continue
        if target in done:
            continue
        done.add(target)
        after = without_block(target, data, markers)
        if after != data:
            edits.append(_out(target, data, after, originals))
    return edits


def _out(path: str, data: bytes, after: bytes | None, originals: Mapping[str, bytes]) -> FileEdit:
    """Our block out of ``path``; a pointer Mode C left, holding nothing else, gets the
    original text back from its copy, and a file that holds more says where the copy is."""
    outcome = Outcome.REMOVED if after is None else Outcome.BLOCK_REMOVED
    copies = [copy for copy in rules.copy_names(path) if copy in originals]
    if not copies:
        return FileEdit(path, data, after, outcome, "agent-memory block taken out")
    pointing = [copy for copy in copies if _pointer_rest(path, originals[copy]) == [after]]
    if len(pointing) == 1:
        copy = pointing[0]
        why = f"its original text given back from {copy}; AGENTS.md keeps its rules too"
        return FileEdit(path, data, originals[copy], Outcome.UPDATED, why)
    why = f"agent-memory block taken out; its text before enable is in {', '.join(copies)}"
    return FileEdit(path, data, after, outcome, why + " (copy it back to restore it)")


def _pointer_rest(path: str, original: bytes) -> list[bytes | None]:
    """What the pointer Mode C makes of ``original`` holds besides our block ([] when it
    makes none: a copy that cannot be read, or a file that is not always on)."""
    try:
        pointer = rules.migrate({path: original}, None, dt.date.min, False).files.get(path)
    except InputError:
        return []
    return [] if pointer is None else [without_block(path, pointer, HTML_MARKERS)]


def _linked(path: str, data: bytes, target: str) -> FileEdit:
    """A symlink among the known paths: never written or removed; its target is dealt with."""
    return FileEdit(path, data, data, Outcome.LINKED, f"links to {target}; left as it is")


def _managed_edits(files: Files, links: Mapping[str, str]) -> list[FileEdit]:
    return [
        _linked(path, data, links[path])
        if path in links
        else FileEdit(path, data, None, Outcome.REMOVED, "managed by agent-memory")
        for path in _pieces()[0]
        if (data := files.get(path)) is not None
    ]


def _hook_edits(files: Files, links: Mapping[str, str]) -> list[FileEdit]:
    """Our hooks out of each agent's settings the stamp records (HOOKS.md): the file's bytes
    from before install when nothing changed since, else only our groups out."""
    stamp = files.get(MANIFEST)
    text = stamp.decode("utf-8", errors="replace") if stamp is not None else ""
    edits = []
    for agent, entry in sorted(hooks.recorded(text).items()):
        if agent not in hooks.AGENTS:
            continue  # not an agent we install hooks for: nothing of ours to take out
        path = hooks.AGENTS[agent].path  # never a path the stamp names: it is input
        data = files.get(path)
        if data is None:
            continue
        if path in links:
            edits.append(_linked(path, data, links[path]))
            path = links[path]
            data = files.get(path)
            if data is None:
                continue
        try:
            after, exact = hooks.remove(data.decode("utf-8"), agent, entry.original, entry.added)
        except (UnicodeDecodeError, BadJSON, hooks.NotAnObject) as exc:
            line = exc.line if isinstance(exc, BadJSON) else None
            raise InputError(
                path, line, f"cannot take our hooks out: {exc}", "fix the file, then disable again"
            ) from None
        new = after.encode("utf-8") if after is not None else None
        if new != data:
            outcome = Outcome.REMOVED if new is None else Outcome.UPDATED
            reason = f"{agent} hooks taken out"
            if not exact:  # HOOKS.md: it says so
                reason += " (changed since install: took out our hooks, kept the rest)"
            edits.append(FileEdit(path, data, new, outcome, reason))
    return edits


def _vendor_blocks() -> list[str]:
    """The vendor files enable puts a block in (Mode C makes them pointers)."""
    return [path for path, _template, kind in VENDORS.values() if kind != "managed"]


def _pieces() -> tuple[dict[str, str], dict[str, Markers]]:
    """What enable may install: fully managed files (path → template), and the files it puts a
    block in (path → the block's markers)."""
    managed = {**FULLY_MANAGED}
    blocks = {AGENTS_MD: HTML_MARKERS, GITIGNORE: GITIGNORE_MARKERS}
    blocks[GITATTRIBUTES] = GITATTRIBUTES_MARKERS
    for path, template, kind in VENDORS.values():
        if kind == "managed":
            managed[path] = template
        else:
            blocks[path] = HTML_MARKERS
    return managed, blocks


def without_block(path: str, data: bytes, markers: Markers) -> bytes | None:
    """The file without our block (None when nothing else was in it)."""
    text = decode(path, data)
    span = find_block(path, text.lines, markers)
    if span is None:
        return data
    begin, end = span
    lines = list(text.lines)
    rest = lines[:begin] + lines[end + 1 :]
    if all(is_blank(line) for line in rest):
        return None
    # The blank line enable adds is an empty one; a line of spaces was the user's.
    if begin == 0 and not strip_eol(rest[0]):
        del rest[0]  # the blank line enable put after a block at the top of the file
    elif begin > 0 and not strip_eol(rest[begin - 1]):
        del rest[begin - 1]  # the blank line enable put before the block
    elif begin > 0 and end + 1 == len(lines):
        rest[-1] = strip_eol(rest[-1])  # no blank before a block appended: no final newline
    return type(text)(text.bom, tuple(rest)).encode()
