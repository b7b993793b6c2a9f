"""Registering the server in agents' MCP configuration: every user byte kept, ours removable."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_memory.core.agents import mcp_config
from agent_memory.core.agents.mcp_config import ConfigError, entry, install, remove
from agent_memory.shell.installed import sdk_hint
from conftest import PROJECT, build_tree, cli, run_console, stats, tree

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

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


def test_an_entry_changed_by_hand_is_the_users_and_comments_are_kept() -> None:
    """Without a mark of ours, an entry that differs from ours may be the user's own: it is
    left alone (install and remove refuse). Gemini's settings may hold comments: kept."""
    changed = (
        b'{\n  "mcpServers": {\n    "agent-memory": {"command": "old"},\n    "x": {}\n  }\n}\n'
    )
    for call in (install, remove):
        with pytest.raises(ConfigError, match="of its own"):
            call("gemini", changed)
    commented = b'// mine\n{\n  /* theme */ "theme": "dark" // dark\n}\n'
    installed = install("gemini", commented)
    assert installed.startswith(b'// mine\n{\n  /* theme */ "theme": "dark",\n  "mcpServers": ')
    assert installed.endswith(b"} // dark\n}\n")
    assert remove("gemini", installed) == commented


@pytest.mark.parametrize(
    "bad",
    [
        *(b"{", b"[1]", b'{"mcpServers": []}', b"\xff{}", b'{"a": 1,}', b'{"a": NaN}', b"{} {}"),
        *(b'{"mcpServers": {}, "mcpServers": {}}', b'{"x": 1 /* open', b"[" * 100_000),
    ],
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


# Every way TOML allows to write the same table or key (tomllib reads them all alike).
THE_USERS_OWN_TOML = [
    "[mcp_servers.'agent-memory']\ncommand = \"mine\"\n",
    '[mcp_servers."agent-memory"]\ncommand = "mine"\n',
    '[ mcp_servers . agent-memory ] # mine\ncommand = "mine"\n',
    '[mcp_servers."agent\\u002dmemory"]\ncommand = "mine"\n',
    '[mcp_servers]\nagent-memory = { command = "mine" }\n',
    '[mcp_servers]\n"agent-memory".command = "mine"\n',
    'mcp_servers.agent-memory.command = "mine"\n',
    "'mcp_servers' . \"agent-memory\" . args = ['x']\n",
    'mcp_servers = { agent-memory = { command = "mine" } }\n',
    '[mcp_servers.agent-memory.env]\nA = "1"\n',
    '[[mcp_servers.agent-memory]]\ncommand = "mine"\n',
]
CANNOT_TAKE_OURS = [
    'mcp_servers = { other = { command = "x" } }\n',
    "mcp_servers = {}\n",
    '[[mcp_servers]]\nname = "x"\n',
    "mcp_servers = 1\n",
    'x = """\n# agent-memory:begin\n# agent-memory:end\n"""\n',
    "a = 1\na = 2\n",
    "[x\n",
]
TAKES_OURS = [
    '[mcp_servers]\nother.command = "x"\n',
    'mcp_servers.other.command = "x"\n',
    "[mcp_servers]\n",
    'model = "o3"\r\n[mcp_servers.other]\r\ncommand = "x"\r\n',
    'model = "o3" # no end of line',
    "x = nan\ny = 'a # b'\n",
    '[tools]\nagent-memory = "not a server"\n',
]


@pytest.mark.parametrize("text", THE_USERS_OWN_TOML + CANNOT_TAKE_OURS + TAKES_OURS)
def test_codex_toml_is_edited_correctly_or_refused(text: str) -> None:
    """Whatever shape the file has, install writes TOML that means the file plus our server,
    or refuses; a server of the user's own is never replaced, and remove never deletes it."""
    data = text.encode()
    try:
        installed = install("codex", data)
    except ConfigError as exc:
        assert text not in TAKES_OURS, exc
        if text in THE_USERS_OWN_TOML:
            assert "of its own" in str(exc)
            with pytest.raises(ConfigError, match="of its own"):
                remove("codex", data)
        return
    assert text in TAKES_OURS
    expected = tomllib.loads(text)
    expected.setdefault("mcp_servers", {})["agent-memory"] = {
        "command": "agent-memory",
        "args": ["mcp"],
    }
    assert _toml_same(tomllib.loads(installed.decode()), expected)
    assert installed.startswith(data)
    assert install("codex", installed) == installed
    assert remove("codex", installed) == data


def _toml_same(a: object, b: object) -> bool:
    """Equal, with NaN equal to NaN."""
    return json.dumps(a, sort_keys=True, default=str) == json.dumps(b, sort_keys=True, default=str)


_KEYS = ["mcp_servers", '"mcp_servers"', "'mcp_servers'", "tools"]
_NAMES = ["agent-memory", '"agent-memory"', "'agent-memory'", "other", '"a.b"', "x"]
_VALUES = ['"s # t"', "'lit'", "1", "nan", "[1, 'x']", '{ command = "x" }', '"""\n# c\n"""', "{}"]


@st.composite
def _toml_lines(draw: st.DrawFn) -> str:
    key, name = draw(st.sampled_from(_KEYS)), draw(st.sampled_from(_NAMES))
    value = draw(st.sampled_from(_VALUES))
    return draw(
        st.sampled_from(
            [
                f"[{key}.{name}]",
                f"[ {key} ]",
                f"[[{key}]]",
                f"[{key}.{name}.env]",
                f"{name} = {value}",
                f"{key}.{name}.command = {value}",
                f"{key} = {{ {name} = {value} }}",
                f"{name}.{name} = {value} # {name}",
                "# agent-memory:begin",
                "# agent-memory:end",
                "# a comment",
                "",
            ]
        )
    )


@settings(max_examples=400, deadline=None)
@given(st.lists(_toml_lines(), max_size=6), st.sampled_from(["\n", "\r\n"]), st.booleans())
def test_whatever_install_writes_is_toml_meaning_the_file_plus_our_server(
    lines: list[str], newline: str, ends: bool
) -> None:
    text = newline.join(lines) + (newline if ends and lines else "")
    try:
        before: object = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        before = None
    try:
        installed = install("codex", text.encode())
    except ConfigError:
        return
    assert before is not None, "a file that is not TOML was edited"
    after = tomllib.loads(installed.decode())  # never invalid TOML
    assert isinstance(before, dict)
    servers = before.setdefault("mcp_servers", {})
    servers["agent-memory"] = {"command": "agent-memory", "args": ["mcp"]}
    assert _toml_same(after, before)
    if mcp_config.TOML_BEGIN not in text:  # appended: taken out exactly
        assert remove("codex", installed) == (text.encode() or None)
        return
    try:  # put where the user's block was: taken out, or refused, never invalid
        removed = remove("codex", installed)
    except ConfigError:
        return
    assert removed is None or isinstance(tomllib.loads(removed.decode()), dict)


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
    assert result.output.startswith("agent-memory: .mcp.json:1: is not JSON (")
    assert len(result.output.splitlines()) == 1
    assert tree(tmp_path) == {".mcp.json": b"{ not json", CONTINUITY: b"# Continuity\n"}


USERS_OWN = {
    "claude": '{\n  "mcpServers": {\n    "agent-memory": {\n      "command": "uvx",\n'
    '      "args": ["agent-memory@5", "mcp"],\n      "env": {"A": "1"}\n    }\n  }\n}\n',
}
USERS_OWN["gemini"] = USERS_OWN["claude"].replace('"mcpServers"', '"theme": "x",\n  "mcpServers"')


@pytest.mark.parametrize("command", ["install", "remove"])
@pytest.mark.parametrize("agent", ["claude", "gemini"])
def test_an_agent_memory_entry_of_the_users_own_is_never_replaced_or_removed(
    tmp_path: Path, agent: str, command: str
) -> None:
    """Their command, args and env are theirs: install refuses to replace them, remove to
    delete them, each in one line naming the file and what to do; nothing is written."""
    rel = mcp_config.FILES[agent][0]
    build_tree(tmp_path, {rel: USERS_OWN[agent], CONTINUITY: "# Continuity\n"})
    before = tree(tmp_path)
    done = run_console("mcp", command, tmp_path, "--agent", agent, cwd=tmp_path)
    assert done.returncode == 1, done.stdout
    assert done.stderr.startswith(f"agent-memory: {rel}: has an agent-memory server of its own (")
    assert len(done.stderr.splitlines()) == 1 and tree(tmp_path) == before


@pytest.mark.parametrize("agent", ["claude", "gemini"])
def test_a_configuration_nested_without_end_is_one_line(tmp_path: Path, agent: str) -> None:
    rel = mcp_config.FILES[agent][0]
    deep = '{"mcpServers": {}, "x": ' + "[" * 100_000 + "]" * 100_000 + "}"
    build_tree(tmp_path, {rel: deep, CONTINUITY: "# Continuity\n"})
    for command in ("install", "remove"):
        done = run_console("mcp", command, tmp_path, "--agent", agent, cwd=tmp_path)
        assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
        assert done.stderr == f"agent-memory: {rel}:1: nested too deeply; fix it, then run again\n"
    assert tree(tmp_path)[rel] == deep.encode()


def test_install_without_the_sdk_registers_and_warns(tmp_path: Path) -> None:
    """The registration is committed and teammates may have the SDK: it is written, exit 0,
    with one warning saying how to install the SDK (here it cannot be imported)."""
    repo = build_tree(tmp_path / "repo", {CONTINUITY: "# Continuity\n"})
    hide = build_tree(
        tmp_path / "hide", {"sitecustomize.py": "import sys\nsys.modules['mcp'] = None\n"}
    )
    done = run_console(
        "mcp", "install", repo, "--agent", "claude", cwd=tmp_path, PYTHONPATH=str(hide)
    )
    assert done.returncode == 0, done.stderr
    hint = sdk_hint()  # this install's own way: a clone's path, never a name no index holds
    assert f"{PROJECT}[mcp]" in hint and "agent-memory[mcp]" not in hint
    assert done.stdout.splitlines()[-1] == (
        "warning: the MCP SDK is not installed here, so no agent can start the server; " + hint
    )
    assert (repo / ".mcp.json").is_file()
    served = run_console("mcp", repo, cwd=tmp_path, PYTHONPATH=str(hide))
    assert served.returncode == 1 and hint in served.stderr
    with_sdk = run_console("mcp", "install", repo, "--agent", "gemini", "--json", cwd=tmp_path)
    assert json.loads(with_sdk.stdout)["summary"]["sdk_installed"] is True
    assert "warning" not in with_sdk.stdout
