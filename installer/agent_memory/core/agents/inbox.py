"""The proposals inbox (DECAY.md § The review gate): what waits for a person, and what a person
rejected.

``memory/rejected.md`` is committed and only ever appended to. Each rejection is two lines::

    - <LOG#N> | <YYYY-MM-DD> | <the proposal's text>
      reason: <why>

A rejected proposal no longer waits, and a text that says what a rejected one said (the same
words, § Duplicates' rule) is not proposed again.
"""

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import NamedTuple

from ...layout import REJECTED
from ...parse.facts import Document
from ...parse.proposed import Pending, unaccepted
from ...parse.untrusted import one_line
from ..facts.duplicates import compare, normal

HEADING = "# Rejected proposals\n\nAppend-only: `agent-memory fact reject LOG#N --reason TEXT`.\n"


class Rejection(NamedTuple):
    address: str
    day: str
    text: str
    reason: str


class Waiting(NamedTuple):
    """A pending proposal, with the facts it is much like (their ids)."""

    address: str
    kind: str
    text: str
    log: str  # the file name of the log that holds it
    similar: tuple[str, ...]


def rejections(text: str) -> list[Rejection]:
    """The rejections of ``memory/rejected.md``; any other line is prose."""
    found: list[Rejection] = []
    for line in text.splitlines():
        if line.startswith("- ") and line.count(" | ") >= 2:
            address, day, said = line[2:].split(" | ", 2)
            found.append(Rejection(address.strip(), day.strip(), said, ""))
        elif line.startswith("  reason: ") and found and not found[-1].reason:
            found[-1] = found[-1]._replace(reason=line[len("  reason: ") :])
    return found


def appended(before: str | None, rejection: Rejection) -> str:
    """The file with ``rejection`` at its end (a new file starts with its heading)."""
    text = before if before else HEADING
    if not text.endswith("\n"):
        text += "\n"
    said, why = one_line(" ".join(rejection.text.split())), one_line(rejection.reason)
    return f"{text}\n- {rejection.address} | {rejection.day} | {said}\n  reason: {why}\n"


def rejected_as(text: str, found: Iterable[Rejection]) -> Rejection | None:
    """The first rejection of a proposal that said what ``text`` says, if any."""
    key = normal(text)
    return next((r for r in found if key and normal(r.text) == key), None)


def said_before(found: Sequence[Rejection]) -> Callable[[Pending], str | None]:
    """What ``fact accept`` says of a proposal whose words another's rejection holds (None:
    nobody rejected them; a person may still land the very proposal they rejected)."""

    def said(proposal: Pending) -> str | None:
        was = rejected_as(proposal.text, [r for r in found if r.address != proposal.address])
        if was is None:
            return None
        return (
            f"a person rejected the same words before ({was.address}, {was.day}: {was.reason}) "
            f"in {REJECTED}; it is not accepted"
        )

    return said


def pending(
    logs: Iterable[tuple[str, bytes]],
    origins: Mapping[str, str],
    found: Sequence[Rejection],
    live: Sequence[Document],
) -> list[Waiting]:
    """The proposals of ``logs`` that no fact has as its origin and nobody rejected (neither
    their address nor their words), each with the live facts it is much like: what
    ``agent-memory proposals`` lists."""
    closed = {**origins, **closed_to(found)}
    out: list[Waiting] = []
    for log, data in logs:
        for each in unaccepted([(log, data)], closed):
            if rejected_as(each.text, found) is not None:
                continue
            alike = compare(each.text, live)
            ids = tuple(m.id for m in (*((alike.same,) if alike.same else ()), *alike.similar))
            out.append(Waiting(each.address, each.kind, each.text, log, ids))
    return out


def closed_to(found: Sequence[Rejection]) -> dict[str, str]:
    """The rejected addresses, as ``unaccepted`` takes the addresses it passes over."""
    return {r.address: "rejected" for r in found}
