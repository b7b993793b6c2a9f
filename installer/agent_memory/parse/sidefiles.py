"""The memory files beside continuity.md (DESIGN §13): one-file open threads and vision.md.

A thread file ``memory/open-threads/*.md`` is one task item with its footer and no heading: it
reads as a fact of Open Threads. ``memory/vision.md`` is prose whose one footer sits in a
blockquote: it reads as one pinned fact, the footer's line, of the section Vision. A footer
inside a fence, an HTML block or a front matter (``markdown``'s block rule) is an example, not
the fact; a comment on a line of its own is a footer's own HTML block, and counts.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..errors import Problem
from ..layout import OPEN_THREADS, OPEN_THREADS_DIR, VISION, VISION_SECTION
from . import footer
from .facts import Document, Fact, parse
from .markdown import blocks
from .text import Text, decode, strip_eol

THREAD_FILE_SUFFIX = ".md"


def thread_paths(names: Iterable[str]) -> list[str]:
    """The one-file threads among the names in ``memory/open-threads/``, as paths, in the
    order given: the work tree's and a commit's read alike."""
    return [
        f"{OPEN_THREADS_DIR}/{name}"
        for name in names
        if name.endswith(THREAD_FILE_SUFFIX) and not name.startswith(".")
    ]


def parse_thread(path: str, data: bytes) -> Document:
    return parse(path, data, OPEN_THREADS)


def parse_file(path: str, data: bytes) -> Document:
    """Any memory file by its path: vision.md, a one-file thread, or a document of sections."""
    if path == VISION:
        return parse_vision(data)
    if path.startswith(OPEN_THREADS_DIR + "/"):
        return parse_thread(path, data)
    return parse(path, data)


def parse_vision(data: bytes) -> Document:
    """vision.md as a document of at most one fact: the line that holds its footer."""
    text = decode(VISION, data)
    problems: list[Problem] = []
    found: list[Fact] = []
    examples = _examples(text)
    for index, line in enumerate(text.lines):
        located = None if index in examples else footer.find(strip_eol(line))
        if located is None:
            continue
        if found:
            problems.append(
                Problem(
                    VISION,
                    index + 1,
                    "error",
                    "footer-multiple",
                    "vision.md holds one fact; keep one footer",
                )
            )
            continue
        fields, wrong = footer.parse_fields(located.body)
        problems.extend(p._replace(path=VISION, line=index + 1) for p in wrong)
        first = strip_eol(line)[: located.start].lstrip("> \t").strip() or _title(text, examples)
        fact_id = dict(fields).get("id")
        span = (located.start, located.end)
        found.append(
            Fact(VISION_SECTION, index, index + 1, index, span, fields, None, first, fact_id)
        )
    return Document(VISION, text, (), tuple(found), tuple(problems))


def _examples(text: Text) -> set[int]:
    """The lines no footer or title is read from: those of a fence, a front matter or an HTML
    block other than a comment's (a footer on a line of its own is one)."""
    if not any(mark in text.body for mark in ("```", "~~~", "<", "---")):
        return set()
    lines = text.lines
    return {
        n
        for block in blocks(lines)
        if block.kind != "html" or not lines[block.start].lstrip(" ").startswith("<!--")
        for n in range(block.start, block.end)
    }


def _title(text: Text, examples: set[int]) -> str:
    """The first heading's text: what names a vision whose footer has a line of its own."""
    for index, line in enumerate(text.lines):
        if line.startswith("#") and index not in examples:
            return strip_eol(line).lstrip("#").strip()
    return ""
