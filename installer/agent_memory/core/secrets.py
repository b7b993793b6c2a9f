"""Find credentials by their real shapes, so that nothing the tool commits leaks one.

High precision over recall (DESIGN §16): a rule fires only on a known key shape or on an
assignment with a literal, plausible value; documentation examples and placeholders are skipped.
The text may be hostile (DESIGN §15), so it is scanned line by line, every repetition is bounded,
and every token rule is anchored at the start of a run, which keeps each rule linear in the line.
Only ASCII counts: classes are spelled out and every pattern is compiled with ``re.ASCII``.
"""

import re
from bisect import bisect_right
from collections.abc import Sequence
from typing import NamedTuple

from ..errors import AgentMemoryError
from .secret_rules import (
    DOCUMENTED,
    HINTS,
    KINDS,
    PEM_BODY,
    RULES,
    Rule,
    bare_password_value,
    password_value,
)

__all__ = ["KINDS", "Secret", "redact", "refuse", "refuse_source", "scan"]


class Secret(NamedTuple):
    """One match: 1-based line, 0-based columns ``[start, end)`` within that line's text."""

    line: int
    start: int
    end: int
    kind: str


def _accepts(rule: Rule, match: re.Match[str], group: str | None, value: str) -> bool:
    if value in DOCUMENTED:
        return False
    if rule.kind == "url-credentials" and match["user"] == value:
        return False  # postgres:postgres, guest:guest: a default, not a secret.
    if rule.kind == "password-assignment":
        bare = group in ("bare", "query")
        return bare_password_value(value) if bare else password_value(value)
    return rule.accept(value)


def _scan_line(line: str) -> tuple[list[tuple[int, int, str]], bool]:
    """Matches in one line as ``(start, end, kind)``, and whether a PEM block stays open."""
    lowered = line.lower()
    active = sorted({index for hint, index in HINTS if hint in lowered})
    starts: list[int] = []
    ends: list[int] = []
    hits: list[tuple[int, int, str]] = []
    key_open = False
    for index in active:
        rule = RULES[index]
        for match in rule.pattern.finditer(line):
            group = None
            for name in rule.groups:
                if match[name] is not None:
                    group = name
                    break
            start, end = match.span(group or 0)
            if not _accepts(rule, match, group, line[start:end]):
                continue
            at = bisect_right(starts, start)
            if (at and ends[at - 1] > start) or (at < len(starts) and starts[at] < end):
                continue  # An earlier, more specific rule already holds these columns.
            starts.insert(at, start)
            ends.insert(at, end)
            hits.insert(at, (start, end, rule.kind))
            if rule.kind == "private-key":
                # The last BEGIN on the line opens a block unless its END is on the line too.
                key_open = match["end"] is None
    return hits, key_open


def scan(text: str) -> list[Secret]:
    """Every secret in ``text`` in (line, start) order; lines split on ``\\n`` only."""
    found: list[Secret] = []
    in_key = False
    for number, line in enumerate(text.split("\n"), start=1):
        if in_key:
            body = PEM_BODY.fullmatch(line)
            if body is not None:
                if body["s"] is not None:
                    found.append(Secret(number, body.start("s"), body.end("s"), "private-key"))
                in_key = body["end"] is None
                continue
        hits, in_key = _scan_line(line)
        found.extend(Secret(number, start, end, kind) for start, end, kind in hits)
    return found


def _marker(kind: str) -> str:
    return f"[redacted: {kind}]"


def redact(text: str) -> tuple[str, list[Secret]]:
    """``text`` with each secret replaced by ``[redacted: <kind>]``; every other character kept."""
    found = scan(text)
    lines = text.split("\n")
    by_line: dict[int, list[Secret]] = {}
    for secret in found:
        by_line.setdefault(secret.line, []).append(secret)
    for number, secrets in by_line.items():
        lines[number - 1] = _replace(lines[number - 1], secrets)
    return "\n".join(lines), found


def _replace(line: str, secrets: Sequence[Secret]) -> str:
    pieces: list[str] = []
    at = 0
    for secret in secrets:
        pieces += [line[at : secret.start], _marker(secret.kind)]
        at = secret.end
    pieces.append(line[at:])
    return "".join(pieces)


def refuse(text: str, what: str) -> None:
    """SECURITY.md's guard on every way a fact's words are written (``what`` names the way):
    a text holding a credential is refused whole, before anything is written."""
    found = scan(text)
    if found:
        first = found[0]
        where = f"line {first.line}, column {first.start + 1}"
        raise AgentMemoryError(
            f"{what} holds what looks like a credential ({first.kind}, {where}); nothing was "
            "written — a fact never holds one: write it without the credential (SECURITY.md)"
        )


def refuse_source(where: str, data: bytes, fix: str) -> None:
    """A memory store or import source holding a credential is refused whole, with its file
    (``where``) and line, before one fact is read from it: the user removes it there (``fix``)."""
    found = scan(data.decode("utf-8", errors="replace"))
    if found:
        raise AgentMemoryError(
            f"holds a credential ({found[0].kind}); nothing is imported from a source with one "
            f"— {fix}",
            where,
            found[0].line,
        )
