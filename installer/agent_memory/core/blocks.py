"""Managed blocks: the only part of a user-owned file (AGENTS.md, CLAUDE.md, ...) that is ours.

Everything outside the markers is the user's, byte for byte: a block is appended to a file that
has none and replaced in place in a file that has one.
"""

from __future__ import annotations

from ..errors import InputError
from ..layout import BLOCK_BEGIN, BLOCK_END
from ..parse.text import decode, strip_eol
from .plan import Outcome

MARKERS = (BLOCK_BEGIN, BLOCK_END)


def find_block(
    path: str, lines: tuple[str, ...], markers: tuple[str, str] = MARKERS
) -> tuple[int, int] | None:
    """Line indices (begin, end inclusive) of the managed block, or None; malformed is an error.

    ``markers`` are the begin and end lines: HTML comments in Markdown, ``#`` comments elsewhere.
    """
    begin_marker, end_marker = markers
    begins = [i for i, line in enumerate(lines) if strip_eol(line).strip() == begin_marker]
    ends = [i for i, line in enumerate(lines) if strip_eol(line).strip() == end_marker]
    if len(begins) > 1:
        raise InputError(
            path,
            begins[1] + 1,
            f"has a second {begin_marker} marker",
            "keep one agent-memory block and delete the other begin/end pair",
        )
    if len(ends) > 1:
        raise InputError(
            path,
            ends[1] + 1,
            f"has a second {end_marker} marker",
            "keep one agent-memory block and delete the stray end marker",
        )
    if not begins and not ends:
        return None
    if not ends:
        raise InputError(
            path,
            begins[0] + 1,
            "has an agent-memory block that is not closed",
            f"put {end_marker} on its own line after the block, or delete the marker",
        )
    if not begins or ends[0] < begins[0]:
        raise InputError(
            path,
            ends[0] + 1,
            f"has {end_marker} without a begin marker before it",
            "delete the stray marker, or put it after the block's begin marker",
        )
    return begins[0], ends[0]


def block_of(template_path: str, template: bytes, markers: tuple[str, str] = MARKERS) -> list[str]:
    """The block's lines (markers included, ``\\n`` endings) from a template file."""
    lines = decode(template_path, template).lines
    span = find_block(template_path, lines, markers)
    if span is None:  # pragma: no cover - guarded by a test over every template
        raise InputError(template_path, None, "has no agent-memory block", "fix the template")
    begin, end = span
    return [strip_eol(line) + "\n" for line in lines[begin : end + 1]]


def upsert_block(
    path: str, existing: bytes | None, template: bytes, markers: tuple[str, str] = MARKERS
) -> tuple[bytes, Outcome]:
    """The file with our block added or refreshed; the user's bytes outside it never change."""
    if existing is None:
        return template, Outcome.CREATED
    text = decode(path, existing)
    block = block_of(path, template, markers)
    newline = text.newline
    block = [strip_eol(line) + newline for line in block]
    lines = list(text.lines)
    span = find_block(path, text.lines, markers)
    if span is not None:
        begin, end = span
        # Keep whatever ended the user's end-marker line (even no newline at end of file).
        tail = lines[end][len(strip_eol(lines[end])) :]
        block[-1] = strip_eol(block[-1]) + tail
        new_lines = lines[:begin] + block + lines[end + 1 :]
        outcome = Outcome.BLOCK_UPDATED
    else:
        prefix: list[str] = []
        if lines and not lines[-1].endswith("\n"):
            prefix = [newline, newline]
        elif lines and strip_eol(lines[-1]).strip():
            prefix = [newline]
        new_lines = lines + prefix + block
        outcome = Outcome.BLOCK_ADDED
    new = type(text)(bom=text.bom, lines=tuple(new_lines)).encode()
    if new == existing:
        return existing, Outcome.UNCHANGED
    return new, outcome
