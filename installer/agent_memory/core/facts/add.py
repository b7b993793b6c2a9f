"""``fact add`` as a pure function: continuity.md + archive + text → the new continuity.md.

A fact the tool writes is one the review can track: a bullet (or an open thread) at the end of its
section, with a footer on the next line whose id is unique across continuity.md and the archive
and whose tier is the one DECAY.md's rules give a fact at birth.
"""

import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import NamedTuple

from ... import resources
from ...errors import AgentMemoryError, DuplicateError, refuse_errors
from ...layout import CONTINUITY, KEY_DECISIONS, PERSONAL, USER_DATA
from ...parse import facts, footer
from ...parse.facts import PLAIN_FROM, PROJECT_STATE, Document, parse_text
from ...parse.memory import id_places
from ...parse.text import Text
from ...parse.untrusted import fact_text_problem, first_unsafe
from ..review.edits import append_to_section
from ..review.moves import landed
from ..review.tiers import at_birth
from ..secrets import refuse
from .conflicts import Conflict, against
from .duplicates import Match, compare
from .elsewhere import Elsewhere, duplicates

DEFAULT_SECTION = KEY_DECISIONS
THREADS = "Open Threads"
SECTION_MAX = 200  # characters: MCP's schema says the same


class NewFact(NamedTuple):
    id: str
    section: str  # as written in the file (an existing heading keeps its spelling)
    tier: str
    after: bytes  # continuity.md with the fact added
    similar: tuple[Match, ...] = ()  # facts that say much the same (DECAY.md § Duplicates)
    conflicts: tuple[Conflict, ...] = ()  # live facts it may contradict (§ Contradictions)


def add_fact(
    continuity: Document,
    elsewhere: Elsewhere,
    text: str,
    section: str | None,
    wanted_id: str | None,
    thread: bool,
    today: dt.date,
    new_section: bool = False,
    *,
    imported: Mapping[str, str] | None = None,
    checked: bool = False,
) -> NewFact:
    """The new fact and the file it lands in (``draft``, appended to its section)."""
    new, lines = draft(
        continuity, elsewhere, text, section, wanted_id, thread, today, new_section,
        imported=imported, checked=checked,
    )  # fmt: skip
    after = append_to_section(CONTINUITY, continuity.text, new.section, lines, continuity.sections)
    landed(continuity.path, after, [(new.id, new.section)])
    return new._replace(after=after.encode())


def draft(
    continuity: Document,
    elsewhere: Elsewhere,
    text: str,
    section: str | None,
    wanted_id: str | None,
    thread: bool,
    today: dt.date,
    new_section: bool = False,
    *,
    imported: Mapping[str, str] | None = None,
    checked: bool = False,
    taken: Callable[[str], str | None] = lambda _id: None,
) -> tuple[NewFact, list[str]]:
    """The new fact (its ``after`` empty) and its lines; a refusal is an ``AgentMemoryError``.

    ``elsewhere`` is the archive, the one-file threads and vision.md (an id anywhere in them is
    taken). A text that is the same as a fact's is refused (``DuplicateError``, naming it);
    similar ones are returned. A section that is neither in the file nor in the schema is made
    only with ``new_section``. ``imported`` footer fields (an import's ``origin``, history, a
    tier) are written over the new fact's own; ``checked`` makes it a done thread ``- [x]``;
    ``taken`` says where else an id is held (an import's facts not yet written).
    """
    _refuse_errors(continuity)
    refuse(text, "the fact's text")
    body = body_lines(text)
    wanted = section or (THREADS if thread else DEFAULT_SECTION)
    title = _section_title(continuity, wanted, new_section)
    found = duplicates("\n".join(body), continuity, elsewhere)
    if found.same is not None:
        raise _same(found.same)
    live = id_places([continuity])
    fact_id = _choose_id(
        body[0], wanted_id, lambda i: live.get(i) or elsewhere.place(i) or taken(i)
    )
    task = "x" if checked else " " if thread else None
    fields = {"id": fact_id, "created": today.isoformat(), "last_used": today.isoformat()}
    fields |= {"uses": "1", **(imported or {}), **({"done": today.isoformat()} if checked else {})}
    fields["tier"] = fields.get("tier") or at_birth(fields, title, task)
    marker = f"- [{task}] " if task else "- "
    lines = [marker + body[0], *("  " + line if line else "" for line in body[1:])]
    lines.append("  " + footer.render(fields))
    _check_readable(title, lines, fact_id, task, len(continuity.text.lines) >= PLAIN_FROM)
    contra = tuple(against("\n".join(body), [continuity]))
    return NewFact(fact_id, title, fields["tier"], b"", found.similar, contra), lines


def past_until(fact_id: str, until: dt.date, today: dt.date, path: str) -> str | None:
    """The warning for a ``valid-until`` already past (a typo, most often): said, not refused,
    since the fact is written all the same and the next review archives it (DECAY.md) — unless
    it is personal (``path``): no review reads that file."""
    if until >= today:
        return None
    then = (
        f"nothing archives {fact_id} ({PERSONAL} is read by no review)"
        if path == PERSONAL
        else f"the next review archives {fact_id}"
    )
    return (
        f"warning: {until.isoformat()} is already past (today is {today.isoformat()}), so "
        f"{then}; agent-memory fact expire {fact_id} YYYY-MM-DD gives it a later date"
    )


def refuse_personal(text: str, personal: Document | None) -> None:
    """A text for a shared file must not be a personal fact's (DECAY.md § Personal facts):
    ``fact edit`` and ``fact supersede --text`` are refused as ``fact add`` is."""
    same = compare("\n".join(body_lines(text)), [personal]).same if personal else None
    if same is not None:
        raise _same(same)


def _same(match: Match) -> DuplicateError:
    where = f"{match.path}:{match.line}"
    if match.path == PERSONAL:
        return DuplicateError(
            f"the same fact is your personal {match.id} ({where}); agent-memory fact share "
            f"{match.id} makes it the team's",
            match.id,
        )
    if match.archived:
        return DuplicateError(
            f"the same fact is archived as {match.id} ({where}); bring it back with "
            f"agent-memory fact restore {match.id} instead of adding it again",
            match.id,
        )
    return DuplicateError(
        f"the same fact is already {match.id} ({where}); reference {match.id} instead "
        f"(agent-memory fact edit {match.id} changes its words)",
        match.id,
    )


def _refuse_errors(continuity: Document) -> None:
    refuse_errors(
        continuity.problems, "fix it (agent-memory lint lists every problem), then add the fact"
    )


def body_lines(text: str) -> list[str]:
    """The fact's lines, blanks inside a line made single; a run of blank lines between two
    paragraphs kept as one empty line (written without indentation)."""
    lines = [" ".join(line.split()) for line in text.strip().splitlines()]
    lines = [line for n, line in enumerate(lines) if line or lines[n - 1]]
    if not lines:
        raise AgentMemoryError("the fact's text is empty; pass the fact as TEXT")
    problem = fact_text_problem("\n".join(lines))
    if problem is not None:
        comment = problem.endswith("comment")
        fix = "the tool writes the footer — leave it out" if comment else "pass plain text"
        raise AgentMemoryError(f"the fact's text {problem}; {fix}")
    return lines


def _section_title(continuity: Document, wanted: str, new_section: bool) -> str:
    """The heading the fact goes under, as the file (or else the schema) spells it.

    A name that is in neither is refused unless ``new_section`` says it is meant: a typo must
    not quietly start a section nobody reads.
    """
    wanted = " ".join(wanted.split()).lstrip("#").strip()  # newlines and tabs are blanks
    unsafe = first_unsafe(wanted)
    if unsafe is not None:
        raise AgentMemoryError(
            f"--section holds a control character ({unsafe}); pass a plain section name"
        )
    if not wanted or wanted.lower() == PROJECT_STATE or len(wanted) > SECTION_MAX:
        raise AgentMemoryError(
            f"--section {wanted[:SECTION_MAX]!r} cannot hold facts; name a section such as "
            f"{DEFAULT_SECTION!r} (at most {SECTION_MAX} characters)"
        )
    known = {s.title.lower(): s.title for s in continuity.sections}
    for title in schema_sections():
        known.setdefault(title.lower(), title)
    known.pop(PROJECT_STATE, None)
    existing = known.get(wanted.lower())
    if existing is not None or new_section:
        return existing or wanted
    import difflib  # a refusal only: every fact add would pay for it at start-up otherwise

    close = difflib.get_close_matches(wanted.lower(), list(known), 1, 0.6)
    hint = (
        f"did you mean {known[close[0]]!r}?"
        if close
        else f"the sections are {', '.join(known.values())}"
    )
    raise AgentMemoryError(
        f"--section {wanted!r} is not a section of {CONTINUITY}; {hint} "
        "(pass --new-section to start a new one)"
    )


@cache
def schema_sections() -> tuple[str, ...]:
    """The sections a fresh continuity.md has (the installed template), Project State aside:
    its ``## `` lines, which are the sections the parser finds in it (a test holds them there),
    read without the parser, whose block outline costs a ``fact add`` 2M instructions."""
    lines = resources.data(USER_DATA[CONTINUITY]).decode().splitlines()
    titles = (line[3:].strip() for line in lines if line.startswith("## "))
    return tuple(title for title in titles if title.lower() != PROJECT_STATE)


def _choose_id(first_line: str, wanted: str | None, taken: Callable[[str], str | None]) -> str:
    """``wanted``, or the slug of the first line made unique with ``-2``, ``-3``, …; ``taken``
    says where an id is held (None: free)."""
    if wanted is None:
        return footer.unique_id(footer.slug(first_line), lambda i: taken(i) is not None)
    if not footer.ID.match(wanted):
        raise AgentMemoryError(
            f"--id {wanted!r} is not an id (lowercase letters and digits joined by single "
            f"dashes or dots), e.g. {footer.slug(wanted)!r}"
        )
    place = taken(wanted)
    if place is not None:
        raise AgentMemoryError(
            f"--id {wanted!r} is taken (at {place}); ids are unique and stable — "
            "pick another, or leave --id out to derive one"
        )
    return wanted


def _check_readable(
    title: str, lines: Sequence[str], fact_id: str, task: str | None, written: bool
) -> None:
    """The fact must read back as exactly one fact with its id, or nothing is written. It is
    read on its own: it goes after the last line of its section, where it starts a new item.
    ``written``: continuity.md was read in the review's shape, whose expression is compiled
    then, and reads the fact for less than the block outline (4M instructions)."""
    text = Text(False, tuple(f"{line}\n" for line in (f"## {title}", *lines)))
    alone = (written and facts.written(CONTINUITY, text)) or parse_text(CONTINUITY, text)
    found = [f for f in alone.facts if f.id == fact_id]
    errors = [p for p in alone.problems if p.severity == "error"]
    if len(alone.facts) != 1 or len(found) != 1 or found[0].task != task or errors:
        raise AgentMemoryError(
            "the fact's text would not read back as one fact (it looks like markup, or like a "
            "task box: use --thread for a thread); write it as plain text"
        )
