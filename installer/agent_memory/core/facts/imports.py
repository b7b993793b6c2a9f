"""``import``: the entries of an agent's own memory, as facts to add (MIGRATE.md § Importing an
agent's memory).

Pure: a source's files (each named as the origin will name it, with its bytes) in, entries out,
each with its text (every non-empty line of it), the section its kind suggests, its ``origin``
and where it came from. A source that is not of the named kind is refused with one line.
"""

import datetime as dt
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any, NamedTuple

from ...errors import InputError
from ...parse import frontmatter
from ...parse.outline import outline
from ...parse.text import decode, strip_eol
from ..vendors import bank, stores
from ..vendors.table import STORES
from .add import DEFAULT_SECTION

# Claude Code's memory types → sections (MIGRATE.md's table).
CLAUDE_SECTIONS = MappingProxyType(
    {
        "user": "User Preferences",
        "feedback": "Conventions",
        "project": DEFAULT_SECTION,
        "reference": "Stack & Tools",
    }
)
CODEX_SECTION = "Conventions"
GEMINI_SECTION = DEFAULT_SECTION
GEMINI_HEADING = "## Gemini Added Memories"
# Serena memory file names → sections, the first word found deciding; else Key Decisions.
SERENA_SECTIONS = (
    ("style", "Conventions"),
    ("convention", "Conventions"),
    ("checklist", "Conventions"),
    ("command", "Stack & Tools"),
    ("tech", "Stack & Tools"),
    ("stack", "Stack & Tools"),
    ("overview", "Project Context"),
    ("structure", "Project Context"),
)
_STORE_KINDS = MappingProxyType(
    {"cline": "memory-bank", "context-yaml": "context-yaml", "co-cli": "co-cli-memory"}
)


class Entry(NamedTuple):
    text: str  # its lines, joined by newlines
    section: str
    origin: str  # "<kind>:<file>", what the fact's origin: says
    line: int  # where it starts in its file (1-based), for a refusal
    fields: Mapping[str, str] = MappingProxyType({})  # history a store kept (created, uses, …)
    task: str | None = None  # " " an open thread, "x" a done one
    wanted_id: str | None = None
    # The text without what the import put before it (a Claude topic file's "name — description"):
    # a fact that says just this is the entry already.
    body: str | None = None


def entries(
    kind: str, files: Sequence[tuple[str, bytes]], roots: Sequence[str], day: dt.date
) -> list[Entry]:
    """The entries of a source's files (named relative to the source's folder, sorted); ``roots``
    are the repo's absolute paths, which Codex's memories name as the ``cwd`` of their work
    (none: every block is this repo's)."""
    if kind == "claude":
        return _claude(files)
    if kind == "codex":
        return [e for name, data in files for e in _codex(name, data, roots)]
    if kind == "gemini":
        return [e for name, data in files for e in _gemini(name, data)]
    if kind == "serena":
        return [e for name, data in files for e in _serena(name, data, day)]
    return [e for name, data in files for e in _store(kind, name, data, day)]


def not_of_kind(where: str, kind: str, what: str) -> InputError:
    return InputError(where, None, f"is not {what}", f"name a {kind} source, or another --from")


def _lines(name: str, data: bytes) -> list[str]:
    return [strip_eol(line).rstrip() for line in decode(name, data).lines]


def _claude(files: Sequence[tuple[str, bytes]]) -> list[Entry]:
    """Claude Code's auto memory: a topic file per memory (frontmatter name, description, type)
    and MEMORY.md, the index; an index line that links a topic file is that file's entry."""
    topics = [(name, data) for name, data in files if name != "MEMORY.md"]
    index = [data for name, data in files if name == "MEMORY.md"]
    split = [(name, frontmatter.split(name, decode(name, data))) for name, data in topics]
    if not index and not any("type" in found.data for _name, found in split):
        raise not_of_kind("", "claude", "Claude Code auto memory (no MEMORY.md, no file "
                          "with name/description/type frontmatter)")  # fmt: skip
    found = []
    for number, line in enumerate(_lines("MEMORY.md", index[0]) if index else [], start=1):
        text = line.strip().lstrip("-*+ ").strip()
        if text and not line.startswith("#") and not any(f"]({n})" in line for n, _ in topics):
            found.append(Entry(text, DEFAULT_SECTION, "claude:MEMORY.md", number))
    for name, memory in split:
        meta: Any = memory.data
        said = [stores.text_value(name, meta, k, 2) for k in ("name", "description") if k in meta]
        head = " — ".join(text.strip() for text in said if text.strip())
        body = [strip_eol(line).rstrip() for line in memory.body]
        text = "\n".join(line for line in (head, *body) if line.strip())
        alone = "\n".join(line for line in body if line.strip())
        if text:
            section = CLAUDE_SECTIONS.get(str(meta.get("type", "")).lower(), DEFAULT_SECTION)
            bare = alone if head and alone else None
            found.append(Entry(text, section, f"claude:{name}", 1, body=bare))
    return found


def _codex(name: str, data: bytes, roots: Sequence[str]) -> list[Entry]:
    """Codex's MEMORY.md: blocks of a ``---`` header (rollout_summary_files with ``cwd=``,
    description, keywords) and bullets; the bullets of a block whose work was in this repo."""
    lines = _lines(name, data)
    code = outline(lines).code
    inside = _inside(lines, code)
    rules = [n for n, line in enumerate(lines) if line == "---" and n not in inside]
    found: list[Entry] = []
    blocks = 0
    for at, end, stop in zip(rules[::2], rules[1::2], [*rules[2::2], len(lines)], strict=False):
        header = "\n".join(lines[at + 1 : end])
        if "description:" in header or "rollout_summary_files:" in header:
            blocks += 1
            if not roots or _ours(header, roots):
                found += _bullets(name, lines, (end + 1, stop), "codex", CODEX_SECTION, code)
    if not blocks and any(line.strip() for line in lines):
        raise not_of_kind(name, "codex", "Codex's MEMORY.md (no block with a --- header)")
    return found


def _ours(header: str, roots: Sequence[str]) -> bool:
    """Whether a Codex block's header names a ``cwd=`` in one of ``roots``."""
    for piece in header.split("cwd=")[1:]:
        cwd = piece.split(",")[0].split(")")[0].strip().rstrip("/")
        if any(cwd == root or cwd.startswith(root + "/") for root in roots):
            return True
    return False


def _inside(lines: Sequence[str], code: Sequence[tuple[int, int]]) -> set[int]:
    """The lines of the code blocks, where no ``## `` or ``---`` ends a section or block; but a
    fence left open to the file's end (an answer cut short) runs only to the end of its own."""
    return {
        n
        for start, end in code
        if end < len(lines) or not _closing(_stripped(lines[start:end]))
        for n in range(start, end)
    }


def _stripped(lines: Sequence[str]) -> list[str]:
    return [line.strip() for line in lines if line.strip()]


def _bullets(
    name: str,
    lines: Sequence[str],
    span: tuple[int, int],
    kind: str,
    section: str,
    code: Sequence[tuple[int, int]],
) -> list[Entry]:
    """Each top-level ``- `` item of ``lines[start:stop]`` with the lines under it: indented,
    or not (a wrapped line goes on with the item or paragraph above until a blank line, as
    Markdown reads it); another line after a blank is an entry of its own. A code block goes
    whole with the entry right above it, or is an entry after a blank line or when it opens on
    an item's own line: its ``#`` and ``- `` lines and blank lines are code, not a heading, an
    item or an entry's end; it ends with the span at the latest, and a fence Markdown closed only
    where its item (or the span) ended is closed in the entry; the line after it starts anew."""
    blocks = dict(code)
    found: list[tuple[int, list[str]]] = []
    blank, number = True, span[0]
    while number < span[1]:
        line, end = lines[number], blocks.get(number)
        item = line.startswith(("- ", "* ", "+ "))
        if end is not None:
            end = min(end, span[1])
            block = _stripped([line[2:] if item else line, *lines[number + 1 : end]])
            block += filter(None, [_closing(block)])
            if found and not item and (line.startswith((" ", "\t")) or not blank):
                found[-1][1].extend(block)
            else:  # after a blank line, or opened on an item's own line ("- ```sh")
                found.append((number + 1, block))
            blank, number = True, end
            continue
        if item:
            found.append((number + 1, [line[2:].strip()]))
        elif not line.strip() or line.startswith("#"):
            pass  # a heading ends what is above it, as a blank line does
        elif found and (line.startswith((" ", "\t")) or not blank):
            found[-1][1].append(line.strip())
        else:
            found.append((number + 1, [line.strip()]))
        blank, number = not line.strip() or line.startswith("#"), number + 1
    origin = f"{kind}:{name}"
    return [Entry("\n".join(text), section, origin, at) for at, text in found if text[0]]


def _closing(block: Sequence[str]) -> str:
    """The fence a code block (its stripped lines) still needs, when Markdown closed it only
    where its item or the file ended: "" for a closed fence or an indented block."""
    mark = block[0][:1]
    run = len(block[0]) - len(block[0].lstrip(mark)) if mark in ("`", "~") else 0
    if run < 3:
        return ""
    closed = len(block) > 1 and block[-1].startswith(mark * run) and not block[-1].strip(mark)
    return "" if closed else mark * run


def _gemini(name: str, data: bytes) -> list[Entry]:
    """The ``## Gemini Added Memories`` section save_memory appends ``- fact`` lines to, or a
    project memory file of nothing but such lines."""
    lines = _lines(name, data)
    code = outline(lines).code
    inside = _inside(lines, code)
    headings = [n for n, line in enumerate(lines) if line.startswith("## ") and n not in inside]
    start = next((n + 1 for n in headings if lines[n] == GEMINI_HEADING), None)
    if start is not None:
        stop = next((n for n in headings if n >= start), len(lines))
        return _bullets(name, lines, (start, stop), "gemini", GEMINI_SECTION, code)
    if all(line.startswith("- ") for line in lines if line.strip()):
        return _bullets(name, lines, (0, len(lines)), "gemini", GEMINI_SECTION, code)
    raise not_of_kind(name, "gemini", f"Gemini's memory (no {GEMINI_HEADING!r} section)")


def _serena(name: str, data: bytes, day: dt.date) -> list[Entry]:
    """A Serena memory file: each item and paragraph one fact, as Mode C reads a memory bank."""
    lowered = name.lower()
    section = next((s for word, s in SERENA_SECTIONS if word in lowered), DEFAULT_SECTION)
    body = decode(name, data).lines
    facts = bank.markdown_facts(name, body, section, day.isoformat())
    return [_from_store("serena", name, fact) for fact in facts]


def _store(kind: str, name: str, data: bytes, day: dt.date) -> list[Entry]:
    """Mode C's stores (Cline's memory bank, CONTEXT.yaml, co-cli), read as Mode C reads them."""
    wanted = _STORE_KINDS[kind]
    source = next(s for s in STORES if s.kind == wanted)
    facts = stores.store_facts(name, source, data, day.isoformat())
    return [_from_store(kind, name, fact) for fact in facts]


def _from_store(kind: str, name: str, fact: bank.Fact) -> Entry:
    """A store's fact as an entry: its history kept, an archived one archived by hand (the next
    review moves it), its own id wanted."""
    fields = {k: v for k, v in fact.fields.items() if k not in ("id", "origin")}
    if fact.archived:
        fields |= {"tier": "archived", "archived-by": "hand"}
    origin = fact.fields.get("origin", name).replace(name, f"{kind}:{name}", 1)
    text = "\n".join(line for line in fact.lines if line.strip())
    return Entry(text, fact.section, origin, fact.line, fields, fact.task, fact.fields.get("id"))
