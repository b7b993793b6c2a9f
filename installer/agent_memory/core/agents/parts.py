"""One session, one log (DESIGN §19): the logs a session's captures wrote, and which one the next
capture writes.

A session's log is rewritten by each later capture of the session until a review reads it or git
records it (the command asks: ``commands/own_log``), or someone writes to it (its digest no longer
matches: ``rewritable``); only then does the session go on in a new
log, a part, which covers the transcript lines after the last one the closed logs cover. So a
hook that fires every turn gives one log, and a log a review counted or a commit holds never
changes. Each log says which session it is (its ``- session:`` line) and which lines it covers.
"""

import datetime as dt
import hashlib
import re
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from ... import patterns
from ...parse.dates import parse_moment
from ...parse.newlog import log_name as make_log_name
from ...parse.sessions import read_refs
from ...parse.untrusted import one_line
from ..secrets import redact

# A log's own lines, found as the first of their kind: every value capture writes is one line
# after a "- key: " of its own, so none can start like these before them.
# (Only ASCII digits are digits, and a count has at most 18 of them.)
_SESSION = patterns.compile(r"^- session: .*$", re.M)
_COVERED = patterns.compile(r"^- transcript lines: ([0-9]{1,18})-([0-9]{1,18})$", re.M)
_END = patterns.compile(r"^- end: (.*)$", re.M)
_CUT = patterns.compile(r"^- incomplete: ", re.M)
_DIGEST = patterns.compile(rb"^- digest: ([0-9a-f]{64})\n", re.M)
_SLUG_CHARS = 8
_NAME_TRIES = 100  # names tried for a new part: the seconds after its first record's


class Part(NamedTuple):
    """A log captured from the session: the transcript lines it covers, the time of the last
    record it holds, the ids it lists as created, and whether it says the transcript's last
    line was cut mid-record."""

    name: str
    first_line: int
    last_line: int
    end: str | None
    created: frozenset[str]
    cut: bool = False


class Resume(NamedTuple):
    """Where the next capture of a session starts: after the lines the closed parts cover (and,
    for a subagent's records, which have no line of the main transcript, after their ``end``),
    with the ids they created; ``reopened`` is the open part it rewrites, if any."""

    after: int
    since: str | None
    created: frozenset[str]
    reopened: Part | None


def slug(agent: str, session_id: str, whole: bool = False) -> str:
    """The log name's tail: the agent and the first 8 letters and digits of the session id
    (all of them when ``whole``: a name two sessions would share)."""
    letters = re.sub(r"[^a-z0-9]", "", session_id.lower())
    return f"{agent}-{letters if whole else letters[:_SLUG_CHARS]}"


def log_suffixes(agent: str, session_id: str) -> tuple[str, str]:
    """How the names of this session's logs end: its slug, short or whole. A log so named may
    still be another session's (ids can share their first letters): ``parts`` reads it."""
    return (f"-{slug(agent, session_id)}.md", f"-{slug(agent, session_id, whole=True)}.md")


def session_line(session_id: str) -> str:
    """The ``- session:`` line a log of this session holds, as ``render`` writes it."""
    return redact(f"- session: {one_line(session_id)}")[0]


def parts(logs: Iterable[tuple[str, bytes]], session_id: str) -> list[Part]:
    """The logs of session ``session_id`` among ``logs`` (name and bytes of those named like its
    logs, ``log_suffixes``), in the order of the lines they cover; a log whose session line
    names another session is not one."""
    own = session_line(session_id)
    found = []
    for name, data in logs:
        text = data.decode("utf-8", errors="replace")
        said, covered, end = _SESSION.search(text), _COVERED.search(text), _END.search(text)
        if said is None or said.group(0) != own:
            continue
        first, last = (int(covered.group(1)), int(covered.group(2))) if covered else (0, 0)
        when = end.group(1) if end else None
        created = frozenset(read_refs(data).created)
        found.append(Part(name, first, last, when, created, _CUT.search(text) is not None))
    return sorted(found, key=lambda part: (part.last_line, part.name))


def sealed(rows: Sequence[str], at: int) -> str:
    """The log of ``rows`` with its ``- digest:`` line at row ``at``: the SHA-256 of the log's
    other bytes, by which a later capture knows the log is still exactly what it wrote."""
    text = "\n".join(rows)
    digest = hashlib.sha256(text.encode()).hexdigest()
    return "\n".join([*rows[:at], f"- digest: {digest}", *rows[at:]])


def rewritable(old: bytes) -> bool:
    """Whether the open log ``old`` may be rewritten: its bytes are the ones its digest seals.
    A log someone wrote to (a line changed, a section added) holds their text, which a rewrite
    would lose, and one without a digest may have been written by anyone: either is closed like
    one a review read."""
    found = _DIGEST.search(old)
    if found is None:
        return False
    rest = old[: found.start()] + old[found.end() :]
    return hashlib.sha256(rest).hexdigest().encode() == found.group(1)


def resume(found: Sequence[Part], last_open: bool) -> Resume:
    """Where the next capture starts, given the session's parts and whether the last of them is
    still open (no review read it, git does not hold it, ``rewritable``)."""
    reopened = found[-1] if found and last_open else None
    closed = [part for part in found if part is not reopened]
    created = frozenset().union(*(part.created for part in closed))
    if not closed:
        return Resume(0, None, created, reopened)
    return Resume(closed[-1].last_line, closed[-1].end, created, reopened)


def log_name(agent: str, session_id: str, start: str, taken: frozenset[str]) -> str | None:
    """A new part's name: its start (the session's, for the first part) and the session's slug;
    the whole id in the slug when another log has the name (a session whose id starts the same,
    in the same second), and then the seconds after, until a name is free (None: none was)."""
    when = parse_moment(start)
    assert when is not None  # the command checks the start first
    for tries in range(_NAME_TRIES):
        later = when + dt.timedelta(seconds=tries)
        for whole in (False, True):
            name = make_log_name(later, slug(agent, session_id, whole))
            if name not in taken:
                return name
    return None
