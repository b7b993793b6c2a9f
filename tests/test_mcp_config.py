"""Registering the server in agents' MCP configuration: every user byte kept, ours removable."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_memory.core.agents import mcp_config
from agent_memory.core.agents.mcp_config import ConfigError, entry, install, remove
from conftest import build_tree, cli, stats, tree

CONTINUITY = "memory/continuity.md"

_scalars = st.none() | st.booleans() | st.integers() | st.text(max_size=8)
_values = st.recursive(
    _scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)
_servers = st.dictionaries(
    st.text(min_size=1, max_size=8).filter(lambda k: k != "agent-memory"),
    st.fixed_dictionaries({"command": st.text(max_size=8)}),
    min_size=1,
    max_size=3,
)
_documents = st.builds(
    lambda other, servers, first: (
        ({"mcpServers": servers, **other} if first else {**other, "mcpServers": servers})
        if servers
        else other
    ),
    st.dictionaries(st.text(max_size=6).filter(lambda k: k != "mcpServers"), _values, max_size=4),
    st.none() | _servers,
    st.booleans(),
).filter(bool)
_styles = st.sampled_from([2, 4, "\t", None])


@given(_documents, _styles, st.sampled_from(["claude", "gemini"]))
def test_json_install_keeps_every_key_and_remove_gives_back_the_bytes(
    doc: dict[str, Any], indent: int | str | None, agent: str
) -> None:
    original = (json.dumps(doc, indent=indent, ensure_ascii=False) + "\n").encode()
    installed = install(agent, original)
    expected = json.loads(original)
    expected.setdefault("mcpServers", {})["agent-memory"] = entry(agent)
    assert json.loads(installed) == expected
    assert list(json.loads(installed)) == list(expected)  # key order too
    assert install(agent, installed) == installed
    assert remove(agent, installed) == original
    assert remove(agent, original) == original


def test_json_file_created_and_removed_whole() -> None:
    created = install("claude", None)
    assert json.loads(created) == {"mcpServers": {"agent-memory": entry("claude")}}
    assert entry("claude")["type"] == "stdio" and "type" not in entry("gemini")
    assert remove("claude", created) is None
    assert remove("claude", None) is None


def test_our_entry_changed_by_hand_is_put_back_and_the_rest_kept() -> None:
    changed = (
        b'{\n  "mcpServers": {\n    "agent-memory": {"command": "old"},\n    "x": {}\n  }\n}\n'
    )
    fixed = install("gemini", changed)
    assert fixed == changed.replace(b'{"command": "old"}', json.dumps(entry("gemini")).encode())


@pytest.mark.parametrize(
    "bad", [b"{", b"[1]", b'{"mcpServers": []}', b"// comment\n{}", b"\xff{}", b'{"a": 1,}']
)
def test_json_we_cannot_edit_safely_is_refused(bad: bytes) -> None:
    with pytest.raises(ConfigError):
        install("gemini", bad)


CODEX = b'model = "o3"\n\n[mcp_servers.other]\ncommand = "x"\n'


@pytest.mark.parametrize("original", [None, b"", CODEX, CODEX.rstrip(b"\n") + b"\n\n"])
def test_toml_block_is_appended_once_and_removed_exactly(original: bytes | None) -> None:
    installed = install("codex", original)
    assert installed.endswith(mcp_config.TOML_BLOCK.encode())
    assert installed.count(b"[mcp_servers.agent-memory]") == 1
    assert install("codex", installed) == installed
    assert remove("codex", installed) == (original or None)


def test_toml_refuses_a_table_of_the_users_and_a_broken_block() -> None:
    with pytest.raises(ConfigError, match="of its own"):
        install("codex", b'[mcp_servers.agent-memory]\ncommand = "mine"\n')
    with pytest.raises(ConfigError, match="broken"):
        install("codex", f"{mcp_config.TOML_BEGIN}\n[x]\n".encode())
    edited = CODEX + mcp_config.TOML_BLOCK.replace('["mcp"]', '["mcp", "."]').encode()
    assert install("codex", edited) == CODEX + mcp_config.TOML_BLOCK.encode()


def test_the_command_writes_each_agents_file_once_and_removes_exactly_ours(
    tmp_path: Path,
) -> None:
    user = b'{\n    "theme": "dark",\n    "mcpServers": {"git": {"command": "uvx"}}\n}\n'
    build_tree(tmp_path, {".gemini/settings.json": user, CONTINUITY: "# Continuity\n"})
    agents = ["--agent", "claude", "--agent", "codex", "--agent", "gemini"]
    assert cli("mcp", "install", tmp_path, *agents, "--check").exit_code == 1
    assert tree(tmp_path) == {".gemini/settings.json": user, CONTINUITY: b"# Continuity\n"}
    done = cli("mcp", "install", tmp_path, *agents)
    assert done.exit_code == 0, done.output
    assert set(tree(tmp_path)) - {CONTINUITY} == {
        ".mcp.json",
        ".codex/config.toml",
        ".gemini/settings.json",
    }
    before = stats(tmp_path)
    again = cli("mcp", "install", tmp_path, *agents, "--json")
    assert json.loads(again.output)["outcome"] == "unchanged" and stats(tmp_path) == before
    assert cli("mcp", "remove", tmp_path, *agents).exit_code == 0
    assert tree(tmp_path) == {".gemini/settings.json": user, CONTINUITY: b"# Continuity\n"}


def test_the_command_refuses_a_file_it_cannot_edit_in_one_line(tmp_path: Path) -> None:
    build_tree(tmp_path, {".mcp.json": "{ not json", CONTINUITY: "# Continuity\n"})
    result = cli("mcp", "install", tmp_path, "--agent", "codex", "--agent", "claude")
    assert result.exit_code == 1
    assert result.output.startswith("agent-memory: .mcp.json: is not plain JSON (")
    assert len(result.output.splitlines()) == 1
    assert tree(tmp_path) == {".mcp.json": b"{ not json", CONTINUITY: b"# Continuity\n"}
