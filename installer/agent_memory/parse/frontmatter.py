"""YAML frontmatter and YAML stores, read with ruamel.yaml's round-trip loader.

The one module that sets ruamel.yaml up. We only read YAML: files we rewrite keep their
frontmatter bytes exactly, so there is nothing to re-emit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import InputError
from .text import Text, strip_eol


@dataclass(frozen=True, slots=True)
class Split:
    header: tuple[str, ...]  # the frontmatter lines, fences included (empty when none)
    body: tuple[str, ...]
    data: Any  # the parsed mapping ({} when none)


def load(path: str, source: str, first_line: int = 1) -> Any:
    """Parse YAML; a syntax error is an InputError with the file's line number."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    try:
        return YAML(typ="rt", pure=True).load(source)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = first_line + (mark.line if mark is not None else 0)
        raise InputError(
            path, line, f"YAML is malformed ({exc.problem})", "fix the YAML, then run enable again"
        ) from None
    except YAMLError as exc:
        raise InputError(
            path, first_line, f"YAML is malformed ({exc})", "fix the YAML, then run enable again"
        ) from None


def split(path: str, text: Text) -> Split:
    """Separate a leading ``---`` … ``---`` block from the body and parse it."""
    lines = text.lines
    if not lines or strip_eol(lines[0]).strip() != "---":
        return Split((), lines, {})
    for end in range(1, len(lines)):
        if strip_eol(lines[end]).strip() in ("---", "..."):
            data = load(path, "".join(lines[1:end]), first_line=2)
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
