"""The bootstrap layer: AGENTS.md's block, the vendor bootstraps and the fully managed files.

Shared by Mode A, the end of Mode C and the re-sync of Mode B (an upgrade or a repair). Symlinks
among these files are taken as what they are: ``links`` (read by the shell) maps each known path
that is a symlink to the in-repo path it leads to. Every physical file gets at most one managed
block, written at its real path and never through a link, so no file ever imports itself.
"""

from __future__ import annotations

from collections.abc import Container, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from ... import patterns, resources
from ...errors import InputError, RefusedError
from ...layout import (
    AGENTS_MD,
    AGENTS_TEMPLATE,
    BACKUP_DIR,
    FULLY_MANAGED,
    GITATTRIBUTES,
    GITATTRIBUTES_MARKERS,
    GITIGNORE,
    GITIGNORE_BLOCK,
    GITIGNORE_MARKERS,
    LEGACY_MARKER,
    MANIFEST,
    USER_DATA,
    VENDORS,
)
from ...parse import manifest
from ...parse.text import decode
from ..blocks import find_block, upsert_block, worded
from ..plan import Outcome, numbered
from .ladder import Files
from .written import edited, versioned

Links = Mapping[str, str]
# Markup around words: an inline HTML tag, a link's target, emphasis, code, link brackets and
# backslash escapes; bounded, so a hostile file of "<<<<" or "](](](" stays linear.
_MARKUP = patterns.compile(r"<[^<>\n]{0,200}>|\]\([^()\s]{0,500}\)|[*_`~\[\]\\]")
_SPACE = patterns.compile(r"\s+")
NO_LINKS: Links = MappingProxyType({})
# The files whose lines are theirs but for our block: a line someone wrote inside it is an edit.
_LINE_BLOCKS = {GITIGNORE: GITIGNORE_MARKERS, GITATTRIBUTES: GITATTRIBUTES_MARKERS}
# The files a run may back up before it replaces them or adds our block.
BACKED_UP = (
    *FULLY_MANAGED,
    AGENTS_MD,
    *(path for path, _template, _kind in VENDORS.values()),
    *_LINE_BLOCKS,
)
_MAX_BACKUPS = 100  # backups of one file in one version's folder: a bound on the names tried


@dataclass(frozen=True, slots=True)
class Change:
    after: bytes | None
    outcome: Outcome
    reason: str


Changes = dict[str, Change]


def physical(links: Links, path: str) -> str:
    """The path of the file ``path`` really is (itself unless it is a link)."""
    return links.get(path, path)


def follow(files: Files, links: Links) -> dict[str, bytes | None]:
    """``files`` with every link reading what its target holds (after a plan changed it)."""
    out = dict(files)
    for link, target in links.items():
        if target in out:
            out[link] = out[target]
    return out


def backup_path(version: str, path: str) -> str:
    return f"{BACKUP_DIR}/{version}/{path}"


def backup_names(version: str, path: str) -> list[str]:
    """Every name a backup of ``path`` may take, first to last: a second repair of an edited
    file keeps the first one's copy and takes ``<name>-2``."""
    return numbered(backup_path(version, path), _MAX_BACKUPS)


def later_backups(version: str) -> frozenset[str]:
    """The names a second, third… backup of a file may take: the shell lists their folders and
    reads the ones there, so that a new backup never writes over one."""
    return frozenset(name for path in BACKED_UP for name in backup_names(version, path)[1:])


def bootstrap(
    files: Files,
    vendors: Sequence[str],
    version: str,
    recorded: Mapping[str, str],
    *,
    recreate: Container[str],
    links: Links = NO_LINKS,
    repair: bool = False,
) -> tuple[Changes, dict[str, str]]:
    """Install or re-sync everything ours; returns the changes and the managed files' hashes.

    ``recorded`` holds the hashes the manifest kept of what we installed last time: a managed file
    that no longer matches it was edited and is backed up before it is replaced. A missing vendor
    bootstrap is created only for the vendors in ``recreate``. With ``repair``
    (a re-run on the current version) a block that differs from ours was damaged: the file is
    backed up before the block is put right.
    """
    agents = physical(links, AGENTS_MD)
    owners = {agents: AGENTS_MD}  # physical path -> the known path whose piece it holds
    ours = versioned(resources.data(AGENTS_TEMPLATE), version)
    changes = _block(files, agents, ours, version, repair, top=True)
    if agents != AGENTS_MD:
        changes[AGENTS_MD] = Change(
            files.get(AGENTS_MD), Outcome.LINKED, f"links to {agents}; our block is written there"
        )
    managed = {path: resources.data(source) for path, source in FULLY_MANAGED.items()}
    for name in vendors:
        path, template, kind = VENDORS[name]
        target = physical(links, path)
        if files.get(target) is None and name not in recreate:
            continue  # the user deleted this bootstrap: it stays deleted
        owner = owners.setdefault(target, path)
        if owner != path:
            changes.update(_shared(files, path, target, owner, changes))
            continue
        if target != path:
            note = f"links to {target}; its {name} piece is written there"
            changes[path] = Change(files.get(path), Outcome.LINKED, note)
        if kind == "managed":
            managed[target] = resources.data(template)
        else:
            ours = worded(resources.data(template), files.get(target), target)
            changes.update(_block(files, target, ours, version, repair))
    for path, data in managed.items():
        changes.update(_managed(files, path, data, version, recorded.get(path)))
    for path, source in USER_DATA.items():
        if files.get(path) is None:
            changes[path] = Change(resources.data(source), Outcome.CREATED, "template")
        elif path not in changes:
            changes[path] = Change(files[path], Outcome.PRESERVED, "user data")
    return changes, {path: manifest.sha256(data) for path, data in managed.items()}


def _shared(files: Files, path: str, target: str, owner: str, changes: Changes) -> Changes:
    """A vendor bootstrap whose file already holds another piece of ours: it gets nothing."""
    if target != path:
        return {path: Change(files.get(path), Outcome.LINKED, f"links to {owner}")}
    # ``path`` is the real file another known path links to: one block in it is enough.
    change = changes[path]
    return {path: Change(change.after, change.outcome, f"{change.reason}; {owner} links here")}


def _block(
    files: Files, path: str, template: bytes, version: str, repair: bool, *, top: bool = False
) -> Changes:
    existing = files.get(path)
    after, outcome = upsert_block(path, existing, template, repair=repair, top=top)
    reason = {
        Outcome.CREATED: "bootstrap with the agent-memory block",
        Outcome.BLOCK_ADDED: "agent-memory block added; your text is untouched",
        Outcome.BLOCK_UPDATED: "agent-memory block refreshed; your text is untouched",
        Outcome.UNCHANGED: "agent-memory block current",
    }[outcome]
    changes = {path: Change(after, outcome, reason)}
    if existing is None:
        return changes
    if repair and outcome is not Outcome.UNCHANGED:
        # On the current version our block can only differ because it was damaged or removed.
        where = _backup(files, path, existing, version, changes)
        what = "restored" if outcome is Outcome.BLOCK_ADDED else "repaired"
        changes[path] = Change(
            after, outcome, f"agent-memory block {what}; the file as it was is in {where}"
        )
    elif outcome is Outcome.BLOCK_UPDATED and edited(path, existing):
        # An upgrade: a block no release wrote holds someone's edit; keep it before replacing.
        where = _backup(files, path, existing, version, changes)
        changes[path] = Change(
            after, outcome, f"agent-memory block refreshed; the file with your edit is in {where}"
        )
    elif outcome is Outcome.BLOCK_ADDED and _is_legacy(path, existing):
        # A file the hand-run protocol wrote (2.x or later): its text stays, but keep the
        # original beside it before we add to it.
        kept = f"the original is in {_backup(files, path, existing, version, changes)}"
        changes[path] = Change(after, outcome, f"{reason}; {kept}")
    return changes


def ignore_transients(files: Files) -> Changes:
    """The .gitignore block: our lock, journal and temp files, and the personal memory file."""
    template = GITIGNORE_BLOCK.encode()
    after, outcome = upsert_block(GITIGNORE, files.get(GITIGNORE), template, GITIGNORE_MARKERS)
    reason = "agent-memory's transient files, personal facts" + (
        "" if outcome is Outcome.CREATED else "; your lines are untouched"
    )
    return {GITIGNORE: Change(after, outcome, reason)}


def keep_edits(files: Files, changes: Changes, version: str) -> None:
    """Back ``.gitignore`` or ``.gitattributes`` up before ``changes`` replace a block of ours
    in it that someone edited (a line of theirs between our markers), as a bootstrap's block is:
    a rule they added there would otherwise go without a trace, and git would take what it hid."""
    for path, markers in _LINE_BLOCKS.items():
        change, before = changes.get(path), files.get(path)
        if change is None or before is None or change.after == before:
            continue
        if edited(path, before, markers):
            where = _backup(files, path, before, version, changes)
            reason = f"agent-memory block refreshed; the file with your edit is in {where}"
            changes[path] = Change(change.after, change.outcome, reason)


def _is_legacy(path: str, data: bytes) -> bool:
    text = decode(path, data)
    return find_block(path, text.lines) is None and says_legacy(text.body)


def says_legacy(text: str) -> bool:
    """Whether ``text`` says it uses "the agent-memory shared memory system", read as a person
    reads it: emphasis, code spans, links and inline HTML are markup, case and line breaks do
    not matter (a hand-written file bolds the name, or wraps the line)."""
    plain = _SPACE.sub(" ", _MARKUP.sub("", text)).casefold()
    return LEGACY_MARKER in plain


def _managed(files: Files, path: str, data: bytes, version: str, recorded: str | None) -> Changes:
    """A fully managed file: write it, backing up first when the user edited our last copy."""
    existing = files.get(path)
    if existing is None:
        return {path: Change(data, Outcome.CREATED, "managed by agent-memory")}
    if existing == data:
        return {path: Change(existing, Outcome.UNCHANGED, "current")}
    if recorded is not None and manifest.sha256(existing) == recorded:
        return {path: Change(data, Outcome.UPDATED, "managed file refreshed")}
    changes: Changes = {}
    where = _backup(files, path, existing, version, changes)
    changes[path] = Change(data, Outcome.BACKED_UP, f"your version is in {where}")
    return changes


def _backup(files: Files, path: str, data: bytes, version: str, changes: Changes) -> str:
    """Copy ``data`` to ``.agent/backup/<version>/<path>``, or to the first numbered name free
    when that holds an earlier backup of other bytes (never written over); a backup of these
    very bytes is kept as it is. Where the copy is."""
    for target in backup_names(version, path):
        there = files.get(target)
        if there == data:
            changes[target] = Change(data, Outcome.UNCHANGED, f"backup of {path} already there")
            return target
        if there is None:
            reason = f"backup of {path} before agent-memory changes it"
            changes[target] = Change(data, Outcome.CREATED, reason)
            return target
    raise InputError(
        backup_path(version, path),
        None,
        f"and {_MAX_BACKUPS - 1} numbered backups of it hold other text",
        f"move the old backups out of {BACKUP_DIR}/{version}/ and run again",
    )


def vendors_present(files: Files, listed: Sequence[str], links: Links = NO_LINKS) -> list[str]:
    """The vendors whose bootstrap is there: listed ones whose file exists, and unlisted ones
    whose file holds our piece (the stamp's list is checked against the files, both ways)."""
    found = []
    for name, (path, _template, kind) in VENDORS.items():
        data = files.get(physical(links, path))
        if data is None:
            continue
        if name in listed or kind == "managed" or _has_block(path, data):
            found.append(name)
    return found


def _has_block(path: str, data: bytes) -> bool:
    try:
        return find_block(path, decode(path, data).lines) is not None
    except InputError:
        return True  # a damaged block is still ours: the re-sync reports it


def check_vendors(stamp: manifest.Manifest) -> None:
    """Refuse a stamp whose ``vendors:`` names one that is none of ours (a stamp is input: it
    may name anything, and every vendor it names is looked up)."""
    unknown = [vendor for vendor in stamp.vendors if vendor not in VENDORS]
    if unknown:
        raise RefusedError(
            f"vendors: names {', '.join(unknown)}, not a vendor agent-memory installs "
            f"({', '.join(VENDORS)}); write the ones this repo has, or none",
            MANIFEST,
        )
