"""The parts of a Memory References item: a sub-heading's title, ``Label: value`` split, the
ids of a value, and the ``old → new`` pairs of a ``Superseded:`` item. Every function here runs
in linear time on user text; the regular expressions named "the reference" are the quadratic
originals the property tests compare them with (never run on user text)."""

from __future__ import annotations

from .. import patterns
from .footer import ID, ID_PATTERN

_ATX_OPEN = patterns.compile(r" {0,3}#{1,6}(?=[ \t]|$)")
NOTHING = frozenset({"none", "nothing", "n/a", "na", "-", "\u2014", "\u2013"})  # dashes
# First words of a label that mean "this session used the fact".
USE_WORDS = frozenset(
    {
        "referenced",
        "created",
        "reactivated",
        "updated",
        "used",
        "touched",
        "new",
        "closed",
        "resolved",
        "completed",
    }
)
CREATE_WORDS = frozenset({"created", "new"})
CANONICAL_WORDS = frozenset({"referenced", "created", "reactivated"})
NOT_USES = frozenset({"archived", "swept", "superseded"})
# The reference for ``label_of`` (quadratic on hostile lines: never run on user text).
_LABEL = patterns.compile(r"^[*_]*(?P<label>[^:*_`]+?)[*_]*\s*:[*_]*\s*(?P<rest>.*)$")
# "old → new" (also "->", "=>") in a "Superseded:" item.
_PAIR = patterns.compile(
    rf"^[*_`]*(?P<old>{ID_PATTERN})[*_`]*[ \t]*(?:\u2192|->|=>)"
    rf"[ \t]*[*_`]*(?P<new>{ID_PATTERN})[*_`]*$"
)
# The reference for ``flatten_groups`` (quadratic on nested brackets: never run on user text).
_GROUP = patterns.compile(r"[(\[{][^()\[\]{}]*[)\]}]")
_WIKI_LINK = patterns.compile(r"\[\[([^\[\]|]+?)(?:\|[^\[\]]*)?\]\]")
_OPENER = patterns.compile(r"[(\[{]")
_SEPARATOR = patterns.compile(r"[,;]")


def supersessions(rest: str) -> tuple[list[tuple[str, str]], list[str]]:
    """The ``(old, new)`` pairs of a ``Superseded:`` value, and the segments that are not pairs.

    ``old → new`` (also ``->``), several separated by commas or semicolons, each optionally
    followed by commentary in brackets; ``(none)``, ``none`` or ``0`` say there is nothing.
    """
    rest = flatten_groups(rest)
    pairs: list[tuple[str, str]] = []
    wrong: list[str] = []
    for segment in _SEPARATOR.split(rest):
        segment = segment.strip()
        if not segment or segment in NOTHING or segment == "0":
            continue
        match = _PAIR.match(segment)
        if match is None:
            wrong.append(segment)
        else:
            pairs.append((match.group("old"), match.group("new")))
    return pairs, wrong


def label_of(item: str) -> tuple[str, str] | None:
    """(label, value) of ``**Label:** value``: what ``_LABEL`` matches, in linear time.

    The regular expression backtracks quadratically over a long run of spaces before a missing
    colon (a 100 KB line took 20 s); a property test checks that the two agree.
    """
    head, colon, rest = item.partition(":")
    if not colon:
        return None
    lead = head.lstrip("*_")
    label = lead.rstrip().rstrip("*_") or lead  # all blank: the label is the blank
    if not label or any(c in label for c in "*_`"):
        return None
    return label.strip(), rest.lstrip("*_").lstrip()


def flatten_groups(rest: str) -> str:
    """Each outermost bracket group (any of ``()[]{}``, balanced) as one space, in one pass:
    what replacing innermost groups until none is left gives, without its quadratic cost."""
    out: list[str] = []
    opened: list[int] = []  # where in ``out`` each still open bracket is
    for char in rest:
        if char in "([{":
            opened.append(len(out))
            out.append(char)
        elif char in ")]}" and opened:
            del out[opened.pop() :]
            out.append(" ")
        else:
            out.append(char)
    return "".join(out)


def unlinked(text: str) -> str:
    """``text`` with each wiki link ``[[id]]`` (or ``[[id|label]]``) written as its id."""
    return _WIKI_LINK.sub(r"\1", text) if "[[" in text else text


def segment_ids(rest: str) -> list[str]:
    """Ids of a label's value: each top-level ``,``/``;`` segment contributes its first token."""
    return [token for token, _ in segments(rest) if ID.match(token)]


def segments(rest: str) -> list[tuple[str, str]]:
    """(first token, whole segment) of each top-level ``,``/``;`` segment that says something."""
    # A wiki link [[id]] (or [[id|label]]) names the id; other brackets hold commentary, which
    # may hold commas: drop balanced groups, innermost first, and cut at a bracket left open.
    rest = unlinked(rest)
    if _OPENER.search(rest) is not None:
        rest = flatten_groups(rest)
    opener = _OPENER.search(rest)
    if opener is not None:
        rest = rest[: opener.start()]
    found = []
    for segment in _SEPARATOR.split(rest):
        words = segment.strip().split(maxsplit=1)
        token = words[0].strip("`*_").split("(", 1)[0].rstrip(".:") if words else ""
        if token and token not in NOTHING:
            found.append((token, " ".join(segment.replace("`", "").strip("*_ \t").split())))
    return found


def heading_title(line: str) -> str | None:
    """The stripped title of an ATX heading line (closing ``#``s dropped), None for any other
    line: ``_HEADING``'s group 2, in linear time."""
    opening = _ATX_OPEN.match(line)
    if opening is None:
        return None
    content = line[opening.end() :].strip(" \t")
    closed = content.rstrip("#")
    if closed != content and closed and closed[-1] in " \t":
        content = closed.rstrip(" \t")
    return content
