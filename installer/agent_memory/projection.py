"""The review as a pure function: (logs, continuity.md + archive, policy, date) → plan + summary.

DECAY.md defines every rule used here and REVIEW.md the steps, in the same order.
"""

from __future__ import annotations

import bisect
import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from . import archive as archive_files
from . import facts
from .continuity import cursor, last_review, last_review_edit
from .dates import quarter_of
from .errors import InputError
from .facts import Document, Edit, Fact, append_to_section, apply_edits, footer_edit, is_blank
from .layout import ARCHIVE_DIR, ARCHIVE_INDEX, CONTINUITY
from .plan import FileEdit, Outcome, Plan
from .policy import Policy
from .sessions import SessionRefs, session_date
from .text import Text, decode
from .triggers import INVARIANTS, stem, window


@dataclass(frozen=True, slots=True)
class Inputs:
    continuity: Document
    archives: tuple[Document, ...]
    index: bytes | None
    index_template: bytes
    policy: Policy
    logs: tuple[str, ...]  # every correctly named log, sorted
    refs: Mapping[str, SessionRefs]  # the logs that were read: the window, or all of them
    full: bool
    today: dt.date


@dataclass(frozen=True, slots=True)
class Summary:
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
    warnings: tuple[str, ...] = field(default=())

    def markdown(self, newline: str = "\n") -> str:
        """The ``## Memory Review (date)`` block of REVIEW.md step 8."""

        def ids(values: Sequence[str]) -> str:
            return f" ({', '.join(values)})" if values else ""

        changes = [f"{i}: {a}→{b}" for i, a, b in self.tier_changes]
        lines = [
            f"## Memory Review ({self.date})",
            f"- Reactivated: {len(self.reactivated)}{ids(self.reactivated)}",
            f"- Archived: {len(self.archived)}{ids(self.archived)}"
            + (f" → {self.archive_file}" if self.archived else ""),
            f"- Swept threads: {len(self.swept)}{ids(self.swept)}",
            f"- Tier changes: {len(changes)}{ids(changes)}",
            f"- Archive candidates: {len(self.candidates)}{ids(self.candidates)}",
        ]
        if self.promoted:
            lines.append(f"- Promoted to core: {len(self.promoted)}{ids(self.promoted)}")
        return newline.join(lines) + newline


@dataclass(frozen=True, slots=True)
class _Located:
    doc: Document
    fact: Fact
    section: str  # the section rules see: its own, or ``from`` when archived


def review(inputs: Inputs) -> tuple[Plan, Summary]:
    _refuse_unsafe(inputs)
    policy, today = inputs.policy, inputs.today.isoformat()
    dates = [name[:10] for name in inputs.logs]  # logs are correctly named: YYYY-MM-DD-…

    def since(day: str) -> int:
        return len(dates) - bisect.bisect_right(dates, day)

    through = cursor(last_review(inputs.continuity), inputs.logs)
    counted = window(inputs.logs, None if inputs.full else through)
    tally: dict[str, tuple[int, str]] = {}
    created_by_log: set[str] = set()
    for name in counted:
        refs = inputs.refs.get(name)
        if refs is None:
            continue
        day = session_date(name) or ""
        created_by_log |= refs.created
        for fact_id in refs.used:
            count, latest = tally.get(fact_id, (0, ""))
            tally[fact_id] = (count + 1, max(latest, day))
    promotable = _auto_core(inputs) if policy.enabled else frozenset()

    located = [_Located(inputs.continuity, f, f.section) for f in inputs.continuity.facts]
    for doc in inputs.archives:
        located += [_Located(doc, f, f.field("from") or f.section) for f in doc.facts]

    edits: dict[str, list[Edit]] = {}
    to_archive: list[tuple[_Located, dict[str, str]]] = []
    to_restore: list[tuple[_Located, dict[str, str]]] = []
    changes: list[tuple[str, str, str]] = []
    candidates: list[str] = []
    promoted: list[str] = []
    for item in located:
        fact = item.fact
        if fact.id is None:
            continue
        old = dict(fact.fields)
        new = dict(old)
        created = old.get("created") or today
        new["created"] = created
        count, latest = tally.get(fact.id, (0, ""))
        base = int(old["base_uses"]) if "base_uses" in old else None
        if inputs.full:
            if base is not None:
                uses, last = base + count, max(old.get("base_last_used", created), latest)
            elif fact.id in created_by_log:
                uses, last = count, latest
            else:
                uses, last = count + 1, max(created, latest)
        else:
            stored = int(old["uses"]) if "uses" in old else (base if base is not None else 1)
            birth = base is None and fact.id in created_by_log
            uses = max(stored + count - (1 if birth else 0), count)
            last = max(old.get("last_used", created), latest)
        new["uses"], new["last_used"] = str(uses), last or created
        if fact.task == "x":
            new.setdefault("done", today)
        else:
            new.pop("done", None)
        tier = _tier(new, item.section, fact.task, since, policy)
        if (
            tier not in ("core", "archived")
            and fact.id in promotable
            and uses >= policy.core_min_uses
        ):
            tier = "core"
            promoted.append(fact.id)
        in_archive = item.doc is not inputs.continuity
        old_tier = old.get("tier", "archived" if in_archive else "")
        if tier == "archive-candidate":
            candidates.append(fact.id)
        if tier == "archived":
            new["tier"] = "archived"
            if not in_archive:
                new["from"], new["archived"] = item.section, today
                to_archive.append((item, new))
                changes.append((fact.id, old_tier or "(none)", "archived"))
                continue
        else:
            new["tier"] = tier
            if in_archive:
                new.pop("from", None)
                new.pop("archived", None)
                to_restore.append((item, new))
                changes.append((fact.id, "archived", tier))
                continue
            if old_tier != tier:
                changes.append((fact.id, old_tier or "(none)", tier))
        if new != old:
            edits.setdefault(item.doc.path, []).append(footer_edit(item.doc.text, fact, new))

    quarter_name = f"{quarter_of(inputs.today)}.md"
    quarter_path = f"{ARCHIVE_DIR}/{quarter_name}"
    for item, _new in to_archive + to_restore:
        edits.setdefault(item.doc.path, []).extend(_removal(item.doc.text, item.fact))

    newest = stem(inputs.logs[-1]) if inputs.logs else None
    if edits or newest != through:
        # Project State holds no facts, so this edit never meets the ones above.
        stamp = last_review_edit(inputs.continuity, today, newest)
        edits.setdefault(CONTINUITY, []).append(stamp)
    docs = {doc.path: doc for doc in (inputs.continuity, *inputs.archives)}
    texts: dict[str, Text] = {
        path: apply_edits(doc.text, edits.get(path, ())) for path, doc in docs.items()
    }
    if to_archive:
        if quarter_path not in texts:
            texts[quarter_path] = decode(quarter_path, archive_files.new_quarter(quarter_name[:-3]))
        for title in (archive_files.FACTS, archive_files.COMPLETED):
            moved = [
                line
                for item, new in to_archive
                if (item.fact.task == "x") == (title == archive_files.COMPLETED)
                for line in _moved_lines(item, new)
            ]
            if moved:
                texts[quarter_path] = append_to_section(
                    quarter_path, texts[quarter_path], title, moved
                )
    restored = sorted(to_restore, key=lambda pair: (pair[0].doc.path, pair[0].fact.start))
    for title in sorted({item.section for item, _ in restored}):
        moved = [
            line
            for item, new in restored
            if item.section == title
            for line in _moved_lines(item, new)
        ]
        texts[CONTINUITY] = append_to_section(CONTINUITY, texts[CONTINUITY], title, moved)

    file_edits = [
        FileEdit(
            path,
            docs[path].render() if path in docs else None,
            text.encode(),
            Outcome.UPDATED if path in docs else Outcome.CREATED,
            "review",
        )
        for path, text in texts.items()
        if path not in docs or text.encode() != docs[path].render()
    ]
    restored_ids = {item.fact.id for item, _ in to_restore}
    index_entries = [
        archive_files.index_line(fact, doc.path.rsplit("/", 1)[-1])
        for doc in inputs.archives
        for fact in doc.facts
        if fact.id is not None and fact.id not in restored_ids
    ]
    index_entries += [archive_files.index_line(item.fact, quarter_name) for item, _ in to_archive]
    index = archive_files.render_index(inputs.index, inputs.index_template, index_entries)
    if index != inputs.index:
        outcome = Outcome.CREATED if inputs.index is None else Outcome.UPDATED
        file_edits.append(FileEdit(ARCHIVE_INDEX, inputs.index, index, outcome, "archive index"))

    archived_ids = tuple(sorted(i.fact.id or "" for i, _ in to_archive if i.fact.task != "x"))
    swept_ids = tuple(sorted(i.fact.id or "" for i, _ in to_archive if i.fact.task == "x"))
    summary = Summary(
        date=today,
        through=newest,
        window=len(counted),
        reactivated=tuple(sorted(i.fact.id or "" for i, _ in to_restore)),
        archived=archived_ids,
        swept=swept_ids,
        tier_changes=tuple(sorted(changes)),
        candidates=tuple(sorted(candidates)),
        promoted=tuple(sorted(promoted)),
        archive_file=quarter_path if to_archive else "",
    )
    return Plan.of(file_edits), summary


def _tier(
    fields: Mapping[str, str],
    section: str,
    task: str | None,
    since: Callable[[str], int],
    policy: Policy,
) -> str:
    """DECAY.md § Tiers: the first rule that matches."""
    if fields.get("tier") == "core":
        return "core"
    if section.lower() == INVARIANTS:
        return "core"
    if task == " ":
        return "active"
    last_used = fields["last_used"]
    if task == "x" and since(max(fields["done"], last_used)) > policy.archive_window:
        return "archived"
    if since(fields["created"]) <= policy.working_window and int(fields["uses"]) <= 1:
        return "working"
    idle = since(last_used)
    if idle <= policy.active_window:
        return "active"
    if idle <= policy.archive_window or task == "x":
        return "archive-candidate"
    return "archived"


def _auto_core(inputs: Inputs) -> frozenset[str]:
    """Ids referenced in each of the last core_min_reviews blocks of review_every logs."""
    size, blocks = inputs.policy.review_every, inputs.policy.core_min_reviews
    if len(inputs.logs) < size * blocks:
        return frozenset()
    result: set[str] | None = None
    for b in range(blocks):
        names = inputs.logs[len(inputs.logs) - (b + 1) * size : len(inputs.logs) - b * size]
        seen: set[str] = set()
        for name in names:
            refs = inputs.refs.get(name)
            if refs is not None:
                seen |= refs.used
        result = seen if result is None else result & seen
    return frozenset(result or ())


def _refuse_unsafe(inputs: Inputs) -> None:
    """REVIEW.md: a state the review cannot interpret stops it, naming the file and line."""
    docs = (inputs.continuity, *inputs.archives)
    for doc in docs:
        for problem in doc.problems:
            if problem.severity == "error":
                raise InputError(
                    doc.path,
                    problem.line,
                    problem.message,
                    "fix it (agent-memory lint lists every problem) and review again",
                )
    for doc, fact, first in facts.id_clashes(docs):
        raise InputError(
            doc.path,
            fact.line,
            f"id {fact.id!r} is also at {first}",
            "ids must be unique across continuity.md and the archive; rename or merge one",
        )


def _removal(text: Text, fact: Fact) -> list[Edit]:
    """Delete a fact's lines, and one blank line when it would leave two in a row."""
    end = fact.end
    lines = text.lines
    before_blank = fact.start == 0 or is_blank(lines[fact.start - 1])
    if before_blank and end < len(lines) and is_blank(lines[end]):
        end += 1
    return [Edit(fact.start, end, ())]


def _moved_lines(item: _Located, fields: dict[str, str]) -> list[str]:
    """The fact's lines byte for byte, with its footer rewritten."""
    text = item.doc.text
    edit = footer_edit(text, item.fact, fields)
    lines = list(text.lines[item.fact.start : item.fact.end])
    offset = item.fact.start
    lines[edit.start - offset : edit.end - offset] = edit.lines
    return lines
