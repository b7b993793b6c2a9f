"""The fast reader of a plain log's ``## Memory References``, on its bytes.

A full review may read 100,000 logs, and nearly all are written the way the protocol asks: no
fence, no CR, no BOM, and a section of ``- Label: id, id`` lines under the canonical labels.
Such a log is read here with one expression on its heading line and one on each item line; any
other log gets None, and ``sessions`` reads it the general way. A property test requires the
same answer from both on every log this reader takes. Reading the section as one expression and
then its items with a second cost four times the reading of the file, on every log.
"""

from __future__ import annotations

import re

from .. import patterns
from .footer import ID_PATTERN
from .refitems import CANONICAL_WORDS, CREATE_WORDS, NOT_USES, NOTHING

# The section's heading line.
_HEADING = patterns.compile(
    rb"^ {0,3}(?P<marks>#{1,6})[ \t]+[*_]*[ \t]*(?i:memory references)[ \t]*[*_]*(?:[ \t]+#+)?"
    rb"[ \t]*\n",
    re.MULTILINE,
)
_ID = ID_PATTERN.encode()
_ITEM = patterns.compile(rb"[-*+] ([A-Za-z]+): ?(" + _ID + rb"(?:, ?" + _ID + rb")*)?[ \t]*")
_PHRASE = b"memory references"
_TAG_LINES = (b"\n<", b"\n <", b"\n  <", b"\n   <")
_NONE: frozenset[str] = frozenset()


def plain_refs(data: bytes) -> tuple[frozenset[str], frozenset[str]] | None:
    """(used, created) of a plain log; None for any other log."""
    # bytes.find, not "in": the operator goes through the buffer protocol and costs three times
    # as much; one search for any of them costs more than the finds. A fence, a line that opens
    # with a tag (an HTML block may) or a front matter: the block rule's, the general reader's.
    if (
        data.find(b"```") != -1
        or data.find(b"~~~") != -1
        or data.find(b"\r") != -1
        or data.startswith((b"\xef\xbb\xbf", b"---"))
        or (data.find(b"<") != -1 and _a_line_opens_with_a_tag(data))
    ):
        return None
    lowered = data.lower()
    at = lowered.find(_PHRASE)
    heading = None
    while heading is None:  # the phrase may come up in prose before the heading
        if at == -1:
            return _NONE, _NONE
        heading = _HEADING.match(data, data.rfind(b"\n", 0, at) + 1)
        at = lowered.find(_PHRASE, at + 1)
    if at != -1:
        return None  # a second section, or the phrase again after this heading
    start = heading.end()
    following = data.find(b"\n#", start - 1) + 1  # 0: none
    if following and _level(data, following) > len(heading.group("marks")):
        return None  # a sub-heading, or a "#" line that is not a heading
    body = data[start : following or len(data)]
    return _items(body) if not body or body.endswith(b"\n") else None


def _a_line_opens_with_a_tag(data: bytes) -> bool:
    """Whether a line starts with ``<`` after up to three spaces: it may open an HTML block."""
    return data.startswith((b"<", b" <", b"  <", b"   <")) or any(
        data.find(tag) != -1 for tag in _TAG_LINES
    )


def _level(data: bytes, at: int) -> int:
    """The level of the ATX heading at ``at``; 7, deeper than any, for a "#" line that is not
    a heading."""
    line = data[at : at + 8]
    marks = len(line) - len(line.lstrip(b"#"))
    return marks if marks <= 6 and line[marks : marks + 1] in (b" ", b"\t", b"\n", b"") else 7


def _items(body: bytes) -> tuple[frozenset[str], frozenset[str]] | None:
    """The ids of a section's ``- Label: id, id`` lines; None when it holds anything else."""
    used: list[str] = []
    created: list[str] = []
    for line in body.split(b"\n"):
        item = _ITEM.fullmatch(line) if line else None  # the empty line after the last "\n"
        if item is None:
            if line.strip(b" \t"):
                return None
            continue
        label, ids = item.groups()
        word = label.lower().decode()
        if word in NOT_USES and word != "superseded":
            continue
        if word not in CANONICAL_WORDS:
            return None  # a label that earns a warning, or says what it supersedes
        if ids:
            found = ids.decode().replace(" ", "").split(",")
            used += found
            if word in CREATE_WORDS:
                created += found
    return frozenset(used) - NOTHING, frozenset(created) - NOTHING if created else _NONE
