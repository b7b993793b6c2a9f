"""Mode C: the vendors' always-on instruction files consolidated into AGENTS.md (MIGRATE.md).

Pure functions from the detected files to the changes. An always-on file's text moves to
AGENTS.md, rule by rule: a list item or a line already said (in AGENTS.md or an earlier file) is
kept once, where it was first said, and the later place says so in a short note. The file becomes
a pointer; scoped rules stay; the verbatim original of every file rewritten is kept under
``.agent/migrated/``. Memory stores are read by ``vendor_stores``.
"""

from __future__ import annotations

import datetime as dt
import posixpath
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from ... import patterns, resources
from ...errors import InputError
from ...layout import AGENTS_MD, VENDORS
from ...parse import frontmatter
from ...parse.markdown import HEADING, blocks, closing, front_matter, inside
from ...parse.text import Text, decode, strip_eol
from ..blocks import block_of, find_block, upsert_block, worded
from ..plan import numbered
from .bank import Fact
from .stores import store_facts
from .table import MIGRATED_DIR, STORES, TABLE, Source, source_of

POINTER_TEMPLATE = "templates/pointer.md"
_MAX_COPIES = 100  # copies of one file in .agent/migrated/: a bound on the names tried

_IMPORT = patterns.compile(r"^@\S+\s*$")
_MARKER = patterns.compile(r"^\s*(?:[-*+]|[0-9]+[.)])\s+(?:\[[ xX]\]\s+)?")
# Lines that are structure, not a rule: blank, no letter or digit (rules like ---), table rows,
# HTML tags. Dropping or noting one would break the Markdown around it.
_STRUCTURE = patterns.compile(r"^(?:[^A-Za-z0-9]*|\s*[|<].*)$")


@dataclass
class Migration:
    """What Mode C produces: new file contents, facts for continuity.md, vendors seen."""

    files: dict[str, bytes] = field(default_factory=dict)
    reasons: dict[str, str] = field(default_factory=dict)
    facts: list[Fact] = field(default_factory=list)
    vendors: set[str] = field(default_factory=set)
    linked: dict[str, str] = field(default_factory=dict)  # a source that is a link: why skipped
    # Per consolidated file: (path, lines moved to AGENTS.md, lines already said there).
    moved: list[tuple[str, int, int]] = field(default_factory=list)
    kept: dict[str, bytes] = field(default_factory=dict)  # copies there already, byte for byte


def migrate(
    sources: Mapping[str, bytes],
    agents: bytes | None,
    today: dt.date,
    keep_vendor_files: bool,
    links: Mapping[str, str] = MappingProxyType({}),
    kept: Callable[[str], bytes | None] = lambda _path: None,
) -> Migration:
    """Plan Mode C for the detected ``sources`` (path → bytes); ``agents`` is AGENTS.md.

    ``links`` maps each source that is a symlink to the in-repo path it leads to: a link is
    never written; its target's text (which ``sources`` holds for it) is read as the source's
    unless the target is AGENTS.md or a source itself, and AGENTS.md's text is
    written to the file it really is. ``kept`` reads what ``.agent/migrated/`` already holds at
    a path (None: nothing), so that no copy is written over a file there.
    """
    out = Migration()
    agents_path = links.get(AGENTS_MD, AGENTS_MD)
    agents_text = decode(AGENTS_MD, agents) if agents is not None else None
    newline = agents_text.newline if agents_text is not None else "\n"
    said = Said(agents_text.lines if agents_text is not None else (), newline)
    sections: list[str] = []
    for path in sorted(sources, key=_table_order):
        source = source_of(path)
        if source.vendor:
            out.vendors.add(source.vendor)
        if path in links:
            where = AGENTS_MD if links[path] == agents_path else links[path]
            out.linked[path] = f"links to {where}; read there, never written through"
            if where == AGENTS_MD or where in sources:
                continue  # its text is read as AGENTS.md's, or as the source it links to
        if path == agents_path or source.kind in ("agents", "scoped"):
            continue  # AGENTS.md's own text (or a file AGENTS.md links to), or scoped
        elif source in STORES:
            out.facts.extend(store_facts(path, source, sources[path], today.isoformat()))
            _keep_original(out, path, sources[path], "memory store imported; left in place", kept)
        else:
            sections += _instruction(
                out, path, source, sources[path], said, keep_vendor_files, kept
            )
        if path in links:  # read through (``sources`` holds its target's bytes), never written
            out.files.pop(path, None)
    if sections:
        out.files[agents_path] = _consolidated(agents_text, sections, newline)
        out.reasons[agents_path] = _moved_reason(out.moved)
    return out


def _instruction(
    out: Migration,
    path: str,
    source: Source,
    data: bytes,
    said: Said,
    keep: bool,
    kept: Callable[[str], bytes | None],
) -> list[str]:
    """An instruction file: pointer and consolidated section, or (``keep``) just our block."""
    text = decode(path, data)
    split = (
        frontmatter.split(path, text)
        if source.kind in ("frontmatter", "cursor-rule")
        else _unread_header(text)
    )
    if not _always_on(source, split.data):
        return []
    if keep:
        if source.kind in ("import", "copilot"):
            ours = worded(resources.data(_vendor_template(source)), data, path)
            after, _ = upsert_block(path, data, ours)
            if after != data:
                out.files[path] = after
                out.reasons[path] = "agent-memory block added; your text is untouched"
        return []
    mine = _without_block(path, text, len(split.header))
    body, imports = _body(source, mine)
    section, moved, noted = _section(path, body, said)
    out.moved.append((path, moved, noted))
    out.files[path] = _pointer(source, split, imports, text)
    copy = _keep_original(out, path, data, "verbatim original", kept)
    block = "" if len(mine) == len(split.body) else "; its agent-memory block stays ours, not moved"
    out.reasons[path] = f"text moved to AGENTS.md; original in {copy}{block}"
    return [section] if section else []


def _without_block(path: str, text: Text, start: int) -> list[str]:
    """The source's lines from ``start`` on, but for an agent-memory block: its markers are
    checked here, so an error names the source's own line, and what the block holds is ours (a
    re-sync replaces it), never moved into AGENTS.md, where it would become AGENTS.md's block."""
    span = find_block(path, text.lines)
    if span is None:
        return list(text.lines[start:])
    return [line for i, line in enumerate(text.lines[start:], start) if not span[0] <= i <= span[1]]


def _unread_header(text: Text) -> frontmatter.Split:
    """A file whose kind has no frontmatter may still open with one: it stays whole in the
    file (never moved, never half noted), unread."""
    header = front_matter(text.lines)
    return frontmatter.Split(text.lines[:header], text.lines[header:], {})


def _moved_reason(moved: Sequence[tuple[str, int, int]]) -> str:
    parts = [
        f"{_lines(count)} from {path}" + (f" ({noted} already said, noted)" if noted else "")
        for path, count, noted in moved
    ]
    return "always-on instructions consolidated here: " + ", ".join(parts)


def _lines(count: int) -> str:
    return f"{count} line" if count == 1 else f"{count} lines"


def _table_order(path: str) -> tuple[int, str]:
    return TABLE.index(source_of(path)), path


def _vendor_template(source: Source) -> str:
    assert source.vendor is not None
    return VENDORS[source.vendor][1]


def _keep_original(
    out: Migration, path: str, data: bytes, reason: str, kept: Callable[[str], bytes | None]
) -> str:
    """Copy ``path``'s original into ``.agent/migrated/``; where it is kept."""
    copy, there = copy_path(path, data, kept)
    if there is not None:
        out.kept[copy] = there  # the plan knows it: unchanged, never created over it
    out.files[copy] = data
    out.reasons[copy] = reason
    return copy


def copy_path(
    path: str, data: bytes, kept: Callable[[str], bytes | None]
) -> tuple[str, bytes | None]:
    """Where the original of ``path`` is kept, and what is there already: ``.agent/migrated/
    <path>``, or ``<name>-2``, ``-3``… (before the extension) when that holds other bytes — a
    file of the user's, or an earlier migration's copy of other text — which is never written
    over. A copy holding these very bytes is the one kept already (nothing is written)."""
    for copy in copy_names(path):
        there = kept(copy)
        if there is None or there == data:
            return copy, there
    raise InputError(
        f"{MIGRATED_DIR}/{path}",
        None,
        f"and {_MAX_COPIES - 1} numbered copies of it hold other text",
        f"move the old copies out of {MIGRATED_DIR}/ and run again",
    )


def copy_names(path: str) -> list[str]:
    """Every name a copy of ``path`` may have in ``.agent/migrated/``, first to last."""
    return numbered(f"{MIGRATED_DIR}/{path}", _MAX_COPIES)


def _always_on(source: Source, data: Any) -> bool:
    """Whether a rule applies to every request (then it is consolidated) or is scoped."""
    if source.kind == "cursor-rule":
        return data.get("alwaysApply") is True
    if source.kind != "frontmatter":
        return True
    scoped = (
        bool(data.get("globs"))
        or bool(data.get("applyTo"))
        or bool(data.get("paths"))
        or data.get("alwaysApply") is False
        or data.get("inclusion") in ("fileMatch", "manual", "auto")
        or data.get("trigger") in ("glob", "model_decision", "manual")
    )
    return not scoped


def _body(source: Source, lines: Sequence[str]) -> tuple[list[str], list[str]]:
    """The text to consolidate, and the ``@path`` import lines that stay where Claude reads them."""
    if source.kind != "import":
        return list(lines), []
    body: list[str] = []
    imports: list[str] = []
    for line in lines:
        (imports if _IMPORT.match(strip_eol(line)) else body).append(line)
    return body, imports


# -- rules: what is said once -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Unit:
    """A piece of text consolidation keeps or drops whole: a line, a list item with its
    continuation lines, or a fenced block. ``key`` is None for what is never dropped."""

    lines: tuple[str, ...]  # without line endings, bytes as in the source
    key: str | None


def units(lines: Sequence[str]) -> Iterator[Unit]:
    """The source's lines as units, in order; every line is in exactly one unit."""
    bare = [strip_eol(line) for line in lines]
    opaque = {block.start: block.end for block in blocks(bare)}
    index = 0
    while index < len(bare):
        end = opaque.get(index, index + 1)
        if index not in opaque and _MARKER.match(bare[index]):
            while end < len(bare) and _continues(bare[end]):
                end = opaque.get(end, end + 1)  # an indented fence goes whole with its item
        chunk = tuple(bare[index:end])
        yield Unit(chunk, _key(chunk))
        index = end


def _continues(line: str) -> bool:
    """An indented line that belongs to the list item above (not a nested item of its own)."""
    return line[:1] in (" ", "\t") and bool(line.strip()) and not _MARKER.match(line)


def _key(lines: tuple[str, ...]) -> str | None:
    """What a unit says, bullets and whitespace aside; None for blank lines, headings and
    intros (a line ending with ':' means nothing without what follows it)."""
    first = lines[0]
    if _STRUCTURE.match(first) or HEADING.match(first) or first.rstrip().endswith(":"):
        return None
    text = " ".join(_MARKER.sub("", line, count=1) for line in lines)
    return " ".join(text.split()) or None


class Said:
    """Every rule said so far, and where it was first said."""

    def __init__(self, agents_lines: Sequence[str], newline: str) -> None:
        self.newline = newline  # AGENTS.md's: the sections are written with it
        self.where: dict[str, str] = {}
        span = find_block(AGENTS_MD, tuple(agents_lines))
        mine = [
            line
            for i, line in enumerate(agents_lines)
            if span is None or not span[0] <= i <= span[1]
        ]
        for unit in units(mine):
            if unit.key is not None:
                self.where.setdefault(unit.key, AGENTS_MD)


def _section(path: str, body: Sequence[str], said: Said) -> tuple[str, int, int]:
    """``## From `path` ``, the source's rules not said before, a note where one was; returns
    the section, the lines moved and the lines only noted. A file that says nothing new (a copy
    of one consolidated before) is one note, not its headings around notes."""
    out: list[str] = []
    moved = noted = 0
    fresh = 0  # rules said here first
    dropped: dict[str, int] = {}  # rules already said, by where
    last: tuple[str, str, int] | None = None  # the note just written: prefix, where, rules
    for unit in units(body):
        where = said.where.get(unit.key) if unit.key is not None else None
        if where is not None:
            marker = _MARKER.match(unit.lines[0])
            prefix = marker.group(0) if marker else ""
            if last is not None and last[:2] == (prefix, where):
                out.pop()  # rules dropped one after another share one note
            last = (prefix, where, last[2] + 1 if last and last[:2] == (prefix, where) else 1)
            out.append(prefix + note(last[2], where))
            noted += len(unit.lines)
            dropped[where] = dropped.get(where, 0) + 1
            continue
        last = None
        if unit.key is not None:
            said.where[unit.key] = f"the section From `{path}`"
            fresh += 1
        out.extend(unit.lines)
        moved += sum(1 for line in unit.lines if line.strip())
    if dropped and not fresh:
        out = [note(sum(dropped.values()), " and ".join(dropped))]
        moved = 0
    while out and not out[-1].strip():
        out.pop()
    while out and not out[0].strip():
        out.pop(0)
    if not out:
        return "", 0, noted
    end = closing(out)  # a block the file left open ends with it, as at the end of that file
    lines = [*_shifted(out), *([end] if end else [])]
    section = said.newline.join([f"## From `{path}`", "", *lines, ""])
    return section, moved, noted


def note(rules: int, where: str) -> str:
    """The line left where rules already said were (MIGRATE.md shows it)."""
    what = "a rule" if rules == 1 else f"{rules} rules"
    return f"({what} already said in {where})"


def _shifted(lines: Sequence[str]) -> list[str]:
    """Headings moved two levels down (outside fences and HTML blocks), so they sit under the
    section (in the middle of AGENTS.md, a ``---`` pair is no front matter)."""
    opaque = inside(lines, ("fence", "html"))
    shifted = []
    for index, line in enumerate(lines):
        heading = None if index in opaque else HEADING.match(line)
        if heading is not None:
            level = min(6, len(heading.group(1)) + 2)
            line = "#" * level + line[len(heading.group(1)) :]
        shifted.append(line)
    return shifted


def _consolidated(agents: Text | None, sections: Sequence[str], newline: str) -> bytes:
    """AGENTS.md with the consolidated sections after the user's text (our block stays put)."""
    if agents is None:
        head = (
            f"# AGENTS.md{newline}{newline}Instructions for every coding agent working in this"
            f"{newline}repository, gathered by agent-memory from the files named below.{newline}"
        )
        return (head + newline + newline.join(sections)).encode()
    text = "".join(agents.lines)
    if text and not text.endswith("\n"):
        text += newline
    if text.strip():
        text += newline
    body = text + newline.join(sections)
    return (("\ufeff" if agents.bom else "") + body).encode()


def _pointer(source: Source, split: frontmatter.Split, imports: Sequence[str], text: Text) -> bytes:
    """What an always-on source becomes: our pointer block, its frontmatter and imports kept
    (each file once, and not the ``@AGENTS.md`` the block already has, however written)."""
    template = (
        _vendor_template(source) if source.kind in ("import", "copilot") else POINTER_TEMPLATE
    )
    newline = text.newline
    block = [strip_eol(line) + newline for line in block_of(template, resources.data(template))]
    first: dict[str, str] = {}  # each file once, from its folder: `@./AGENTS.md` is `@AGENTS.md`
    for line in (strip_eol(line).strip() for line in imports):
        first.setdefault(posixpath.normpath(line[1:]), line)
    kept = [line for path, line in first.items() if path != AGENTS_MD]  # the block imports it
    lines = [*split.header, *block]
    if kept:
        lines += [newline, *(line + newline for line in kept)]
    return (("\ufeff" if text.bom else "") + "".join(lines)).encode()
