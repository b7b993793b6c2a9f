"""Scopes: ``paths: <glob>[, <glob>]`` on a fact's footer, or once on a section as a comment line
``<!-- paths: … -->`` before its first fact (DECAY.md § Scopes).

A glob is a path relative to the repo's top, matched against the whole path: ``*`` and ``?``
stay within one folder, ``**`` crosses folders (``src/**`` is everything under ``src``). A scope
changes what ``context`` shows, never a tier.
"""

import functools
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple

from .. import patterns

if TYPE_CHECKING:
    from .facts import Document  # facts reads footers, whose paths: field this module checks

MAX_GLOBS = 20
MAX_GLOB = 200
_UNSAFE = patterns.compile(r"[\x00-\x1f\x7f|<>\\]")
_SECTION_SCOPE = patterns.compile(
    r"^[ \t]*<!--[ \t]*paths[ \t]*:(?P<value>[^\n]*?)-->[ \t]*\r?\n?$"
)
_TOKENS = patterns.compile(r"(\*\*/?|\*|\?)")
_WILD = frozenset(("**/", "**", "*", "?"))


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


class _Matcher(NamedTuple):
    """A glob as a bit-parallel automaton: bit ``i`` set means the glob's first ``i`` tokens
    matched the path read so far. One step per character of the path, whatever the glob holds:
    a backtracking regular expression took exponential time on ``**/`` repeated."""

    size: int  # the number of tokens; bit ``size`` is the accepting state
    literal: Mapping[str, int]  # a character -> the tokens that consume it and move on
    one: int  # ``?``: any character but ``/``, then move on
    within: int  # ``*``: any character but ``/``, staying
    across: int  # ``**``: any character, staying
    optional: int  # the tokens that may match nothing
    folders: int  # the entry of ``**/``, which consumes nothing: on to its ``**``, or past it
    head: str  # the literal text before the first wildcard
    tail: str  # the literal text after the last one (when the glob has a wildcard)
    wild: bool


@functools.lru_cache(maxsize=512)
def _compiled(glob: str) -> _Matcher:
    literal: dict[str, int] = {}
    one = within = across = folders = 0
    pieces = [piece for piece in _TOKENS.split(glob) if piece]
    tokens = [
        t for p in pieces for t in (("", "**", "/") if p == "**/" else [p] if p in _WILD else p)
    ]
    for index, token in enumerate(tokens):
        bit = 1 << index
        if token == "?":
            one |= bit
        elif token == "*":
            within |= bit
        elif token == "**":
            across |= bit
        elif not token:
            folders |= bit
        else:
            literal[token] = literal.get(token, 0) | bit
    wild = [n for n, piece in enumerate(pieces) if piece in _WILD]
    head = "".join(pieces[: wild[0]]) if wild else glob
    tail = "".join(pieces[wild[-1] + 1 :]) if wild else ""
    return _Matcher(
        len(tokens),
        literal,
        one,
        within,
        across,
        within | across | folders,
        folders,
        head,
        tail,
        bool(wild),
    )


def _match(matcher: _Matcher, path: str) -> bool:
    if not matcher.wild:
        return path == matcher.head
    if not (path.startswith(matcher.head) and path.endswith(matcher.tail)):
        return False  # most paths stop here, before the automaton
    state = _closed(matcher, 1)
    for char in path:
        moved = matcher.literal.get(char, 0)
        stays = matcher.across
        if char != "/":
            moved |= matcher.one
            stays |= matcher.within
        state = _closed(matcher, ((state & moved) << 1) | (state & stays))
        if not state:
            return False
    return bool(state >> matcher.size & 1)


def _closed(matcher: _Matcher, state: int) -> int:
    """``state`` with every token that may match nothing stepped over (a run of them at most)."""
    optional, folders = matcher.optional, matcher.folders
    while (grown := state | (state & optional) << 1 | (state & folders) << 3) != state:
        state = grown
    return state


def matches(scope: Sequence[str], paths: Iterable[str]) -> bool:
    """Whether any of ``paths`` matches any glob of ``scope``."""
    wanted = [_compiled(glob) for glob in scope]
    return any(_match(matcher, path) for path in paths for matcher in wanted)


def section_scopes(doc: "Document") -> dict[str, tuple[str, int, str]]:
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
