"""What a session proposes to remember, read from its transcript with no model (HOOKS.md § What
capture writes, schema.md § Proposed Facts).

Two sources, both the agent's own: a save it made to its own memory, seen as a tool call
(Claude Code's Write, Edit and MultiEdit of a file in its auto-memory folder, Gemini CLI's
``save_memory``, Codex's ``apply_patch`` of a file in its memories folder), and a line of its own
message that starts with a marker (``Remember:``, ``Decision:`` …, ``proposed.MARKERS``). A save's
text is what it added, one line: front matter, heading and list markers, and the headings and
the lines of Claude Code's ``MEMORY.md`` index that only point at a topic file, left out. Never
the user's words, a tool's result, or a call that failed.
"""

import re
from collections.abc import Iterable, Iterator, Sequence
from typing import NamedTuple

from ... import patterns
from ...parse import proposed
from ...parse.facts import Document
from ...parse.markdown import ATX, front_matter, inside
from ...parse.transcripts import Call, Item, Record
from ...parse.untrusted import one_line
from ..facts.duplicates import compare

MAX_PROPOSALS = 100  # listed per log; more are counted, not listed
_CLAUDE_MEMORY = patterns.compile(r"/\.claude/projects/[^/]+/memory/(?:[^/]+/)*([^/]+)$")
_CODEX_MEMORY = patterns.compile(r"/\.codex/memories/(?:[^/]+/)*([^/]+)$")
_MARKER = patterns.compile(
    r"^[ \t]{0,3}(?:[-*+>][ \t]+)?[*_]{0,2}("
    + "|".join(word.replace(" ", r"[ \t]+") for word in proposed.MARKERS)
    + r")[*_]{0,2}"
    r"[ \t]*:[*_]{0,2}[ \t]+(\S.*)$",
    re.M | re.I,
)
_TYPE = patterns.compile(r"^[ \t]*type:[ \t]*['\"]?([a-z]+)['\"]?[ \t]*$", re.M)
_DESCRIPTION = patterns.compile(r"^description:[ \t]*(.+)$", re.M)
_MARKUP = patterns.compile(
    r"^(?:#{1,6}[ \t]+|[-*+][ \t]+(?:\[[ xX]\][ \t]+)?|[0-9]{1,9}[.)][ \t]+)"
)
_POINTER = patterns.compile(r"^[-*+][ \t]+\[[^\]]*\]\([^)\s]+\.md\)")
# The lines that end a file's section of a patch (not ``*** End of File`` nor ``*** Move to:``).
_PATCH_SECTIONS = ("*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** End Patch")
_CLAUDE_TYPES = frozenset({"user", "feedback", "project", "reference"})


class Proposal(NamedTuple):
    kind: str
    text: str  # one line


class Gathered:
    """What a session proposed so far: the first ``MAX_PROPOSALS`` distinct texts (as the log
    writes them) with their kinds, and how many more there were, so a transcript of a million
    marker lines costs a hundred of them."""

    __slots__ = ("listed", "more")

    def __init__(self) -> None:
        self.listed: dict[str, str] = {}  # text -> kind, in the order first proposed
        self.more = 0

    def add(self, proposal: Proposal) -> None:
        shown = one_line(" ".join(proposal.text.split()))
        if not shown or shown in self.listed:
            return
        if len(self.listed) < MAX_PROPOSALS:
            self.listed[shown] = proposal.kind
        else:
            self.more += 1


def watching(items: Iterable[Item], after: int, found: Gathered) -> Iterator[Item]:
    """``items`` passed on unchanged, the proposals of each record after line ``after`` added
    to ``found`` on the way: capture reads a transcript once, and this rides along."""
    for item in items:
        if isinstance(item, Record) and item.line > after:
            for proposal in from_record(item):
                found.add(proposal)
        yield item


def from_record(record: Record) -> list[Proposal]:
    """The marker lines of the record's texts, then the saves of its calls."""
    out = [Proposal(kind, text) for text in record.texts for kind, text in marked(text)]
    for call in record.calls:
        saved = save_of(call)
        if saved is not None:
            out.append(saved)
    return out


def marked(text: str) -> Iterator[tuple[str, str]]:
    """(kind, rest of the line) for each line of ``text`` that starts with a marker, outside
    code fences."""
    if ":" not in text:
        return
    fenced = inside(text.split("\n"), ("fence",)) if "``" in text or "~~" in text else set()
    line = at = 0
    for match in _MARKER.finditer(text):
        if fenced:  # the match's line number, counted on from the last match's
            line, at = line + text.count("\n", at, match.start()), match.start()
            if line in fenced:
                continue
        word = " ".join(match.group(1).lower().split())
        yield proposed.MARKERS[word], match.group(2).rstrip()


def save_of(call: Call) -> Proposal | None:
    """The save ``call`` made to the agent's own memory, or None when it made none."""
    if not call.ok:
        return None
    if call.name == "save_memory":  # Gemini CLI
        fact = call.args.get("fact")
        return _proposal(proposed.SAVED, [fact] if isinstance(fact, str) else [])
    if not call.files:  # the transcript reader names the files a call writes
        return None
    if call.name in ("Write", "Edit", "MultiEdit"):  # Claude Code
        found = _CLAUDE_MEMORY.search(call.files[0].replace("\\", "/"))
        return _claude(call, found.group(1)) if found else None
    if any(_CODEX_MEMORY.search(path.replace("\\", "/")) for path in call.files):
        return _codex(call)  # a patch, however Codex was asked to apply it
    return None


def _claude(call: Call, name: str) -> Proposal | None:
    args = call.args
    if call.name == "Write":
        content = args.get("content")
        return _written(content, name == "MEMORY.md") if isinstance(content, str) else None
    pairs = args.get("edits") if call.name == "MultiEdit" else [args]
    added: list[str] = []
    for pair in pairs if isinstance(pairs, list) else ():
        if isinstance(pair, dict) and isinstance(pair.get("new_string"), str):
            old = pair.get("old_string")
            added += _added(old if isinstance(old, str) else "", pair["new_string"])
    return _proposal(proposed.SAVED, _unpointed(added, False) if name == "MEMORY.md" else added)


def _written(content: str, index: bool) -> Proposal | None:
    """A whole memory file: its body, or its description when the body is empty; its ``type``
    (user, feedback, project, reference) names the kind."""
    kind, description = proposed.SAVED, ""
    lines = content.splitlines()
    matter = front_matter(lines)
    if matter:
        front = "\n".join(lines[1 : matter - 1])
        typed = _TYPE.search(front)
        if typed is not None and typed.group(1) in _CLAUDE_TYPES:
            kind = f"{proposed.SAVED} ({typed.group(1)})"
        said = _DESCRIPTION.search(front)
        description = said.group(1).strip().strip("'\"") if said else ""
        lines = lines[matter:]
    kept = _unpointed(lines, False) if index else lines
    return _proposal(kind, kept) or _proposal(kind, [description])


def _codex(call: Call) -> Proposal | None:
    """The lines a patch adds to files in Codex's memories folder."""
    added: list[str] = []
    for text in call.texts:
        path, old, new = None, set[str](), list[str]()
        for each in [*text.splitlines(), "*** End Patch"]:
            if each.startswith(_PATCH_SECTIONS):
                if path is not None:
                    added += [line for line in new if line not in old]
                path, old, new = _codex_path(each), set(), []
            elif path is not None and each.startswith("+"):
                new.append(each[1:])
            elif path is not None and each.startswith("-"):
                old.add(each[1:])
    return _proposal(proposed.SAVED, _unpointed(added))


def _codex_path(header: str) -> str | None:
    for verb in ("*** Add File: ", "*** Update File: "):
        if header.startswith(verb):
            path = header[len(verb) :].strip().replace("\\", "/")
            return path if _CODEX_MEMORY.search(path) else None
    return None


def _added(old: str, new: str) -> list[str]:
    """The lines of ``new`` that ``old`` did not have: what an edit saved."""
    before = set(old.splitlines())
    return [line for line in new.splitlines() if line not in before]


def _unpointed(lines: Sequence[str], headings: bool = True) -> list[str]:
    """An index's lines without those that only point at a topic file (whose write is the
    save), and without its headings unless ``headings`` (Codex's name its task groups)."""
    return [
        line
        for line in lines
        if not _POINTER.match(line.strip()) and (headings or not ATX.match(line))
    ]


def _proposal(kind: str, lines: Sequence[str]) -> Proposal | None:
    """The saved lines as one line of text: blank lines dropped, heading and list markers off."""
    words = [_MARKUP.sub("", " ".join(line.split())) for line in lines]
    text = " ".join(word for word in words if word)
    return Proposal(kind, text) if text else None


def leaving_out(found: Gathered, doc: Document) -> Gathered:
    """``found`` without the proposals that say what a fact of ``doc`` says: the personal
    file's, since a log is committed (DECAY.md § Personal facts)."""
    kept = Gathered()
    kept.more = found.more
    for text, kind in found.listed.items():
        if compare(text, [doc]).same is None:
            kept.listed[text] = kind
    return kept


def render(found: Gathered) -> list[str]:
    """The ``## Proposed Facts`` section (no lines when nothing was proposed)."""
    if not found.listed:
        return []
    lines = [proposed.HEADING, ""]
    lines += [
        proposed.line(n, kind, text) for n, (text, kind) in enumerate(found.listed.items(), 1)
    ]
    if found.more:
        lines += ["", f"{found.more} more not listed (over {MAX_PROPOSALS})."]
    return [*lines, ""]
