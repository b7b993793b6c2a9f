"""Memory documents (continuity.md, archive quarter files): sections, facts and their footers.

Structure comes from the block outline (``outline.py``: a line scanner, or markdown-it-py's block
tokens where the scanner gives up), so code fences, HTML blocks and quoted headings are never
mistaken for facts; regular expressions only look inside a line already known to matter. A file
in the shape the review writes (headings, blank lines, two-line facts) is read by
``scan_written.scan``.

The document keeps every original line, and edits replace whole lines, so parse → render is the
identity and an edit touches only the lines it names.
"""

import bisect
from collections.abc import Iterable, Iterator, Sequence
from typing import NamedTuple

from .. import patterns
from ..errors import InputError, Problem
from . import footer, scan_written
from .markdown import front_matter
from .outline import outline
from .scan_written import PROJECT_STATE as PROJECT_STATE
from .text import Text, decode, strip_eol

BULLET = patterns.compile(r"^(?P<indent>[ \t]*)[-*+](?P<gap>[ \t]+)(?:\[(?P<task>[ xX])\][ \t]+)?")
_BLANK = patterns.compile(r"^[ \t]*\r?\n?$")
# The fast path pays for itself from here: compiling its expression costs 3.3 ms a process, about
# what it saves on 170 facts; a session-start command on a lean continuity.md must not pay it.
PLAIN_FROM = 300  # lines
# A file longer than this is not a memory file we can keep lean; we refuse rather than grind.
MAX_DOCUMENT_LINES = 100_000
_CONFLICT = patterns.compile(r"^(<{7}|\|{7}|>{7})(?: |$)|^={7}$")


class Fact(NamedTuple):
    section: str
    start: int  # first line index
    end: int  # one past the last line, trailing blank lines excluded
    footer_line: int | None
    footer_span: tuple[int, int]  # offsets of the comment within its line
    fields: footer.Fields
    task: str | None  # None: plain bullet; " ": open thread; "x": checked thread
    first_line: str  # the bullet's text without marker and footer
    id: str | None  # the footer's id, read once: the review looks it up for every fact

    @property
    def line(self) -> int:
        """The 1-based line a finding about this fact points at: its footer, else its bullet."""
        return (self.footer_line if self.footer_line is not None else self.start) + 1

    def field(self, key: str) -> str | None:
        return dict(self.fields).get(key)


class Section(NamedTuple):
    title: str
    heading: int  # line index of the heading
    end: int  # one past its last line


class Document(NamedTuple):
    path: str
    text: Text
    sections: tuple[Section, ...]
    facts: tuple[Fact, ...]
    problems: tuple[Problem, ...]

    def render(self) -> bytes:
        return self.text.encode()

    def section(self, title: str) -> Section | None:
        return find_section(self.sections, title)


def id_clashes(docs: Iterable[Document]) -> Iterator[tuple[Document, Fact, str]]:
    """Each fact whose id an earlier fact already has, with that first one's ``path:line``.

    Ids are unique across continuity.md and the archive; the review refuses and lint reports.
    """
    seen: dict[str, str] = {}
    for doc in docs:
        for fact in doc.facts:
            if fact.id is None:
                continue
            if fact.id in seen:
                yield doc, fact, seen[fact.id]
            else:
                seen[fact.id] = f"{doc.path}:{fact.line}"


def conflict_markers(path: str, text: str) -> list[Problem]:
    """Leftover merge-conflict markers; a bare ``=======`` counts only inside a conflict."""
    if not any(mark * 7 in text for mark in "<|>"):  # no conflict opens: no pattern to compile
        return []
    found = []
    inside = False
    for number, line in enumerate(text.splitlines(), 1):
        match = _CONFLICT.match(line)
        if match is None:
            continue
        marker = line[:7]
        if marker == "=======" and not inside:
            continue  # a setext underline
        inside = marker != ">>>>>>>"
        found.append(
            Problem(
                path,
                number,
                "error",
                "conflict-marker",
                f"leftover merge-conflict marker {marker!r}; resolve the conflict",
            )
        )
    return found


def is_blank(line: str) -> bool:
    return _BLANK.match(line) is not None


def _refuse_cr_only(path: str, lines: Sequence[str]) -> None:
    """Markdown also ends a line at a lone CR; we split at LF only (a stray CR inside a line is
    kept byte for byte), so a file whose only line breaks are CRs (classic Mac) would read as
    one line: it is refused with what to do rather than misread."""
    if len(lines) == 1 and "\r" in lines[0].rstrip("\r\n"):
        raise InputError(
            path,
            1,
            "ends its lines with CR alone (classic Mac line endings), which agent-memory does "
            "not read",
            "convert it to LF or CRLF line endings (e.g. `dos2unix -c mac FILE`)",
        )


def parse(path: str, data: bytes, section: str | None = None) -> Document:
    """Parse a memory document; problems are findings with lines, never exceptions.

    ``section``: the section of items before the first heading (a one-file open thread has no
    heading); without it they belong to none.
    """
    return parse_text(path, decode(path, data), section)


def fact_count(path: str, data: bytes) -> int:
    """``len(parse(path, data).facts)``; a file in the review's shape is counted, not parsed."""
    found = scan_written.count(data) if data.count(b"\n") < MAX_DOCUMENT_LINES else None
    return len(parse(path, data).facts) if found is None else found


def parse_text(path: str, text: Text, section: str | None = None) -> Document:
    lines = text.lines
    _refuse_cr_only(path, lines)
    if len(lines) > MAX_DOCUMENT_LINES:
        raise InputError(
            path,
            None,
            f"has {len(lines):,} lines, more than agent-memory reads in one memory file "
            f"({MAX_DOCUMENT_LINES:,})",
            "split it or archive by hand; a lean continuity.md is a few hundred lines",
        )
    fast = written(path, text) if section is None and len(lines) >= PLAIN_FROM else None
    if fast is not None:
        return fast
    problems: list[Problem] = conflict_markers(path, text.body)
    masked, footers = _mask(path, lines, problems)
    shape = outline(masked)
    if shape.too_deep:
        raise InputError(
            path,
            None,
            "nests lists and block quotes too deeply to be read whole (about 9 levels)",
            "flatten the deepest list or quote",
        )
    for start, end in shape.code:
        for index_in_code in range(start, end):
            footers.pop(index_in_code, None)  # examples inside code are not footers
    sections = _sections(shape.headings, len(lines))
    starts = [section.heading for section in sections]
    items: list[tuple[str, int, int]] = []
    for start, end in shape.items:
        owner = bisect.bisect_right(starts, start) - 1
        if owner < 0 and section is not None:
            items.append((section, start, _trim(lines, start, end)))
            continue
        if owner < 0 or start >= sections[owner].end:
            continue  # before the first section, or under an h1
        title = sections[owner].title
        if title.lower() == PROJECT_STATE:
            continue
        items.append((title, start, _trim(lines, start, end)))
    facts = _facts(path, lines, items, footers, problems)
    return Document(path, text, tuple(sections), facts, tuple(sorted(problems, key=_order)))


def written(path: str, text: Text) -> Document | None:
    """The document as ``scan_written.scan`` reads a file in the review's shape (the one
    ``parse_text`` gives), or None."""
    found = scan_written.scan(text.body)
    if found is None:
        return None
    headings, items = found
    facts = tuple(
        Fact(
            title,
            start,
            start + 2,
            start + 1,
            (2, len(body) + 9),  # "  <!--" + body + "-->"
            fields,
            task,
            first,
            fields[0][1],
        )
        for title, start, task, first, body, fields in items
    )
    return Document(path, text, tuple(_sections(headings, len(text.lines))), facts, ())


def _trim(lines: Sequence[str], start: int, end: int) -> int:
    """An item's end without its trailing blank lines."""
    while end > start + 1 and is_blank(lines[end - 1]):
        end -= 1
    return end


def _sections(headings: Sequence[tuple[int, int, str]], total: int) -> list[Section]:
    """An h2 opens a section that runs to the next h1 or h2 (an h1 opens none)."""
    ends = [line for line, _, _ in headings[1:]] + [total]
    return [
        Section(title, line, end)
        for (line, level, title), end in zip(headings, ends, strict=False)
        if level == 2
    ]


def _order(finding: Problem) -> tuple[int, str]:
    return (finding.line or 0, finding.check)


def _mask(
    path: str, lines: Sequence[str], problems: list[Problem]
) -> tuple[list[str], dict[int, footer.Found]]:
    """The lines the outline sees: footers and unclosed comments become plain letters, and a
    leading front matter (opaque by the one block rule: no heading, fact or footer) blank lines.

    An unclosed ``<!--`` would otherwise swallow the rest of the file as one HTML block, and a
    footer at column 0 would end the list; as letters both stay inside the fact they belong to.
    """
    footers: dict[int, footer.Found] = {}
    matter = front_matter(lines)
    out: list[str] = ["\n"] * matter
    openings: list[int] = []  # lines with a "<!--" that is not a footer
    last_close = (-1, -1)  # (line, column) of the last "-->", footers aside
    for index, line in enumerate(lines[matter:], matter):
        bare = strip_eol(line).replace("\r", " ")
        if "<!--" in bare:
            found = footer.find(bare)
            if found is not None and bare[: found.start].count("`") % 2:
                found = None  # a footer shown as `code` (docs, preambles) is an example
            if found is not None:
                footers[index] = found
                bare = bare[: found.start] + "x" * (found.end - found.start) + bare[found.end :]
            if "<!--" in bare:
                openings.append(index)
        if "-->" in bare:
            last_close = (index, bare.rfind("-->"))
        out.append(bare + "\n")
    # A comment opened after the last "-->" is never closed.
    for index in openings:
        bare = out[index]
        opening = bare.find("<!--")
        while opening != -1 and (index, opening) < last_close:
            opening = bare.find("<!--", opening + 4)
        if opening != -1:
            problems.append(
                Problem(
                    path,
                    index + 1,
                    "error",
                    "comment-unclosed",
                    "HTML comment is never closed; add --> at its end",
                )
            )
            out[index] = bare[:opening] + "x" * (len(bare) - opening - 1) + "\n"
    return out, footers


def _facts(
    path: str,
    lines: Sequence[str],
    items: Sequence[tuple[str, int, int]],
    footers: dict[int, footer.Found],
    problems: list[Problem],
) -> tuple[Fact, ...]:
    ends = _claim_footers(path, lines, items, footers, problems)
    return tuple(
        _fact(path, lines, title, start, end, footers, problems)
        for (title, start, _end), end in zip(items, ends, strict=True)
    )


def _claim_footers(
    path: str,
    lines: Sequence[str],
    items: Sequence[tuple[str, int, int]],
    footers: dict[int, footer.Found],
    problems: list[Problem],
) -> list[int]:
    """Each item's end, extended to a footer separated from it by blank lines only (it still
    belongs to it); a footer no item claims is an orphan."""
    claimed: set[int] = set()
    ends = [end for _title, _start, end in items]
    for _title, start, end in items:
        claimed.update(range(start, end))
    for line_index in sorted(footers):
        if line_index in claimed:
            continue
        owner = None
        for k, (_title, _start, end) in enumerate(items):
            if end <= line_index and all(is_blank(lines[i]) for i in range(end, line_index)):
                owner = k
        if owner is not None and not any(i in footers for i in range(items[owner][1], ends[owner])):
            ends[owner] = line_index + 1
            claimed.update(range(items[owner][2], line_index + 1))
        else:
            problems.append(
                Problem(
                    path,
                    line_index + 1,
                    "error",
                    "footer-orphan",
                    "footer is not inside a fact; put it on the line under its bullet",
                )
            )
    return ends


def _fact(
    path: str,
    lines: Sequence[str],
    title: str,
    start: int,
    end: int,
    footers: dict[int, footer.Found],
    problems: list[Problem],
) -> Fact:
    """The fact of lines [start, end): its bullet, its task box and its (first) footer."""
    own = [i for i in range(start, end) if i in footers] if footers else []
    fields: footer.Fields = ()
    footer_line = None
    span = (0, 0)
    if own:
        footer_line = own[0]
        found = footers[footer_line]
        span = (found.start, found.end)
        if not found.closed:
            problems.append(
                Problem(
                    path,
                    footer_line + 1,
                    "error",
                    "footer-unclosed",
                    "footer comment has no closing -->; add it at the end of the line",
                )
            )
        fields, wrong = footer.parse_fields(found.body)
        problems.extend(p._replace(path=path, line=footer_line + 1) for p in wrong)
        problems.extend(
            Problem(
                path,
                extra + 1,
                "error",
                "footer-multiple",
                "a second footer inside one fact; keep one per top-level bullet",
            )
            for extra in own[1:]
        )
    bullet = strip_eol(lines[start])
    match = BULLET.match(bullet)
    task = None
    first = bullet
    if match is not None:
        task = match.group("task")
        task = task.lower() if task else None
        first = bullet[match.end() :]
    if footer_line == start:
        first = first.replace(bullet[span[0] : span[1]], "")
    fact_id = dict(fields).get("id") if fields else None
    return Fact(title, start, end, footer_line, span, fields, task, first.strip(), fact_id)


def sections_of(path: str, text: Text) -> tuple[Section, ...]:
    """A text's sections alone, without reading its facts (to place lines in it)."""
    masked, _ = _mask(path, text.lines, [])
    return tuple(_sections(outline(masked).headings, len(text.lines)))


def find_section(sections: Iterable[Section], title: str) -> Section | None:
    key = title.strip().lower()
    return next((s for s in sections if s.title.lower() == key), None)
