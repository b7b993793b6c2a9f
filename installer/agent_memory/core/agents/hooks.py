"""The agents' repo-level hook settings: what we add, merged into the user's file as text.

Install appends our matcher groups (one per event) to the user's settings without touching
another byte; a file that does not exist is created. The manifest's ``## Agent hooks`` section
records, per agent, the sha256 of the file's bytes before install (``absent`` if none) and what
install added, so ``hooks remove`` (and ``disable``) take out exactly that, in the reverse order:
the file's bytes from before install when nothing else changed since, and when the user edited
it, their edits stay. A group identical to ours that install found is the user's and stays.
The line also names the file, but only the agent's own settings path is ever edited: the
manifest is a committed file, input like any other. HOOKS.md § Hooks per agent.
"""

import hashlib
import itertools
import json
from collections.abc import Mapping
from typing import Any, NamedTuple

from ... import patterns
from . import jsontext
from .hook_entries import AGENTS as AGENTS  # the agents, for the commands that edit them
from .hook_entries import SESSION_END
from .jsontext import Doc, Node

SECTION = "## Agent hooks"
_LINE = patterns.compile(
    r"^- (?P<agent>[a-z]+): (?P<path>\S+) \| original (?P<original>\S+)"
    r"(?: \| added (?P<added>[A-Za-z ,]+))?\s*$"
)
_NOTHING = "nothing"


class NotAnObject(ValueError):
    """The settings (or its ``hooks``, or an event's value) are not the shape the agent reads."""


# What install added, as the manifest records it: ``hooks`` (the whole object), ``<event> list``
# (an event's list, holding our group) or ``<event>`` (our group, at the end of the user's list).
HOOKS = "hooks"
_LIST = " list"


def sha256(data: str | None) -> str:
    return "absent" if data is None else "sha256:" + hashlib.sha256(data.encode()).hexdigest()


Groups = Mapping[str, dict[str, Any]]  # an agent's event -> one of our matcher groups


def wanted(agent: str, prompt: bool = False) -> Groups:
    """The groups an install adds: every event's, the prompt hook's only when asked."""
    ours = AGENTS[agent]
    return {e: g for e, g in ours.events.items() if prompt or e not in ours.optional}


def install(
    text: str | None, agent: str, groups: Groups | None = None
) -> tuple[str, frozenset[str]]:
    """The settings with our ``groups`` in them (default: ``wanted(agent)``), and what that
    added (nothing when they are there already: a group the user has that is identical to ours
    is theirs, and stays theirs)."""
    groups = wanted(agent) if groups is None else groups
    lists = {event: [group] for event, group in groups.items()}
    if text is None:
        return json.dumps({"hooks": lists}, indent=2) + "\n", frozenset({HOOKS})
    doc = jsontext.load(text)
    root, hooks = _hooks(doc)
    if hooks is None:
        doc, added = jsontext.append(doc, root, "hooks", lists), frozenset({HOOKS})
    else:
        doc, added = _add_groups(doc, hooks, groups)
    if len(doc.text) > jsontext.MAX_BYTES:  # remove must be able to read what we write
        too_big = f"would be larger than {jsontext.MAX_BYTES >> 20} MiB with our hooks"
        raise jsontext.BadJSON(doc.text, None, too_big)
    return doc.text, added


def _add_groups(doc: Doc, hooks: Node, groups: Groups) -> tuple[Doc, frozenset[str]]:
    """Our group at the end of each event's list, unless one identical to it is there."""
    added, read = set(), doc
    for event, group in groups.items():
        if doc is not read:  # our edits are inside it: it starts where it did
            hooks, read = jsontext.reopen(doc, hooks), doc
        found = _groups(doc, hooks, event)
        if found is None:
            doc = jsontext.append(doc, hooks, event, [group])
            added.add(event + _LIST)
        elif group not in _values(doc, found):
            doc = jsontext.append(doc, found, None, group)
            added.add(event)
    return doc, frozenset(added)


def positions(text: str, agent: str) -> dict[str, int]:
    """Each event whose list holds our group, and where in the list (the agent's index)."""
    doc = jsontext.load(text)
    hooks = _hooks(doc)[1]
    found: dict[str, int] = {}
    for event, group in AGENTS[agent].events.items():
        listed = _groups(doc, hooks, event) if hooks is not None else None
        values = _values(doc, listed) if listed is not None else []
        if group in values:
            found[event] = values.index(group)
    return found


def captures(text: str, agent: str) -> bool:
    """Whether the agent's settings hold our session-end hook: then every session of the agent
    is captured from its transcript, which holds each of its MCP calls too."""
    ours = AGENTS[agent]
    return any(ours.subcommands[event] == SESSION_END for event in positions(text, agent))


def legacy(text: str, agent: str) -> bool:
    """Whether the settings hold a group 5.0.0 installed and none of this release's: then
    they are that install's, and a remove takes those out (an install replaces them)."""
    doc = jsontext.load(text)
    hooks = _hooks(doc)[1]
    if hooks is None:
        return False
    held = [(e, _values(doc, g)) for e in AGENTS[agent].events if (g := _groups(doc, hooks, e))]
    ours, old = AGENTS[agent].events, AGENTS[agent].legacy
    return any(old.get(e) in v for e, v in held) and not any(ours[e] in v for e, v in held)


def _hooks(doc: Doc) -> tuple[Node, Node | None]:
    """The settings' root object and its ``hooks`` object (None when it has none)."""
    root = jsontext.parse(doc)
    if root.kind != "object":
        raise NotAnObject("the settings are not a JSON object")
    hooks = jsontext.member(doc, root, "hooks")
    if hooks is not None and hooks.kind != "object":
        raise NotAnObject('"hooks" is not a JSON object')
    return root, hooks


def _groups(doc: Doc, hooks: Node, event: str) -> Node | None:
    groups = jsontext.member(doc, hooks, event)
    if groups is not None and groups.kind != "array":
        raise NotAnObject(f'"hooks"."{event}" is not a list; the agent would not read it')
    return groups


def _values(doc: Doc, groups: Node) -> list[object]:
    found = jsontext.value(doc, groups)
    assert isinstance(found, list)
    return found


def remove(
    text: str, agent: str, original: str, added: frozenset[str] | None
) -> tuple[str | None, bool]:
    """The settings without what install ``added``, and whether that is exactly the file before
    install (``original`` is its recorded sha256, ``absent`` when install created it). A file
    left holding nothing goes, unless it is byte for byte the one install found: what else it
    held (``mcp install``'s entry) was taken out since."""
    after, exact = _remove(text, agent, original, added)
    if after is not None and not exact and not jsontext.parse(jsontext.load(after)).size:
        return None, original == "absent"
    return after, exact


def _remove(
    text: str, agent: str, original: str, added: frozenset[str] | None
) -> tuple[str | None, bool]:
    """``remove``'s choice of what goes.

    What is ours is this release's groups, or 5.0.0's where the file holds only those
    (``legacy``). ``added`` is None in a line written before it was recorded: then our group of
    every event goes, and each container that leaves empty may be one install created. Among
    those choices, the one whose hash is the recorded one is the original; else all of them go.
    """
    ours = AGENTS[agent].legacy if legacy(text, agent) else AGENTS[agent].events
    if original == "absent" and (added is None or HOOKS in added):
        optional = AGENTS[agent].optional
        created = (ours, {e: g for e, g in ours.items() if e not in optional})
        if any(text == install(None, agent, groups)[0] for groups in created):
            return None, True
    doc = jsontext.load(text)
    if added is not None:
        whole = HOOKS in added
        lists = {e + _LIST for e in ours if whole or e + _LIST in added}
        groups = {e for e in ours if e in added or e + _LIST in lists}
        containers = lists | ({HOOKS} if whole else set())
        after = _take_out(doc, _hooks(doc)[1], ours, groups, containers).text
        return after, sha256(after) == original
    doc = _take_out(doc, _hooks(doc)[1], ours, set(ours), set())
    hooks = _hooks(doc)[1]
    for chosen in _choices(doc, hooks, ours):
        after = _take_out(doc, hooks, ours, set(), set(chosen)).text
        if sha256(after) == original:
            return after, True
    return after, False  # the last choice: every container left empty goes


def _take_out(
    doc: Doc, hooks: Node | None, ours: Groups, groups: set[str], containers: set[str]
) -> Doc:
    """``doc`` without our group of each event in ``groups`` (the last one identical to it),
    then without each of ``containers`` that this leaves empty: install's edits undone in the
    reverse order. What the user added since stays, and so does what install found there.
    ``hooks`` is the settings' ``hooks`` as read from ``doc``."""
    if hooks is None:
        return doc
    read = doc
    for event, group in reversed(list(ours.items())):
        if event not in groups and event + _LIST not in containers:
            continue
        if doc is not read:  # our edits are inside it: it starts where it did
            hooks, read = jsontext.reopen(doc, hooks), doc
        found = _groups(doc, hooks, event)
        if found is None:
            continue
        mine = [i for i, item in enumerate(_values(doc, found)) if item == group]
        gone = mine[-1:] if event in groups else []
        if gone:
            doc = jsontext.delete(doc, found, gone[0])
        if event + _LIST in containers and found.size == len(gone):  # left empty
            doc = _delete_member(doc, jsontext.reopen(doc, hooks), event)
    if HOOKS in containers and not jsontext.reopen(doc, hooks).size:
        doc = _delete_member(doc, jsontext.parse(doc), "hooks")
    return doc


def _choices(doc: Doc, hooks: Node | None, ours: Groups) -> list[tuple[str, ...]]:
    """Each set of our containers that are empty in ``doc`` (which install may have created),
    smallest first, all of them last."""
    if hooks is None:
        return [()]
    lists = [e for e in ours if (found := _groups(doc, hooks, e)) is not None and not found.size]
    empty = [e + _LIST for e in lists]
    if set(hooks.keys) <= set(lists):
        empty.append(HOOKS)
    return [c for size in range(len(empty) + 1) for c in itertools.combinations(empty, size)]


def _delete_member(doc: Doc, container: Node, key: str) -> Doc:
    return jsontext.delete(doc, container, container.keys.index(key))


# -- the manifest's record -----------------------------------------------------------------------


class Record(NamedTuple):
    """One agent's line of the manifest's ``## Agent hooks``: input like any committed file."""

    path: str  # the settings file install wrote; never edited by that name (the stamp is input)
    original: str  # the sha256 of its bytes before install, or ``absent``
    added: frozenset[str] | None  # what install added; None in a line written before 5.1


def recorded(manifest: str) -> dict[str, Record]:
    """agent -> what its line in the manifest records."""
    found = {}
    inside = False
    for line in manifest.splitlines():
        if line.startswith("## "):
            inside = line.strip() == SECTION
        elif inside and (match := _LINE.match(line)):
            agent, added = match["agent"], match["added"]
            tokens = None if added is None else _tokens(agent, added.strip())
            found[agent] = Record(match["path"], match["original"], tokens)
    return found


def _order(agent: str) -> list[str]:
    """Every token install may record for ``agent``, in the order the line lists them."""
    events = AGENTS[agent].events if agent in AGENTS else {}
    return [HOOKS, *(f"{event}{kind}" for event in events for kind in (_LIST, ""))]


def _tokens(agent: str, added: str) -> frozenset[str]:
    said = set() if added == _NOTHING else {token.strip() for token in added.split(",")}
    return frozenset(said & set(_order(agent)))


def record(manifest: str, agent: str, entry: Record | None) -> str:
    """The manifest with ``agent``'s line set to ``entry`` (None: removed, with the section if
    it is left empty). Every other line is kept as it was."""
    lines = manifest.splitlines(keepends=True)
    newline = "\r\n" if lines and lines[0].endswith("\r\n") else "\n"
    new = f"- {agent}: {_line(agent, entry)}{newline}" if entry else None
    head = next((i for i, line in enumerate(lines) if line.strip() == SECTION), None)
    if head is None:
        if new is None:
            return manifest
        tail = "" if not lines or lines[-1].endswith("\n") else newline
        return manifest + tail + f"{newline}{SECTION}{newline}{new}"
    end = next((i for i in range(head + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    body = [line for line in lines[head + 1 : end] if not line.startswith(f"- {agent}: ")]
    body = sorted([*body, *([new] if new else [])], key=lambda line: (not line.strip(), line))
    if not any(line.strip() for line in body):
        start = head - 1 if head > 0 and not lines[head - 1].strip() else head
        return "".join(lines[:start] + lines[end:])
    return "".join(lines[: head + 1] + body + lines[end:])


def _line(agent: str, entry: Record) -> str:
    line = f"{entry.path} | original {entry.original}"
    if entry.added is None:
        return line
    tokens = [token for token in _order(agent) if token in entry.added]
    return f"{line} | added {', '.join(tokens) or _NOTHING}"
