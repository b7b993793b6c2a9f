"""``agent-memory fact edit|supersede|retract|archive|restore|pin|unpin|expire|relate``.

Each reads the memory, finds the fact, asks ``core/facts`` for its new footer or text, and
settles the files that change as one plan (``--dry-run``, ``--check``, ``--json``); DECAY.md
§ Curating facts gives each one's by-hand form.
"""

import datetime as dt
from collections.abc import Callable, Sequence
from typing import NamedTuple

from .. import resources
from ..core.facts import footers
from ..core.facts.add import add_fact, refuse_personal
from ..core.facts.curate import (
    Place,
    file_edits,
    footer_edits,
    locate,
    recomputed_tier,
    rewrite,
)
from ..core.facts.edit import edit_text, moved_back
from ..core.facts.elsewhere import Elsewhere
from ..core.plan import FileEdit, Plan
from ..core.review import moves
from ..core.review.edits import apply_edits
from ..core.review.supersede import BY
from ..core.review.tiers import at_birth
from ..errors import AgentMemoryError
from ..layout import CONTINUITY, PERSONAL
from ..parse import facts
from ..parse.memory import Memory, known_ids
from ..parse.text import Text
from ..shell.load import load, load_archives
from ..shell.repo import Repo
from .report import Report, Result
from .review_inputs import judged
from .settle import Options, not_enabled, review_date, settle

INDEX_TEMPLATE = "templates/memory/archive/INDEX.md"


class Successor(NamedTuple):
    """``fact supersede OLD --text TEXT [--id ID]``: the successor, written as a new fact."""

    text: str
    id: str | None = None


def memory_read(repo: Repo, *named: str) -> Memory:
    """The memory; with ``named``, its archive is parsed only when one of those facts is not
    live. A command that changes live facts only edits no archive file (INDEX.md follows those),
    and parsing an archive of 1,000 facts was half of such a command's own work."""
    memory = load(repo, archives=not named)
    if memory.continuity is None:
        raise not_enabled(repo)
    if named and not set(named) <= known_ids(memory.curated):
        return memory._replace(archives=load_archives(repo))
    return memory


def index_of(memory: Memory) -> tuple[bytes | None, bytes]:
    return memory.archive_index, resources.data(INDEX_TEMPLATE)


def _day(repo: Repo, memory: Memory) -> dt.date:
    return review_date(repo.today, memory.sessions.newest)


def finish(
    repo: Repo,
    name: str,
    edits: Sequence[FileEdit],
    options: Options,
    place: Place,
    said: str,
    **more: str,
) -> Result:
    """Settle the edits; the report names the fact, where it lives and its footer now."""
    plan = Plan.of(edits)
    settled = settle(repo, [plan], options, "unchanged")
    after = {e.path: e.after for e in edits}
    fields = dict(place.fact.fields)
    if place.doc.path in after and after[place.doc.path] is not None:
        read = facts.parse(place.doc.path, after[place.doc.path] or b"")
        fields = next((dict(f.fields) for f in read.facts if f.id == place.id), fields)
    summary = {"id": place.id, "path": place.doc.path, "footer": fields, "message": said, **more}
    report = Report(name, repo.shown, settled.outcome, plan, (), summary)
    return Result(report._replace(closing=(said,)), settled.exit_code, settled.diff)


def footer_command(
    repo: Repo,
    name: str,
    fact_id: str,
    options: Options,
    change: Callable[[Place, Memory], footers.Change],
    also: Sequence[str] = (),
) -> Result:
    """A command that only rewrites one fact's footer (``change`` may look at the memory, at the
    fact itself and at those of ``also``)."""
    memory = memory_read(repo, fact_id, *also)
    place = locate(memory.curated, fact_id)
    done = change(place, memory)
    edits = rewrite(
        [(place, done.fields)], f"fact {name}: {fact_id}", memory.archives, index_of(memory)
    )
    return finish(repo, f"fact {name}", edits, options, place, done.said)


def fact_retract(repo: Repo, fact_id: str, reason: str, options: Options) -> Result:
    return footer_command(
        repo, "retract", fact_id, options, lambda p, _: footers.retract(p, reason)
    )


def fact_archive(repo: Repo, fact_id: str, options: Options) -> Result:
    return footer_command(repo, "archive", fact_id, options, lambda p, _: footers.archive(p))


def fact_pin(repo: Repo, fact_id: str, options: Options) -> Result:
    return footer_command(repo, "pin", fact_id, options, lambda p, _: footers.pin(p))


def fact_expire(repo: Repo, fact_id: str, until: dt.date, options: Options) -> Result:
    return footer_command(
        repo, "expire", fact_id, options, lambda p, m: footers.expire(p, until, _day(repo, m))
    )


def fact_relate(repo: Repo, fact_id: str, other_id: str, options: Options) -> Result:
    def relate(place: Place, memory: Memory) -> footers.Change:
        return footers.relate(place, locate(memory.curated, other_id))

    return footer_command(repo, "relate", fact_id, options, relate, (other_id,))


def _tier(repo: Repo, memory: Memory, place: Place, day: dt.date, without: list[str]) -> str:
    """The tier the review's rules give the fact once its footer lacks ``without``; a personal
    fact, which no log counts, the tier it had at birth."""
    if place.doc.path == PERSONAL:
        fields = {k: v for k, v in place.fields.items() if k not in without}
        return at_birth(fields, place.fact.section, place.fact.task)
    return recomputed_tier(judged(repo, memory, place.id, False, day)[1], place, without)


def fact_unpin(repo: Repo, fact_id: str, options: Options) -> Result:
    def change(place: Place, memory: Memory) -> footers.Change:
        tier = place.fields.get("tier", "")
        if tier == "core":
            tier = _tier(repo, memory, place, _day(repo, memory), ["tier"])
        return footers.unpin(place, tier)

    return footer_command(repo, "unpin", fact_id, options, change)


def fact_restore(repo: Repo, fact_id: str, options: Options) -> Result:
    """Undo ``fact archive`` (the review has not moved it yet), or move an archived fact back
    where the review's reactivation would, when the rules then keep it there."""
    memory = memory_read(repo, fact_id)
    place = locate(memory.curated, fact_id)
    day = _day(repo, memory)
    footers.refuse_restore(place, day.isoformat())
    if not place.archived:
        tier = place.fields.get("tier", "")
        if place.fields.get("archived-by") == "hand":
            tier = _tier(repo, memory, place, day, ["archived-by", "tier"])
        done = footers.restore_live(place, tier)
        reason = f"fact restore: {fact_id}"
        edits = rewrite([(place, done.fields)], reason, memory.archives, index_of(memory))
        return finish(repo, "fact restore", edits, options, place, done.said)
    dropped = ["archived-by", "from", "archived", "tier"]
    tier = _tier(repo, memory, place, day, dropped)
    if tier in ("archived", "superseded"):
        raise AgentMemoryError(
            f"{fact_id!r} has not been used for longer than archive_window allows, so the next "
            "review would archive it again; name it under Referenced in a session log, and the "
            "review brings it back"
        )
    fields = {k: v for k, v in place.fields.items() if k not in dropped} | {"tier": tier}
    continuity = memory.continuity
    assert continuity is not None
    threads = [doc.path for doc in memory.threads]
    texts = moved_back(place, fields, continuity, threads)
    said = f"{fact_id} restored to {_destination(place)} (tier {tier})"
    edits = file_edits(texts, f"fact restore: {fact_id}", memory.archives, index_of(memory))
    return finish(repo, "fact restore", edits, options, place, said)


def _destination(place: Place) -> str:
    came_from = place.fields.get("from")
    return moves.thread_file(came_from) or f"{CONTINUITY} § {moves.section_of(came_from)}"


def fact_edit(repo: Repo, fact_id: str, text: str, options: Options) -> Result:
    memory = memory_read(repo, fact_id)
    place = locate(memory.curated, fact_id)
    if place.doc.path != PERSONAL:
        refuse_personal(text, memory.personal)
    after = edit_text(place, text)
    texts: dict[str, tuple[facts.Document | None, Text]] = {place.doc.path: (place.doc, after)}
    edits = file_edits(texts, f"fact edit: {fact_id}", memory.archives, index_of(memory))
    said = f"{fact_id}: new text" if edits else f"{fact_id}: its text is already that"
    return finish(repo, "fact edit", edits, options, place, said)


def fact_supersede(
    repo: Repo, old_id: str, new_id: str | None, successor: Successor | None, options: Options
) -> Result:
    """What the log line ``- Superseded: old → new`` does, now; ``successor``: write the new
    fact first (in the old one's section)."""
    memory = memory_read(repo, old_id, new_id) if new_id is not None else memory_read(repo)
    if new_id is not None and BY in locate(memory.curated, new_id).fields:
        memory = memory_read(repo)  # the chain of successors runs through the archive too
    docs = memory.curated
    old = locate(docs, old_id)
    if (new_id is None) == (successor is None):
        raise AgentMemoryError(
            f"name the fact that supersedes {old_id!r}: its id as NEW, or --text TEXT to write "
            "it (not both)"
        )
    by_of = {f.id: by for doc in docs for f in doc.facts if f.id and (by := f.field(BY))}
    reason = f"fact supersede: {old_id}"
    if new_id is not None:
        done = footers.supersede(old, locate(docs, new_id), by_of)
        changes = [(old, done[0].fields), (locate(docs, new_id), done[1].fields)]
        edits = rewrite(changes, reason, memory.archives, index_of(memory))
        said = done[0].said
        return finish(repo, "fact supersede", edits, options, old, said, successor=new_id)
    assert successor is not None
    return _supersede_by_new(repo, memory, old, successor, options)


def _supersede_by_new(
    repo: Repo, memory: Memory, old: Place, successor: Successor, options: Options
) -> Result:
    continuity = memory.continuity
    assert continuity is not None
    docs = memory.documents
    footers.refuse_superseding(old, "")
    elsewhere = Elsewhere.of([*docs[1:], *([memory.personal] if memory.personal else [])])
    section = moves.section_of(old.fields.get("from")) or old.fact.section
    thread = old.fact.task == " "
    added = add_fact(
        continuity,
        elsewhere,
        successor.text,
        section,
        successor.id,
        thread,
        _day(repo, memory),
    )
    grown = facts.parse(CONTINUITY, added.after)
    new = locate([grown], added.id)
    old_now = locate([grown], old.id) if old.doc.path == CONTINUITY else old
    done = footers.supersede(old_now, new, {})
    found = footer_edits([(old_now, done[0].fields), (new, done[1].fields)])
    texts: dict[str, tuple[facts.Document | None, Text]] = {}
    for path, (doc, lines) in found.items():
        original = continuity if path == CONTINUITY else doc
        texts[path] = (original, apply_edits(doc.text, lines))
    if CONTINUITY not in texts:
        texts[CONTINUITY] = (continuity, grown.text)
    reason = f"fact supersede: {old.id} by the new fact {added.id}"
    edits = file_edits(texts, reason, memory.archives, index_of(memory))
    said = f"{old.id} superseded by the new fact {added.id} ({added.section}, {added.tier})"
    return finish(repo, "fact supersede", edits, options, old, said, successor=added.id)
