"""Mode C: vendor instruction files and memory stores into the vendor-neutral layer (MIGRATE.md).

Pure functions from the detected files to the changes. Instruction files that are always on
have their text consolidated into AGENTS.md (duplicate paragraphs kept once) and become pointer
files; scoped rules stay. Memory stores become facts with ids and footers, and are left in place.
The verbatim original of every file the migration reads is kept under ``.agent/migrated/``.
"""

from __future__ import annotations

import datetime as dt
import fnmatch
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from .. import resources
from ..errors import InputError
from ..layout import VENDORS
from ..parse import footer, frontmatter
from ..parse.dates import parse_date, quarter_of
from ..parse.text import Text, decode, strip_eol
from .archive import new_quarter
from .blocks import block_of, find_block, upsert_block
from .edits import append_to_section
from .tiers import at_birth

MIGRATED_DIR = ".agent/migrated"
POINTER_TEMPLATE = "templates/pointer.md"


@dataclass(frozen=True, slots=True)
class Source:
    """One row of the detection table (MIGRATE.md § What is detected)."""

    pattern: str
    kind: str  # how it is read: see the table in MIGRATE.md
    vendor: str | None  # the bootstrap it implies


INSTRUCTIONS = (
    Source("AGENTS.md", "agents", None),
    Source("CLAUDE.md", "import", "claude"),
    Source(".claude/CLAUDE.md", "plain", "claude"),
    Source(".claude/rules/*.md", "frontmatter", "claude"),
    Source("GEMINI.md", "import", "gemini"),
    Source(".cursorrules", "plain", "cursor"),
    Source(".cursor/rules/**/*.mdc", "cursor-rule", "cursor"),
    Source(".github/copilot-instructions.md", "copilot", "copilot"),
    Source(".github/instructions/*.instructions.md", "scoped", "copilot"),
    Source(".windsurfrules", "plain", None),
    Source(".windsurf/rules/*.md", "frontmatter", None),
    Source(".clinerules", "plain", None),
    Source(".clinerules/*.md", "frontmatter", None),
    Source(".roo/rules/*", "plain", None),
    Source("CONVENTIONS.md", "plain", None),
    Source(".junie/guidelines.md", "plain", None),
    Source(".amazonq/rules/*.md", "frontmatter", None),
    Source(".kiro/steering/*.md", "frontmatter", None),
    Source(".rules", "plain", None),
    Source(".continue/rules/*.md", "frontmatter", None),
)
STORES = (
    Source("memory-bank/*.md", "memory-bank", None),
    Source("CONTEXT.yaml", "context-yaml", None),
    Source(".co-cli/knowledge/context.md", "co-cli-context", None),
    Source(".co-cli/knowledge/memories/*.md", "co-cli-memory", None),
)
TABLE = INSTRUCTIONS + STORES

# Cline's memory bank: file → section of continuity.md.
BANK_SECTIONS = MappingProxyType(
    {
        "projectbrief.md": "Project Context",
        "productContext.md": "Project Context",
        "systemPatterns.md": "Key Decisions",
        "techContext.md": "Stack & Tools",
        "activeContext.md": "Open Threads",
        "progress.md": "Open Threads",
    }
)
# CONTEXT.yaml entry type → section.
CONTEXT_SECTIONS = MappingProxyType(
    {"decision": "Key Decisions", "pattern": "Conventions", "gotcha": "Conventions"}
)
# co-cli memory tag → section (the first tag that maps decides).
TAG_SECTIONS = MappingProxyType(
    {
        "preference": "User Preferences",
        "decision": "Key Decisions",
        "convention": "Conventions",
        "correction": "Conventions",
        "tool": "Stack & Tools",
        "stack": "Stack & Tools",
    }
)
_DONE_HEADING = re.compile(r"done|complete|finished|works|working|recent|changes", re.IGNORECASE)
_IMPORT = re.compile(r"^@\S+\s*$")
_HEADING = re.compile(r"^(#{1,6})(\s)")
_FENCE = re.compile(r"^\s{0,3}(```|~~~)")
_BULLET = re.compile(r"^([-*+])\s+(\[[ xX]\]\s+)?(.*)$")
_NUMBERED = re.compile(r"^[0-9]+[.)]\s+(.*)$")


def matches(pattern: str, path: str) -> bool:
    """Whether ``path`` is a file of this table row (``**`` spans folders, ``*`` does not)."""
    if "**" in pattern:
        head, tail = pattern.split("/**/", 1)
        return path.startswith(head + "/") and fnmatch.fnmatch(path.rsplit("/", 1)[-1], tail)
    return fnmatch.fnmatch(path, pattern) and path.count("/") == pattern.count("/")


def source_of(path: str) -> Source:
    return next(source for source in TABLE if matches(source.pattern, path))


@dataclass(frozen=True, slots=True)
class Fact:
    section: str
    lines: tuple[str, ...]  # the text, first line without its bullet
    fields: Mapping[str, str]
    task: str | None = None  # None, " " or "x"
    archived: bool = False


@dataclass
class Migration:
    """What Mode C produces: new file contents, facts for continuity.md, vendors seen."""

    files: dict[str, bytes] = field(default_factory=dict)
    reasons: dict[str, str] = field(default_factory=dict)
    facts: list[Fact] = field(default_factory=list)
    vendors: set[str] = field(default_factory=set)


def migrate(
    sources: Mapping[str, bytes], agents: bytes | None, today: dt.date, keep_vendor_files: bool
) -> Migration:
    """Plan Mode C for the detected ``sources`` (path → bytes); ``agents`` is AGENTS.md."""
    out = Migration()
    day = today.isoformat()
    seen: set[str] = set()
    sections: list[str] = []
    agents_text = decode("AGENTS.md", agents) if agents is not None else None
    if agents_text is not None:
        seen.update(_paragraphs(agents_text.lines))
    newline = agents_text.newline if agents_text is not None else "\n"
    for path in sorted(sources, key=_table_order):
        source = source_of(path)
        data = sources[path]
        if source.vendor:
            out.vendors.add(source.vendor)
        if source in STORES:
            out.facts.extend(_store_facts(path, source, data, day))
            _keep_original(
                out, path, data, "memory store imported into continuity.md; left in place"
            )
            continue
        if source.kind in ("agents", "scoped"):
            continue
        text = decode(path, data)
        split = (
            frontmatter.split(path, text)
            if source.kind in ("frontmatter", "cursor-rule")
            else frontmatter.Split((), text.lines, {})
        )
        if not _always_on(source, split.data):
            continue
        if keep_vendor_files:
            if source.kind in ("import", "copilot"):
                block = resources.data(_vendor_template(source))
                after, _ = upsert_block(path, data, block)
                if after != data:
                    out.files[path] = after
                    out.reasons[path] = "agent-memory block appended; your text is untouched"
            continue
        body, imports = _body(source, split.body)
        section = _section(path, body, seen, newline)
        if section:
            sections.append(section)
        out.files[path] = _pointer(source, split, imports, text)
        out.reasons[path] = f"text moved to AGENTS.md; original in {MIGRATED_DIR}/{path}"
        _keep_original(out, path, data, "verbatim original")
    if sections:
        out.files["AGENTS.md"] = _consolidated(agents_text, sections, newline)
        out.reasons["AGENTS.md"] = "always-on instructions consolidated here"
    return out


def _table_order(path: str) -> tuple[int, str]:
    return TABLE.index(source_of(path)), path


def _vendor_template(source: Source) -> str:
    assert source.vendor is not None
    return VENDORS[source.vendor][1]


def _keep_original(out: Migration, path: str, data: bytes, reason: str) -> None:
    out.files[f"{MIGRATED_DIR}/{path}"] = data
    out.reasons[f"{MIGRATED_DIR}/{path}"] = reason


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
        or data.get("inclusion") in ("fileMatch", "manual")
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


def _paragraphs(lines: Iterable[str]) -> list[str]:
    """Blank-line separated blocks, whitespace-normalised, fences kept whole."""
    blocks: list[list[str]] = [[]]
    fenced = False
    for line in lines:
        bare = strip_eol(line).rstrip()
        if _FENCE.match(bare):
            fenced = not fenced
        if not bare and not fenced:
            blocks.append([])
        else:
            blocks[-1].append(bare)
    return ["\n".join(block) for block in blocks if block]


def _section(path: str, body: Sequence[str], seen: set[str], newline: str) -> str:
    """``## From `path` `` and the source's paragraphs not already said; headings shifted down."""
    kept = []
    for paragraph in _paragraphs(body):
        if paragraph in seen:
            continue
        seen.add(paragraph)
        kept.append(paragraph)
    if not kept:
        return ""
    shifted = []
    fenced = False
    for line in "\n\n".join(kept).split("\n"):
        if _FENCE.match(line):
            fenced = not fenced
        heading = None if fenced else _HEADING.match(line)
        if heading is not None:
            level = min(6, len(heading.group(1)) + 2)
            line = "#" * level + line[len(heading.group(1)) :]
        shifted.append(line)
    return newline.join([f"## From `{path}`", "", *shifted, ""])


def _consolidated(agents: Text | None, sections: Sequence[str], newline: str) -> bytes:
    """AGENTS.md with the consolidated sections after the user's text (our block comes last)."""
    if agents is None:
        head = (
            f"# AGENTS.md{newline}{newline}Instructions for every coding agent working in this"
            f"{newline}repository, gathered by agent-memory from the files named below.{newline}"
        )
        return (head + newline + newline.join(sections)).encode()
    lines = list(agents.lines)
    span = find_block("AGENTS.md", agents.lines)
    tail: list[str] = []
    if span is not None:  # keep our block (if any) at the very end
        lines, tail = lines[: span[0]], lines[span[0] :]
    text = "".join(lines)
    if text and not text.endswith("\n"):
        text += newline
    if text.strip():
        text += newline
    body = text + newline.join(sections)
    if tail:
        body += newline + "".join(tail)
    return (("\ufeff" if agents.bom else "") + body).encode()


def _pointer(source: Source, split: frontmatter.Split, imports: Sequence[str], text: Text) -> bytes:
    """What an always-on source becomes: our pointer block, its frontmatter and imports kept."""
    template = (
        _vendor_template(source) if source.kind in ("import", "copilot") else POINTER_TEMPLATE
    )
    newline = text.newline
    block = [strip_eol(line) + newline for line in block_of(template, resources.data(template))]
    lines = [*split.header, *block]
    if imports:
        lines += [newline, *(strip_eol(line) + newline for line in imports)]
    return (("\ufeff" if text.bom else "") + "".join(lines)).encode()


# -- memory stores ---------------------------------------------------------------------------


def _store_facts(path: str, source: Source, data: bytes, day: str) -> list[Fact]:
    if source.kind == "context-yaml":
        return _context_yaml(path, data, day)
    text = decode(path, data)
    if source.kind == "co-cli-memory":
        return _co_cli_memory(path, text, day)
    split = frontmatter.split(path, text)
    name = path.rsplit("/", 1)[-1]
    section = (
        BANK_SECTIONS.get(name, "Project Context")
        if source.kind == "memory-bank"
        else "Project Context"
    )
    return _markdown_facts(path, split.body, section, day)


def _markdown_facts(path: str, lines: Sequence[str], section: str, day: str) -> list[Fact]:
    """Each top-level bullet (with what is indented under it) and each paragraph is one fact.

    In a file mapped to Open Threads, bullets become threads: checked under a heading that says
    the work is done, open otherwise; paragraphs there go to Project Context.
    """
    facts: list[Fact] = []
    threads = section == "Open Threads"
    done = False
    current: list[str] = []
    current_task: str | None = None
    paragraph = False

    def flush() -> None:
        nonlocal current, current_task
        if current:
            target = section if (not paragraph or not threads) else "Project Context"
            task = current_task if target == "Open Threads" else None
            facts.append(Fact(target, tuple(current), _fields(day, path), task))
        current, current_task = [], None

    fenced = False
    for raw in lines:
        line = strip_eol(raw).rstrip()
        if _FENCE.match(line):
            fenced = not fenced
        if fenced or (current and line[:1] in (" ", "\t") and line.strip()):
            if current:
                current.append(line)
            continue
        if not line.strip():
            if paragraph:
                flush()
            continue
        heading = _HEADING.match(line)
        if heading is not None:
            flush()
            done = bool(_DONE_HEADING.search(line))
            continue
        bullet = _BULLET.match(line) or _NUMBERED.match(line)
        if bullet is not None:
            flush()
            paragraph = False
            if bullet.re is _BULLET:
                box = bullet.group(2)
                current_task = box[1].lower() if box else ("x" if done else " ")
                current = [bullet.group(3)]
            else:
                current_task = "x" if done else " "
                current = [bullet.group(1)]
            if not threads:
                current_task = None
            continue
        if current and paragraph:
            current.append(line)
            continue
        flush()
        paragraph = True
        current = [line]
    flush()
    return facts


def _fields(day: str, origin: str, **known: str) -> dict[str, str]:
    """Imported text is sanitised where it becomes a footer value (the origin's id part)."""
    origin = footer.safe_value(origin)
    return {"created": day, "last_used": day, "uses": "1", "origin": origin, **known}


def _date(value: Any, day: str) -> str:
    text = str(value)[:10] if value is not None else ""
    return text if parse_date(text) is not None else day


def _context_yaml(path: str, data: bytes, day: str) -> list[Fact]:
    """The memory-management skill's CONTEXT.yaml: core, domain and archive entries."""
    doc = frontmatter.load(path, decode(path, data).body) or {}
    if not hasattr(doc, "get"):
        raise InputError(
            path,
            1,
            "is not a mapping with core/domain/archive",
            "fix the YAML, then run enable again",
        )
    groups: list[tuple[str, Any]] = [("core", doc.get("core") or [])]
    domain = doc.get("domain") or {}
    if hasattr(domain, "items"):
        groups += [("domain", entries or []) for _name, entries in domain.items()]
    else:
        groups.append(("domain", domain))
    groups.append(("archive", doc.get("archive") or []))
    facts = []
    for group, entries in groups:
        if not isinstance(entries, list):
            raise InputError(
                path, 1, f"{group} is not a list of entries", "fix the YAML, then run enable again"
            )
        for entry in entries:
            if not hasattr(entry, "get") or not str(entry.get("content") or "").strip():
                continue
            section = CONTEXT_SECTIONS.get(str(entry.get("type") or ""), "Key Decisions")
            created = _date(entry.get("created"), day)
            fields = _fields(day, f"{path}#{entry.get('id', '')}".rstrip("#"), created=created)
            uses = entry.get("use_count")
            if type(uses) is int and 0 <= uses <= footer.MAX_COUNT:  # else: count unknown
                last = _date(entry.get("last_used"), created)
                fields |= {
                    "base_uses": str(uses),
                    "base_last_used": last,
                    "uses": str(uses),
                    "last_used": last,
                }
            wanted = str(entry.get("id") or "").replace("_", "-").lower()
            if wanted and footer.ID.match(wanted):
                fields["id"] = wanted
            if group == "core":
                fields["tier"] = "core"
            lines = str(entry["content"]).strip().split("\n")
            extras = [
                f"- {key}: {entry[key]}"
                for key in ("confidence", "domain", "evidence")
                if entry.get(key) not in (None, "", [])
            ]
            facts.append(Fact(section, tuple(lines + extras), fields, None, group == "archive"))
    return facts


def _co_cli_memory(path: str, text: Text, day: str) -> list[Fact]:
    """A co-cli memory: markdown body with id/created/tags/updated/decay_protected frontmatter."""
    split = frontmatter.split(path, text)
    body = [strip_eol(line).rstrip() for line in split.body]
    while body and not body[0].strip():
        body.pop(0)
    while body and not body[-1].strip():
        body.pop()
    if not body:
        return []
    meta = split.data
    tags = [str(tag).lower() for tag in (meta.get("tags") or [])]
    section = next((TAG_SECTIONS[t] for t in tags if t in TAG_SECTIONS), "Key Decisions")
    created = _date(meta.get("created"), day)
    fields = _fields(day, path, created=created, last_used=created)
    if meta.get("updated"):
        updated = _date(meta.get("updated"), created)
        fields |= {"base_uses": "1", "base_last_used": updated, "last_used": updated}
    if meta.get("decay_protected") is True:
        fields["tier"] = "core"
    lines = [body[0].lstrip("-*+ ").strip() or body[0], *body[1:]]
    return [Fact(section, tuple(lines), fields)]


# -- facts into continuity.md and the archive ------------------------------------------------


def memory_files(
    continuity: Text, facts: Sequence[Fact], today: dt.date
) -> tuple[bytes, bytes | None]:
    """continuity.md with the imported facts, and the archive quarter file for archived ones."""
    day = today.isoformat()
    taken: set[str] = set()
    wanted = [f.fields.get("id") or footer.slug(f.lines[0]) for f in facts]
    ids = footer.unique_ids(wanted, taken)
    text = continuity
    quarter = quarter_of(today)
    archive = decode("archive", new_quarter(quarter)) if any(f.archived for f in facts) else None
    by_target: dict[tuple[bool, str], list[str]] = {}
    for fact, fact_id in zip(facts, ids, strict=True):
        fields = {**fact.fields, "id": fact_id}
        if fact.task == "x":
            fields.setdefault("done", day)
        if fact.archived:
            section = "Completed Threads" if fact.task == "x" else "Facts"
            fields |= {"tier": "archived", "from": fact.section, "archived": day}
        else:
            section = fact.section
            fields.setdefault("tier", at_birth(fields, section, fact.task))
        by_target.setdefault((fact.archived, section), []).extend(_fact_lines(fact, fields))
    for (archived, section), lines in by_target.items():
        if archived:
            assert archive is not None
            archive = append_to_section("archive", archive, section, lines)
        else:
            text = append_to_section("memory/continuity.md", text, section, lines)
    return text.encode(), archive.encode() if archive is not None else None


def _fact_lines(fact: Fact, fields: Mapping[str, str]) -> list[str]:
    box = f"[{fact.task}] " if fact.task else ""
    lines = [f"- {box}{fact.lines[0]}\n"]
    for line in fact.lines[1:]:
        if not line.strip():
            lines.append("\n")
        elif line[:1] in (" ", "\t"):
            lines.append(line + "\n")
        else:
            lines.append("  " + line + "\n")
    lines.append("  " + footer.render_checked(fields) + "\n")
    return lines
