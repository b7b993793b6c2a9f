"""``enable``: decide the mode (A fresh, B already ours, C migrate) and plan the install.

Pure functions from what the repo holds to a Plan; the CLI reads and applies.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from packaging.version import Version

from . import manifest, resources
from .blocks import upsert_block
from .errors import RefusedError
from .layout import (
    AGENTS_MD,
    AGENTS_TEMPLATE,
    BACKUP_DIR,
    CONTINUITY,
    DEFAULT_VENDORS,
    FULLY_MANAGED,
    MANIFEST,
    MANIFEST_TEMPLATE,
    SCHEMA,
    USER_DATA,
    VENDORS,
)
from .plan import FileEdit, Outcome, Plan


@dataclass(frozen=True, slots=True)
class EnableResult:
    mode: str  # "A", "B"
    installed: str | None  # version found in the repo, None for a fresh install
    current: str
    plan: Plan
    notes: tuple[str, ...] = field(default=())


def probe_paths() -> tuple[str, ...]:
    """Every path enable may read: the known ones only, never a walk of the tree."""
    paths = {MANIFEST, CONTINUITY, SCHEMA, AGENTS_MD, *FULLY_MANAGED, *USER_DATA}
    paths.update(path for path, _template, _kind in VENDORS.values())
    return tuple(sorted(paths))


def plan_enable(
    files: Mapping[str, bytes | None],
    vendors: Sequence[str] | None,
    today: dt.date,
    migration_sources: Sequence[str] = (),
) -> EnableResult:
    """What ``enable`` does to a repo whose known files are ``files`` (absent ones map to None)."""
    current = resources.version()
    stamp = files.get(MANIFEST)
    if stamp is not None:
        found = manifest.parse(stamp)
        if found.version > Version(current):
            raise RefusedError(
                f"{MANIFEST}: this repo is on agent-memory {found.version}, newer than this tool "
                f"({current}); upgrade the tool (pip install -U agent-memory) and run again"
            )
        if found.version == Version(current):
            return EnableResult("B", str(found.version), current, Plan(()))
        raise RefusedError(
            f"{MANIFEST}: this repo is on agent-memory {found.version}; upgrading it to {current} "
            "needs the version ladder, which this build does not have yet — see UPGRADE.md to "
            "upgrade by hand"
        )
    if files.get(CONTINUITY) is not None or files.get(SCHEMA) is not None:
        raise RefusedError(
            f"{CONTINUITY}: this repo was enabled by agent-memory 2.x (no {MANIFEST}); upgrading "
            "it needs the version ladder, which this build does not have yet — see UPGRADE.md to "
            "upgrade by hand"
        )
    if migration_sources:
        raise RefusedError(
            f"{migration_sources[0]}: this repo has vendor files or memory stores to migrate "
            f"({', '.join(migration_sources)}); migration (Mode C) is not in this build yet — "
            "follow MIGRATE.md by hand, or move them aside and run enable again"
        )
    chosen = _choose_vendors(vendors)
    return EnableResult("A", None, current, fresh_install(files, chosen, today, current))


def _choose_vendors(vendors: Sequence[str] | None) -> tuple[str, ...]:
    if vendors is None or not vendors:
        return DEFAULT_VENDORS
    if "none" in vendors:
        return ()
    return tuple(sorted(set(vendors), key=list(VENDORS).index))


def fresh_install(
    files: Mapping[str, bytes | None], vendors: Sequence[str], today: dt.date, current: str
) -> Plan:
    """Mode A: the 3.0.0 layout from the templates, user text outside our blocks untouched."""
    edits: list[FileEdit] = []
    managed: dict[str, bytes] = {}
    for path, source in FULLY_MANAGED.items():
        managed[path] = resources.data(source)
    for name in vendors:
        path, template, kind = VENDORS[name]
        if kind == "managed":
            managed[path] = resources.data(template)
        else:
            edits.append(_block_edit(path, files.get(path), resources.data(template)))
    for path, data in managed.items():
        edits.extend(_managed_edits(path, files.get(path), data, current, None))
    for path, source in USER_DATA.items():
        existing = files.get(path)
        if existing is None:
            edits.append(FileEdit(path, None, resources.data(source), Outcome.CREATED, "template"))
        else:
            edits.append(FileEdit(path, existing, existing, Outcome.PRESERVED, "user data"))
    edits.append(_block_edit(AGENTS_MD, files.get(AGENTS_MD), resources.data(AGENTS_TEMPLATE)))
    stamp = manifest.render_new(
        resources.data(MANIFEST_TEMPLATE),
        version=current,
        today=today.isoformat(),
        mode="A",
        vendors=vendors,
        managed={path: manifest.sha256(data) for path, data in managed.items()},
    )
    edits.append(FileEdit(MANIFEST, None, stamp, Outcome.CREATED, f"stamp {current}, mode A"))
    return Plan.of(edits)


def _block_edit(path: str, existing: bytes | None, template: bytes) -> FileEdit:
    after, outcome = upsert_block(path, existing, template)
    reason = {
        Outcome.CREATED: "bootstrap with the agent-memory block",
        Outcome.BLOCK_ADDED: "agent-memory block appended; your text is untouched",
        Outcome.BLOCK_UPDATED: "agent-memory block refreshed; your text is untouched",
        Outcome.UNCHANGED: "agent-memory block current",
    }[outcome]
    return FileEdit(path, existing, after, outcome, reason)


def _managed_edits(
    path: str, existing: bytes | None, data: bytes, version: str, recorded: str | None
) -> list[FileEdit]:
    """A fully managed file: write it, backing up first when the user edited our last copy."""
    if existing is None:
        return [FileEdit(path, None, data, Outcome.CREATED, "managed by agent-memory")]
    if existing == data:
        return [FileEdit(path, existing, existing, Outcome.UNCHANGED, "current")]
    if recorded is not None and manifest.sha256(existing) == recorded:
        return [FileEdit(path, existing, data, Outcome.UPDATED, "managed file refreshed")]
    backup = f"{BACKUP_DIR}/{version}/{path}"
    return [
        FileEdit(backup, None, existing, Outcome.CREATED, f"backup of your edited {path}"),
        FileEdit(path, existing, data, Outcome.BACKED_UP, f"your version is in {backup}"),
    ]
