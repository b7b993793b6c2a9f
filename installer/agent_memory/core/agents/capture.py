"""``session capture``: a session log computed from an agent's transcript, with no model.

What counts as a use (HOOKS.md § What capture writes): the exact tokens of known ids in the
agent's own messages and in its tool calls' arguments — never in user messages or tool results.
A ``recall`` hit therefore counts when the agent goes on to name it, which is how it uses it; the
hits it only saw do not, or every fact a search returned would be kept alive. Facts added or whose
text changed since the session's start (continuity.md then, from git) count too.

A session has one log until a review reads it or git records it (``parts``): each log records the
session's whole id and the transcript lines it covers, and a capture rewrites the session's open
log or starts a new one after the lines the closed ones cover, so the same transcript always
gives the same logs and a second capture of it writes nothing. Every string the transcript
supplies reaches the log through ``one_line``: a value must not be able to add a line to it.
"""

import hashlib
import posixpath
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import NamedTuple

from ... import patterns
from ...parse.dates import parse_moment
from ...parse.facts import Document
from ...parse.footer import find as find_footer
from ...parse.transcripts import LINE_MAX, Bad, Item, Meta, Record
from ...parse.untrusted import one_line
from ..secrets import redact
from .parts import sealed

# Bytes that can be part of a token stay; every other byte becomes a space.
_TOKEN_BYTES = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-"
_SEPARATE = bytes(c if c in _TOKEN_BYTES else 32 for c in range(256))
_MAX_FILES = 200
_PIECE = 1 << 20  # bytes of text tokenized at a time, so a huge argument costs a bounded list
PROMPT_HEADING = "## First Prompt"
PROMPT_MAX = 300  # characters of the first prompt a log keeps
_PROMPT_READ = 1 << 16  # characters of it scrubbed: a pasted file is not read past this
_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")  # CommonMark's escapable ones
_NUMBERED = patterns.compile(r"\d{1,9}[.)](?= |\Z)")  # what opens an ordered list item


class Session(NamedTuple):
    """What a transcript (or the part after ``parts.Resume.after``) shows the agent did."""

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
    long_lines: int = 0  # over LINE_MAX: skipped unread
    first_prompt: str | None = None  # the session's first prompt, as the transcript holds it


def named_ids(texts: Iterable[str], known: frozenset[bytes]) -> list[str]:
    """Known ids (given encoded) that ``texts`` name as exact tokens, in order of first mention.

    A token is a run of ASCII letters, digits, ``_``, ``.`` and ``-``; a period that ends a
    sentence is not part of it. A capital letter or ``_`` in the run makes it some other word
    (``Post-only-mutations``, ``x_post-only``); ``rate-limit.md`` is a file name, not the id.
    Comments are skipped: an id in a footer being edited is the file's content, not the agent's
    choice. Byte operations and one set intersection per megabyte, on all the texts at once:
    tool arguments can be megabytes long, or millions of strings.
    """
    joined = "\n".join(map(_without_comments, texts))
    data = joined.encode("ascii", "replace").translate(_SEPARATE) + b" "
    found: dict[bytes, None] = {}
    at = 0
    while at < len(data):  # pieces that end at a blank, so no token is cut
        end = data.find(b" ", at + _PIECE) + 1 or len(data)
        tokens = data[at:end].replace(b". ", b"  ").split()
        found.update(dict.fromkeys(sorted(known.intersection(tokens), key=tokens.index)))
        at = end
    return [token.decode() for token in found]


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


def collect(
    items: Iterable[Item],
    known: frozenset[str] | Callable[[], frozenset[str]],
    after: int,
    side: Iterable[Item] = (),
    since: str | None = None,
) -> Session:
    """Fold a transcript's items into a ``Session``; records at or before line ``after`` are
    the earlier parts' and are skipped. ``side`` holds the items of the session's other
    transcripts (Claude Code's subagents), which have no line of this one: a record of theirs
    counts in the part whose time holds it, after ``since`` (the earlier parts' end). ``known``
    may be given as the function that finds it, asked only if a record is new: finding it reads
    the archive, and a hook firing again on a transcript already captured has none."""
    meta: dict[str, str] = {}
    encoded: frozenset[bytes] | None = None
    named: dict[str, None] = {}
    files: dict[str, None] = {}
    calls: Counter[str] = Counter()
    first = last = messages = bad = long = 0
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
            long += item.long
            bad += not item.long
            cut = cut or item.last
            continue
        first, last = min(first or item.line, item.line), max(last, item.line)
        if item.time:
            first_time, last_time = first_time or item.time, item.time
        encoded = _encoded(known) if encoded is None else encoded
        _record(item, encoded, named, files, calls)
        messages += bool(item.texts)
    for item in side:
        if isinstance(item, Bad):
            long, bad = long + item.long, bad + (not item.long)
        elif isinstance(item, Record) and (after == 0 or later(item.time, since)):
            encoded = _encoded(known) if encoded is None else encoded
            _record(item, encoded, named, files, calls)
            messages += bool(item.texts)
            last_time = item.time if item.time and later(item.time, last_time) else last_time
    start = meta.get("start") if after == 0 else first_time or None
    end = last_time or start
    return Session(
        meta.get("session_id"), start, end, meta.get("cwd"), meta.get("project_hash"),
        first, last, tuple(named), tuple(files), messages, calls, bad, cut, long,
        meta.get("prompt"),
    )  # fmt: skip


def _encoded(known: frozenset[str] | Callable[[], frozenset[str]]) -> frozenset[bytes]:
    return frozenset(i.encode() for i in (known() if callable(known) else known))


def later(time: str | None, than: str | None) -> bool:
    """Whether ``time`` is after ``than`` (any time is after none; no time is after nothing)."""
    if not than:
        return True
    mine, theirs = parse_moment(time) if time else None, parse_moment(than)
    return mine is not None and theirs is not None and mine > theirs


def _record(
    record: Record,
    known: frozenset[bytes],
    named: dict[str, None],
    files: dict[str, None],
    calls: Counter[str],
) -> None:
    texts = [*record.texts, *(text for call in record.calls for text in call.texts)]
    named.update(dict.fromkeys(named_ids(texts, known)))
    for call in record.calls:
        calls[call.name] += 1
        if len(files) < _MAX_FILES:
            files.update(dict.fromkeys(call.files))
    if len(files) < _MAX_FILES:
        files.update(dict.fromkeys(record.files))


def repo_paths(
    paths: Sequence[str], cwd: str | None, project_hash: str | None, top: str | None = None
) -> list[str]:
    """The paths inside the repo, relative to its top; the rest (elsewhere on the machine, or
    above the top) dropped. A relative path is relative to the folder the agent ran in, ``cwd``
    (Gemini records only the sha256 of it: found among the files' folders).

    ``top`` is the repo's top on this machine: when the agent ran in it or below it, paths are
    named from it (a session started in ``src/app`` wrote ``src/app/here.txt``, not
    ``here.txt``). The transcript may come from another machine, where the repo's path is no
    guide: there the folder the agent ran in is taken for the top.
    """
    if cwd is None and project_hash is not None:
        cwd = _hashed_folder(paths, project_hash)
    base = posixpath.normpath(cwd) if cwd and posixpath.isabs(cwd) else None
    root = base if top is None or base is None or not _within(base, top) else top
    found: dict[str, None] = {}
    for path in paths:
        if base is not None:
            full = posixpath.normpath(posixpath.join(base, path))
            if root is None or not _within(full, root) or full == root:
                continue
            rel = full[len(root.rstrip("/")) + 1 :]
        elif posixpath.isabs(path):  # where the agent ran is unknown
            continue
        else:
            rel = posixpath.normpath(path)
        if rel != "." and not rel.startswith("../") and rel != "..":
            found[rel] = None
    return list(found)


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _hashed_folder(paths: Sequence[str], project_hash: str) -> str | None:
    for path in paths:
        folder = posixpath.dirname(path)
        while folder not in ("/", ""):
            # A lone surrogate (JSON's \udxxx) names no real folder: hashed, it matches none.
            if hashlib.sha256(folder.encode(errors="surrogatepass")).hexdigest() == project_hash:
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


class Log(NamedTuple):
    name: str
    text: str
    redacted: Mapping[str, int]  # kind -> how many


def render(
    agent: str,
    session: Session,
    name: str,
    files: Sequence[str],
    found: Changes,
    proposed: Sequence[str] = (),
) -> Log:
    """The log of a session part, named ``name`` (``log_name``). Its ids are known ids; every
    other value comes from the transcript and is written through ``one_line``. ``proposed``:
    the lines of its ``## Proposed Facts`` (``proposals.render``), scrubbed with the rest."""
    created = set(found.created)
    referenced = [i for i in (*session.named, *found.changed) if i not in created]
    calls = ", ".join(f"{one_line(n)} {c}" for n, c in sorted(session.calls.items())) or "none"
    head = [
        f"# Session {name[:-3]}",
        "",
        f"Written by `agent-memory session capture` from the {agent} transcript; no model.",
        "",
        "## Session",
        f"- agent: {agent}",
        f"- session: {one_line(session.session_id or '')}",
        f"- start: {one_line(session.start or '')}",
        f"- end: {one_line(session.end or '')}",
        f"- transcript lines: {session.first_line}-{session.last_line}",
        f"- agent messages: {session.messages}",
        f"- tool calls: {sum(session.calls.values())} ({calls})",
        *_damage(session),
    ]
    prompt, kinds = prompt_line(session.first_prompt) if session.first_prompt else ("", Counter())
    lines = [
        *head,
        *(["", PROMPT_HEADING, "", prompt] if prompt else []),
        "",
        "## Files Changed",
        *([f"- {one_line(path)}" for path in files] or ["- (none)"]),
        "",
        "## Memory References",
        f"- Referenced: {', '.join(dict.fromkeys(referenced)) or '(none)'}",
        f"- Created: {', '.join(found.created) or '(none)'}",
        "",
        *proposed,
    ]
    text, secrets = redact("\n".join(lines))
    kinds.update(secret.kind for secret in secrets)
    rows = text.split("\n")
    if kinds:  # the scrubbing keeps every line where it was: the note ends the Session list
        note = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items()))
        rows.insert(len(head), f"- redacted: {note}")
    return Log(name, sealed(rows, len(head) + bool(kinds)), dict(kinds))


def prompt_line(prompt: str) -> tuple[str, Counter[str]]:
    """The first prompt as a log keeps it (HOOKS.md § The first prompt), and the secrets it
    held (kind -> how many of them the kept part shows as redacted): scrubbed whole (a secret
    cut in two would no longer look like one), its runs of white space made one space, cut at
    ``PROMPT_MAX`` characters, escaped as every value of a log is, and a first character that
    could start a Markdown block (``#``, ``-``, ``>``, a fence, ``<``…), or the period or
    parenthesis of a number that could (``1.``), escaped with a backslash, so that no prompt
    can open a section, a list item, a code block or an HTML block of the log."""
    scrubbed, secrets = redact(prompt[:_PROMPT_READ])
    line = one_line(" ".join(scrubbed.split())[:PROMPT_MAX])
    if line[:1] in _PUNCTUATION:
        line = f"\\{line}"
    elif numbered := _NUMBERED.match(line):  # ``1. fix it``: its period or parenthesis
        line = f"{line[: numbered.end() - 1]}\\{line[numbered.end() - 1 :]}"
    found = Counter(secret.kind for secret in secrets)
    kinds = Counter({kind: min(n, line.count(f"[redacted: {kind}]")) for kind, n in found.items()})
    return line, +kinds


def _damage(session: Session) -> list[str]:
    """Say plainly what could not be read, so a partial log is never taken for a whole one."""
    out = []
    whole = session.bad_lines - session.cut_last_line
    if whole:
        out.append(f"- unreadable lines skipped: {whole} (not JSON; what they held is not counted)")
    if session.long_lines:
        out.append(
            f"- long lines skipped: {session.long_lines} (over {LINE_MAX >> 20} MiB each, not "
            "read; what they held is not counted)"
        )
    if session.cut_last_line:
        out.append(
            "- incomplete: the transcript's last line is cut mid-record (the agent was still "
            "writing it); a capture after the session ends adds the rest"
        )
    return out
