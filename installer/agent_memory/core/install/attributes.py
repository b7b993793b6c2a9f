"""The ``.gitattributes`` block that sends the memory files to the merge driver (MERGE.md)."""

from __future__ import annotations

from ...layout import GITATTRIBUTES, GITATTRIBUTES_MARKERS
from ..plan import FileEdit, Outcome, Plan
from .blocks import upsert_block

_REASONS = {
    Outcome.CREATED: "memory files merge by fact id (MERGE.md)",
    Outcome.BLOCK_ADDED: "agent-memory merge block appended; your lines are untouched",
    Outcome.BLOCK_UPDATED: "agent-memory merge block refreshed; your lines are untouched",
}


def attributes_plan(existing: bytes | None, template: bytes) -> Plan:
    """Add or refresh our block in ``.gitattributes``; nothing when it is current."""
    after, outcome = upsert_block(GITATTRIBUTES, existing, template, GITATTRIBUTES_MARKERS)
    if outcome is Outcome.UNCHANGED:
        return Plan(())
    return Plan.of([FileEdit(GITATTRIBUTES, existing, after, outcome, _REASONS[outcome])])
