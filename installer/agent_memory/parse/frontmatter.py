"""YAML frontmatter and YAML stores, read with ruamel.yaml's round-trip loader.

The one module that sets ruamel.yaml up. We only read YAML: files we rewrite keep their
frontmatter bytes exactly, so there is nothing to re-emit.

A YAML file is input from a stranger (a cloned CONTEXT.yaml, a Claude topic file), so what it
may cost is bounded before and after the loader: flow collections nested deeper than
``MAX_DEPTH`` are refused before ruamel.yaml reads them (its scanner is quadratic in the depth,
its composer recursive), and so is an alias of a collection (``*name``), since nine levels of
nine aliases in 364 bytes expand to 387 million values wherever the text is used. An impossible
date (2026-02-30) or an integer of thousands of digits is one line too.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from .. import patterns
from ..errors import InputError
from .text import Text, strip_eol

MAX_DEPTH = 64
_TODO = "fix the YAML, then run enable again"
# Brackets are counted wherever they stand, quoted or not: a quoted scalar's rule can be read
# only by the loader, and no frontmatter opens 64 brackets in a row.
_BRACKET = patterns.compile(r"[\[\]{}]")
# Cursor and Windsurf write a glob unquoted (``globs: *.ts``), which YAML reads as an alias.
_STAR_VALUE = patterns.compile(r"(?m)^([A-Za-z_][\w.-]*[ \t]*:[ \t]+)(\*[^\r\n]*?)([ \t]*\r?)$")
_ANCHOR = patterns.compile(r"&([^\s,\[\]{}]+)")
_ALIAS_NAME = patterns.compile(r"\*([^\s,\[\]{}]*)")


@dataclass(frozen=True, slots=True)
class Split:
    header: tuple[str, ...]  # the frontmatter lines, fences included (empty when none)
    body: tuple[str, ...]
    data: Any  # the parsed mapping ({} when none)


def load(path: str, source: str, first_line: int = 1) -> Any:
    """Parse YAML; a syntax error, a value that cannot be one, nesting past ``MAX_DEPTH`` or an
    alias of a collection is an InputError with the file's line number."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    if (line := _too_deep(source)) is not None:
        raise InputError(
            path, first_line + line, f"YAML nests deeper than {MAX_DEPTH} levels", _TODO
        )
    try:
        data = YAML(typ="rt", pure=True).load(source)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = first_line + (mark.line if mark is not None else 0)
        raise InputError(path, line, f"YAML is malformed ({exc.problem})", _TODO) from None
    except YAMLError as exc:
        raise InputError(path, first_line, f"YAML is malformed ({exc})", _TODO) from None
    except RecursionError:
        raise InputError(
            path, first_line, f"YAML nests deeper than {MAX_DEPTH} levels", _TODO
        ) from None
    except ValueError as exc:  # a date such as 2026-02-30, an integer past 4,300 digits
        what = "an integer of thousands of digits" if "digits" in str(exc) else str(exc)
        line = first_line + _unreadable_line(source)
        raise InputError(
            path, line, f"YAML holds a value that cannot be read ({what})", _TODO
        ) from None
    if _aliased(data):
        raise InputError(
            path,
            first_line + _alias_line(source),
            "YAML repeats a list or mapping by an alias (*name), which is not read",
            "write the values out where the alias stands, then run enable again",
        )
    return data


def _unreadable_line(source: str) -> int:
    """The 0-based line of the first value the loader cannot make (its nodes carry marks)."""
    from ruamel.yaml import YAML
    from ruamel.yaml.nodes import ScalarNode

    yaml = YAML(typ="rt", pure=True)
    stack, lines = [yaml.compose(source)], []
    while stack:
        node = stack.pop()
        if isinstance(node, ScalarNode):
            try:
                yaml.constructor.construct_object(node, deep=True)
            except ValueError:
                lines.append(node.start_mark.line)
        elif node is not None:  # a mapping's (key, value) pairs, or a sequence's items
            stack += [
                n for item in node.value for n in (item if isinstance(item, tuple) else [item])
            ]
    return min(lines, default=0)


def _alias_line(source: str) -> int:
    """The 0-based line of the first alias of a list or mapping, read from the event stream,
    where an alias is never expanded."""
    from ruamel.yaml import YAML
    from ruamel.yaml.events import AliasEvent, CollectionStartEvent

    collections: set[str] = set()
    for event in YAML(typ="rt", pure=True).parse(source):
        if isinstance(event, CollectionStartEvent) and event.anchor:
            collections.add(event.anchor)
        elif isinstance(event, AliasEvent) and event.anchor in collections:
            return int(event.start_mark.line)
    return 0


def _too_deep(source: str) -> int | None:
    """The 0-based line where flow collections nest past ``MAX_DEPTH``, or None."""
    depth = 0
    for token in _BRACKET.finditer(source):
        char = token.group()[:1]
        if char in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return source.count("\n", 0, token.start())
        elif char in "]}":
            depth = max(depth - 1, 0)
    return None


def _aliased(data: Any) -> bool:
    """Whether a list or mapping is reached twice in ``data`` (the loader shares one object
    between an anchor and its aliases), walked without recursion and never expanded."""
    seen: set[int] = set()
    stack = [data]
    while stack:
        value = stack.pop()
        if isinstance(value, dict | list):
            if id(value) in seen:
                return True
            seen.add(id(value))
            stack += value.values() if isinstance(value, dict) else value
    return False


def split(path: str, text: Text) -> Split:
    """Separate a leading ``---`` … ``---`` block from the body and parse it."""
    lines = text.lines
    if not lines or strip_eol(lines[0]).strip() != "---":
        return Split((), lines, {})
    for end in range(1, len(lines)):
        if strip_eol(lines[end]).strip() in ("---", "..."):
            data = _header(path, "".join(lines[1:end]))
            if data is None:
                data = {}
            if not hasattr(data, "get"):
                raise InputError(
                    path,
                    2,
                    "frontmatter is not a mapping of keys",
                    "write it as key: value lines, then run enable again",
                )
            return Split(lines[: end + 1], lines[end + 1 :], data)
    raise InputError(
        path,
        1,
        "frontmatter is opened with --- but never closed",
        "close it with a --- line, then run enable again",
    )


def _header(path: str, source: str) -> Any:
    """A frontmatter's data. A top-level value that opens with ``*`` and names no anchor of the
    header is read as the text it is, as Cursor and Windsurf read the globs they write so."""
    try:
        return load(path, source, first_line=2)
    except InputError:
        anchors = set(_ANCHOR.findall(source))
        read = _STAR_VALUE.sub(lambda found: _as_text(found, anchors), source)
        if read == source:
            raise
    return load(path, read, first_line=2)


def _as_text(found: re.Match[str], anchors: set[str]) -> str:
    """The line ``found`` with its value quoted, unless the value is an alias of ``anchors``."""
    key, value, end = found.groups()
    name = _ALIAS_NAME.match(value)
    if name is not None and name.group(1) in anchors:
        return found.group()
    return key + json.dumps(value, ensure_ascii=False) + end
