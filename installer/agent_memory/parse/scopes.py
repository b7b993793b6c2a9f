"""Scopes: ``paths: <glob>[, <glob>]`` on a fact's footer, or once on a section as a comment line
``<!-- paths: … -->`` before its first fact (DECAY.md § Scopes).

A glob is a path relative to the repo's top, matched against the whole path: ``*`` and ``?``
stay within one folder, ``**`` crosses folders (``src/**`` is everything under ``src``). A scope
changes what ``context`` shows, never a tier.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from .. import patterns

if TYPE_CHECKING:
    from .facts import Document  # facts reads footers, whose paths: field this module checks

MAX_GLOBS = 20
MAX_GLOB = 200
_UNSAFE = patterns.compile(r"[\x00-\x1f\x7f|<>\\]")
_SECTION_SCOPE = patterns.compile(
    r"^[ \t]*<!--[ \t]*paths[ \t]*:(?P<value>[^\n]*?)-->[ \t]*\r?\n?$"
)


def globs(value: str | None) -> tuple[str, ...]:
    """The globs of a ``paths:`` value, blanks dropped."""
    return tuple(part.strip() for part in (value or "").split(",") if part.strip())


def problem(value: str) -> str | None:
    """What is wrong with a ``paths:`` value, in words, or None."""
    found = globs(value)
    if not found:
        return "paths: names no glob; write paths: <glob>[, <glob>]"
    if len(found) > MAX_GLOBS:
        return f"paths: more than {MAX_GLOBS} globs"
    for glob in found:
        if len(glob) > MAX_GLOB:
            return f"paths: a glob is longer than {MAX_GLOB} characters"
        if _UNSAFE.search(glob) or "-->" in glob:
            return f"paths: {glob[:80]!r} holds a character a footer cannot carry (|, \\, <, >)"
        if glob.startswith("/"):
            return f"paths: {glob!r} is absolute; write a glob relative to the repo's top"
        if any(part in ("", ".", "..") for part in glob.split("/")):
            return f"paths: {glob!r} is not a plain path inside the repo (an empty, . or .. part)"
    return None


@functools.lru_cache(maxsize=512)
def _compiled(glob: str) -> re.Pattern[str]:
    parts = []
    for piece in re.split(r"(\*\*/?|\*|\?)", glob):
        if piece.startswith("**"):
            parts.append("(?:.*/)?" if piece == "**/" else ".*")
        elif piece == "*":
            parts.append("[^/]*")
        elif piece == "?":
            parts.append("[^/]")
        else:
            parts.append(re.escape(piece))
    return re.compile("".join(parts) + r"\Z", re.DOTALL)


def matches(scope: Sequence[str], paths: Iterable[str]) -> bool:
    """Whether any of ``paths`` matches any glob of ``scope``."""
    wanted = [_compiled(glob) for glob in scope]
    return any(pattern.match(path) for path in paths for pattern in wanted)


def section_scopes(doc: Document) -> dict[str, tuple[str, int, str]]:
    """Each section's own scope: its title → (value, 1-based line, the line's text). The comment
    counts when it stands on its own line before the section's first fact."""
    found: dict[str, tuple[str, int, str]] = {}
    starts = {fact.section: fact.start for fact in reversed(doc.facts)}
    for section in doc.sections:
        end = min(section.end, starts.get(section.title, section.end))
        for index in range(section.heading + 1, end):
            line = doc.text.lines[index]
            if "paths" in line and (hit := _SECTION_SCOPE.match(line)) is not None:
                found.setdefault(section.title, (hit.group("value").strip(), index + 1, line))
                break
    return found
