"""The archive: quarter files ``memory/archive/YYYY-QN.md`` and the generated ``INDEX.md``."""

from __future__ import annotations

from collections.abc import Container, Iterable

from ... import patterns
from ...layout import ARCHIVE_DIR
from ...parse.facts import Document, Fact
from ...parse.text import decode, strip_eol

QUARTER_FILE = patterns.compile(r"^[0-9]{4}-Q[1-4]\.md\Z")


def quarter_paths(names: Iterable[str]) -> list[str]:
    """The archive's quarter files among the names in ``memory/archive/``, as paths, in the
    order given: the work tree's and a commit's read alike."""
    return [f"{ARCHIVE_DIR}/{name}" for name in names if QUARTER_FILE.match(name)]


def is_quarter(path: str) -> bool:
    """Whether ``path`` is in the archive and named as a quarter file."""
    return path.startswith(ARCHIVE_DIR + "/") and bool(QUARTER_FILE.match(path.rsplit("/", 1)[-1]))


FACTS = "Facts"
COMPLETED = "Completed Threads"
INDEX_LINE_MAX = 100


def new_quarter(quarter: str) -> bytes:
    return f"# Archive {quarter}\n\n## {FACTS}\n\n## {COMPLETED}\n".encode()


def index_line(fact: Fact, file_name: str) -> str:
    """``- id — first line → file``; a ``note`` (a hand-written summary) stands for the first
    line, and a ``reason`` (or the successor of a superseded fact) follows it."""
    fields = dict(fact.fields)  # once: the review writes a line for every archived fact
    first = fields.get("note") or fact.first_line
    if len(first) > INDEX_LINE_MAX:
        first = first[: INDEX_LINE_MAX - 1] + "…"
    reason = fields.get("reason")
    if reason is None and fields.get("tier") == "superseded" and fields.get("superseded-by"):
        reason = f"superseded by {fields['superseded-by']}"
    return f"- {fact.id} — {first}{f' — {reason}' if reason else ''} → {file_name}"


def index_lines(archives: Iterable[Document], leaving: Container[str] = ()) -> list[str]:
    """The INDEX line of every archived fact with an id, but those ``leaving`` the archive."""
    return [
        index_line(fact, doc.path.rsplit("/", 1)[-1])
        for doc in archives
        for fact in doc.facts
        if fact.id is not None and fact.id not in leaving
    ]


def render_index(existing: bytes | None, template: bytes, entries: Iterable[str]) -> bytes:
    """INDEX.md: the existing header (or the template's) kept, then one line per id, sorted."""
    source = existing if existing is not None else template
    text = decode("memory/archive/INDEX.md", source)
    header: list[str] = []
    for line in text.lines:
        if strip_eol(line).startswith("- "):
            break
        header.append(line)
    newline = text.newline
    if header and not header[-1].endswith("\n"):
        header[-1] += newline
    body = "".join(header) + "".join(f"{entry}{newline}" for entry in sorted(entries))
    return (("\ufeff" if text.bom else "") + body).encode()
