"""The few Markdown line shapes the line scanners of the core share (CommonMark's rules).

A code fence opens with three or more backticks or tildes, indented at most three spaces, and
is closed by a run of the same character at least as long; an ATX heading is one to six ``#``.
"""

from __future__ import annotations

from .. import patterns

FENCE = patterns.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
HEADING = patterns.compile(r"^(#{1,6})(\s)")
TITLE = patterns.compile(r"^ {0,3}#(?:[ \t]|$)")  # a level-1 heading
ATX = patterns.compile(r"^ {0,3}#{1,6}(?:[ \t]|$)")  # a heading of any level


def fence_opens(line: str) -> tuple[str, int] | None:
    """The character and length of the fence ``line`` opens, or None (a backtick fence's info
    string holds no backtick)."""
    match = FENCE.match(line)
    if match is None:
        return None
    run = match.group(1)
    if run[0] == "`" and "`" in match.group(2):
        return None
    return run[0], len(run)


def fence_closes(opening: tuple[str, int], line: str) -> bool:
    """Whether ``line`` closes the fence ``opening`` opened: the same character, at least as
    many, nothing after them."""
    match = FENCE.match(line)
    if match is None:
        return False
    run = match.group(1)
    return run[0] == opening[0] and len(run) >= opening[1] and not match.group(2).strip()
