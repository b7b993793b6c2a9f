"""Editing memory documents by whole lines, so that every line not named keeps its bytes.

Every change the tool makes to continuity.md, an archive quarter or a rung's file is a list of
``Edit``s applied at once; footers are rewritten in place, and facts are appended at the end of
their section.
"""

from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

from ...parse import footer
from ...parse.continuity import NONE_YET, last_review
from ...parse.facts import (
    BULLET,
    PROJECT_STATE,
    Document,
    Fact,
    Section,
    is_blank,
    sections_of,
)
from ...parse.keyvalue import with_value
from ...parse.text import Text


class Edit(NamedTuple):
    """Replace lines [start, end) with ``lines``; insertions have start == end."""

    start: int
    end: int
    lines: tuple[str, ...]


def apply_edits(text: Text, edits: Iterable[Edit]) -> Text:
    """Apply non-overlapping edits; untouched lines keep their exact bytes.

    One pass in line order (splicing each edit into a list would move the rest of the file
    every time: a review archiving 25,000 facts spent most of its time there). Of two
    insertions at one line, the one given later comes first.
    """
    ordered = sorted(enumerate(edits), key=lambda pair: (pair[1].start, pair[1].end, -pair[0]))
    old = text.lines
    lines: list[str] = []
    at = 0
    for _, edit in ordered:
        lines += old[at : edit.start]
        lines += edit.lines
        at = max(at, edit.end)
    lines += old[at:]
    return Text(text.bom, tuple(lines))


def footer_edit(text: Text, fact: Fact, fields: Mapping[str, str]) -> Edit:
    """The edit that gives ``fact`` these footer fields (in place, or a new footer line)."""
    rendered = footer.render(fields, fact.fields)
    if fact.footer_line is not None:
        line = text.lines[fact.footer_line]
        begin, end = fact.footer_span
        new = line[:begin] + rendered + line[end:]
        return Edit(fact.footer_line, fact.footer_line + 1, (new,))
    bullet = text.lines[fact.start]
    match = BULLET.match(bullet)
    indent = " " * (len(match.group("indent")) + 2) if match else "  "
    last = text.lines[fact.end - 1]
    newline = text.newline
    if last.endswith("\n"):
        return Edit(fact.end, fact.end, (indent + rendered + newline,))
    return Edit(fact.end - 1, fact.end, (last + newline, indent + rendered))


def fact_lines(text: Text, fact: Fact, fields: Mapping[str, str]) -> list[str]:
    """The fact's lines byte for byte, with its footer given ``fields`` (to move or merge it)."""
    edit = footer_edit(text, fact, fields)
    lines = list(text.lines[fact.start : fact.end])
    lines[edit.start - fact.start : edit.end - fact.start] = edit.lines
    return lines


def append_to_section(
    path: str,
    text: Text,
    title: str,
    lines: list[str],
    sections: Sequence[Section] | None = None,
) -> Text:
    """Insert ``lines`` after the last non-blank line of section ``title`` (made if missing).

    ``sections`` are the text's, when the caller knows them; else they are read from the text.
    """
    return append_to_sections(path, text, [(title, lines)], sections)


def append_to_sections(
    path: str,
    text: Text,
    appends: Sequence[tuple[str, Sequence[str]]],
    sections: Sequence[Section] | None = None,
) -> Text:
    """``append_to_section`` for each (title, lines) in turn, in one pass over the text however
    many sections there are (a review may bring facts back to thousands of them); sections
    missing from the text are made at its end, in the order given."""
    if sections is None:
        sections = sections_of(path, text)
    by_title: dict[str, Section] = {}
    for section in sections:
        by_title.setdefault(section.title.lower(), section)  # the first, as find_section
    newline = text.newline
    headings: dict[str, str] = {}
    grouped: dict[str, list[str]] = {}
    for title, lines in appends:
        key = title.strip().lower()
        headings.setdefault(key, title)
        grouped.setdefault(key, []).extend(
            line if line.endswith("\n") else line + newline for line in lines
        )
    edits = [
        _append_edit(text, by_title[key], lines)
        for key, lines in grouped.items()
        if key in by_title
    ]
    result = apply_edits(text, edits)
    missing = [(headings[key], lines) for key, lines in grouped.items() if key not in by_title]
    if not missing:
        return result
    existing = list(result.lines)
    if existing and not existing[-1].endswith("\n"):
        existing[-1] += newline
    for title, lines in missing:
        if existing and not is_blank(existing[-1]):
            existing.append(newline)
        existing += [f"## {title}{newline}", *lines]
    return Text(text.bom, tuple(existing))


def _append_edit(text: Text, section: Section, lines: Sequence[str]) -> Edit:
    """The insertion after the last non-blank line of ``section``."""
    at = section.end
    while at > section.heading + 1 and is_blank(text.lines[at - 1]):
        at -= 1
    if at > 0 and not text.lines[at - 1].endswith("\n"):
        return Edit(at - 1, at, (text.lines[at - 1] + text.newline, *lines))
    return Edit(at, at, tuple(lines))


def last_review_edit(doc: Document, date: str, through: str | None, count: int) -> Edit:
    """Stamp ``last_review: <date> | through <stem> | <count> logs`` in the file's key form.

    A line that already names a date and a log keeps everything else it says (a ``.md`` after
    the stem, a note after it); one with a date alone keeps what follows it (a note); any other
    value is replaced whole. ``count`` is the number of logs sorting at or before ``through``
    (REVIEW.md); a mark with no log carries no count.
    """
    current = last_review(doc)
    newline = doc.text.newline
    value = f"{date} | through {through or NONE_YET}" + (f" | {count} logs" if through else "")
    if current.line is not None:
        line = doc.text.lines[current.line]
        if current.spans is not None and through is not None:
            (date_start, date_end), (stem_start, stem_end), (tail_start, tail_end) = current.spans
            new = (
                line[:date_start]
                + date
                + line[date_end:stem_start]
                + through
                + line[stem_end:tail_start]
                + f" | {count} logs"
                + line[tail_end:]
            )
        elif current.mark is not None and through is not None:
            new = line[: current.mark[0]] + value + line[current.mark[1] :]
        else:
            new = with_value(line, value)
        return Edit(current.line, current.line + 1, (new,))
    return project_state_edit(doc, f"- last_review: {value}{newline}")


def project_state_edit(doc: Document, line: str) -> Edit:
    """``line`` first in Project State; the section, when missing, goes above the first one."""
    section = doc.section(PROJECT_STATE)
    if section is None:
        at = doc.sections[0].heading if doc.sections else len(doc.text.lines)
        return Edit(at, at, (f"## Project State{doc.text.newline}", line, doc.text.newline))
    return Edit(section.heading + 1, section.heading + 1, (line,))
