"""Managed blocks: the only part of a user-owned file (AGENTS.md, CLAUDE.md, ...) that is ours.

Everything outside the markers is the user's, byte for byte: a block is appended to a file that
has none and replaced in place in a file that has one.
"""

from __future__ import annotations

from ..errors import InputError
from ..layout import BLOCK_BEGIN, BLOCK_END
from ..parse.markdown import TITLE, front_matter, inside
from ..parse.text import decode, strip_eol
from .plan import Outcome

Markers = tuple[str, str]
HTML_MARKERS: Markers = (BLOCK_BEGIN, BLOCK_END)
# A vendor block says the instructions "now live" in AGENTS.md; in a file that keeps text of its
# own (--keep-vendor-files, or text added since) its block says what is true there instead.
KEPT_WORDING = (
    (
        b"<!-- This project's instructions for coding agents, and its shared memory protocol, now "
        b"live\nin AGENTS.md (imported above); follow them. -->",
        b"<!-- AGENTS.md (imported above) holds this project's shared memory protocol and the\n"
        b"instructions shared by every coding agent; follow them with the rest of this file. -->",
    ),
    (
        b"This project's instructions for coding agents now live in `AGENTS.md` at the "
        b"repository root:\nread it and follow it.",
        b"`AGENTS.md` at the repository root holds the instructions every coding agent shares: "
        b"read\nit, and this file too.",
    ),
)


def find_block(
    path: str, lines: tuple[str, ...], markers: Markers = HTML_MARKERS
) -> tuple[int, int] | None:
    """Line indices (begin, end inclusive) of the managed block, or None; malformed is an error.

    Markers shown inside a fenced code block (an example in the user's text) are not a block.
    """
    spans = find_blocks(path, lines, markers)
    if len(spans) > 1:
        raise InputError(
            path,
            spans[1][0] + 1,
            f"has a second {markers[0]} marker",
            "keep one agent-memory block and delete the other begin/end pair",
        )
    return spans[0] if spans else None


def find_blocks(
    path: str, lines: tuple[str, ...], markers: Markers = HTML_MARKERS
) -> list[tuple[int, int]]:
    """Every managed block, in order; an unclosed or stray marker is an error naming its line."""
    begin_marker, end_marker = markers
    fenced = _fenced(lines)
    spans: list[tuple[int, int]] = []
    begin: int | None = None
    for index, line in enumerate(lines):
        bare = strip_eol(line).strip()
        if bare not in markers or index in fenced:
            continue
        if bare == begin_marker and begin is not None:
            raise InputError(
                path,
                index + 1,
                f"has a second {begin_marker} marker before the first block's end",
                f"put {end_marker} on its own line after the first block, or delete a marker",
            )
        if bare == begin_marker:
            begin = index
        elif begin is None:
            raise InputError(
                path,
                index + 1,
                f"has {end_marker} without a begin marker before it",
                "delete the stray marker, or put it after the block's begin marker",
            )
        else:
            spans.append((begin, index))
            begin = None
    if begin is not None:
        raise InputError(
            path,
            begin + 1,
            "has an agent-memory block that is not closed",
            f"put {end_marker} on its own line after the block, or delete the marker",
        )
    return spans


def _fenced(lines: tuple[str, ...]) -> set[int]:
    """Indices of the lines inside closed code fences (fence lines included). Only fences: our
    markers are HTML comment lines themselves, and an unclosed fence hides nothing, so a block
    after it is still found (a second run adds no second one)."""
    return inside(lines, ("fence",), unclosed=False)


def worded(template: bytes, existing: bytes | None, path: str) -> bytes:
    """A vendor block's template as ``existing`` needs it: where the file keeps text of its own
    outside our block (not only ``@path`` imports or a frontmatter), the block never says its
    instructions moved to AGENTS.md."""
    if existing is None or not _own_text(path, existing):
        return template
    for moved, kept in KEPT_WORDING:
        template = template.replace(moved, kept)
    return template


def _own_text(path: str, existing: bytes) -> bool:
    lines = decode(path, existing).lines
    try:
        spans = find_blocks(path, lines)
    except InputError:
        return False  # a damaged file: the block's own check names the line
    ours = {n for begin, end in spans for n in range(begin, end + 1)}
    ours |= set(range(front_matter(lines)))
    return any(
        (text := strip_eol(line).strip()) and not text.startswith("@")
        for n, line in enumerate(lines)
        if n not in ours
    )


def block_of(template_path: str, template: bytes, markers: Markers = HTML_MARKERS) -> list[str]:
    """The block's lines (markers included, ``\\n`` endings) from a template file."""
    lines = decode(template_path, template).lines
    span = find_block(template_path, lines, markers)
    if span is None:  # pragma: no cover - guarded by a test over every template
        raise InputError(template_path, None, "has no agent-memory block", "fix the template")
    begin, end = span
    return [strip_eol(line) + "\n" for line in lines[begin : end + 1]]


def upsert_block(
    path: str,
    existing: bytes | None,
    template: bytes,
    markers: Markers = HTML_MARKERS,
    *,
    repair: bool = False,
    top: bool = False,
) -> tuple[bytes, Outcome]:
    """The file with our block added or refreshed; the user's bytes outside it never change.

    A new block goes at the end, or with ``top`` at the top (after a leading frontmatter and
    ``#`` title), where a reader that stops early still sees it. With ``repair``, blocks after
    the first (a damaged file) are removed and the first is refreshed.
    """
    if existing is None:
        return template, Outcome.CREATED
    text = decode(path, existing)
    newline = text.newline
    block = [strip_eol(line) + newline for line in block_of(path, template, markers)]
    lines = list(text.lines)
    spans = (
        find_blocks(path, text.lines, markers)
        if repair
        else _one(find_block(path, text.lines, markers))
    )
    if spans:
        begin, end = spans[0]
        # Keep whatever ended the user's end-marker line (even no newline at end of file).
        block[-1] = strip_eol(block[-1]) + lines[end][len(strip_eol(lines[end])) :]
        extra = {i for b, e in spans[1:] for i in range(b, e + 1)}
        rest = [line for i, line in enumerate(lines) if i > end and i not in extra]
        new_lines = lines[:begin] + block + rest
        outcome = Outcome.BLOCK_UPDATED
    else:
        at = _after_title(lines) if top else len(lines)
        new_lines = _insert(lines, block, at, newline)
        outcome = Outcome.BLOCK_ADDED
    new = type(text)(bom=text.bom, lines=tuple(new_lines)).encode()
    if new == existing:
        return existing, Outcome.UNCHANGED
    return new, outcome


def _one(span: tuple[int, int] | None) -> list[tuple[int, int]]:
    return [span] if span is not None else []


def _insert(lines: list[str], block: list[str], at: int, newline: str) -> list[str]:
    """``block`` before line ``at``, set off from the text by one blank line we add, always on
    the same side, so ``without_block`` takes out exactly what came in: after the block at the
    top of a file, else before it. A last line without a newline gets one and no blank line:
    that is how the removal knows to take the newline out again."""
    if at >= len(lines):
        if not lines:
            return list(block)
        if lines[-1].endswith("\n"):
            return [*lines, newline, *block]
        return [*lines, newline, *block]
    if at == 0:
        return [*block, newline, *lines]
    return [*lines[:at], newline, *block, *lines[at:]]


def _after_title(lines: list[str]) -> int:
    """Where the top of a file's text is: after its YAML frontmatter and its ``# `` title."""
    start = front_matter(lines)
    index = start
    while index < len(lines) and not strip_eol(lines[index]).strip():
        index += 1
    if index < len(lines) and TITLE.match(lines[index]):
        return index + 1
    return start
