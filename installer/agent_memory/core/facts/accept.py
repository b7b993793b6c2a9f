"""``fact accept`` as a pure function: proposals from session logs become facts (DECAY.md
§ Proposals).

Each accepted proposal is written by ``add_fact``, as ``fact add`` writes a fact (its id, its
tier at birth, its refusals), in the section its kind names (``SECTIONS``), with ``origin:
<log stem>#N``. That origin is how a proposal is known to be accepted: one whose address is
already the origin of a fact, live or archived, is not added again.
"""

import datetime as dt
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import NamedTuple

from ...errors import AgentMemoryError, refuse_errors
from ...layout import CONTINUITY
from ...parse import proposed
from ...parse.facts import Document, parse
from ...parse.proposed import Pending
from ..secrets import scan
from .add import DEFAULT_SECTION, THREADS, add_fact
from .curate import locate
from .edit import edit_text
from .elsewhere import Elsewhere
from .imports import CLAUDE_SECTIONS

# The section each kind of proposal goes to (schema.md § Proposed Facts); any other kind (a
# hand-written log's) goes to Key Decisions.
SECTIONS: Mapping[str, str] = MappingProxyType(
    {
        "remember": DEFAULT_SECTION,
        "decision": DEFAULT_SECTION,
        "convention": "Conventions",
        "invariant": "Architectural Invariants",
        "preference": "User Preferences",
        "thread": THREADS,
        proposed.SAVED: DEFAULT_SECTION,
        # a save names the type Claude Code's memory files give: where an import puts it
        **{f"{proposed.SAVED} ({kind})": s for kind, s in CLAUDE_SECTIONS.items()},
    }
)


class Accepted(NamedTuple):
    address: str
    id: str
    section: str


class Skipped(NamedTuple):
    address: str
    reason: str


class Outcome(NamedTuple):
    after: bytes  # continuity.md with the accepted facts
    accepted: tuple[Accepted, ...]
    skipped: tuple[Skipped, ...]


def origins_in(docs: Iterable[Document]) -> dict[str, str]:
    """The ``origin`` of each fact of ``docs`` that has one, with the fact's id."""
    found: dict[str, str] = {}
    for doc in docs:
        for fact in doc.facts:
            origin = dict(fact.fields).get("origin")
            if origin is not None:
                found.setdefault(origin, fact.id or "?")
    return found


def accept(
    continuity: Document,
    elsewhere: Elsewhere,
    chosen: Sequence[Pending],
    origins: Mapping[str, str],
    today: dt.date,
    every: bool,
    rejected: Callable[[Pending], str | None] = lambda _proposal: None,
) -> Outcome:
    """``chosen`` added to continuity.md in order; those ``origins`` already hold are skipped.

    A proposal ``add_fact`` refuses, or one ``rejected`` says a person rejected (its reason),
    is skipped with its reason when ``every`` (one bad proposal must not hold back the rest),
    and refused otherwise.
    """
    refuse_errors(continuity.problems, "fix it (agent-memory lint lists each problem), then accept")
    doc, accepted, skipped = continuity, [], []
    taken = dict(origins)
    counts = Counter(each.address for each in chosen)
    for each in chosen:
        if counts[each.address] > 1:  # one address, two proposals: neither is this one
            skipped.append(Skipped(each.address, "numbered twice in its log; renumber one"))
            continue
        if each.address in taken:
            skipped.append(Skipped(each.address, f"already accepted as {taken[each.address]}"))
            continue
        section = SECTIONS.get(each.kind, DEFAULT_SECTION)
        try:
            _refuse_secrets(each.text)
            said = rejected(each)
            if said is not None:
                raise AgentMemoryError(said)
            origin = {"origin": each.address}
            thread = section == THREADS
            new = add_fact(doc, elsewhere, each.text, section, None, thread, today, imported=origin)
        except AgentMemoryError as exc:
            if not every:
                raise AgentMemoryError(f"{each.address}: {exc}") from None
            skipped.append(Skipped(each.address, str(exc)))
            continue
        doc = parse(CONTINUITY, new.after)
        accepted.append(Accepted(each.address, new.id, new.section))
        taken[each.address] = new.id
    return Outcome(doc.render(), tuple(accepted), tuple(skipped))


def edited(after: bytes, fact_id: str, text: str) -> bytes:
    """continuity.md as ``fact edit`` of the fact just accepted would leave it: edit-then-accept
    is one plan, so a text that ``fact edit`` refuses refuses the acceptance too."""
    return edit_text(locate([parse(CONTINUITY, after)], fact_id), text).encode()


def _refuse_secrets(text: str) -> None:
    """A log written by hand may hold what capture would have scrubbed: never made a fact."""
    found = scan(text)
    if found:
        raise AgentMemoryError(
            f"the proposal holds what looks like a credential ({found[0].kind}); a fact never "
            "holds one: write it with agent-memory fact add, without the credential"
        )
