"""``session capture``: a session log computed from an agent's transcript, with no model.

What counts as a use (HOOKS.md § What capture writes): the exact tokens of known ids in the
agent's own messages and in its tool calls' arguments — never in user messages or tool results.
A ``recall`` hit therefore counts when the agent goes on to name it, which is how it uses it; the
hits it only saw do not, or every fact a search returned would be kept alive. Facts added or whose
text changed since the session's start (continuity.md then, from git) count too.

A transcript may be captured in parts (a session that goes on after a capture): each log records
the transcript lines it covers, and the next capture starts after them, so the same transcript
always gives the same logs and a second capture of it writes nothing.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import posixpath
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

from ... import patterns
from ...parse.facts import Document
from ...parse.footer import find as find_footer
from ...parse.newlog import log_name
from ...parse.sessions import read_refs
from ...parse.transcripts import Bad, Item, Meta, Record
from ..checks.secrets import redact

# Bytes that can be part of a token stay; every other byte becomes a space.
_TOKEN_BYTES = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-"
_SEPARATE = bytes(c if c in _TOKEN_BYTES else 32 for c in range(256))
_COVERED = patterns.compile(r"^- transcript lines: \d+-(\d+)", re.M)
_MAX_FILES = 200


class Earlier(NamedTuple):
    """What the logs already captured from this session say: the last line they cover, and the
    ids they list as created (so a later part does not create them again)."""

    last_line: int
    created: frozenset[str]


class Session(NamedTuple):
    """What a transcript (or the part after ``Earlier.last_line``) shows the agent did."""

    session_id: str | None
    start: str | None  # the session's start (for the first part) or the part's first record
    end: str | None
    cwd: str | None
    project_hash: str | None
    first_line: int
    last_line: int
    named: tuple[str, ...]  # known ids the agent named, in order of first mention
    files: tuple[str, ...]  # paths as the agent gave them, in order of first write
    messages: int
    calls: Counter[str]
    bad_lines: int
    cut_last_line: bool


def earlier(logs: Iterable[tuple[str, bytes]]) -> Earlier:
    """The parts of a session already captured, from their logs' bytes."""
    last, created = 0, set[str]()
    for _name, data in logs:
        text = data.decode("utf-8", errors="replace")
        last = max([last, *(int(m.group(1)) for m in _COVERED.finditer(text))])
        created |= read_refs(data).created
    return Earlier(last, frozenset(created))


def named_ids(text: str, known: frozenset[bytes]) -> list[str]:
    """Known ids (given encoded) that ``text`` names as exact tokens, in order of first mention.

    A token is a run of ASCII letters, digits, ``_``, ``.`` and ``-``; a period that ends a
    sentence is not part of it. A capital letter or ``_`` in the run makes it some other word
    (``Post-only-mutations``, ``x_post-only``); ``rate-limit.md`` is a file name, not the id.
    Comments are skipped: an id in a footer being edited is the file's content, not the agent's
    choice. Byte operations and one set intersection: tool arguments can be megabytes long.
    """
    data = _without_comments(text).encode("ascii", "replace").translate(_SEPARATE)
    tokens = (data + b" ").replace(b". ", b"  ").split()
    hits = known.intersection(tokens)
    return [token.decode() for token in sorted(hits, key=tokens.index)]


def _without_comments(text: str) -> str:
    if "<!--" not in text:
        return text
    pieces, at = [], 0
    while (start := text.find("<!--", at)) != -1:
        pieces.append(text[at:start])
        close = text.find("-->", start + 4)
        at = len(text) if close == -1 else close + 3
    pieces.append(text[at:])
    return " ".join(pieces)


def collect(items: Iterable[Item], known: frozenset[str], after: int) -> Session:
    """Fold a transcript's items into a ``Session``; records at or before line ``after`` are
    the earlier parts' and are skipped."""
    meta: dict[str, str] = {}
    encoded = frozenset(i.encode() for i in known)
    named: dict[str, None] = {}
    files: dict[str, None] = {}
    calls: Counter[str] = Counter()
    first = last = messages = bad = 0
    first_time = last_time = ""
    cut = False
    for item in items:
        if isinstance(item, Meta):
            for key, value in zip(Meta._fields, item, strict=True):
                if isinstance(value, str) and value:
                    meta.setdefault(key, value)
            continue
        if item.line <= after:
            continue
        if isinstance(item, Bad):
            bad += 1
            cut = cut or item.last
            continue
        first, last = first or item.line, max(last, item.line)
        if item.time:
            first_time, last_time = first_time or item.time, item.time
        _record(item, encoded, named, files, calls)
        messages += bool(item.texts)
    start = meta.get("start") if after == 0 else first_time or None
    end = last_time or start
    return Session(
        meta.get("session_id"), start, end, meta.get("cwd"), meta.get("project_hash"),
        first, last, tuple(named), tuple(files), messages, calls, bad, cut,
    )  # fmt: skip


def _record(
    record: Record,
    known: frozenset[bytes],
    named: dict[str, None],
    files: dict[str, None],
    calls: Counter[str],
) -> None:
    for text in record.texts:
        named.update(dict.fromkeys(named_ids(text, known)))
    for call in record.calls:
        calls[call.name] += 1
        if len(files) < _MAX_FILES:
            files.update(dict.fromkeys(call.files))
        for text in call.texts:
            named.update(dict.fromkeys(named_ids(text, known)))


def repo_paths(paths: Sequence[str], cwd: str | None, project_hash: str | None) -> list[str]:
    """The paths inside the repo, relative to it; the rest (elsewhere on the machine) dropped.

    The agent ran in ``cwd`` (Gemini records only the sha256 of it: found among the files'
    folders); the transcript may come from another machine, so the repo's own path is no guide.
    """
    if cwd is None and project_hash is not None:
        cwd = _hashed_folder(paths, project_hash)
    found: dict[str, None] = {}
    for path in paths:
        rel = path
        if posixpath.isabs(path):
            if cwd is None or not path.startswith(cwd.rstrip("/") + "/"):
                continue
            rel = path[len(cwd.rstrip("/")) + 1 :]
        rel = posixpath.normpath(rel)
        if rel != "." and not rel.startswith("../") and rel != "..":
            found[rel] = None
    return list(found)


def _hashed_folder(paths: Sequence[str], project_hash: str) -> str | None:
    for path in paths:
        folder = posixpath.dirname(path)
        while folder not in ("/", ""):
            if hashlib.sha256(folder.encode()).hexdigest() == project_hash:
                return folder
            folder = posixpath.dirname(folder)
    return None


class Changes(NamedTuple):
    created: tuple[str, ...]
    changed: tuple[str, ...]


def changes(
    before: Document | None, now: Document | None, since: str, done: frozenset[str]
) -> Changes:
    """Facts of ``now`` added or reworded since ``before`` (continuity.md at the session's start);
    without ``before`` (no git history), those created on or after the date ``since``."""
    if now is None:
        return Changes((), ())
    old = {} if before is None else _texts(before)
    created, changed = [], []
    for fact_id, text in _texts(now).items():
        if fact_id in done:
            continue
        if before is None:
            fact = next(f for f in now.facts if f.id == fact_id)
            if (fact.field("created") or "") >= since[:10]:
                created.append(fact_id)
        elif fact_id not in old:
            created.append(fact_id)
        elif old[fact_id] != text:
            changed.append(fact_id)
    return Changes(tuple(created), tuple(changed))


def _texts(doc: Document) -> dict[str, str]:
    """Each fact's text without its footer: a review rewriting footers changes no text."""
    out = {}
    for fact in doc.facts:
        if fact.id is None:
            continue
        lines = list(doc.text.lines[fact.start : fact.end])
        if fact.footer_line is not None:
            line = lines[fact.footer_line - fact.start]
            found = find_footer(line)
            if found is not None:
                lines[fact.footer_line - fact.start] = line[: found.start] + line[found.end :]
        out[fact.id] = " ".join("".join(lines).split())
    return out


def slug(agent: str, session_id: str) -> str:
    return f"{agent}-{re.sub(r'[^a-z0-9]', '', session_id.lower())[:8]}"


def moment(stamp: str) -> dt.datetime | None:
    try:
        when = dt.datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return None
    return when if when.tzinfo else when.replace(tzinfo=dt.timezone.utc)


class Log(NamedTuple):
    name: str
    text: str
    redacted: Mapping[str, int]  # kind -> how many


def render(agent: str, session: Session, files: Sequence[str], found: Changes) -> Log:
    """The log of a session part; its name is the part's start and the session's slug."""
    assert session.session_id and session.start  # the command checks both first
    when = moment(session.start)
    assert when is not None
    name = log_name(when, slug(agent, session.session_id))
    created = set(found.created)
    referenced = [i for i in (*session.named, *found.changed) if i not in created]
    calls = ", ".join(f"{n} {c}" for n, c in sorted(session.calls.items())) or "none"
    lines = [
        f"# Session {name[:-3]}",
        "",
        f"Written by `agent-memory session capture` from the {agent} transcript; no model.",
        "",
        "## Session",
        f"- agent: {agent}",
        f"- session: {session.session_id}",
        f"- start: {session.start}",
        f"- end: {session.end}",
        f"- transcript lines: {session.first_line}-{session.last_line}",
        f"- agent messages: {session.messages}",
        f"- tool calls: {sum(session.calls.values())} ({calls})",
        *_damage(session),
        "",
        "## Files Changed",
        *([f"- {path}" for path in files] or ["- (none)"]),
        "",
        "## Memory References",
        f"- Referenced: {', '.join(dict.fromkeys(referenced)) or '(none)'}",
        f"- Created: {', '.join(found.created) or '(none)'}",
        "",
    ]
    text, secrets = redact("\n".join(lines))
    kinds = Counter(secret.kind for secret in secrets)
    if kinds:
        note = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items()))
        text = text.replace("\n\n## Files Changed", f"\n- redacted: {note}\n\n## Files Changed", 1)
    return Log(name, text, dict(kinds))


def _damage(session: Session) -> list[str]:
    """Say plainly what could not be read, so a partial log is never taken for a whole one."""
    out = []
    whole = session.bad_lines - session.cut_last_line
    if whole:
        out.append(f"- unreadable lines skipped: {whole} (not JSON; what they held is not counted)")
    if session.cut_last_line:
        out.append(
            "- incomplete: the transcript's last line is cut mid-record (the agent was still "
            "writing it); a capture after the session ends adds the rest as a new log"
        )
    return out
