"""The review's summary: the ``## Memory Review (date)`` block of REVIEW.md step 8, as data."""

from collections.abc import Sequence
from typing import NamedTuple


class Summary(NamedTuple):
    date: str
    through: str | None
    window: int
    reactivated: tuple[str, ...] = ()
    archived: tuple[str, ...] = ()
    swept: tuple[str, ...] = ()
    tier_changes: tuple[tuple[str, str, str], ...] = ()
    candidates: tuple[str, ...] = ()
    promoted: tuple[str, ...] = ()
    archive_file: str = ""
    # Ids that left ``working`` because their working window passed without a use (DECAY.md
    # rule 4 no longer holds): not a promotion, and the summary says so. An expired fact left
    # for its date, not for this.
    unused: tuple[str, ...] = ()
    reason: str = ""  # why the review read every log though not asked to (core/review/window.py)
    expired: tuple[str, ...] = ()  # archived because their ``valid-until`` passed (DECAY.md)

    def markdown(self, newline: str = "\n") -> str:
        """The ``## Memory Review (date)`` block of REVIEW.md step 8."""

        def ids(values: Sequence[str]) -> str:
            return f" ({', '.join(values)})" if values else ""

        unused = frozenset(self.unused)  # one lookup per change: linear in the changes
        changes = [
            f"{i}: {a}→{b}" + (" (working_window passed without a use)" if i in unused else "")
            for i, a, b in self.tier_changes
        ]
        lines = [
            f"## Memory Review ({self.date})",
            f"- Reactivated: {len(self.reactivated)}{ids(self.reactivated)}",
            f"- Archived: {len(self.archived)}{ids(self.archived)}"
            + (f" → {self.archive_file}" if self.archived else ""),
            *(
                [f"- Expired: {len(self.expired)}{ids(self.expired)} → {self.archive_file}"]
                if self.expired
                else []
            ),
            f"- Swept threads: {len(self.swept)}{ids(self.swept)}",
            f"- Tier changes: {len(changes)}{ids(changes)}",
            f"- Archive candidates: {len(self.candidates)}{ids(self.candidates)}",
        ]
        if self.promoted:
            lines.append(f"- Promoted to core: {len(self.promoted)}{ids(self.promoted)}")
        if self.reason:
            lines.append(f"- Full rebuild: {self.reason}")
        return newline.join(lines) + newline
