"""A session log's ``## Proposed Facts``: numbered lines ``N. kind: text`` (schema.md).

``session capture`` writes the section; ``fact accept`` and ``context`` read it back. A proposal
is addressed as ``<log stem>#N``, which is also the ``origin`` of the fact it becomes, so an
accepted proposal is known by that footer field alone.
"""

from collections.abc import Iterable, Iterator, Mapping
from types import MappingProxyType
from typing import NamedTuple

from .. import patterns
from ..layout import SESSION_NAME
from .markdown import ATX

HEADING = "## Proposed Facts"
# The marker words a line of the agent's own message may start with, and the kind each gives.
MARKERS: Mapping[str, str] = MappingProxyType(
    {
        "remember": "remember",
        "decision": "decision",
        "convention": "convention",
        "invariant": "invariant",
        "preference": "preference",
        "open thread": "thread",
    }
)
SAVED = "saved"  # a save to the agent's own memory; "saved (TYPE)" when the save names a type
_LINE = patterns.compile(r"^([1-9][0-9]{0,8})\. ([a-z]+(?: \([a-z]+\))?): (\S.*)$")
_ADDRESS = patterns.compile(r"^(?P<stem>[^#/\\\s]+?)(?:\.md)?#(?P<number>[1-9][0-9]{0,8})$")


class Proposed(NamedTuple):
    number: int
    kind: str
    text: str
    line: int = 0  # its line in the log, from 1


class Pending(NamedTuple):
    """A proposal and where it is: ``address`` is ``<log stem>#N``."""

    address: str
    kind: str
    text: str


def line(number: int, kind: str, text: str) -> str:
    """The line of proposal ``number``; ``text`` is one line already (``untrusted.one_line``)."""
    return f"{number}. {kind}: {text}"


def read(text: str) -> Iterator[Proposed]:
    """The proposals of a log, in order: the lines of the shape ``line`` writes under the first
    ``## Proposed Facts`` heading, up to the next heading; any other line there is prose."""
    lines = enumerate(text.splitlines(), 1)
    for _, each in lines:
        if each.rstrip() == HEADING:
            break
    for at, each in lines:
        if ATX.match(each):
            return
        found = _LINE.match(each.rstrip())
        if found:
            yield Proposed(int(found.group(1)), found.group(2), found.group(3), at)


def numbered_twice(text: str) -> dict[int, tuple[int, ...]]:
    """Each number a log gives more than one proposal, with their lines: a log written by hand
    may, and then one address names two proposals, so neither is accepted or rejected."""
    lines: dict[int, list[int]] = {}
    for each in read(text):
        lines.setdefault(each.number, []).append(each.line)
    return {number: tuple(at) for number, at in lines.items() if len(at) > 1}


def twice(number: int, lines: Iterable[int]) -> str:
    """What is said of a number ``numbered_twice`` finds (at its second line)."""
    return (
        f"proposal #{number} is numbered twice (lines {', '.join(map(str, lines))}); renumber "
        "one in the log, then accept or reject each"
    )


def has_proposals(data: bytes) -> bool:
    """Whether a log's bytes may hold proposals: a test that costs one search of its bytes."""
    heading = HEADING.encode()
    return data.startswith(heading) or b"\n" + heading in data


def address(stem: str, number: int) -> str:
    return f"{stem}#{number}"


def parse_address(value: str) -> tuple[str, int] | None:
    """``LOG#N`` (the log's stem or file name) as (log file name, N); None when it is not one."""
    found = _ADDRESS.fullmatch(value)
    if found is None or not SESSION_NAME.match(found.group("stem") + ".md"):
        return None
    return found.group("stem") + ".md", int(found.group("number"))


def in_log(name: str, text: str) -> list[Pending]:
    """The proposals of log ``name`` (its file name), each with its address."""
    return [Pending(address(name[:-3], p.number), p.kind, p.text) for p in read(text)]


def unaccepted(logs: Iterable[tuple[str, bytes]], origins: Mapping[str, str]) -> list[Pending]:
    """The proposals of ``logs`` (name, bytes) that no fact has as its ``origin`` (the keys of
    ``origins``), in log order."""
    out: list[Pending] = []
    for name, data in logs:
        if has_proposals(data):
            text = data.decode("utf-8", errors="replace")
            out += [p for p in in_log(name, text) if p.address not in origins]
    return out
