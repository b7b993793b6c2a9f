"""A plan: the files a command would create, replace or remove, each with its outcome and reason.

Commands compute a plan with pure functions; ``--dry-run`` prints it, the shell applies it.
"""

from collections.abc import Iterable, Sequence
from enum import Enum
from typing import NamedTuple


class Outcome(str, Enum):
    CREATED = "created"
    UPDATED = "updated"
    UNCHANGED = "unchanged"
    BLOCK_ADDED = "block added"
    BLOCK_UPDATED = "block updated"
    BACKED_UP = "backed up and replaced"
    PRESERVED = "preserved"
    LINKED = "linked"  # a symlink to a file that holds (or gets) the piece: nothing written
    BLOCK_REMOVED = "block removed"
    REMOVED = "removed"

    @classmethod
    def written(cls, before: bytes | None) -> "Outcome":
        """What writing a file does where ``before`` stood: created if absent, else updated."""
        return cls.CREATED if before is None else cls.UPDATED


class FileEdit(NamedTuple):
    """One file's fate. ``before``/``after`` are whole contents; None means absent."""

    path: str
    before: bytes | None
    after: bytes | None
    outcome: Outcome
    reason: str

    @property
    def writes(self) -> bool:
        return self.before != self.after


class Plan(NamedTuple):
    edits: tuple[FileEdit, ...]

    @classmethod
    def of(cls, edits: Iterable[FileEdit]) -> "Plan":
        return cls(tuple(sorted(edits, key=lambda e: e.path)))

    @property
    def writes(self) -> tuple[FileEdit, ...]:
        return tuple(e for e in self.edits if e.writes)

    @classmethod
    def chain(cls, plans: "Sequence[Plan]") -> "Plan":
        """One plan from the state before the first to the state after the last.

        What ``--dry-run`` shows for plans applied one after the other (the rungs of a ladder):
        each path goes from its first ``before`` to its last ``after``, and says what the last
        edit that wrote it did (a rung updates continuity.md, and the re-sync after it only
        finds it "preserved": the file was still changed).
        """
        if len(plans) == 1:
            return plans[0]
        first: dict[str, FileEdit] = {}
        last: dict[str, FileEdit] = {}
        for plan in plans:
            for edit in plan.edits:
                first.setdefault(edit.path, edit)
                if edit.writes or edit.path not in last or not last[edit.path].writes:
                    last[edit.path] = edit
        edits = []
        for path, edit in last.items():
            before = first[path].before
            created = before is None and edit.after is not None
            outcome = Outcome.CREATED if created else edit.outcome
            edits.append(FileEdit(path, before, edit.after, outcome, edit.reason))
        return cls.of(edits)

    def diff(self) -> str:
        """Unified diff of every write, in path order, as ``git diff`` would show it."""
        import difflib  # only --dry-run shows a diff

        chunks: list[str] = []
        for edit in self.writes:
            old = _lines(edit.before)
            new = _lines(edit.after)
            a = f"a/{edit.path}" if edit.before is not None else "/dev/null"
            b = f"b/{edit.path}" if edit.after is not None else "/dev/null"
            chunks.extend(difflib.unified_diff(old, new, a, b))
        return "".join(line if line.endswith("\n") else line + "\n" for line in chunks)


def numbered(path: str, count: int) -> list[str]:
    """``path``, then ``<name>-2``, ``-3``… (before its extension), ``count`` names in all: where
    a kept copy of a file goes when an earlier copy of other bytes is there, never written over."""
    folder, slash, name = path.rpartition("/")
    stem, dot, extension = name.rpartition(".") if "." in name[1:] else (name, "", "")
    others = (f"{folder}{slash}{stem}-{n}{dot}{extension}" for n in range(2, count + 1))
    return [path, *others]


def _lines(data: bytes | None) -> list[str]:
    if data is None:
        return []
    return data.decode("utf-8", errors="replace").replace("\r\n", "\n").splitlines(keepends=True)
