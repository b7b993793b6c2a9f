"""`agent-memory mcp`: the server as a subprocess, spoken to by the SDK's own client."""

from __future__ import annotations

import gc
import json
import random
import re
from pathlib import Path

import anyio
import jsonschema
import pytest

from agent_memory.cli.mcp.tools import TOOLS
from agent_memory.commands.doctor import wired_of
from agent_memory.commands.runner import Journal
from agent_memory.parse.facts import parse
from agent_memory.parse.sessions import read_refs
from agent_memory.shell.repo import Repo
from conftest import cli, run_console, tree
from mcp_client import FOOT, IDS, RawServer, call, connect, enabled_repo, today

LOG_NAME = re.compile(r"^memory/sessions/\d{4}-\d{2}-\d{2}-\d{6}-mcp(-\d+)?\.md$")


def uses(root: Path) -> dict[str, int]:
    doc = parse("memory/continuity.md", (root / "memory/continuity.md").read_bytes())
    return {f.id: int(f.field("uses") or 0) for f in doc.facts if f.id}


def test_every_tool_is_listed_and_answers(tmp_path: Path) -> None:
    root = enabled_repo(tmp_path / "repo")
    before = tree(root)

    async def session() -> None:
        async with connect(root) as client:
            listed = await client.list_tools()
            assert [t.name for t in listed.tools] == list(TOOLS)
            hints = {t.name: t.annotations.read_only_hint for t in listed.tools if t.annotations}
            assert hints == {n: t.journal is Journal.READS for n, t in TOOLS.items()}
            assert hints["memory_recall"] and not hints["memory_fact_add"]
            error, found = await call(client, "memory_recall", query="outbox subsystem 2", limit=3)
            assert not error and len(found["facts"]) == 3
            assert found["facts"][0]["where"].startswith("memory/continuity.md:")
            error, status = await call(client, "memory_status")
            assert not error and status["facts"] == len(IDS) and status["due"] == []
            error, first = await call(client, "memory_reference", ids=["fact-1", "fact-2"])
            assert not error and first["outcome"] == "changed" and LOG_NAME.match(first["log"])
            error, second = await call(client, "memory_reference", ids=["fact-3"], label="created")
            assert not error and second["log"] == first["log"]
            error, same = await call(client, "memory_reference", ids=["fact-1"])
            assert not error and same["outcome"] == "unchanged"

    anyio.run(session)
    after = tree(root)
    added = sorted(set(after) - set(before))
    assert len(added) == 1 and LOG_NAME.match(added[0])
    assert {k: v for k, v in after.items() if k != added[0]} == before
    log = after[added[0]]
    assert b"\n- Referenced: fact-1, fact-2\n- Created: fact-3\n" in log
    assert read_refs(log).used == {"fact-1", "fact-2", "fact-3"}
    assert cli("lint", root).exit_code == 0


BAD_ARGUMENTS = [
    ("memory_recall", {}),
    ("memory_recall", {"query": 42}),
    ("memory_recall", {"query": ""}),
    ("memory_recall", {"query": "x", "limit": 0}),
    ("memory_recall", {"query": "x", "limit": "10"}),
    ("memory_recall", {"query": "x", "extra": True}),
    ("memory_status", {"path": "/etc"}),
    ("memory_reference", {"ids": []}),
    ("memory_reference", {"ids": "fact-1"}),
    ("memory_reference", {"ids": ["../../etc/passwd"]}),
    ("memory_reference", {"ids": ["fact-1"], "label": "archived"}),
    ("memory_reference", {"ids": ["fact-1"], "log": "../x.md"}),
    ("memory_reference", {"ids": ["fact-99"]}),
    ("memory_nothing", {}),
]


def test_bad_calls_are_tool_errors_and_outside_edits_are_seen(tmp_path: Path) -> None:
    """Malformed arguments and unknown ids are one-line tool errors that write nothing and leave
    the server running; a fact another agent commits is found by the next call."""
    root = enabled_repo(tmp_path / "repo")
    continuity = root / "memory/continuity.md"
    before = tree(root)

    async def session() -> None:
        async with connect(root) as client:
            for name, arguments in BAD_ARGUMENTS:
                result = await client.call_tool(name, arguments)
                assert result.is_error, (name, arguments)
                text = result.content[0].text  # type: ignore[union-attr]
                assert text.startswith("agent-memory: ") and "\n" not in text
            error, text = await call(client, "memory_reference", ids=["fact-10", "fakt-11"])
            assert error and "'fakt-11'" in text and "did you mean 'fact-11'?" in text
            assert tree(root) == before
            error, found = await call(client, "memory_recall", query="zeppelin")
            assert not error and found["facts"] == []
            fact = f"- Zeppelin deploys on Fridays\n  {FOOT.format('zeppelin', 'working')}\n"
            text = continuity.read_text().replace("## Conventions\n", f"## Conventions\n{fact}")
            continuity.write_text(text)  # another agent's commit, as the checkout sees it
            error, found = await call(client, "memory_recall", query="zeppelin")
            assert not error and [f["id"] for f in found["facts"]] == ["zeppelin"]
            error, _ = await call(client, "memory_reference", ids=["zeppelin"])
            assert not error

    anyio.run(session)


def test_a_session_of_200_calls_is_counted_exactly_by_review(tmp_path: Path) -> None:
    """100 references and 100 recalls, with a review in the middle: the session goes on in a new
    log once a review has read its first, and the footers count one use per log that lists an id."""
    root = enabled_repo(tmp_path / "repo")
    chooser = random.Random(19)
    referenced: list[set[str]] = [set(), set()]
    logs: list[set[str]] = [set(), set()]

    async def session() -> None:
        async with connect(root) as client:
            for n in range(200):
                part = n // 100
                if n == 100:
                    done = cli("review", root, "--today", today())
                    assert done.exit_code == 0, done.output
                if n % 2:
                    error, _ = await call(client, "memory_recall", query=f"subsystem {n % 3}")
                    assert not error
                    continue
                ids = chooser.sample(IDS, chooser.randint(1, 3))
                error, result = await call(client, "memory_reference", ids=ids)
                assert not error, result
                referenced[part].update(ids)
                logs[part].add(result["log"])

    anyio.run(session)
    assert len(logs[0]) == len(logs[1]) == 1 and logs[0] != logs[1]
    assert cli("review", root, "--full", "--today", today()).exit_code == 0
    expected = {i: 1 + sum(i in part for part in referenced) for i in IDS}
    assert uses(root) == expected


@pytest.mark.parametrize(
    ("client", "agent", "logged"),
    [
        ("claude-code", "claude", False),  # its SessionEnd hook captures the session
        ("gemini-cli-mcp-client", "gemini", False),
        ("codex-mcp-client", "codex", False),
        ("codex-mcp-client", "codex-unreviewed", True),  # Codex runs no hook not reviewed
        ("claude-code", None, True),  # no hooks: the server keeps the session's log
        ("cursor", "claude", True),  # an agent whose hooks are not ours to know
        ("codex-mcp-client", "claude", True),  # hooks for another agent only
    ],
)
def test_a_session_that_its_hooks_capture_gets_no_second_log(
    tmp_path: Path, client: str, agent: str | None, logged: bool
) -> None:
    """One session, one log: with the agent's capture hooks registered, the transcript (which
    holds each memory_reference call) gives the session's log, and the server writes none;
    without them, the server keeps its own log as before."""
    root = enabled_repo(tmp_path / "repo")
    codex_home = tmp_path / "codex"  # this machine's Codex: the project trusted
    codex_home.mkdir()
    config = f'[projects."{root.resolve()}"]\ntrust_level = "trusted"\n'
    if agent is not None:
        named = agent.removesuffix("-unreviewed")
        assert cli("hooks", "install", "--agent", named, root).exit_code == 0
        if agent == "codex":  # and our hooks reviewed in /hooks, as Codex records it
            for key in wired_of(Repo(root.resolve()), "codex").codex_keys:
                config += f'[hooks.state."{key}"]\ntrusted_hash = "sha256:x"\n'
    (codex_home / "config.toml").write_text(config)
    before = tree(root)
    env = {"CODEX_HOME": str(codex_home), "HOME": str(tmp_path)}

    async def session() -> None:
        async with connect(root, client=client, env=env) as mcp:
            error, result = await call(mcp, "memory_reference", ids=IDS[:2])
            assert not error and conforms("memory_reference", result), result
            assert (result["log"] == "") is not logged
            assert result["outcome"] == ("changed" if logged else "captured")
            error, text = await call(mcp, "memory_reference", ids=["no-such-fact"])
            assert error and "no fact has the id 'no-such-fact'" in text

    anyio.run(session)
    logs = sorted(p for p in set(tree(root)) - set(before) if p.startswith("memory/sessions/"))
    assert len(logs) == int(logged) and set(tree(root)) - set(before) == set(logs)


def conforms(name: str, result: object) -> bool:
    """True when a tool's result matches the output schema the server lists (and MCP.md shows)."""
    jsonschema.validate(result, TOOLS[name].output_schema)
    return True


def test_fact_add_writes_continuity_and_a_bad_id_is_the_cli_line(tmp_path: Path) -> None:
    root = enabled_repo(tmp_path / "repo")
    continuity = root / "memory/continuity.md"

    async def session() -> None:
        async with connect(root) as client:
            error, added = await call(
                client, "memory_fact_add", text="Builds pin Node 20 via .nvmrc"
            )
            assert not error and conforms("memory_fact_add", added)
            assert added == {
                "id": "builds-pin-node-20-via-nvmrc",
                "path": "memory/continuity.md",
                "section": "Key Decisions",
                "tier": "working",
                "created": today(),
                "outcome": "changed",
                "similar": [],
                "conflicts": [],
            }
            error, given = await call(
                client,
                "memory_fact_add",
                text="Deploys wait for CI",
                section="Conventions",
                id="deploy-gate",
            )
            assert not error and given["id"] == "deploy-gate" and given["section"] == "Conventions"
            before = tree(root)
            for bad in ("Bad_Id", "fact-3"):
                error, text = await call(client, "memory_fact_add", text="Another fact", id=bad)
                printed = run_console("fact", "add", "Another fact", "--id", bad, root, cwd=root)
                assert error and printed.returncode == 1
                assert text == printed.stderr.strip()
            assert tree(root) == before

    anyio.run(session)
    doc = parse("memory/continuity.md", continuity.read_bytes())
    found = {f.id: f for f in doc.facts}
    assert found["builds-pin-node-20-via-nvmrc"].field("tier") == "working"
    assert found["deploy-gate"].field("created") == today()
    assert "- Builds pin Node 20 via .nvmrc\n" in continuity.read_text()
    assert cli("lint", root).exit_code == 0


def test_context_is_the_cli_markdown_and_explain_is_its_json_summary(tmp_path: Path) -> None:
    root = enabled_repo(tmp_path / "repo")
    before = tree(root)

    async def session() -> None:
        async with connect(root) as client:
            error, view = await call(client, "memory_context")
            assert not error and conforms("memory_context", view) and view["due"] == []
            assert view["text"].rstrip("\n") == cli("context", root).output.rstrip("\n")
            assert "Fact 3 about the outbox" in view["text"]
            error, why = await call(client, "memory_explain", id="fact-3")
            shown = json.loads(cli("explain", "fact-3", root, "--json").output)["summary"]
            assert not error and conforms("memory_explain", why) and why == shown
            assert why["path"] == "memory/continuity.md" and why["tier"] == "working"
            error, text = await call(client, "memory_explain", id="fakt-3")
            printed = run_console("explain", "fakt-3", root, cwd=root)
            assert error and printed.returncode == 1 and text == printed.stderr.strip()

    anyio.run(session)
    assert tree(root) == before


def _tools_call(ident: int, arguments: str, name: str = "memory_recall") -> bytes:
    head = f'{{"jsonrpc": "2.0", "id": {ident}, "method": "tools/call", "params": '
    return f'{head}{{"name": "{name}", "arguments": {arguments}}}}}\n'.encode()


DEEP = "[" * 100_000 + "]" * 100_000
UNANSWERABLE_ARGUMENTS = [
    '{"query": "\\ud800"}',  # a lone surrogate
    '{"query": "\\udc00 and \\ud83d"}',
    '{"query": ' + DEEP + "}",
    '{"query": ' + "[" * 70 + "]" * 70 + "}",  # deeper than the bound, not than Python's
    '{"query": NaN}',
    '{"query": 1' + "0" * 5000 + "}",
    "[1]",
    '"outbox"',
    "7",
]


def test_every_line_gets_an_answer_and_the_server_goes_on(tmp_path: Path) -> None:
    """MCP.md: whatever a line holds, the client is answered — a parse error for a line that is
    not JSON (or too long), a tool error under the call's id for arguments it cannot take —
    and the next call works. Nothing is written."""
    root = enabled_repo(tmp_path / "repo")
    before = tree(root)
    server = RawServer(root)
    try:
        for garbage in (
            b"{not json\n",
            b"\xff\xfe\n",
            b"[]\n",
            b'{"a": 1}\n',
            b"x" * (1 << 21) + b"\n",
            *(
                b'{"jsonrpc": "2.0", "id": %s, "method": "ping"}\n' % ident
                for ident in (b"1.5", b"{}", b"[1]", b"true")
            ),
        ):
            answer = server.receive() if server.send(garbage) is None else None
            assert answer is not None and answer["id"] is None, answer
            assert answer["error"]["code"] in (-32700, -32600), answer
        for n, arguments in enumerate(UNANSWERABLE_ARGUMENTS, start=1):
            server.send(_tools_call(n, arguments))
            answer = server.receive()
            assert answer["id"] == n and answer["result"]["isError"] is True, (arguments, answer)
            text = answer["result"]["content"][0]["text"]
            assert text.startswith("agent-memory: memory_recall: ") and "\n" not in text
        server.send(_tools_call(50, '{"query": "X"}').replace(b"X", b"\xc3\x28"))  # not UTF-8
        assert server.receive()["result"]["isError"] is True
        answer = server.ask(
            {
                "jsonrpc": "2.0",
                "id": 51,
                "method": "ping",
                "params": {"x": json.loads("[" * 80 + "]" * 80)},
            }
        )
        assert answer["id"] == 51 and answer["error"]["code"] == -32600
        answer = server.ask(
            {"jsonrpc": "2.0", "id": 52, "method": "tools/call",
             "params": {"name": "memory_recall", "arguments": {"query": "outbox"}}}
        )  # fmt: skip
        assert answer["id"] == 52 and answer["result"]["structuredContent"]["facts"]
    finally:
        assert server.close() == 0
    assert tree(root) == before


def test_the_mcp_server_collects_cycles_though_a_command_does_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cycle collector, off for a command's short run, is on while the server runs."""
    from agent_memory.cli.mcp import server

    seen: list[bool] = []
    monkeypatch.setattr(server.anyio, "run", lambda run: seen.append(gc.isenabled()))
    gc.disable()
    try:
        server.serve(tmp_path, 0.0)
    finally:
        gc.enable()
    assert seen == [True]
