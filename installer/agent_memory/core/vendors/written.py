"""Mode C's imported facts written: into continuity.md, and archived ones into the archive.

Pure, as ``stores`` is: the facts a store gave in, the two files' bytes out (MIGRATE.md § Memory
stores), each fact a bullet with its footer checked by lint's rules.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence

from ...layout import OPEN_THREADS
from ...parse import footer
from ...parse.dates import quarter_of
from ...parse.markdown import fence_closes, fence_opens
from ...parse.text import Text, decode
from ..review.archive import new_quarter
from ..review.edits import append_to_section
from ..review.tiers import at_birth
from .bank import Fact


def imported(facts: Sequence[Fact]) -> str:
    """What the report says of an import: how many facts, and which of them never decay."""
    live = [f for f in facts if not f.archived]
    threads = sum(1 for f in live if f.task == " ")
    checked = sum(1 for f in live if f.task == "x")
    plain = sum(1 for f in live if f.task is None and f.section == OPEN_THREADS)
    parts = [f"{threads} open threads (pinned: they never decay)"]
    if checked:
        parts.append(f"{checked} done tasks (checked: swept to the archive in time)")
    if plain:
        parts.append(
            f"{plain} plain items in Open Threads (they decay; make one `- [ ]` to pin it)"
        )
    return f"{len(facts)} facts imported: " + ", ".join(parts)


def memory_files(
    continuity: Text, facts: Sequence[Fact], today: dt.date
) -> tuple[bytes, bytes | None]:
    """continuity.md with the imported facts, and the archive quarter file for archived ones."""
    day = today.isoformat()
    taken: set[str] = set()
    wanted = [f.fields.get("id") or footer.slug(f.lines[0]) for f in facts]
    ids = footer.unique_ids(wanted, taken)
    text = continuity
    quarter = quarter_of(today)
    archive = decode("archive", new_quarter(quarter)) if any(f.archived for f in facts) else None
    by_target: dict[tuple[bool, str], list[str]] = {}
    for fact, fact_id in zip(facts, ids, strict=True):
        fields = {**fact.fields, "id": fact_id}
        if fact.task == "x":
            fields.setdefault("done", day)
        if fact.archived:
            section = "Completed Threads" if fact.task == "x" else "Facts"
            fields |= {"tier": "archived", "from": fact.section, "archived": day}
        else:
            section = fact.section
            fields.setdefault("tier", at_birth(fields, section, fact.task))
        by_target.setdefault((fact.archived, section), []).extend(_fact_lines(fact, fields))
    for (archived, section), lines in by_target.items():
        if archived:
            assert archive is not None
            archive = append_to_section("archive", archive, section, lines)
        else:
            text = append_to_section("memory/continuity.md", text, section, lines)
    return text.encode(), archive.encode() if archive is not None else None


def _fact_lines(fact: Fact, fields: Mapping[str, str]) -> list[str]:
    """The fact as a bullet: its other lines indented under it (those indented two spaces or a
    tab already kept as they are),
    a fenced block's lines each given its opening line's indent, and a fence the text never
    closed closed before the footer, as indented as its opening (a fence at the margin would
    end the item), so the footer is never read as code."""
    box = f"[{fact.task}] " if fact.task else ""
    lines = [f"- {box}{fact.lines[0].lstrip()}\n"]  # more spaces would move its content
    fence, pad, indent = fence_opens(fact.lines[0]), "  ", "  "
    for line in fact.lines[1:]:
        if fence is not None:
            lines.append(f"{pad}{line}\n" if line else "\n")
            fence = None if fence_closes(fence, line) else fence
        elif not line.strip():
            lines.append("\n")
        else:
            pad = "" if line.startswith(("  ", "\t")) else "  "
            lines.append(pad + line + "\n")
            fence = fence_opens(line)
            indent = pad + line[: len(line) - len(line.lstrip())]
    if fence is not None:
        lines.append(f"{indent}{fence[0] * fence[1]}\n")
    lines.append("  " + footer.render_checked(fields) + "\n")
    return lines
