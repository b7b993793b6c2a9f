"""The adoption rung: a repo enabled by hand (HANDRUN.md, any of 2.x to 4.x) becomes ours.

Chosen by the stamp's marker, never its number (UPGRADE.md § Adopting a repo enabled by hand).
Every byte of text, every id and every count stays; only what our review would misread is
converted, in footers:

- an archived fact (written by the hand-run archive script) gets ``tier: archived`` (a
  superseded one keeps ``superseded``), ``archived:`` from the nearest dated heading above it
  (else the first day of its quarter), ``archived-by: hand`` and ``from:`` (Open Threads for a
  task item, else the section where continuity.md keeps facts with the same id prefix, else Key
  Decisions);
- a checked thread without ``done`` gets ``done:`` = its ``last_used`` (not today, which would
  restart its clock), wherever it is;
- the reason and a hand-written summary of a hand-run INDEX line become the fields ``reason`` and
  ``note`` of the archived fact, shown on its regenerated INDEX line.
"""

import datetime as dt
import functools
import re
from collections import Counter
from collections.abc import Mapping
from typing import NamedTuple

from packaging.version import Version

from .. import patterns, resources
from ..core.install.ladder import Files, Rung
from ..core.review.archive import (
    QUARTER_FILE,
    index_lines,
    is_quarter,
    new_quarter,
    render_index,
)
from ..core.review.edits import Edit, append_to_section, apply_edits, footer_edit
from ..errors import InputError, refuse_errors
from ..layout import (
    ARCHIVE_DIR,
    ARCHIVE_INDEX,
    BACKUP_DIR,
    CONTINUITY,
    OPEN_THREADS,
    OPEN_THREADS_DIR,
    USER_DATA,
    VISION,
)
from ..parse import facts, footer
from ..parse.facts import Document, Fact
from ..parse.footer import render, slug, unique_ids
from ..parse.sidefiles import parse_thread, parse_vision
from ..parse.text import decode, strip_eol
from . import v3_0_0
from .history import NO_HISTORY, History

TARGET = Version("5.0.0")
_DATE = patterns.compile(r"\d{4}-\d{2}-\d{2}")
_FALLBACK_SECTION = "Key Decisions"
_SEPARATOR = " \u2014 "  # " — "
# The section of a quarter file that holds the INDEX lines kept as facts (``_kept_rows``).
_KEPT_SECTION = "Kept from the hand-written INDEX"
_SUMMARY = "adoption of a repo enabled by hand"


def adopt(files: Files, today: dt.date, history: History = NO_HISTORY) -> dict[str, bytes | None]:
    """The conversions above, then what the 2.x → 3.0.0 rung does for a layer (or the facts of
    one) that has no footers yet: a hand-run stamp may say 2.x, and a 3.x+ layer may hold a fact
    written without a footer, which takes its dates from ``history`` (``history.py``) when the
    memory holds dated facts it would otherwise pass for newer than. A memory with none (a 2.x
    layout) is dated as our own ladder dates it: nothing in it is newer than the rest, and no
    log can name an id it never had. Facts that have one are left to the conversions."""
    changed = _convert(files)
    dated = _has_dates(files.get(CONTINUITY))
    changed.update(v3_0_0.upgrade({**files, **changed}, today, history if dated else None))
    return changed


def _has_dates(data: bytes | None) -> bool:
    return data is not None and any(
        f.field("last_used") for f in facts.parse(CONTINUITY, data).facts
    )


def rung(history: History = NO_HISTORY) -> Rung:
    """The adoption rung, dating what it adopts from ``history`` (the command asks the repo's)."""
    return Rung(TARGET, _SUMMARY, functools.partial(adopt, history=history), reads=(VISION,))


def _convert(files: Files) -> dict[str, bytes | None]:
    changed: dict[str, bytes | None] = {}
    continuity = _parsed(CONTINUITY, files.get(CONTINUITY))
    live = [continuity] if continuity is not None else []
    for path in sorted(p for p, data in files.items() if data and _is_thread(p)):
        thread = parse_thread(path, files[path] or b"")
        _refuse(thread)
        live.append(thread)
    for doc in live:
        _put(changed, doc, _done_edits(doc))
    prefixes = _section_by_prefix(continuity)
    rows = _index_rows(files.get(ARCHIVE_INDEX))
    notes = _index_notes(rows)
    quarters = {
        path: facts.parse(path, data)
        for path, data in sorted(files.items())
        if data is not None and is_quarter(path)
    }
    for doc in quarters.values():
        _refuse(doc)
    taken = {f.id for doc in [*live, *quarters.values()] for f in doc.facts if f.id}
    taken |= _ids_in(files.get(VISION)) | set(rows)
    archives = []
    for path, doc in quarters.items():
        edits = _archive_edits(doc, prefixes, notes, taken)
        text = apply_edits(doc.text, edits)
        archives.append(facts.parse_text(path, text))
    archives = _kept_rows(archives, rows, prefixes)
    for doc in archives:
        if files.get(doc.path) != doc.render():
            changed[doc.path] = doc.render()
    changed.update(_new_index(files.get(ARCHIVE_INDEX), index_lines(archives)))
    return changed


def _new_index(existing: bytes | None, entries: list[str]) -> dict[str, bytes | None]:
    """INDEX.md regenerated; a hand-written one is kept verbatim in the backup first (its lines
    in other shapes — group headings, prose — would otherwise be lost)."""
    index = render_index(existing, resources.data(USER_DATA[ARCHIVE_INDEX]), entries)
    if index == existing:
        return {}
    changed: dict[str, bytes | None] = {ARCHIVE_INDEX: index}
    if existing is not None:
        changed[f"{BACKUP_DIR}/{TARGET}/{ARCHIVE_INDEX}"] = existing
    return changed


def _ids_in(data: bytes | None) -> set[str]:
    """The ids of vision.md's footer (no other id may take them)."""
    return {f.id for f in parse_vision(data).facts if f.id} if data is not None else set()


def _is_thread(path: str) -> bool:
    return path.startswith(OPEN_THREADS_DIR + "/") and path.endswith(".md")


def _parsed(path: str, data: bytes | None) -> Document | None:
    if data is None:
        return None
    doc = facts.parse(path, data)
    _refuse(doc)
    return doc


def _refuse(doc: Document) -> None:
    refuse_errors(doc.problems, "fix it, then run enable again")


def _put(changed: dict[str, bytes | None], doc: Document, edits: list[Edit]) -> None:
    if edits:
        changed[doc.path] = apply_edits(doc.text, edits).encode()


def _done_edits(doc: Document) -> list[Edit]:
    """``done`` = ``last_used`` on each checked thread that has a footer and no ``done``."""
    edits = []
    for fact in doc.facts:
        fields = dict(fact.fields)
        if fact.task == "x" and fact.id and "done" not in fields:
            day = fields.get("last_used") or fields.get("created")
            if day:
                edits.append(footer_edit(doc.text, fact, {**fields, "done": day}))
    return edits


def _archive_edits(
    doc: Document,
    prefixes: Mapping[str, str],
    notes: Mapping[str, dict[str, str]],
    taken: set[str],
) -> list[Edit]:
    """The footers of the archive's facts; one without a footer (a hand-swept thread group)
    gets one, dated by its heading, so the review, recall and lint see it."""
    missing = [fact for fact in doc.facts if fact.id is None]
    new_ids = iter(unique_ids((slug(fact.first_line) for fact in missing), taken))
    edits = []
    for fact in doc.facts:
        if fact.id is None:
            day = _archived_on(doc, fact)
            fields = {"id": next(new_ids), "created": day, "last_used": day, "uses": "1"}
        else:
            fields = dict(fact.fields)
        fact_id = fields["id"]
        if fields.get("tier") != "superseded":
            fields["tier"] = "archived"
        fields.setdefault("from", _origin_section(fact_id, fact.task, prefixes))
        if "archived" not in fields:
            fields["archived"] = _archived_on(doc, fact)
            fields["archived-by"] = "hand"
        if fact.task == "x" and "done" not in fields and fields.get("last_used"):
            fields["done"] = fields["last_used"]
        for key, value in notes.get(fact_id, {}).items():
            if key != "note" or not _same_text(value, fact.first_line):
                fields.setdefault(key, value)
        if fields != dict(fact.fields):
            edits.append(footer_edit(doc.text, fact, fields))
    return edits


def _archived_on(doc: Document, fact: Fact) -> str:
    """The date of the nearest heading above the fact, else the first day of the quarter."""
    for line in reversed(doc.text.lines[: fact.start]):
        if line.startswith("#"):
            found = _DATE.search(line)
            if found is not None:
                return found.group()
    name = doc.path.rsplit("/", 1)[-1]
    year, quarter = int(name[:4]), int(name[6])
    return dt.date(year, 3 * quarter - 2, 1).isoformat()


def _section_by_prefix(continuity: Document | None) -> dict[str, str]:
    """Id prefix (``stack`` of ``stack-java21``) → the section holding most such facts."""
    counts: Counter[tuple[str, str]] = Counter()
    for fact in continuity.facts if continuity else ():
        if fact.id and fact.task is None:
            counts[(_prefix(fact.id), fact.section)] += 1
    best: dict[str, tuple[int, str]] = {}
    for (prefix, section), n in sorted(counts.items()):
        if prefix not in best or n > best[prefix][0]:
            best[prefix] = (n, section)
    return {prefix: section for prefix, (_n, section) in best.items()}


def _prefix(fact_id: str) -> str:
    return re.split(r"[.-]", fact_id, maxsplit=1)[0]


def _origin_section(fact_id: str, task: str | None, prefixes: Mapping[str, str]) -> str:
    if task is not None:
        return OPEN_THREADS
    return prefixes.get(_prefix(fact_id), _FALLBACK_SECTION)


class _Row(NamedTuple):
    """A hand-run INDEX line ``- id — summary — reason — file``."""

    summary: str
    reason: str | None
    file: str  # the quarter file's name
    line: int


def _index_rows(data: bytes | None) -> dict[str, _Row]:
    """Per id, its hand-run INDEX line (the last, if two name one id).

    Hand-run lines read ``- id — summary — reason — file`` (or ``- id — summary — file`` in
    early repos); ours read ``- id — first line → file``, which no row matches.
    """
    if data is None:
        return {}
    split = []
    for number, line in enumerate(decode(ARCHIVE_INDEX, data).lines, 1):
        bare = strip_eol(line).strip()
        parts = bare[2:].split(_SEPARATOR) if bare.startswith("- ") else []
        if len(parts) >= 3 and QUARTER_FILE.match(parts[-1].strip()):
            split.append((number, [part.strip() for part in parts]))
    with_reason = any(len(parts) >= 4 for _, parts in split)
    found: dict[str, _Row] = {}
    for number, parts in split:
        middle = parts[1:-1]
        summary = _SEPARATOR.join(middle[:-1] if with_reason else middle)
        reason = middle[-1] if with_reason else None
        if footer.ID.match(parts[0]):
            found[parts[0]] = _Row(summary, reason, parts[-1], number)
    return found


def _index_notes(rows: Mapping[str, _Row]) -> dict[str, dict[str, str]]:
    """Per id, the ``note`` (summary) and ``reason`` its archived fact's footer takes."""
    found = {}
    for fact_id, row in rows.items():
        values = {"note": row.summary, "reason": row.reason or ""}
        found[fact_id] = {k: _footer_safe(v) for k, v in values.items() if v}
    return found


def _kept_rows(
    archives: list[Document], rows: Mapping[str, _Row], prefixes: Mapping[str, str]
) -> list[Document]:
    """An INDEX line whose id no archived fact carries (the hand-run line indexed a swept group
    of footerless threads by a name of its own) becomes an archived fact of the quarter file it
    names, its summary as its text and its reason in its footer: the next review's INDEX keeps
    it, and recall finds it."""
    held = {f.id for doc in archives for f in doc.facts if f.id}
    by_path = {doc.path: doc for doc in archives}
    kept: dict[str, list[tuple[str, _Row]]] = {}  # per quarter file, its rows in INDEX order
    for fact_id, row in sorted(rows.items(), key=lambda item: item[1].line):
        if fact_id in held:
            continue
        if "<!--" in row.summary or not row.summary:
            raise InputError(
                ARCHIVE_INDEX,
                row.line,
                f"the line of {fact_id!r} names no archived fact, and its summary cannot be one"
                " (it is empty or holds '<!--')",
                "write its summary as plain text (or take the line out), then run enable again",
            )
        kept.setdefault(row.file, []).append((fact_id, row))
    for name, found in kept.items():  # each file written once: an INDEX may hold thousands
        path = f"{ARCHIVE_DIR}/{name}"
        doc = by_path.get(path) or facts.parse(path, new_quarter(name[:-3]))
        day = _last_date(doc)
        lines = []
        for fact_id, row in found:
            fields = {"id": fact_id, "created": day, "last_used": day, "uses": "1"}
            fields |= {"tier": "archived", "from": _origin_section(fact_id, None, prefixes)}
            fields |= {"archived": day, "archived-by": "hand"}
            if row.reason:
                fields["reason"] = _footer_safe(row.reason)
            lines += [f"- {row.summary}", f"  {render(fields)}"]
        text = append_to_section(path, doc.text, _KEPT_SECTION, lines)
        by_path[path] = facts.parse_text(path, text)
    return [by_path[path] for path in sorted(by_path)]


def _last_date(doc: Document) -> str:
    """The date of the file's last dated heading, else the first day of its quarter: what
    ``archived:`` a fact at its end would get."""
    end = Fact("", len(doc.text.lines), 0, None, (0, 0), (), None, "", None)
    return _archived_on(doc, end)


def _footer_safe(value: str) -> str:
    return value.replace("|", "/").replace("<!--", "").replace("-->", "→").strip()


def _same_text(summary: str, first_line: str) -> bool:
    """Whether an INDEX summary only repeats the fact's first line (cut, without markup)."""

    def plain(text: str) -> str:
        return re.sub(r"[*`~]|^\[[ xX]\]\s*", "", text).rstrip("…").strip()

    return plain(first_line).startswith(plain(summary))


RUNG = rung()
