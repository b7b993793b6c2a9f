"""``enable``: decide the mode (A fresh, B already ours, C migrate) and plan the install.

Everything here is a pure function of the repo's known files (a path → bytes mapping, None for
absent): Mode A installs the templates, Mode B runs the ladder one rung at a time and then
re-syncs and re-stamps. The shell reads the files and applies each step's plan.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from packaging.version import Version

from .. import resources
from ..errors import RefusedError
from ..layout import (
    AGENTS_MD,
    AGENTS_TEMPLATE,
    ARCHIVE_DIR,
    ARCHIVE_INDEX,
    BACKUP_DIR,
    CONTINUITY,
    DEFAULT_VENDORS,
    FULLY_MANAGED,
    LEGACY_MARKER,
    MANIFEST,
    MANIFEST_TEMPLATE,
    OPEN_THREADS_DIR,
    SCHEMA,
    USER_DATA,
    VENDORS,
    VISION,
)
from ..parse import manifest
from ..parse.dates import quarter_of
from ..parse.facts import parse
from ..parse.keyvalue import embolden
from ..parse.text import decode
from . import vendor_import
from .archive import index_line, render_index
from .blocks import find_block, upsert_block
from .ladder import Files, Ladder, Rung, history_line
from .plan import FileEdit, Outcome, Plan

LEGACY_VERSION = Version("2.0.0")
# An unstamped layer whose facts carry footers was enabled by hand with 3.0.0 or later.
HANDRUN_UNSTAMPED = Version("3.0.0")
_FOOTER = re.compile(rb"<!--\s*id\s*:")


@dataclass(frozen=True, slots=True)
class Change:
    after: bytes | None
    outcome: Outcome
    reason: str


Changes = dict[str, Change]


@dataclass(frozen=True, slots=True)
class Detected:
    mode: str  # "A" fresh, "B" ours
    installed: Version | None  # None: fresh; 2.0.0 for a pre-versioning repo
    stamp: manifest.Manifest | None
    handrun: bool = False  # enabled by hand (HANDRUN.md): the adoption rung, not the ladder


def probe_paths(current: str) -> tuple[str, ...]:
    """Every path enable may read: the known ones only, never a walk of the tree."""
    bootstraps = [path for path, _template, _kind in VENDORS.values()]
    paths = {MANIFEST, CONTINUITY, SCHEMA, AGENTS_MD, *FULLY_MANAGED, *USER_DATA, *bootstraps}
    paths.update(backup_path(current, p) for p in (*FULLY_MANAGED, AGENTS_MD, *bootstraps))
    return tuple(sorted(paths))


def backup_path(version: str, path: str) -> str:
    return f"{BACKUP_DIR}/{version}/{path}"


def detect(files: Files, current: Version, migration_sources: Sequence[str]) -> Detected:
    """ENABLE.md step 1."""
    stamp_data = files.get(MANIFEST)
    if stamp_data is not None:
        stamp = manifest.parse(stamp_data)
        if not stamp.ours:  # DESIGN §12: the marker decides, never the number
            return Detected("B", stamp.version, stamp, handrun=True)
        if stamp.version > current:
            raise RefusedError(
                f"this repo is on agent-memory {stamp.version}, newer than this tool "
                f"({current}); upgrade the tool (pip install -U agent-memory) and run again",
                MANIFEST,
                stamp.version_line,
            )
        return Detected("B", stamp.version, stamp)
    if files.get(CONTINUITY) is not None or files.get(SCHEMA) is not None:
        if handrun_layer(files):
            return Detected("B", HANDRUN_UNSTAMPED, None, handrun=True)
        return Detected("B", LEGACY_VERSION, None)
    if migration_sources:
        return Detected("C", None, None)
    return Detected("A", None, None)


def handrun_layer(files: Files) -> bool:
    """An unstamped layer from the hand-run line after 3.0.0: footers, an archive, vision.md or
    one-file threads. (A 2.x layer has none of them.)"""
    if _FOOTER.search(files.get(CONTINUITY) or b"") is not None:
        return True
    return any(
        data is not None
        and (path == VISION or path.startswith((ARCHIVE_DIR + "/", OPEN_THREADS_DIR + "/")))
        and path != ARCHIVE_INDEX
        for path, data in files.items()
    )


def choose_vendors(vendors: Sequence[str] | None) -> tuple[str, ...]:
    if not vendors:
        return DEFAULT_VENDORS
    if "none" in vendors:
        return ()
    return _ordered(vendors)


def _ordered(vendors: Sequence[str]) -> tuple[str, ...]:
    return tuple(sorted(set(vendors), key=list(VENDORS).index))


def plan_of(files: Files, changes: Changes) -> Plan:
    return Plan.of(
        FileEdit(path, files.get(path), c.after, c.outcome, c.reason) for path, c in changes.items()
    )


def apply_changes(files: Files, changes: Changes) -> dict[str, bytes | None]:
    return {**files, **{path: c.after for path, c in changes.items()}}


# -- Mode A ------------------------------------------------------------------------------------


def fresh_install(files: Files, vendors: Sequence[str], today: dt.date, current: str) -> Plan:
    """Mode A: the 3.0.0 layout from the templates, user text outside our blocks untouched."""
    return plan_of(files, _install(files, vendors, today, current, "A"))


def _install(
    files: Files, vendors: Sequence[str], today: dt.date, current: str, mode: str
) -> Changes:
    """Everything ours, and the first manifest: the end of Mode A and of Mode C."""
    changes, managed = bootstrap(files, vendors, current, {}, recreate=True)
    stamp = manifest.render_new(
        resources.data(MANIFEST_TEMPLATE),
        version=current,
        today=today.isoformat(),
        mode=mode,
        vendors=vendors,
        managed=managed,
    )
    changes[MANIFEST] = Change(stamp, Outcome.CREATED, f"stamp {current}, mode {mode}")
    return changes


def _merge(changes: Changes, later: Changes) -> None:
    """Add changes computed on the state ``changes`` lead to; a later no-op keeps the earlier."""
    for path, change in later.items():
        if path not in changes or change.after != changes[path].after:
            changes[path] = change


# -- Mode C ------------------------------------------------------------------------------------


def migration(
    files: Files,
    sources: Mapping[str, bytes],
    vendors: Sequence[str],
    today: dt.date,
    current: str,
    keep_vendor_files: bool,
) -> Plan:
    """Mode C (MIGRATE.md): consolidate, import the stores, then install as Mode A would."""
    found = vendor_import.migrate(sources, files.get(AGENTS_MD), today, keep_vendor_files)
    before = {**files, **sources}
    changes: Changes = {
        path: Change(data, _outcome(before.get(path), data), found.reasons[path])
        for path, data in found.files.items()
    }
    template = decode(CONTINUITY, resources.data(USER_DATA[CONTINUITY]))
    continuity, archived = vendor_import.memory_files(template, found.facts, today)
    if found.facts:
        count = len(found.facts)
        changes[CONTINUITY] = Change(continuity, Outcome.CREATED, f"{count} facts imported")
    if archived is not None:
        quarter = f"{quarter_of(today)}.md"
        changes[f"{ARCHIVE_DIR}/{quarter}"] = Change(archived, Outcome.CREATED, "archived entries")
        entries = [index_line(f, quarter) for f in parse(quarter, archived).facts]
        index = render_index(None, resources.data(USER_DATA[ARCHIVE_INDEX]), entries)
        changes[ARCHIVE_INDEX] = Change(index, Outcome.CREATED, "archive index")
    chosen = _ordered([*found.vendors, *vendors]) or DEFAULT_VENDORS
    _merge(changes, _install(apply_changes(before, changes), chosen, today, current, "C"))
    return plan_of(before, changes)


# -- the bootstrap layer, shared by Mode A and the re-sync of Mode B --------------------------


def bootstrap(
    files: Files,
    vendors: Sequence[str],
    version: str,
    recorded: Mapping[str, str],
    *,
    recreate: bool,
) -> tuple[Changes, dict[str, str]]:
    """Install or re-sync everything ours; returns the changes and the managed files' hashes.

    ``recorded`` holds the hashes the manifest kept of what we installed last time: a managed file
    that no longer matches it was edited and is backed up before it is replaced.
    """
    changes: Changes = {}
    managed = {path: resources.data(source) for path, source in FULLY_MANAGED.items()}
    for name in vendors:
        path, template, kind = VENDORS[name]
        never_installed = kind == "managed" and path not in recorded
        if files.get(path) is None and not recreate and not never_installed:
            continue  # the user deleted this bootstrap: it stays deleted
        if kind == "managed":
            managed[path] = resources.data(template)
        else:
            changes.update(_block(files, path, resources.data(template), version))
    changes.update(_block(files, AGENTS_MD, resources.data(AGENTS_TEMPLATE), version))
    for path, data in managed.items():
        changes.update(_managed(files, path, data, version, recorded.get(path)))
    for path, source in USER_DATA.items():
        if files.get(path) is None:
            changes[path] = Change(resources.data(source), Outcome.CREATED, "template")
        elif path not in changes:
            changes[path] = Change(files[path], Outcome.PRESERVED, "user data")
    return changes, {path: manifest.sha256(data) for path, data in managed.items()}


def _block(files: Files, path: str, template: bytes, version: str) -> Changes:
    existing = files.get(path)
    after, outcome = upsert_block(path, existing, template)
    reason = {
        Outcome.CREATED: "bootstrap with the agent-memory block",
        Outcome.BLOCK_ADDED: "agent-memory block appended; your text is untouched",
        Outcome.BLOCK_UPDATED: "agent-memory block refreshed; your text is untouched",
        Outcome.UNCHANGED: "agent-memory block current",
    }[outcome]
    changes = {path: Change(after, outcome, reason)}
    if outcome is Outcome.BLOCK_ADDED and existing is not None and _is_legacy(path, existing):
        # A 2.x file: its text stays, but keep the original beside it before we add to it.
        changes.update(_backup(files, path, existing, version))
        changes[path] = Change(after, outcome, f"{reason}; 2.x original in {BACKUP_DIR}/")
    return changes


def _is_legacy(path: str, data: bytes) -> bool:
    text = decode(path, data)
    return find_block(path, text.lines) is None and LEGACY_MARKER in text.body


def _managed(files: Files, path: str, data: bytes, version: str, recorded: str | None) -> Changes:
    """A fully managed file: write it, backing up first when the user edited our last copy."""
    existing = files.get(path)
    if existing is None:
        return {path: Change(data, Outcome.CREATED, "managed by agent-memory")}
    if existing == data:
        return {path: Change(existing, Outcome.UNCHANGED, "current")}
    if recorded is not None and manifest.sha256(existing) == recorded:
        return {path: Change(data, Outcome.UPDATED, "managed file refreshed")}
    changes = _backup(files, path, existing, version)
    where = next(iter(changes))
    changes[path] = Change(data, Outcome.BACKED_UP, f"your version is in {where}")
    return changes


def _backup(files: Files, path: str, data: bytes, version: str) -> Changes:
    """Copy ``data`` to ``.agent/backup/<version>/<path>`` (kept if already there)."""
    target = backup_path(version, path)
    if files.get(target) == data:
        return {target: Change(data, Outcome.UNCHANGED, f"backup of {path} already there")}
    outcome = Outcome.CREATED if files.get(target) is None else Outcome.UPDATED
    return {target: Change(data, outcome, f"backup of {path} before agent-memory changes it")}


# -- Mode B ------------------------------------------------------------------------------------


def detect_vendors(files: Files) -> tuple[str, ...]:
    """The bootstraps a pre-versioning repo has (2.x wrote CLAUDE.md, GEMINI.md, .cursorrules,
    .github/copilot-instructions.md)."""
    found = [name for name, (path, _t, _k) in VENDORS.items() if files.get(path) is not None]
    if files.get(".cursorrules") is not None:
        found.append("cursor")
    return _ordered(found)


def upgrade_steps(
    files: Files, detected: Detected, ladder: Ladder, current: Version, today: dt.date
) -> Iterator[Plan]:
    """Mode B for an older repo: one plan per rung; the last also re-syncs and re-stamps.

    The plans are applied one after the other, each with the manifest line that records its
    rung, so a run killed between two rungs resumes at the next one.
    """
    installed = detected.installed or LEGACY_VERSION
    day = today.isoformat()
    state = dict(files)
    stamp = _first_stamp(files, detected, installed, day)
    fresh = detected.stamp is None or detected.handrun  # no vendors recorded: the ones found
    # The version is bumped in the same plan that records the rung, so it alone says where to
    # resume. A release that changed no installed file has no rung: it only re-syncs.
    rungs: list[Rung | None] = [*ladder.between(installed, current)] or [None]
    if detected.handrun and ladder.adoption is not None:
        rungs = [ladder.adoption]
    for index, rung in enumerate(rungs):
        target = rung.target if rung else current
        upgraded = rung.upgrade(state, today) if rung else {}
        changes: Changes = {
            path: Change(after, _outcome(state.get(path), after), f"rung {target}")
            for path, after in upgraded.items()
        }
        values = {"version": str(target), "last_upgraded": day}
        managed: Mapping[str, str] = stamp.managed
        notes = ""
        if index == len(rungs) - 1:
            after_rung = apply_changes(state, changes)
            kept = [v for v in stamp.vendors if fresh or _still_wanted(v, after_rung, stamp)]
            resync, managed = bootstrap(
                after_rung, kept, str(current), stamp.managed, recreate=fresh
            )
            _merge(changes, resync)
            values |= {"version": str(current), "vendors": ", ".join(kept) or "none"}
            if len(kept) != len(stamp.vendors):
                gone = sorted(set(stamp.vendors) - set(kept))
                notes = f"; {', '.join(gone)} bootstrap deleted, not recreated"
        entry = history_line(today, installed, target, rung.summary if rung else None)
        new_stamp = manifest.restamp(stamp, values=values, managed=managed, history=[entry])
        changes[MANIFEST] = Change(
            new_stamp, _outcome(state.get(MANIFEST), new_stamp), f"stamp {target}{notes}"
        )
        plan = plan_of(state, changes)
        state = apply_changes(state, changes)
        yield plan
        stamp = manifest.parse(new_stamp)
        installed = target


def _still_wanted(vendor: str, files: Files, stamp: manifest.Manifest) -> bool:
    """A recorded vendor whose bootstrap is there, or was never installed yet (a run resumed
    between two rungs of a 2.x repo, before the Cursor rule was first written)."""
    path, _template, kind = VENDORS[vendor]
    return files.get(path) is not None or (kind == "managed" and path not in stamp.managed)


def _first_stamp(
    files: Files, detected: Detected, installed: Version, day: str
) -> manifest.Manifest:
    """The stamp the first step re-stamps: the repo's own, or a new one for an unstamped repo.

    A hand-run stamp records no vendors: the bootstraps found are taken. An unstamped hand-run
    layer gets its stamp in the bold key form its Project State uses (HANDRUN.md: the hand-run
    memory-lint wants a bold version line).
    """
    if detected.stamp is not None:
        if detected.handrun:
            return dataclasses.replace(detected.stamp, vendors=detect_vendors(files))
        return detected.stamp
    seed = manifest.render_new(
        resources.data(MANIFEST_TEMPLATE),
        version=str(installed),
        today=day,
        mode="A",
        vendors=detect_vendors(files),
        managed={},
    )
    if detected.handrun and b"- **" in (files.get(CONTINUITY) or b""):
        lines = seed.decode("utf-8").splitlines(keepends=True)
        seed = "".join(embolden(line) for line in lines).encode("utf-8")
    return manifest.parse(seed)


def _outcome(before: bytes | None, after: bytes | None) -> Outcome:
    if before is None:
        return Outcome.CREATED
    return Outcome.UNCHANGED if before == after else Outcome.UPDATED
