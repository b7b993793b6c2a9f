"""Instruction files that still send agents to the protocol a repo ran by hand (HANDRUN.md).

Adoption keeps a team's ``memory/PROTOCOL.md`` and every line of theirs outside our blocks, so a
``.cursorrules`` that says "Follow memory/PROTOCOL.md first" still does after it: agents would
keep the memory by the hand-run rules beside ours. The tool never rewrites those lines; it says
so, in the enable report and in lint, and the person points them at AGENTS.md.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from ... import patterns
from ...errors import Problem
from ...layout import AGENTS_MD, HANDRUN_POINTERS, HANDRUN_PROTOCOL
from ...parse.text import decode

_NAMED = patterns.compile(r"(?<![\w/.-])(?:\.{1,2}/)?memory/protocol\.md\b", re.IGNORECASE)
CHECK = "handrun-protocol"


def stale_pointers(files: Mapping[str, bytes | None], links: Mapping[str, str]) -> list[Problem]:
    """One advisory per instruction file whose text names memory/PROTOCOL.md while that file
    exists. AGENTS.md is not one — our block in it says it wins over older instructions in the
    same file — nor a file that is a link to it; ``files`` are read through ``links``."""
    if files.get(HANDRUN_PROTOCOL) is None:
        return []
    agents = links.get(AGENTS_MD, AGENTS_MD)
    seen = {agents}
    found = []
    for path in HANDRUN_POINTERS:
        real = links.get(path, path)
        data = files.get(path)
        if real in seen or data is None:
            continue
        seen.add(real)
        line = _naming_line(real, data)
        if line is not None:
            found.append(Problem(path, line, "advisory", CHECK, _MESSAGE))
    return found


_MESSAGE = (
    f"still tells agents to follow {HANDRUN_PROTOCOL}, the protocol this repo kept by hand, "
    f"beside {AGENTS_MD}'s agent-memory block: point this line at {AGENTS_MD} "
    "(UPGRADE.md § Adopting a repo enabled by hand)"
)


def _naming_line(path: str, data: bytes) -> int | None:
    """The first line that names the hand-run protocol (our blocks never do: it is theirs)."""
    for number, line in enumerate(decode(path, data).lines, 1):
        if _NAMED.search(line):
            return number
    return None
