"""Registering the MCP server in an agent's repo-level configuration: bytes in, bytes out.

JSON files (Claude Code's ``.mcp.json``, Gemini CLI's ``.gemini/settings.json``) get one member,
``"agent-memory"``, in their ``mcpServers`` object, inserted as text: every other byte of the
file stays as the user wrote it, and ``remove`` deletes exactly what ``install`` inserted. Codex
CLI's ``.codex/config.toml`` gets a marked block appended (no TOML writer is a dependency of
ours): ``[mcp_servers.agent-memory]`` between ``# agent-memory:begin`` and ``# agent-memory:end``.
An install that finds our entry as it would write it returns the input unchanged; an
``agent-memory`` server that is not ours (another command, args or env) is the user's, and
neither ``install`` nor ``remove`` touches it (MCP.md).
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from . import jsontext

if sys.version_info >= (3, 11):
    import tomllib
else:  # the same parser, before it joined the standard library
    import tomli as tomllib  # type: ignore[import-not-found]  # absent where mypy runs

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
# The agent an MCP client says it is (``clientInfo.name`` of its ``initialize``), as Claude Code
# 2.1, Codex 0.169 and Gemini CLI 0.61 send it.
CLIENTS = MappingProxyType(
    {"claude-code": "claude", "codex-mcp-client": "codex", "gemini-cli-mcp-client": "gemini"}
)
TOML_BEGIN = "# agent-memory:begin"
TOML_END = "# agent-memory:end"
TOML_BLOCK = (
    f"{TOML_BEGIN}\n[mcp_servers.{NAME}]\n"
    f'command = "{COMMAND["command"]}"\nargs = ["mcp"]\n{TOML_END}\n'
)


class ConfigError(ValueError):
    """The file is not in a shape we can edit without changing what the user wrote."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


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
    return remove_toml(data) if FILES[agent][1] == "toml" else remove_json(data, entry(agent))


def _own(what: str, todo: str) -> str:
    return f"has an {NAME} server of its own ({what} not what mcp install writes); {todo}"


# -- JSON ------------------------------------------------------------------------------------


def install_json(data: bytes | None, ours: Mapping[str, Any]) -> bytes:
    """The file with our entry in ``mcpServers``: one member inserted, every other byte kept."""
    value = json.dumps(dict(ours), ensure_ascii=False)
    if data is None or not data.strip():
        return f'{{\n  "{SERVERS}": {{\n    "{NAME}": {value}\n  }}\n}}\n'.encode()
    doc, root, servers = _servers(data)
    if servers is None:
        return jsontext.append(doc, root, SERVERS, {NAME: dict(ours)}).text.encode()
    mine = jsontext.member(doc, servers, NAME)
    if mine is None:
        return jsontext.append(doc, servers, NAME, dict(ours)).text.encode()
    if jsontext.value(doc, mine) != dict(ours):
        raise ConfigError(_own("its command, args or settings are", "leave it, or take it out"))
    return data


def remove_json(data: bytes | None, ours: Mapping[str, Any]) -> bytes | None:
    """The file without our entry (and without an ``mcpServers`` it leaves empty); None when
    nothing else is left in it. An entry that is not ours stays, and says so."""
    if data is None:
        return None
    doc, root, servers = _servers(data)
    mine = jsontext.member(doc, servers, NAME) if servers is not None else None
    if servers is None or mine is None:
        return data
    if jsontext.value(doc, mine) != dict(ours):
        raise ConfigError(_own("its command, args or settings are", "take it out by hand"))
    if data == install_json(None, ours):
        return None  # the file install created: it goes
    if servers.size > 1:
        return jsontext.delete(doc, servers, servers.keys.index(NAME)).text.encode()
    # mcpServers held only ours: it goes too (an mcpServers the user left empty goes with it),
    # and so does a file left holding nothing, such as the one hooks install created before.
    if root.size == 1:
        return None
    return jsontext.delete(doc, root, root.keys.index(SERVERS)).text.encode()


def _servers(data: bytes) -> tuple[jsontext.Doc, jsontext.Node, jsontext.Node | None]:
    """The file read as JSON: the document, its root object and its ``mcpServers``."""
    try:
        doc = jsontext.load(data.decode("utf-8"))
        root = jsontext.parse(doc)
        servers = jsontext.member(doc, root, SERVERS) if root.kind == "object" else None
    except UnicodeDecodeError:
        raise ConfigError("is not UTF-8 text; fix it, then run again") from None
    except jsontext.BadJSON as exc:
        raise ConfigError(f"{exc}; fix it, then run again", exc.line) from None
    if root.kind != "object":
        raise ConfigError("is not a JSON object; fix it, then run again")
    if servers is not None and servers.kind != "object":
        raise ConfigError(f"{SERVERS} is not an object; fix it, then run again")
    return doc, root, servers


# -- TOML ------------------------------------------------------------------------------------


def install_toml(data: bytes | None) -> bytes:
    """The file with our block: where it was, else appended after a blank line.

    Every shape TOML allows for the same table (a quoted or dotted key, a ``[mcp_servers]``
    table, an inline table) is recognised by reading the file with the standard TOML parser,
    and the result is read back: it must mean the file plus our server, nothing else, or the
    file is left as it is with one line saying why.
    """
    text = _toml_text(data)
    before, block, after = _toml_split(text)
    if block == TOML_BLOCK:
        return data or b""
    doc = _toml(text)
    servers = doc.get("mcp_servers", {})
    if not isinstance(servers, dict):
        raise ConfigError("has an mcp_servers that is not a table; fix it, then run again")
    if block is None and NAME in servers:
        raise ConfigError(_own(f"[mcp_servers.{NAME}] is", "leave it, or take it out by hand"))
    if block is not None:
        result = before + TOML_BLOCK + after
    else:
        result = text + ("\n" if text else "") + TOML_BLOCK  # a blank line, or an end of line
    expected = {**doc, "mcp_servers": {**servers, NAME: entry("codex")}}  # our block, read back
    _same(result, expected, "add")
    return result.encode()


def remove_toml(data: bytes | None) -> bytes | None:
    """The file without our block (None when nothing else is left); a table of the user's own
    stays, and says so."""
    if data is None:
        return None
    text = _toml_text(data)
    before, block, after = _toml_split(text)
    if block is None:
        servers: object = None
        with contextlib.suppress(ConfigError):  # not TOML: nothing of ours in it either
            servers = _toml(text).get("mcp_servers")
        if isinstance(servers, dict) and NAME in servers:
            raise ConfigError(_own(f"[mcp_servers.{NAME}] is", "take it out by hand"))
        return data
    doc = _toml(text)
    if not after and before.endswith("\n") and not before.endswith("\r\n"):
        before = before[:-1]  # the line end install put before the block
    rest = before + after
    expected = {**doc, "mcp_servers": dict(doc.get("mcp_servers", {}))}
    expected["mcp_servers"].pop(NAME, None)
    with contextlib.suppress(ConfigError):  # then _same says what is wrong
        if not expected["mcp_servers"] and "mcp_servers" not in _toml(rest):
            del expected["mcp_servers"]  # our table's header was all that made it
    _same(rest, expected, "take")
    return rest.encode() if rest else None


def _same(result: str, expected: Mapping[str, Any], verb: str) -> None:
    """Refuse unless ``result`` reads as ``expected``: the edit changes our table only."""
    try:
        same = _toml(result) == expected
    except ConfigError:
        same = False
    if not same:
        raise ConfigError(
            f"cannot {verb} our [mcp_servers.{NAME}] block without changing what the rest of the "
            "file means (mcp_servers is an inline table, or text after the block belongs to "
            "it); edit the file by hand (MCP.md)"
        )


def _toml(text: str) -> dict[str, Any]:
    """The file as the standard TOML parser reads it (floats kept as written: NaN = NaN)."""
    try:
        doc: dict[str, Any] = tomllib.loads(text, parse_float=str)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"is not valid TOML ({exc}); fix it, then run again") from None
    except RecursionError:  # the parser recurses once per level
        raise ConfigError("nests its values too deep to read; fix it, then run again") from None
    except ValueError:  # an integer past 4,300 digits, which Python does not convert
        raise ConfigError(
            "holds an integer of thousands of digits; fix it, then run again"
        ) from None
    return doc


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
