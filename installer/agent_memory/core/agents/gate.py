"""The review gate (DECAY.md § The review gate): with ``agent_writes: propose``, an agent's write
becomes a proposal in its session's own log, never a fact.

A proposal is written as capture writes one (``proposed.line``, under ``## Proposed Facts``):
its text redacted of credentials and made one line (``untrusted.one_line``), numbered after the
log's last proposal.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from ...parse import proposed
from ...parse.untrusted import one_line
from ..secrets import redact

# The kind a proposal gets from the section an agent asked for: the inverse of what
# ``fact accept`` files each kind under; any other section is a ``remember``.
KINDS: Mapping[str, str] = MappingProxyType(
    {
        "conventions": "convention",
        "architectural invariants": "invariant",
        "user preferences": "preference",
        "open threads": "thread",
    }
)


def kind_of(section: str | None) -> str:
    return KINDS.get(" ".join((section or "").lower().split()), "remember")


def with_proposal(log: str, kind: str, text: str) -> tuple[str, int]:
    """``log`` with one more proposal, and its number: after the last line of its ``## Proposed
    Facts`` section, or in a new section at its end."""
    shown = one_line(" ".join(redact(text)[0].split()))
    number = max((p.number for p in proposed.read(log)), default=0) + 1
    new = proposed.line(number, kind, shown)
    lines = log.splitlines(keepends=True)
    heading = next((n for n, line in enumerate(lines) if line.rstrip() == proposed.HEADING), None)
    if heading is None:
        body = log if log.endswith("\n") or not log else log + "\n"
        return f"{body}\n{proposed.HEADING}\n\n{new}\n", number
    end = heading + 1
    for n in range(heading + 1, len(lines)):
        if lines[n].startswith("#"):
            break
        if lines[n].strip():
            end = n + 1
    newline = "" if lines[end - 1].endswith("\n") else "\n"
    return "".join([*lines[:end], newline, new, "\n", *lines[end:]]), number
