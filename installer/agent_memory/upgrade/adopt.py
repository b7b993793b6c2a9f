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

from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from collections.abc import Mapping

from packaging.version import Version

from .. import patterns, resources
from ..core.install.ladder import Files, Rung
from ..core.review.archive import QUARTER_FILE, index_line, render_index
from ..core.review.edits import Edit, apply_edits, footer_edit
from ..errors import refuse_errors
from ..layout import (
    ARCHIVE_DIR,
    ARCHIVE_INDEX,
    CONTINUITY,
    OPEN_THREADS,
    OPEN_THREADS_DIR,
    USER_DATA,
    VISION,
)
from ..parse import facts
from ..parse.facts import Document, Fact
from ..parse.sidefiles import parse_thread
from ..parse.text import decode, strip_eol
from . import v3_0_0

TARGET = Version("5.0.0")
_DATE = patterns.compile(r"\d{4}-\d{2}-\d{2}")
_FALLBACK_SECTION = "Key Decisions"
_SEPARATOR = " \u2014 "  # " — "


def adopt(files: Files, today: dt.date) -> dict[str, bytes | None]:
    """The conversions above, then what the 2.x → 3.0.0 rung does for a layer (or the facts of
    one) that has no footers yet: a hand-run stamp may say 2.x, and a 3.x+ layer may hold a fact
    written without a footer. Facts that have one are left to the conversions."""
    changed = _convert(files)
    changed.update(v3_0_0.upgrade({**files, **changed}, today))
    return changed


def _convert(files: Files) -> dict[str, bytes | None]:
    changed: dict[str, bytes | None] = {}
    continuity = _parsed(CONTINUITY, files.get(CONTINUITY))
    if continuity is not None:
        _put(changed, continuity, _done_edits(continuity))
    for path in sorted(p for p, data in files.items() if data and _is_thread(p)):
        thread = parse_thread(path, files[path] or b"")
        _refuse(thread)
        _put(changed, thread, _done_edits(thread))
    prefixes = _section_by_prefix(continuity)
    notes = _index_notes(files.get(ARCHIVE_INDEX))
    archives = []
    for path in sorted(p for p, data in files.items() if data is not None and _is_quarter(p)):
        doc = _parsed(path, files[path])
        assert doc is not None
        text = apply_edits(doc.text, _archive_edits(doc, prefixes, notes))
        if text.encode() != doc.render():
            changed[path] = text.encode()
        archives.append(facts.parse_text(path, text))
    entries = [index_line(f, d.path.rsplit("/", 1)[-1]) for d in archives for f in d.facts if f.id]
    template = resources.data(USER_DATA[ARCHIVE_INDEX])
    index = render_index(files.get(ARCHIVE_INDEX), template, entries)
    if index != files.get(ARCHIVE_INDEX):
        changed[ARCHIVE_INDEX] = index
    return changed


def _is_thread(path: str) -> bool:
    return path.startswith(OPEN_THREADS_DIR + "/") and path.endswith(".md")


def _is_quarter(path: str) -> bool:
    return (
        path.startswith(ARCHIVE_DIR + "/")
        and QUARTER_FILE.match(path.rsplit("/", 1)[-1]) is not None
    )


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
    doc: Document, prefixes: Mapping[str, str], notes: Mapping[str, dict[str, str]]
) -> list[Edit]:
    edits = []
    for fact in doc.facts:
        if fact.id is None:
            continue
        fields = dict(fact.fields)
        if fields.get("tier") != "superseded":
            fields["tier"] = "archived"
        fields.setdefault("from", _origin_section(fact, prefixes))
        if "archived" not in fields:
            fields["archived"] = _archived_on(doc, fact)
            fields["archived-by"] = "hand"
        if fact.task == "x" and "done" not in fields and fields.get("last_used"):
            fields["done"] = fields["last_used"]
        for key, value in notes.get(fact.id, {}).items():
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


def _origin_section(fact: Fact, prefixes: Mapping[str, str]) -> str:
    if fact.task is not None:
        return OPEN_THREADS
    return prefixes.get(_prefix(fact.id or ""), _FALLBACK_SECTION)


def _index_notes(data: bytes | None) -> dict[str, dict[str, str]]:
    """Per id, the ``reason`` and ``note`` (summary) of a hand-run INDEX line.

    Hand-run lines read ``- id — summary — reason — file`` (or ``- id — summary — file`` in
    early repos); ours read ``- id — first line → file`` and carry nothing to keep.
    """
    if data is None:
        return {}
    rows = []
    for line in decode(ARCHIVE_INDEX, data).lines:
        bare = strip_eol(line).strip()
        parts = bare[2:].split(_SEPARATOR) if bare.startswith("- ") else []
        if len(parts) >= 3 and QUARTER_FILE.match(parts[-1].strip()):
            rows.append([part.strip() for part in parts])
    with_reason = any(len(parts) >= 4 for parts in rows)
    found: dict[str, dict[str, str]] = {}
    for parts in rows:
        middle = parts[1:-1]
        values = {"note": _SEPARATOR.join(middle[:-1] if with_reason else middle)}
        if with_reason:
            values["reason"] = middle[-1]
        found[parts[0]] = {k: _footer_safe(v) for k, v in values.items() if v}
    return found


def _footer_safe(value: str) -> str:
    return value.replace("|", "/").replace("<!--", "").replace("-->", "→").strip()


def _same_text(summary: str, first_line: str) -> bool:
    """Whether an INDEX summary only repeats the fact's first line (cut, without markup)."""

    def plain(text: str) -> str:
        return re.sub(r"[*`~]|^\[[ xX]\]\s*", "", text).rstrip("…").strip()

    return plain(first_line).startswith(plain(summary))


RUNG = Rung(TARGET, "adoption of a repo enabled by hand", adopt, reads=(VISION,))
