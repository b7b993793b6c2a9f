"""The agents' repo-level hook settings: what we add, merged into the user's file as text.

Install appends our matcher groups (one per event) to the user's settings without touching
another byte; a file that does not exist is created. The manifest's ``## Agent hooks`` section
records, per agent, the file and the sha256 of its bytes before install (``absent`` if none), so
``hooks remove`` (and ``disable``) can give those exact bytes back: among the ways of taking our
groups out, the one whose hash is the recorded one is the original. If the user has edited the
file since, only our groups go and the rest stays as they left it. HOOKS.md § Hooks per agent.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

from ... import patterns
from . import jsontext
from .jsontext import Node

SECTION = "## Agent hooks"
_LINE = patterns.compile(r"^- (?P<agent>[a-z]+): (?P<path>\S+) \| original (?P<original>\S+)\s*$")


class AgentHooks(NamedTuple):
    path: str  # the settings file, relative to the repo
    events: Mapping[str, dict[str, Any]]  # event -> the matcher group we add


def _group(command: str, timeout: int, matcher: str | None = None, **extra: str) -> dict[str, Any]:
    handler = {"type": "command", **extra, "command": command, "timeout": timeout}
    return {**({"matcher": matcher} if matcher else {}), "hooks": [handler]}


def _commands(project: str) -> tuple[str, str]:
    start = f"agent-memory review --if-due {project} >&2; agent-memory context --hook {project}"
    return start, f"agent-memory session capture --hook {project} >&2"


def _agent_hooks() -> Mapping[str, AgentHooks]:
    claude_start, claude_end = _commands('"${CLAUDE_PROJECT_DIR:-.}"')
    codex_start, codex_end = _commands(".")
    gemini_start, gemini_end = _commands('"${GEMINI_PROJECT_DIR:-.}"')
    named = {"name": "agent-memory"}
    return MappingProxyType(
        {
            "claude": AgentHooks(
                ".claude/settings.json",
                {
                    "SessionStart": _group(claude_start, 30),
                    "PreCompact": _group(claude_end, 30),
                    "SessionEnd": _group(claude_end, 30),
                },
            ),
            "codex": AgentHooks(
                ".codex/hooks.json",
                {
                    "SessionStart": _group(codex_start, 30),
                    "PreCompact": _group(codex_end, 30),
                    "SessionEnd": _group(codex_end, 30),
                },
            ),
            "gemini": AgentHooks(  # Gemini counts timeouts in milliseconds
                ".gemini/settings.json",
                {
                    "SessionStart": _group(gemini_start, 30000, **named),
                    "PreCompress": _group(gemini_end, 30000, **named),
                    "SessionEnd": _group(gemini_end, 30000, **named),
                },
            ),
        }
    )


AGENTS = _agent_hooks()


class NotAnObject(ValueError):
    """The settings (or its ``hooks``, or an event's value) are not the shape the agent reads."""


def sha256(data: str | None) -> str:
    return "absent" if data is None else "sha256:" + hashlib.sha256(data.encode()).hexdigest()


def install(text: str | None, agent: str) -> str:
    """The settings with our groups in them (unchanged when they are there already)."""
    ours = AGENTS[agent].events
    lists = {event: [group] for event, group in ours.items()}
    if text is None:
        return json.dumps({"hooks": lists}, indent=2) + "\n"
    root = _object(text, jsontext.parse(text), "the settings")
    hooks = root.member("hooks")
    if hooks is None:
        return jsontext.append(text, root, "hooks", lists)
    _object(text, hooks, '"hooks"')
    for event, group in ours.items():
        hooks = _object(text, jsontext.parse(text), "").member("hooks")
        assert hooks is not None
        groups = hooks.member(event)
        if groups is None:
            text = jsontext.append(text, hooks, event, [group])
        elif groups.kind != "array":
            raise NotAnObject(f'"hooks"."{event}" is not a list; the agent would not read it')
        elif all(jsontext.value(text, item.node) != group for item in groups.items):
            text = jsontext.append(text, groups, None, group)
    return text


def _object(text: str, node: Node | None, what: str) -> Node:
    if node is None or node.kind != "object":
        raise NotAnObject(f"{what} is not a JSON object")
    return node


def remove(text: str, agent: str, original: str) -> tuple[str | None, bool]:
    """The settings without our groups, and whether that is exactly the file before install
    (``original`` is its recorded sha256; None: the file did not exist)."""
    if original == "absent" and text == install(None, agent):
        return None, True
    candidates = list(_removals(text, agent))
    for candidate in candidates:
        if sha256(candidate) == original:
            return candidate, True
    return min(candidates, key=len), False  # ours out, and the lists they leave empty


def _removals(text: str, agent: str) -> Iterator[str]:
    """Our groups taken out; then each combination of also taking out the containers that held
    only them (an event list, ``hooks``), which install may have created."""
    ours = AGENTS[agent].events
    text = _without_groups(text, ours)
    yield text
    root = jsontext.parse(text)
    hooks = root.member("hooks")
    if hooks is None or hooks.kind != "object":
        return
    empty = [k for k in ours if (node := hooks.member(k)) is not None and not node.items]
    for size in range(1, len(empty) + 1):
        for chosen in itertools.combinations(empty, size):
            trimmed = text
            for event in chosen:
                found = jsontext.parse(trimmed).member("hooks")
                assert found is not None
                index = next(i for i, item in enumerate(found.items) if item.key == event)
                trimmed = jsontext.delete(trimmed, found, index)
            yield trimmed
            top = jsontext.parse(trimmed)
            found = top.member("hooks")
            if found is not None and not found.items:
                index = next(i for i, item in enumerate(top.items) if item.key == "hooks")
                yield jsontext.delete(trimmed, top, index)


def _without_groups(text: str, ours: Mapping[str, dict[str, Any]]) -> str:
    for event, group in ours.items():
        while True:
            hooks = jsontext.parse(text).member("hooks")
            groups = hooks.member(event) if hooks is not None and hooks.kind == "object" else None
            if groups is None or groups.kind != "array":
                break
            index = next(
                (
                    i
                    for i, item in enumerate(groups.items)
                    if jsontext.value(text, item.node) == group
                ),
                None,
            )
            if index is None:
                break
            text = jsontext.delete(text, groups, index)
    return text


# -- the manifest's record -----------------------------------------------------------------------


def recorded(manifest: str) -> dict[str, tuple[str, str]]:
    """agent -> (settings path, sha256 of its bytes before install) from the manifest."""
    found = {}
    inside = False
    for line in manifest.splitlines():
        if line.startswith("## "):
            inside = line.strip() == SECTION
        elif inside and (match := _LINE.match(line)):
            found[match["agent"]] = (match["path"], match["original"])
    return found


def record(manifest: str, agent: str, entry: tuple[str, str] | None) -> str:
    """The manifest with ``agent``'s line set to ``entry`` (None: removed, with the section if
    it is left empty). Every other line is kept as it was."""
    lines = manifest.splitlines(keepends=True)
    newline = "\r\n" if lines and lines[0].endswith("\r\n") else "\n"
    new = f"- {agent}: {entry[0]} | original {entry[1]}{newline}" if entry else None
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
