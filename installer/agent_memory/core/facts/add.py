"""``fact add`` as a pure function: continuity.md + archive + text → the new continuity.md.

A fact the tool writes is one the review can track: a bullet (or an open thread) at the end of its
section, with a footer on the next line whose id is unique across continuity.md and the archive
and whose tier is the one DECAY.md's rules give a fact at birth.
"""

from __future__ import annotations

import datetime as dt
import unicodedata
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from ...errors import AgentMemoryError, refuse_errors
from ...layout import CONTINUITY
from ...parse import footer
from ...parse.facts import PROJECT_STATE, Document, find_section, parse_text
from ...parse.text import Text
from ..review.edits import append_to_section
from ..review.tiers import at_birth

DEFAULT_SECTION = "Key Decisions"
THREADS = "Open Threads"


class NewFact(NamedTuple):
    id: str
    section: str  # as written in the file (an existing heading keeps its spelling)
    tier: str
    after: bytes  # continuity.md with the fact added


def add_fact(
    continuity: Document,
    elsewhere: Mapping[str, str],
    text: str,
    section: str | None,
    wanted_id: str | None,
    thread: bool,
    today: dt.date,
) -> NewFact:
    """The new fact and the file it lands in; a refusal is an ``AgentMemoryError``.

    ``elsewhere`` maps the ids of the archive, the one-file threads and vision.md to where they
    are (``footer.ids_in``: those files are not parsed, and an id anywhere in them is taken).
    """
    _refuse_errors(continuity)
    body = body_lines(text)
    title = _section_title(continuity, section or (THREADS if thread else DEFAULT_SECTION))
    taken = dict(elsewhere)
    taken.update((f.id, f"{continuity.path}:{f.line}") for f in continuity.facts if f.id)
    fact_id = _choose_id(body[0], wanted_id, taken)
    task = " " if thread else None
    fields = {"id": fact_id, "created": today.isoformat(), "last_used": today.isoformat()}
    fields["uses"] = "1"
    fields["tier"] = at_birth(fields, title, task)
    marker = "- [ ] " if thread else "- "
    lines = [marker + body[0], *("  " + line for line in body[1:])]
    lines.append("  " + footer.render(fields))
    _check_readable(title, lines, fact_id, task)
    new_text = append_to_section(CONTINUITY, continuity.text, title, lines, continuity.sections)
    return NewFact(fact_id, title, fields["tier"], new_text.encode())


def _refuse_errors(continuity: Document) -> None:
    refuse_errors(
        continuity.problems, "fix it (agent-memory lint lists every problem), then add the fact"
    )


def body_lines(text: str) -> list[str]:
    lines = [" ".join(line.split()) for line in text.strip().splitlines()]
    lines = [line for line in lines if line]
    if not lines:
        raise AgentMemoryError("the fact's text is empty; pass the fact as TEXT")
    if any(unicodedata.category(c) == "Cc" and c != "\t" for c in "".join(lines)):
        raise AgentMemoryError("the fact's text holds a control character; pass plain text")
    if "<!--" in text or "-->" in text:
        raise AgentMemoryError(
            "the fact's text holds an HTML comment; the tool writes the footer — leave it out"
        )
    return lines


def _section_title(continuity: Document, wanted: str) -> str:
    wanted = " ".join(wanted.split()).lstrip("#").strip()
    if not wanted or wanted.lower() == PROJECT_STATE:
        raise AgentMemoryError(
            f"--section {wanted!r} cannot hold facts; name a section such as {DEFAULT_SECTION!r}"
        )
    existing = find_section(continuity.sections, wanted)
    return existing.title if existing is not None else wanted


def _choose_id(first_line: str, wanted: str | None, taken: dict[str, str]) -> str:
    if wanted is None:
        return footer.unique_ids([footer.slug(first_line)], set(taken))[0]
    if not footer.ID.match(wanted):
        raise AgentMemoryError(
            f"--id {wanted!r} is not an id (lowercase letters and digits joined by single "
            f"dashes or dots), e.g. {footer.slug(wanted)!r}"
        )
    if wanted in taken:
        raise AgentMemoryError(
            f"--id {wanted!r} is taken (at {taken[wanted]}); ids are unique and stable — "
            "pick another, or leave --id out to derive one"
        )
    return wanted


def _check_readable(title: str, lines: Sequence[str], fact_id: str, task: str | None) -> None:
    """The fact must read back as exactly one fact with its id, or nothing is written. It is
    read on its own: it goes after the last line of its section, where it starts a new item."""
    alone = parse_text(
        CONTINUITY, Text(False, tuple(f"{line}\n" for line in (f"## {title}", *lines)))
    )
    found = [f for f in alone.facts if f.id == fact_id]
    errors = [p for p in alone.problems if p.severity == "error"]
    if len(alone.facts) != 1 or len(found) != 1 or found[0].task != task or errors:
        raise AgentMemoryError(
            "the fact's text would not read back as one fact (it looks like markup, or like a "
            "task box: use --thread for a thread); write it as plain text"
        )
