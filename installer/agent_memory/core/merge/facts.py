"""Three-way merge of memory files by fact id (MERGE.md): git's merge driver, as a pure function.

continuity.md, one-file threads and archive quarters merge fact by fact: a fact added on either
side is kept, one removed on a side and untouched on the other is removed, computed footer fields
take either side by a fixed rule (in a conflict's two texts too), and only a fact whose text both
sides changed differently (or one id given two texts) is a conflict, marked alone. The text
around the facts merges when at most one side changed each section of it. INDEX.md merges line
by id. Anything else, or input this cannot read, is left to git's own text merge (``Merged.data``
is None).
"""

from collections.abc import Sequence
from typing import NamedTuple

from ... import patterns
from ...errors import InputError
from ...parse.continuity import last_review
from ...parse.facts import PROJECT_STATE, Document, Fact, is_blank, parse_text
from ...parse.footer import TIERS
from ...parse.keyvalue import parse_key_line
from ...parse.text import Text, decode, strip_eol
from ..review.edits import fact_lines
from .lines import Choice, Unmergeable, choose, conflict_block, ended, merge_index

# Written by the review, recomputed by the next full one: a difference is never a conflict.
COMPUTED = frozenset({"uses", "last_used", "tier", "done", "archived", "from"})
_THREAD = patterns.compile(r"(?:^|/)memory/open-threads/[^/]+\.md$")
_QUARTER = patterns.compile(r"(?:^|/)memory/archive/\d{4}-Q[1-4]\.md$")
_WRAP = "## Open Threads\n"  # a one-file thread is read as the one section it would be in


class Merged(NamedTuple):
    data: bytes | None  # None: not a memory file this can merge; use git's text merge
    conflicts: int


class _Side(NamedTuple):
    text: Text
    doc: Document
    segments: dict[str, tuple[int, int]]  # "" (before the first section) or a section's title
    facts: dict[str, Fact]
    home: dict[str, str]  # id → the segment it is in
    review_line: int | None
    covered: frozenset[int]  # the lines of id'd facts, and of ``last_review``
    starts: dict[int, Fact]  # each id'd fact by its first line
    newline: str  # ``text.newline``, which counts every line each time it is asked


def merge_file(path: str, base: bytes, ours: bytes, theirs: bytes) -> Merged:
    """Merge the three versions of the memory file at ``path`` (git's %O, %A, %B, %P)."""
    name = path.replace("\\", "/")
    try:
        if name == "memory/archive/INDEX.md" or name.endswith("/memory/archive/INDEX.md"):
            data, conflicts = merge_index(path, base, ours, theirs)
            return Merged(data, conflicts)
        continuity = name == "memory/continuity.md" or name.endswith("/memory/continuity.md")
        # continuity.md never compiles the thread pattern (patterns compile on first use)
        thread = not continuity and _THREAD.search(name) is not None
        if continuity or thread or _QUARTER.search(name):
            return _merge_document(path, (base, ours, theirs), thread)
    except (InputError, Unmergeable):
        pass
    return Merged(None, 0)


def _merge_document(path: str, raw: tuple[bytes, bytes, bytes], wrap: bool) -> Merged:
    texts = [decode(path, data) for data in raw]
    if wrap:
        texts = [Text(t.bom, (_WRAP, *t.lines)) for t in texts]
    base, ours, theirs = (_side(path, text) for text in texts)
    results = {fid: _merge_fact(fid, base, ours, theirs) for fid in _ids(ours, theirs, base)}
    lines, conflicts = _assemble(base, ours, theirs, results)
    if wrap:
        lines = lines[1:]
    return Merged(Text(ours.text.bom, tuple(lines)).encode(), conflicts)


def _side(path: str, text: Text) -> _Side:
    doc = parse_text(path, text)
    if any(p.severity == "error" for p in doc.problems):
        raise Unmergeable(path)
    starts = [s.heading for s in doc.sections]
    bounds = [0, *starts, len(text.lines)]
    keys = ["", *(s.title.strip().lower() for s in doc.sections)]
    if len(set(keys)) != len(keys):
        raise Unmergeable(path)  # two sections of one title: no way to pair them
    segments = {key: (bounds[i], bounds[i + 1]) for i, key in enumerate(keys)}
    keyed = {s.title: key for s, key in zip(doc.sections, keys[1:], strict=True)}
    found: dict[str, Fact] = {}
    home: dict[str, str] = {}
    for fact in doc.facts:
        if fact.id is None:
            continue
        if fact.id in found:
            raise Unmergeable(path)
        found[fact.id] = fact
        home[fact.id] = keyed[fact.section]
    review_line = last_review(doc).line if doc.section(PROJECT_STATE) else None
    covered = {line for fact in found.values() for line in range(fact.start, fact.end)}
    if review_line is not None:
        covered.add(review_line)
    by_start = {fact.start: fact for fact in found.values()}
    return _Side(
        text, doc, segments, found, home, review_line, frozenset(covered), by_start, text.newline
    )


def _ids(*sides: _Side) -> list[str]:
    """Every id, in the order it appears on ours, then theirs, then base."""
    return list(dict.fromkeys(fid for side in sides for fid in side.facts))


# --- one fact ---------------------------------------------------------------------------


Body = tuple[tuple[str, ...], tuple[tuple[str, str], ...]]


def _body(side: _Side, fact: Fact | None) -> Body | None:
    """What a person wrote: the fact's lines without its footer, and the fields not computed."""
    if fact is None:
        return None
    lines = [line.rstrip("\r\n") for line in side.text.lines[fact.start : fact.end]]  # strip_eol
    if fact.footer_line is not None:
        begin, end = fact.footer_span
        at = fact.footer_line - fact.start
        lines[at] = lines[at][:begin] + lines[at][end:]
    kept = sorted([field for field in fact.fields if field[0] not in COMPUTED])
    return tuple(lines), tuple(kept)


def _merge_fact(fid: str, base: _Side, ours: _Side, theirs: _Side) -> Choice:
    """Keep (with merged footer), drop, or mark one fact as a conflict."""
    b, o, t = base.facts.get(fid), ours.facts.get(fid), theirs.facts.get(fid)
    exact = choose(_lines(base, b), _lines(ours, o), _lines(theirs, t))
    if exact != "conflict":  # untouched on a side: the other side's bytes, or gone
        lines = list(_lines(ours, o) or ()) if exact == "ours" else list(_lines(theirs, t) or ())
        return Choice("drop", ()) if exact == "drop" else Choice("keep", (lines,))
    mine, yours = _body(ours, o), _body(theirs, t)
    # Both sides wrote the same text: base cannot change the choice (``choose``).
    picked = "ours" if mine is not None and mine == yours else choose(_body(base, b), mine, yours)
    if picked == "drop":
        return Choice("drop", ())
    if picked == "conflict" and (o is None or t is None):  # removed on one side: no counts to merge
        return Choice("conflict", (list(_lines(ours, o) or ()), list(_lines(theirs, t) or ())))
    fields = _fields(b.fields if b else None, o.fields if o else None, t.fields if t else None)
    if picked == "conflict":
        assert o is not None and t is not None
        return Choice("conflict", (_computed(ours, o, fields), _computed(theirs, t, fields)))
    side, fact = (ours, o) if picked == "ours" else (theirs, t)
    assert fact is not None  # choose picks a side that has the fact
    return Choice("keep", (_footed(side, fact, fields),))


def _lines(side: _Side, fact: Fact | None) -> tuple[str, ...] | None:
    return None if fact is None else side.text.lines[fact.start : fact.end]


def _footed(side: _Side, fact: Fact, fields: dict[str, str]) -> list[str]:
    """The fact's lines with these footer fields; its own bytes when they are its fields."""
    if fields == dict(fact.fields):
        return list(side.text.lines[fact.start : fact.end])
    return fact_lines(side.text, fact, fields)


def _computed(side: _Side, fact: Fact, merged: dict[str, str]) -> list[str]:
    """One side of a conflict: its text, with the computed fields merged by rule 2.

    The ``last_review`` the merge keeps accounts for the merged counts, not for one side's: a
    side's own counts, kept with its text, would make the next review differ from a full one.
    """
    own = {key: value for key, value in fact.fields if key not in COMPUTED}
    return _footed(side, fact, {**own, **{k: v for k, v in merged.items() if k in COMPUTED}})


def _fields(*versions: tuple[tuple[str, str], ...] | None) -> dict[str, str]:
    """Each field three-way; a computed field both sides changed takes the rule of ``_pick``."""
    base, ours, theirs = (dict(versions[0] or ()), dict(versions[1] or ()), dict(versions[2] or ()))
    merged: dict[str, str] = {}
    for key in [*ours, *(key for key in theirs if key not in ours)]:
        o, t = ours.get(key), theirs.get(key)
        if o == t:
            value = o
        else:
            b = base.get(key)
            value = o if t == b else t if o == b else _pick(key, o, t)
        if value is not None:
            merged[key] = value
    return merged


def _pick(key: str, ours: str | None, theirs: str | None) -> str | None:
    """Both sides changed a computed field: the more used, the later, the more active wins."""
    if ours is None or theirs is None:
        return ours if theirs is None else theirs
    if key == "uses" and f"{ours}{theirs}".isascii() and ours.isdigit() and theirs.isdigit():
        return ours if int(ours) >= int(theirs) else theirs
    if key == "tier":
        if "superseded" in (ours, theirs):  # a decision, which no review recomputes
            return "superseded"
        rank = {tier: i for i, tier in enumerate(TIERS)}
        return min(ours, theirs, key=lambda tier: (rank.get(tier, len(rank)), tier))
    return max(ours, theirs) if key in ("last_used", "done", "archived") else min(ours, theirs)


# --- the file around the facts -------------------------------------------------------------


def _frame(side: _Side, key: str) -> tuple[str, ...] | None:
    """A segment's text that is not an id'd fact, a blank line or ``last_review``."""
    if key not in side.segments:
        return None
    start, end = side.segments[key]
    lines, covered = side.text.lines, side.covered
    return tuple(
        strip_eol(lines[i])
        for i in range(start, end)
        if i not in covered and not is_blank(lines[i])
    )


def _layouts(base: _Side, ours: _Side, theirs: _Side) -> list[tuple[str, _Side]]:
    """Each segment of the result and the side whose text it takes: the side that changed it."""
    keys = list(dict.fromkeys([*ours.segments, *theirs.segments]))
    chosen: list[tuple[str, _Side]] = []
    for key in keys:
        picked = choose(_frame(base, key), _frame(ours, key), _frame(theirs, key))
        if picked == "conflict":
            raise Unmergeable(key)
        if picked != "drop":
            chosen.append((key, ours if picked == "ours" else theirs))
    return chosen


def _assemble(
    base: _Side, ours: _Side, theirs: _Side, results: dict[str, Choice]
) -> tuple[list[str], int]:
    homes = {fid: ours.home.get(fid) or theirs.home.get(fid) or base.home[fid] for fid in results}
    newline = ours.newline
    review = _review_line(base, ours, theirs)
    placed = {fid for fid, choice in results.items() if choice.kind == "drop"}
    out: list[str] = []
    layouts = _layouts(base, ours, theirs)
    for key, side in layouts:
        segment = _segment(key, side, results, homes, placed, review)
        waiting = [fid for fid in results if homes[fid] == key and fid not in placed]
        out += _with_appended(segment, waiting, results, newline)
        placed.update(waiting)
    for key in dict.fromkeys(homes[fid] for fid in results if fid not in placed):
        waiting = [fid for fid in results if homes[fid] == key and fid not in placed]
        heading = _heading(key, ours, theirs)
        out += _with_appended([newline, heading], waiting, results, newline)
        placed.update(waiting)
    out = [*ended(out[:-1], newline), *out[-1:]]
    conflicts = sum(1 for c in results.values() if c.kind == "conflict")
    return out, conflicts


def _segment(
    key: str,
    side: _Side,
    results: dict[str, Choice],
    homes: dict[str, str],
    placed: set[str],
    review: str | None,
) -> list[str]:
    """The segment's lines from ``side``, each fact replaced by what the merge made of it."""
    lines, newline = side.text.lines, side.newline
    start, end = side.segments[key]
    starts = side.starts
    out: list[str] = []
    at = start
    while at < end:
        fact = starts.get(at)
        if fact is None:
            out.append(review if at == side.review_line and review is not None else lines[at])
            at += 1
            continue
        fid = fact.id or ""
        choice = results[fid]
        at = fact.end
        if homes[fid] == key and choice.kind != "drop":
            out += _rendered(choice, newline)
            placed.add(fid)
        elif (not out or is_blank(out[-1])) and at < end and is_blank(lines[at]):
            at += 1  # removing a fact leaves no two blank lines in a row
    if review is not None and side.review_line is None and key == PROJECT_STATE:
        out.insert(1, review)
    return out


def _with_appended(
    segment: list[str], waiting: Sequence[str], results: dict[str, Choice], newline: str
) -> list[str]:
    """Facts the layout did not place go after the segment's last non-blank line."""
    if not waiting:
        return segment
    cut = len(segment)
    while cut > 1 and is_blank(segment[cut - 1]):
        cut -= 1
    added = [line for fid in waiting for line in _rendered(results[fid], newline)]
    head = ended(segment[:cut], newline)
    return [*head, *added, *segment[cut:]]


def _rendered(choice: Choice, newline: str) -> list[str]:
    if choice.kind == "conflict":
        ours, theirs = choice.lines
        return conflict_block(ours, theirs, newline)
    return ended(choice.lines[0], newline) if choice.lines else []


def _heading(key: str, ours: _Side, theirs: _Side) -> str:
    for side in (ours, theirs):
        if key in side.segments:
            return side.text.lines[side.segments[key][0]]
    return f"## {key}"  # pragma: no cover - every home is a segment of ours or theirs


def _review_line(base: _Side, ours: _Side, theirs: _Side) -> str | None:
    """``last_review`` three-way; two different marks keep the earlier one, marked merged."""
    b, o, t = (
        s.text.lines[s.review_line] if s.review_line is not None else None
        for s in (base, ours, theirs)
    )
    picked = choose(b, o, t)
    if picked != "conflict":
        return o if picked == "ours" else t if picked == "theirs" else None
    marks = [(last_review(s.doc), s) for s in (ours, theirs) if s.review_line is not None]
    mark, side = min(marks, key=lambda m: (m[0].through or "", m[0].date or ""))
    line = side.text.lines[side.review_line or 0]
    if mark.spans is not None:
        begin, end = mark.spans[2]
        return line[:begin] + " | merged" + line[end:]
    parsed = parse_key_line(line)
    if mark.merged or mark.date is None or parsed is None:
        return line
    at = parsed.start + len(mark.date)  # no log named: "merged" right after the date
    return line[:at] + " | merged" + line[at:]
