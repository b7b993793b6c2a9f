"""The ``.gitattributes`` block that sends the memory files to the merge driver (MERGE.md)."""

from __future__ import annotations

from ...errors import InputError
from ...layout import GITATTRIBUTES, GITATTRIBUTES_MARKERS
from ...parse.text import decode
from ..blocks import find_blocks, upsert_block
from ..plan import FileEdit, Outcome, Plan
from .bootstrap import Change, keep_edits
from .ladder import Files

_REASONS = {
    Outcome.CREATED: "memory files merge by fact id (MERGE.md)",
    Outcome.BLOCK_ADDED: "agent-memory merge block appended; your lines are untouched",
    Outcome.BLOCK_UPDATED: "agent-memory merge block refreshed; your lines are untouched",
}


def attributes_plan(files: Files, template: bytes, version: str) -> Plan:
    """Add or refresh our block in ``.gitattributes``, the file backed up first when someone
    edited our block (into ``version``'s backup folder); nothing when it is current."""
    existing = files.get(GITATTRIBUTES)
    after, outcome = upsert_block(GITATTRIBUTES, existing, template, GITATTRIBUTES_MARKERS)
    if outcome is Outcome.UNCHANGED:
        return Plan(())
    changes = {GITATTRIBUTES: Change(after, outcome, _REASONS[outcome])}
    keep_edits(files, changes, version)
    return Plan.of(
        FileEdit(path, files.get(path), change.after, change.outcome, change.reason)
        for path, change in changes.items()
    )


def routes_to_driver(existing: bytes | None) -> bool | None:
    """Whether ``.gitattributes`` holds our block, so the merge driver's git config is wanted
    (``recover`` makes the config match it); None when its markers are broken (nothing to go by:
    the config is left as it is)."""
    if existing is None:
        return False
    try:
        lines = decode(GITATTRIBUTES, existing).lines
        return bool(find_blocks(GITATTRIBUTES, lines, GITATTRIBUTES_MARKERS))
    except InputError:
        return None
