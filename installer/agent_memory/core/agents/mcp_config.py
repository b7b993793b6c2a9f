"""Registering the MCP server in an agent's repo-level configuration: bytes in, bytes out.

JSON files (Claude Code's ``.mcp.json``, Gemini CLI's ``.gemini/settings.json``) get one member,
``"agent-memory"``, in their ``mcpServers`` object, inserted as text: every other byte of the
file stays as the user wrote it, and ``remove`` deletes exactly what ``install`` inserted. Codex
CLI's ``.codex/config.toml`` gets a marked block appended (no TOML writer is a dependency of
ours): ``[mcp_servers.agent-memory]`` between ``# agent-memory:begin`` and ``# agent-memory:end``.
An install that finds our entry as it would write it returns the input unchanged.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

from ... import patterns

NAME = "agent-memory"
SERVERS = "mcpServers"
# What the agent runs, in the repo (its working directory): `agent-memory mcp`.
COMMAND = MappingProxyType({"command": "agent-memory", "args": ["mcp"]})
# agent -> (file, kind)
FILES = MappingProxyType(
    {
        "claude": (".mcp.json", "json"),
        "gemini": (".gemini/settings.json", "json"),
        "codex": (".codex/config.toml", "toml"),
    }
)
TOML_BEGIN = "# agent-memory:begin"
TOML_END = "# agent-memory:end"
TOML_BLOCK = (
    f"{TOML_BEGIN}\n[mcp_servers.{NAME}]\n"
    f'command = "{COMMAND["command"]}"\nargs = ["mcp"]\n{TOML_END}\n'
)


class ConfigError(ValueError):
    """The file is not in a shape we can edit without changing what the user wrote."""


def entry(agent: str) -> dict[str, Any]:
    """Our server entry in ``agent``'s JSON file (Claude names the transport, Gemini infers it)."""
    base: dict[str, Any] = {"command": COMMAND["command"], "args": list(COMMAND["args"])}
    return {"type": "stdio", **base} if agent == "claude" else base


def install(agent: str, data: bytes | None) -> bytes:
    if FILES[agent][1] == "toml":
        return install_toml(data)
    return install_json(data, entry(agent))


def remove(agent: str, data: bytes | None) -> bytes | None:
    """The file without our entry; None when the file was only ours (or absent)."""
    return remove_toml(data) if FILES[agent][1] == "toml" else remove_json(data)


# -- JSON ------------------------------------------------------------------------------------

_WS = patterns.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


class _Member(NamedTuple):
    key: str
    start: int  # the key's opening quote
    value_start: int
    value_end: int


def install_json(data: bytes | None, ours: Mapping[str, Any]) -> bytes:
    value = json.dumps(dict(ours), ensure_ascii=False)
    if data is None or not data.strip():
        return f'{{\n  "{SERVERS}": {{\n    "{NAME}": {value}\n  }}\n}}\n'.encode()
    text, doc = _load(data)
    servers = doc.get(SERVERS)
    if servers is not None and not isinstance(servers, dict):
        raise ConfigError(f"{SERVERS} is not an object; fix it, then run again")
    if isinstance(servers, dict) and servers.get(NAME) == dict(ours):
        return data
    top = text.index("{")
    members, close = _members(text, top)
    unit = _indent(text, members, top)
    found = {m.key: m for m in members}
    if SERVERS not in found:
        inner = f'{{\n{unit * 2}"{NAME}": {value}\n{unit}}}'
        return _insert(text, top, members, close, f'"{SERVERS}": {inner}', unit, 1).encode()
    outer = found[SERVERS]
    inner_members, inner_close = _members(text, outer.value_start)
    mine = {m.key: m for m in inner_members}.get(NAME)
    if mine is not None:  # an entry of ours the user changed: ours again
        return (text[: mine.value_start] + value + text[mine.value_end :]).encode()
    member = f'"{NAME}": {value}'
    edited = _insert(text, outer.value_start, inner_members, inner_close, member, unit, 2)
    return edited.encode()


def remove_json(data: bytes | None) -> bytes | None:
    if data is None:
        return None
    text, doc = _load(data)
    servers = doc.get(SERVERS)
    if not isinstance(servers, dict) or NAME not in servers:
        return data
    top = text.index("{")
    members, _ = _members(text, top)
    outer = next(m for m in members if m.key == SERVERS)
    inner, _ = _members(text, outer.value_start)
    if len(inner) > 1:
        gone = next(m for m in inner if m.key == NAME)
        return _delete(text, outer.value_start, inner, gone).encode()
    if text.encode() == install_json(None, servers[NAME]):
        return None  # the file install created: it goes
    # mcpServers held only ours: it goes too (an mcpServers the user left empty goes with it).
    return _delete(text, top, members, outer).encode()


def _load(data: bytes) -> tuple[str, dict[str, Any]]:
    try:
        text = data.decode("utf-8")
        doc = json.loads(text)
    except (UnicodeDecodeError, ValueError) as exc:
        raise ConfigError(
            f"is not plain JSON ({exc}); fix it, or add the entry by hand (MCP.md)"
        ) from None
    if not isinstance(doc, dict):
        raise ConfigError("is not a JSON object; fix it, then run again")
    return text, doc


def _members(text: str, start: int) -> tuple[list[_Member], int]:
    """The members of the object whose ``{`` is at ``start``, and the index of its ``}``.

    Only called on text ``json.loads`` accepted, so every step below finds what it expects.
    """
    members: list[_Member] = []
    at = _skip(text, start + 1)
    while text[at] != "}":
        key, after = _DECODER.raw_decode(text, at)
        value_start = _skip(text, _skip(text, after) + 1)  # past the colon
        _, value_end = _DECODER.raw_decode(text, value_start)
        members.append(_Member(key, at, value_start, value_end))
        at = _skip(text, value_end)
        if text[at] == ",":
            at = _skip(text, at + 1)
    return members, at


def _skip(text: str, at: int) -> int:
    """The index of the first character at or after ``at`` that is not JSON whitespace."""
    match = _WS.match(text, at)
    assert match is not None  # the pattern matches the empty string
    return match.end()


def _indent(text: str, members: list[_Member], top: int) -> str:
    """The file's indentation unit: what precedes its first member on its line (else 2 spaces)."""
    if members:
        line_start = text.rfind("\n", top, members[0].start) + 1
        unit = text[line_start : members[0].start] if line_start else ""
        if unit and not unit.strip():
            return unit
    return "  "


def _insert(
    text: str, opening: int, members: list[_Member], close: int, member: str, unit: str, depth: int
) -> str:
    if members:
        end = members[-1].value_end
        return f"{text[:end]},\n{unit * depth}{member}{text[end:]}"
    return f"{text[: opening + 1]}\n{unit * depth}{member}\n{unit * (depth - 1)}{text[close:]}"


def _delete(text: str, opening: int, members: list[_Member], gone: _Member) -> str:
    """``text`` without ``gone`` and the separator ``_insert`` put before it."""
    index = members.index(gone)
    if index > 0:
        return text[: members[index - 1].value_end] + text[gone.value_end :]
    if len(members) > 1:
        return text[: gone.start] + text[members[1].start :]
    return text[: opening + 1] + text[_skip(text, gone.value_end) :]


# -- TOML ------------------------------------------------------------------------------------

_FOREIGN_TABLE = patterns.compile(
    r'^[ \t]*\[[ \t]*mcp_servers[ \t]*\.[ \t]*"?agent-memory"?[ \t]*\]', re.M
)


def install_toml(data: bytes | None) -> bytes:
    text = _toml_text(data)
    before, block, after = _toml_split(text)
    if block == TOML_BLOCK:
        return data or b""
    if block is None and _FOREIGN_TABLE.search(text):
        raise ConfigError(
            f"already has a [mcp_servers.{NAME}] table of its own; leave it, or remove it "
            "and run again"
        )
    if block is not None:
        return (before + TOML_BLOCK + after).encode()
    separator = "" if not text else "\n" if text.endswith("\n") else "\n\n"
    return (text + separator + TOML_BLOCK).encode()


def remove_toml(data: bytes | None) -> bytes | None:
    if data is None:
        return None
    before, block, after = _toml_split(_toml_text(data))
    if block is None:
        return data
    if not after and before.endswith("\n\n"):
        before = before[:-1]  # the blank line install put before the block
    rest = before + after
    return rest.encode() if rest else None


def _toml_text(data: bytes | None) -> str:
    try:
        return (data or b"").decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError("is not UTF-8 text; fix it, then run again") from None


def _toml_split(text: str) -> tuple[str, str | None, str]:
    """(text before our block, the block with its end line, text after) or (text, None, "")."""
    lines = text.splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines) if line.rstrip("\r\n") == TOML_BEGIN]
    ends = [i for i, line in enumerate(lines) if line.rstrip("\r\n") == TOML_END]
    if not starts and not ends:
        return text, None, ""
    if len(starts) != 1 or len(ends) != 1 or ends[0] < starts[0]:
        raise ConfigError(
            f"has a broken agent-memory block (one '{TOML_BEGIN}' line, then one "
            f"'{TOML_END}' line expected); fix it, then run again"
        )
    begin, end = starts[0], ends[0]
    block = "".join(lines[begin : end + 1])
    return "".join(lines[:begin]), block, "".join(lines[end + 1 :])
