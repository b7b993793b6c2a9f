"""The few Markdown line shapes the line scanners of the core share (CommonMark's rules).

A code fence opens with three or more backticks or tildes, indented at most three spaces, and
is closed by a run of the same character at least as long; an ATX heading is one to six ``#``.
"""

from __future__ import annotations

from .. import patterns

FENCE = patterns.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
HEADING = patterns.compile(r"^(#{1,6})(\s)")
TITLE = patterns.compile(r"^ {0,3}#(?:[ \t]|$)")  # a level-1 heading
