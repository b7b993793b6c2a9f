"""What ``lint`` and ``enable`` say about the bootstrap layer and the size of AGENTS.md.

A repair plan (``enable`` on the current version) is the one test of whether every managed piece
is intact: each write it would make is a finding, so the check and the repair cannot disagree.
"""

from __future__ import annotations

from collections.abc import Mapping

from ...errors import InputError, Problem
from ...layout import BACKUP_DIR, BLOCK_END, CONTINUITY, MANIFEST, POLICY
from ...parse.text import decode
from ..plan import Outcome, Plan

# Codex reads AGENTS.md only up to project_doc_max_bytes, 32 KiB unless configured otherwise.
CODEX_BUDGET = 32 * 1024

_DAMAGE = {
    Outcome.CREATED: "is missing",
    Outcome.BLOCK_ADDED: "has lost its agent-memory block",
    Outcome.BLOCK_UPDATED: "has an agent-memory block that is damaged, doubled or out of date",
    Outcome.BACKED_UP: "differs from the copy agent-memory installed (its recorded hash)",
    Outcome.UPDATED: "is out of date",
}


def damage(plan: Plan) -> list[Problem]:
    """One finding per piece the repair plan would write (its backups are not findings)."""
    found = []
    for edit in plan.writes:
        if edit.path.startswith(BACKUP_DIR + "/"):
            continue
        if edit.path == MANIFEST:
            message = f"disagrees with the files ({edit.reason}); run agent-memory enable"
            found.append(Problem(MANIFEST, None, "warning", "stamp", message))
            continue
        what = _DAMAGE.get(edit.outcome, "is not what agent-memory installed")
        message = f"{what}; run agent-memory enable to repair it (a backup is kept)"
        found.append(Problem(edit.path, None, "error", "bootstrap", message))
    return found


def budget(path: str, data: bytes | None) -> list[Problem]:
    """A warning, with the numbers, when AGENTS.md is past what Codex reads by default."""
    if data is None or len(data) <= CODEX_BUDGET:
        return []
    end = data.find(BLOCK_END.encode())
    where = (
        "has no agent-memory block"
        if end < 0
        else f"its agent-memory block ends at byte {end + len(BLOCK_END):,}"
        + (" — past the budget, so Codex never sees it" if end >= CODEX_BUDGET else "")
    )
    message = (
        f"is {len(data):,} bytes, over Codex's default budget of {CODEX_BUDGET:,} "
        f"(project_doc_max_bytes; Codex ignores the rest); {where}; move long sections to "
        "files AGENTS.md links to"
    )
    return [Problem(path, None, "warning", "agents-size", message)]


def unreadable(files: Mapping[str, bytes | None]) -> list[Problem]:
    """The memory files that no command can read (a NUL byte, bytes that are not UTF-8). Enable
    never rewrites memory, whose bytes only their authors can judge, so it says which line to fix
    rather than report them kept as if all were well."""
    found = []
    for path in (CONTINUITY, POLICY):
        data = files.get(path)
        try:
            decode(path, data or b"")
        except InputError as exc:
            message = f"{exc.message}; every command but enable refuses this file until then"
            found.append(Problem(path, exc.line, "warning", "input", message))
    return found
