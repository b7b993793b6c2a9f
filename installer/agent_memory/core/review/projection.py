"""The review as a pure function: (logs, continuity.md + archive, policy, date) → plan + summary.

DECAY.md defines every rule used here and REVIEW.md the steps, in the same order; each fact's
verdict (its footer, tier and move) comes from ``verdicts.py``, and this module writes them out.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from ...errors import InputError, refuse_errors
from ...layout import ARCHIVE_DIR, ARCHIVE_INDEX, CONTINUITY, OPEN_THREADS_DIR
from ...parse import facts
from ...parse.continuity import cursor, last_review
from ...parse.dates import quarter_of
from ...parse.facts import Document
from ...parse.text import Text, decode
from ..plan import FileEdit, Outcome, Plan
from . import archive as archive_files
from . import moves, tiers
from .edits import (
    Edit,
    append_to_sections,
    apply_edits,
    fact_lines,
    footer_edit,
    last_review_edit,
)
from .inputs import Inputs
from .summary import Summary
from .triggers import logs_read, stem
from .verdicts import Verdict, verdicts


def review(inputs: Inputs) -> tuple[Plan, Summary]:
    """REVIEW.md steps 2 to 8: recompute every footer, then move, index and stamp."""
    _refuse_unsafe(inputs)
    run = verdicts(inputs)
    judged = run.every()
    newest = stem(inputs.logs[-1]) if inputs.logs else None
    quarter = f"{quarter_of(inputs.today)}.md"
    mark = last_review(inputs.continuity)
    stale = newest is not None and (mark.merged or mark.read != len(inputs.logs))
    stamp = newest if newest != run.through or stale else None
    docs = {doc.path: doc for doc in inputs.documents}
    texts = _rewrite(inputs, docs, judged, stamp, quarter)
    file_edits = [
        _file_edit(path, docs[path].render() if path in docs else None, text)
        for path, text in texts.items()
        if path not in docs or text.encode() != docs[path].render()
    ]
    index = _index(inputs, judged, quarter)
    if index != inputs.archive_index:
        before = inputs.archive_index
        file_edits.append(
            FileEdit(ARCHIVE_INDEX, before, index, Outcome.written(before), "archive index")
        )
    return Plan.of(file_edits), _summary(inputs, judged, newest, len(run.counted), quarter)


def _file_edit(path: str, before: bytes | None, text: Text) -> FileEdit:
    """A file the review writes; a thread file whose only fact left is removed."""
    if before is not None and path.startswith(OPEN_THREADS_DIR) and moves.emptied(text):
        return FileEdit(path, before, None, Outcome.REMOVED, "review: its thread was swept")
    return FileEdit(path, before, text.encode(), Outcome.written(before), "review")


def _rewrite(
    inputs: Inputs,
    docs: Mapping[str, Document],
    verdicts: Sequence[Verdict],
    stamp: str | None,
    quarter: str,
) -> dict[str, Text]:
    """REVIEW.md steps 2 to 5 and 7 as new file texts: footers, moves, ``last_review``."""
    edits: dict[str, list[Edit]] = {}
    for verdict in verdicts:
        text = docs[verdict.path].text
        if verdict.move != "stay":
            edits.setdefault(verdict.path, []).extend(moves.removal(text, verdict.fact))
        elif verdict.fields != dict(verdict.fact.fields):
            edit = footer_edit(text, verdict.fact, verdict.fields)
            edits.setdefault(verdict.path, []).append(edit)
    if edits or stamp is not None:
        # Project State holds no facts, so this edit never meets the ones above.
        newest = stamp or cursor(last_review(inputs.continuity), inputs.logs)
        count = logs_read(inputs.logs, newest)
        review_line = last_review_edit(inputs.continuity, inputs.today.isoformat(), newest, count)
        edits.setdefault(CONTINUITY, []).append(review_line)
    texts = {path: apply_edits(doc.text, edits.get(path, ())) for path, doc in docs.items()}
    archived = [v for v in verdicts if v.move == "archive"]
    if archived:
        path = f"{ARCHIVE_DIR}/{quarter}"
        if path not in texts:
            texts[path] = decode(path, archive_files.new_quarter(quarter[:-3]))
        kinds = ((archive_files.FACTS, False), (archive_files.COMPLETED, True))
        moved = [
            (t, [ln for v in archived if v.swept == s for ln in _moved_lines(docs, v)])
            for t, s in kinds
        ]
        texts[path] = append_to_sections(path, texts[path], [m for m in moved if m[1]])
    restored = sorted(
        (v for v in verdicts if v.move == "restore"),
        key=lambda v: (v.path, v.fact.start),
    )
    back: dict[str, list[str]] = {}  # section → the lines returning to it, in file order
    placed: list[tuple[str, str]] = []
    for verdict in restored:
        thread = moves.thread_file(verdict.came_from)
        if thread is not None and thread not in texts:  # DESIGN §13: its file comes back
            texts[thread] = Text(False, tuple(_moved_lines(docs, verdict)))
        else:
            back.setdefault(verdict.section, []).extend(_moved_lines(docs, verdict))
            placed.append((verdict.id, verdict.section))
    if back:
        texts[CONTINUITY] = append_to_sections(CONTINUITY, texts[CONTINUITY], sorted(back.items()))
        moves.landed(CONTINUITY, texts[CONTINUITY], placed)
    return texts


def _index(inputs: Inputs, verdicts: Sequence[Verdict], quarter: str) -> bytes:
    """REVIEW.md step 6, from the facts already parsed: what stays archived, and what just went."""
    restored = {v.id for v in verdicts if v.move == "restore"}
    entries = archive_files.index_lines(inputs.archives, restored)
    entries += [
        archive_files.index_line(v.fact._replace(fields=tuple(v.fields.items())), quarter)
        for v in verdicts
        if v.move == "archive"
    ]
    return archive_files.render_index(inputs.archive_index, inputs.index_template, entries)


def _summary(
    inputs: Inputs, verdicts: Sequence[Verdict], newest: str | None, counted: int, quarter: str
) -> Summary:
    def ids(pick: Callable[[Verdict], bool]) -> tuple[str, ...]:
        return tuple(sorted(v.id for v in verdicts if pick(v)))

    changes = tuple(sorted((v.id, v.old_tier, v.tier) for v in verdicts if v.old_tier != v.tier))
    expired = ids(lambda v: v.move == "archive" and tiers.expired(v.fields, v.fields["archived"]))
    archived = ids(lambda v: v.move == "archive" and not v.swept and v.id not in expired)
    swept = ids(lambda v: v.move == "archive" and v.swept and v.id not in expired)
    return Summary(
        date=inputs.today.isoformat(),
        through=newest,
        window=counted,
        reactivated=ids(lambda v: v.move == "restore"),
        archived=archived,
        swept=swept,
        tier_changes=changes,
        candidates=ids(lambda v: v.tier == "archive-candidate"),
        promoted=ids(lambda v: v.promoted),
        archive_file=f"{ARCHIVE_DIR}/{quarter}" if archived or swept or expired else "",
        unused=ids(
            lambda v: v.old_tier == "working" and int(v.fields["uses"]) <= 1 and v.id not in expired
        ),
        reason=inputs.reason,
        expired=expired,
    )


def _refuse_unsafe(inputs: Inputs) -> None:
    """REVIEW.md: a state the review cannot interpret stops it, naming the file and line."""
    docs = inputs.documents
    for doc in docs:
        refuse_errors(
            doc.problems, "fix it (agent-memory lint lists every problem) and review again"
        )
    for doc, fact, first in facts.id_clashes(docs):
        raise InputError(
            doc.path,
            fact.line,
            f"id {fact.id!r} is also at {first}",
            "ids must be unique across continuity.md and the archive; rename or merge one",
        )


def _moved_lines(docs: Mapping[str, Document], verdict: Verdict) -> list[str]:
    """The fact's lines byte for byte, with its footer rewritten."""
    return fact_lines(docs[verdict.path].text, verdict.fact, verdict.fields)
