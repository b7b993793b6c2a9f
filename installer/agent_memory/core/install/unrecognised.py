"""What adoption did not recognise in a hand-run repo newer than any hand-run version we know.

Nothing unrecognised is changed or dropped (adoption keeps every byte it does not convert); the
warning names it so a person can check that nothing there needed converting.
"""

from __future__ import annotations

from collections.abc import Iterable

from packaging.version import Version

from ...layout import CONTINUITY, POLICY
from ...parse import facts, policy
from ...parse.keyvalue import parse_key_line
from .ladder import Files

NEWEST_KNOWN = Version("4.40.1")
_MEMORY_NAMES = frozenset(
    {
        "continuity.md",
        "decay-policy.md",
        "instructions.md",
        "smoke-test.md",
        "MERGE.md",
        "PROTOCOL.md",
        "vision.md",
        "sessions",
        "archive",
        "open-threads",
    }
)
_STATE_KEYS = frozenset(
    {
        "project",
        "status",
        "last_enabled",
        "last_session",
        "last_review",
        "last_invariant_check",
        "last_harvest",
        "repo",
        "vision",
    }
)


def unrecognised(files: Files, memory_names: Iterable[str]) -> list[str]:
    """``path[:line]: what`` for each file and key adoption does not know, in path order."""
    found = [
        f"memory/{name}: a file the hand-run versions we know did not write (kept as is)"
        for name in sorted(memory_names)
        if name not in _MEMORY_NAMES and not name.startswith(".")
    ]
    data = files.get(CONTINUITY)
    if data is not None:
        doc = facts.parse(CONTINUITY, data)
        section = doc.section(facts.PROJECT_STATE)
        for index in range(section.heading + 1, section.end) if section else ():
            key = parse_key_line(doc.text.lines[index])
            if key is not None and key.key not in _STATE_KEYS:
                found.append(f"{CONTINUITY}:{index + 1}: Project State key {key.key!r} (kept)")
    _, problems = policy.parse(files.get(POLICY))
    found += [
        f"{POLICY}:{p.line}: policy key {p.message.split()[0]} (kept)"
        for p in problems
        if p.check == "policy-unknown-key"
    ]
    return found
