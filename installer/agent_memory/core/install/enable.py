"""``enable``: decide the mode (A fresh, B already ours, C migrate) and plan the install.

A pure function of the repo's known files (path → bytes, None for absent): Mode A installs the
templates, Mode B climbs the ladder rung by rung, then re-syncs and re-stamps.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from packaging.version import Version

from ... import patterns, resources
from ...errors import RefusedError
from ...layout import (
    AGENTS_MD,
    ARCHIVE_DIR,
    ARCHIVE_INDEX,
    CONTINUITY,
    DEFAULT_VENDORS,
    GITIGNORE,
    MANIFEST,
    MANIFEST_TEMPLATE,
    OPEN_THREADS_DIR,
    SCHEMA,
    USER_DATA,
    VENDORS,
    VISION,
)
from ...parse import manifest
from ...parse.dates import quarter_of
from ...parse.facts import parse
from ...parse.keyvalue import embolden
from ...parse.text import decode
from ..plan import FileEdit, Outcome, Plan
from ..review.archive import index_line, render_index
from ..vendors import rules, written
from .bootstrap import (
    BACKED_UP,
    NO_LINKS,
    Change,
    Changes,
    Links,
    backup_path,
    bootstrap,
    follow,
    ignore_transients,
    keep_edits,
    physical,
    vendors_present,
)
from .ladder import Files, Ladder, Rung, history_line

LEGACY_VERSION = Version("2.0.0")
# An unstamped layer whose facts carry footers was enabled by hand with 3.0.0 or later.
HANDRUN_UNSTAMPED = Version("3.0.0")
_FOOTER = patterns.compile(rb"<!--\s*id\s*:")


@dataclass(frozen=True, slots=True)
class Detected:
    mode: str  # "A" fresh, "B" ours
    installed: Version | None  # None: fresh; 2.0.0 for a pre-versioning repo
    stamp: manifest.Manifest | None
    handrun: bool = False  # enabled by hand (HANDRUN.md): the adoption rung, not the ladder


def probe_paths(current: str) -> tuple[str, ...]:
    """Every path enable may read: the known ones only, never a walk of the tree."""
    paths = {MANIFEST, CONTINUITY, SCHEMA, GITIGNORE, *USER_DATA, *BACKED_UP}
    paths.update(backup_path(current, p) for p in BACKED_UP)
    return tuple(sorted(paths))


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
                f"({current}); upgrade it (git pull in its clone, install again) and run again",
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
    """The plan from ``files``; a link is reported, never written (its target is)."""
    return Plan.of(
        FileEdit(path, files.get(path), _after(files, path, c), c.outcome, c.reason)
        for path, c in changes.items()
    )


def _after(files: Files, path: str, change: Change) -> bytes | None:
    return files.get(path) if change.outcome is Outcome.LINKED else change.after


def apply_changes(
    files: Files, changes: Changes, links: Links = NO_LINKS
) -> dict[str, bytes | None]:
    """The files after ``changes``, every link reading its target's new bytes."""
    return follow({**files, **{p: _after(files, p, c) for p, c in changes.items()}}, links)


# -- Mode A ------------------------------------------------------------------------------------


def fresh_install(
    files: Files,
    vendors: Sequence[str],
    today: dt.date,
    current: str,
    links: Links = NO_LINKS,
) -> Plan:
    """Mode A: the 3.0.0 layout from the templates, user text outside our blocks untouched."""
    return plan_of(files, _install(files, vendors, today, current, "A", links))


def _install(
    files: Files, vendors: Sequence[str], today: dt.date, current: str, mode: str, links: Links
) -> Changes:
    """Everything ours, and the first manifest: the end of Mode A and of Mode C."""
    changes, managed = bootstrap(files, vendors, current, {}, recreate=vendors, links=links)
    stamp = manifest.render_new(
        resources.data(MANIFEST_TEMPLATE),
        version=current,
        today=today.isoformat(),
        mode=mode,
        vendors=vendors,
        managed=managed,
    )
    changes[MANIFEST] = Change(stamp, Outcome.CREATED, f"stamp {current}, mode {mode}")
    changes.update(ignore_transients(files))
    keep_edits(files, changes, current)
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
    links: Links = NO_LINKS,
    kept: Callable[[str], bytes | None] = lambda _path: None,
) -> Plan:
    """Mode C (MIGRATE.md): consolidate, import the stores, then install as Mode A would."""
    before = {**files, **sources}
    agents = physical(links, AGENTS_MD)
    found = rules.migrate(sources, before.get(agents), today, keep_vendor_files, links, kept)
    before |= found.kept
    changes: Changes = {
        path: Change(data, _outcome(before.get(path), data), found.reasons[path])
        for path, data in found.files.items()
    }
    changes |= {path: Change(None, Outcome.LINKED, why) for path, why in found.linked.items()}
    template = decode(CONTINUITY, resources.data(USER_DATA[CONTINUITY]))
    continuity, archived = written.memory_files(template, found.facts, today)
    if found.facts:
        changes[CONTINUITY] = Change(continuity, Outcome.CREATED, written.imported(found.facts))
    if archived is not None:
        quarter = f"{quarter_of(today)}.md"
        changes[f"{ARCHIVE_DIR}/{quarter}"] = Change(archived, Outcome.CREATED, "archived entries")
        entries = [index_line(f, quarter) for f in parse(quarter, archived).facts]
        index = render_index(None, resources.data(USER_DATA[ARCHIVE_INDEX]), entries)
        changes[ARCHIVE_INDEX] = Change(index, Outcome.CREATED, "archive index")
    chosen = _ordered([*found.vendors, *choose_vendors(vendors)])
    state = apply_changes(before, changes, links)
    _merge(changes, _install(state, chosen, today, current, "C", links))
    if agents in found.reasons:  # say both: what was consolidated, and our block
        outcome = Outcome.written(before.get(agents))
        block = "our block at the top" if outcome is Outcome.CREATED else changes[agents].reason
        reason = f"{found.reasons[agents]}; {block}"
        changes[agents] = Change(changes[agents].after, outcome, reason)
    return plan_of(before, changes)


# -- Mode B ------------------------------------------------------------------------------------


def detect_vendors(files: Files) -> tuple[str, ...]:
    """The bootstraps a pre-versioning repo has (2.x wrote CLAUDE.md, GEMINI.md, .cursorrules,
    .github/copilot-instructions.md)."""
    found = [name for name, (path, _t, _k) in VENDORS.items() if files.get(path) is not None]
    if files.get(".cursorrules") is not None:
        found.append("cursor")
    return _ordered(found)


def upgrade_steps(
    files: Files,
    detected: Detected,
    ladder: Ladder,
    current: Version,
    today: dt.date,
    links: Links = NO_LINKS,
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
    if detected.handrun and ladder.adoption is not None:  # adopted, then our ladder above it
        rungs = [ladder.adoption, *ladder.between(ladder.adoption.target, current)]
    for index, rung in enumerate(rungs):
        target = rung.target if rung else current
        upgraded = rung.upgrade(state, today) if rung else {}
        changes: Changes = {
            path: Change(after, _outcome(state.get(path), after), f"rung {target}")
            for path, after in upgraded.items()
        }
        values = {"version": str(target), "last_upgraded": day}
        if fresh:  # recorded from the first step: a resumed run reads them from the stamp
            values["vendors"] = ", ".join(stamp.vendors) or "none"
        managed: Mapping[str, str] = stamp.managed
        notes = ""
        if index == len(rungs) - 1:
            after_rung = apply_changes(state, changes, links)
            resync = _resync(after_rung, stamp, str(current), links, (), fresh=fresh)
            _merge(changes, resync.changes)
            _merge(changes, ignore_transients(after_rung))  # 5.0.0 writes lock and journal
            managed, notes = resync.managed, resync.notes
            values |= {"version": str(current), "vendors": resync.vendors}
        entry = history_line(today, installed, target, rung.summary if rung else None)
        new_stamp = manifest.restamp(stamp, values=values, managed=managed, history=[entry])
        changes[MANIFEST] = Change(
            new_stamp, _outcome(state.get(MANIFEST), new_stamp), f"stamp {target}{notes}"
        )
        keep_edits(state, changes, str(current))
        plan = plan_of(state, changes)
        state = apply_changes(state, changes, links)
        yield plan
        stamp = manifest.parse(new_stamp)
        installed = target


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
            return detected.stamp._replace(vendors=detect_vendors(files))
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


@dataclass(frozen=True, slots=True)
class Resync:
    changes: Changes
    managed: dict[str, str]
    vendors: str  # the manifest's new vendors value
    notes: str  # what the stamp's reason adds: bootstraps deleted, not recreated


def _resync(
    files: Files,
    stamp: manifest.Manifest,
    current: str,
    links: Links,
    requested: Sequence[str],
    *,
    fresh: bool,
    repair: bool = False,
) -> Resync:
    """Re-sync the bootstrap layer against the stamp: the end of an upgrade, and a repair.

    A bootstrap the stamp lists but the user deleted stays deleted (the stamp stops listing it
    and the run says so); one the user asks for with ``--vendor`` comes back.
    """
    # Pre-versioning: the seed stamp lists what the repo has.
    there = stamp.vendors if fresh else vendors_present(files, stamp.vendors, links)
    # A run resumed between two rungs of a 2.x repo: the Cursor rule the stamp lists was never
    # written yet (no hash recorded), so it is not missing but still to come.
    coming = [v for v in stamp.vendors if _never_installed(v, stamp)]
    kept = _ordered([*there, *coming, *requested])
    recreate = kept if fresh else [*coming, *requested]
    changes, managed = bootstrap(
        files, kept, current, stamp.managed, recreate=recreate, links=links, repair=repair
    )
    gone = sorted(set(stamp.vendors) - set(kept))
    notes = f"; {', '.join(gone)} bootstrap deleted, not recreated" if gone else ""
    return Resync(changes, managed, ", ".join(kept) or "none", notes)


def _never_installed(vendor: str, stamp: manifest.Manifest) -> bool:
    path, _template, kind = VENDORS[vendor]
    return kind == "managed" and path not in stamp.managed


def repair(
    files: Files,
    stamp: manifest.Manifest,
    current: str,
    links: Links = NO_LINKS,
    requested: Sequence[str] = (),
) -> Plan:
    """Mode B on the current version: put back every managed piece missing or damaged.

    An intact repo gives a plan that writes nothing ("up to date"). What is replaced is backed
    up first; the stamp's vendor list and managed hashes are brought in line with the files.
    """
    resync = _resync(files, stamp, current, links, requested, fresh=False, repair=True)
    changes = resync.changes
    new_stamp = manifest.restamp(stamp, values={"vendors": resync.vendors}, managed=resync.managed)
    outcome = _outcome(files.get(MANIFEST), new_stamp)
    reason = "stamp brought in line with the files" if outcome is Outcome.UPDATED else "current"
    changes[MANIFEST] = Change(new_stamp, outcome, reason + resync.notes)
    return plan_of(files, changes)


def _outcome(before: bytes | None, after: bytes | None) -> Outcome:
    if before is None:
        return Outcome.CREATED
    return Outcome.UNCHANGED if before == after else Outcome.UPDATED
