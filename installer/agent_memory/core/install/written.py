"""The blocks this tool writes: AGENTS.md's heading names the version that wrote it, and every
block a release ever wrote is known by its digest, so that a re-sync tells a block that is only
out of date from one a person edited (which is backed up before it is replaced)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ... import patterns
from ...parse import manifest
from ...parse.text import decode, strip_eol
from ..blocks import HTML_MARKERS, Markers, find_block

_HEADING_VERSION = patterns.compile(rb"^(## Shared memory \(agent-memory )[^)\n]*\)", re.MULTILINE)

# The SHA-256 of each block (markers included, ``\n`` line ends, the heading's version left out)
# of every template this tool ever shipped, in both wordings of a vendor block. A template
# changed adds its new block here (tests/test_upgrade.py says which digest is missing).
WRITTEN = frozenset(
    {
        # AGENTS.md
        "sha256:a2fca5522a3b15f001cdfe894735da3944c0f67633e9ba108e0437d1e3189570",
        "sha256:4446546a40b9b1b33a07a90c4d21325e31a30b607cbc2c8e1fedff63a2829407",
        "sha256:dfda9b4c5404d1f04154b943877c4d9577ebb321a92586906f61743f6ffaf308",
        # CLAUDE.md and GEMINI.md
        "sha256:1781dc811ee67a4b1cf579ffd202b82e9d3d00c870d675228ac3022a39e214fc",
        "sha256:97e1956d9243a1377744a2bacea156c52bb5f8a51902500a2e424ea9c53c8bec",
        "sha256:317da48955828bd8ef4747e3385beb1dfa58788e5715b39b2db9f17f6a7d18c6",
        # .github/copilot-instructions.md
        "sha256:1e9076451b74f00530238bfced71f96befcab7516482795d50735199a55766f1",
        "sha256:e73dd8fbf838904e4106f063888d0e7d4968040f65432dc11e8397ecd7f9b221",
        "sha256:3a5c6273b46a9a1c203326e4350797d0e0e25c3569a254fba092482700762b0e",
        # .gitignore
        "sha256:aed4e868f490fd245c7be08249cac7a4da78057063f5bbd0ccc0d01df544bd1b",
        "sha256:dd9135dfa13bc0494bed59b77e2367b6c4e70c76170b0bac66811126d54912d9",
        # .gitattributes
        "sha256:316d5e467521d6bb717e7c2638f00609174b2eaadd5939f7c88fd2e34cbb559c",
        "sha256:470944fea9d162fec447753a4572802192520131d0e155b0b920e3f5a1ebdcb2",
    }
)


def versioned(template: bytes, version: str) -> bytes:
    """AGENTS.md's block with the heading naming the version that writes it (the template's
    own says the release it ships with: a person enabling by hand copies it)."""
    return _HEADING_VERSION.sub(rf"\g<1>{version})".encode(), template, count=1)


def digest(block: Sequence[str]) -> str:
    """The digest of a block's lines as ``WRITTEN`` holds it: line ends and the version its
    heading names do not count."""
    data = "".join(strip_eol(line) + "\n" for line in block).encode("utf-8")
    return manifest.sha256(_HEADING_VERSION.sub(rb"\g<1>)", data, count=1))


def edited(path: str, existing: bytes, markers: Markers = HTML_MARKERS) -> bool:
    """Whether the block in ``existing`` is one no release of this tool wrote: someone's edit,
    which a re-sync would otherwise replace without a trace."""
    lines = decode(path, existing).lines
    span = find_block(path, lines, markers)
    return span is not None and digest(lines[span[0] : span[1] + 1]) not in WRITTEN
