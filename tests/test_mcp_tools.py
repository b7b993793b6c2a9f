"""The MCP tools in process: errors as the CLI prints them, the references a log gets, MCP.md."""

from __future__ import annotations

import datetime as dt
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_memory.cli.declared import Arg, Kind, Param
from agent_memory.cli.mcp.inputs import input_schema
from agent_memory.cli.mcp.tools import TOOLS, McpSession, call, tool_name
from agent_memory.cli.table import LINES
from agent_memory.commands import reference as reference_command
from agent_memory.core.agents.references import LABELS, add_references
from agent_memory.errors import AgentMemoryError
from agent_memory.parse.newlog import new_log
from agent_memory.parse.sessions import read_refs
from agent_memory.resources import data
from agent_memory.shell.installed import sdk_hint
from agent_memory.shell.repo import Repo
from cli_reference import COMMAND, MCP_PAGE, documented_tools, render_mcp
from conftest import PROJECT, cli, git_init, run_console, tree
from mcp_client import enabled_repo

SCHEMA = data("templates/.agent/schema.md").decode()
NAME = "2026-11-22-101500-mcp.md"
FRESH_LOG = new_log(SCHEMA, NAME)


def tool(session: McpSession, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The tool's result, as the server sends it (the test fails on a tool error)."""
    done = call(session, name, arguments)
    assert done.result is not None, done.err
    return dict(done.result.report.summary)


def test_the_tool_error_is_the_line_the_cli_prints(tmp_path: Path) -> None:
    printed = run_console("status", tmp_path, cwd=tmp_path)
    assert printed.returncode == 1
    done = call(McpSession(tmp_path), "memory_status", {})
    assert done.error is not None and done.err.strip() == printed.stderr.strip()


def test_without_the_extra_one_line_and_exit_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in [n for n in sys.modules if n.split(".")[0] in ("mcp", "mcp_types")]:
        monkeypatch.setitem(sys.modules, name, None)  # what an install without the extra sees
    monkeypatch.setitem(sys.modules, "mcp", None)
    monkeypatch.delitem(sys.modules, "agent_memory.cli.mcp.server", raising=False)
    result = cli("mcp", tmp_path)
    assert result.exit_code == 1
    assert result.output.splitlines() == [
        f"agent-memory: the MCP SDK is not installed; {sdk_hint()}"
    ]


def test_a_review_that_read_the_log_sends_the_session_to_a_new_one(tmp_path: Path) -> None:
    root = enabled_repo(tmp_path / "repo")
    first = dt.datetime(2026, 11, 22, 10, 15, tzinfo=dt.timezone.utc)
    made = reference_command.reference(Repo(root), ["fact-1"], "Referenced", None, first)
    log = made.report.summary["log"]
    assert log == f"memory/sessions/{NAME}"
    again = reference_command.reference(Repo(root), ["fact-2"], "Referenced", NAME, first)
    assert again.report.summary["log"] == log
    assert cli("review", root, "--today", "2026-11-22").exit_code == 0
    kept = (root / log).read_bytes()
    # Still the same second: the new log is named by the next one, so that it sorts after the
    # log the review read and the next review reads it.
    later = reference_command.reference(Repo(root), ["fact-3"], "Referenced", NAME, first)
    assert later.report.summary["log"] == "memory/sessions/2026-11-22-101501-mcp.md"
    assert (root / log).read_bytes() == kept
    assert read_refs(kept).used == {"fact-1", "fact-2"}


def test_a_one_file_thread_and_the_vision_can_be_referenced(tmp_path: Path) -> None:
    """memory_reference knew only continuity.md's and the archive's ids: a thread kept in its
    own file (DESIGN §13) and the vision were refused as ids that exist nowhere."""
    root = tmp_path / "repo"
    shutil.copytree(PROJECT / "examples/handrun-4x-repo/after", root)
    ids = ["ot-courier-batching", "vision-harbor-dispatch"]
    moment = dt.datetime(2026, 8, 26, 9, 0, tzinfo=dt.timezone.utc)
    made = reference_command.reference(Repo(root), ids, "Referenced", None, moment)
    assert read_refs((root / made.report.summary["log"]).read_bytes()).used == set(ids)
    with pytest.raises(AgentMemoryError, match="did you mean 'ot-courier-batching'"):
        reference_command.reference(Repo(root), ["ot-courier-batchin"], "Referenced", None, moment)


def test_a_new_log_never_takes_an_existing_name(tmp_path: Path) -> None:
    root = enabled_repo(tmp_path / "repo")
    other = root / "memory/sessions" / NAME
    other.write_text("# another agent's session\n")
    moment = dt.datetime(2026, 11, 22, 10, 15, tzinfo=dt.timezone.utc)
    made = reference_command.reference(Repo(root), ["fact-1"], "Referenced", None, moment)
    assert made.report.summary["log"].endswith("-mcp-2.md")
    assert other.read_text() == "# another agent's session\n"
    # A log name handed in that is not this session's own (or is a path) is never written.
    before = tree(root)
    made = reference_command.reference(Repo(root), ["fact-1"], "Referenced", "../../x.md", moment)
    assert made.report.summary["log"].endswith("-mcp-3.md")
    assert set(tree(root)) - set(before) == {"memory/sessions/2026-11-22-101500-mcp-3.md"}


_ids = st.lists(
    st.builds("-".join, st.lists(st.sampled_from(["a", "b2", "cache", "x9", "7"]), min_size=1)),
    min_size=1,
    max_size=5,
)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(LABELS), _ids), max_size=6))
def test_added_references_are_read_back_and_adding_again_changes_nothing(
    calls: list[tuple[str, list[str]]],
) -> None:
    log = FRESH_LOG
    for label, ids in calls:
        log = add_references(log, label, ids)
        assert add_references(log, label, ids) == log
    refs = read_refs(log)
    assert refs.used == {i for _, ids in calls for i in ids}
    assert refs.created == {i for label, ids in calls if label == "Created" for i in ids}
    assert refs.warnings == ()


@pytest.mark.parametrize(
    ("log", "expected"),
    [
        ("# S\n", "# S\n\n## Memory References\n- Referenced: a-b\n"),
        ("# S", "# S\n\n## Memory References\n- Referenced: a-b\n"),
        (
            "## Memory References\n- Referenced: none\n",
            "## Memory References\n- Referenced: none, a-b\n",
        ),
        (
            "## Memory References\n- Created: x\n\n## Notes\n",
            "## Memory References\n- Created: x\n- Referenced: a-b\n\n## Notes\n",
        ),
        ("## Memory References\n- referenced: x\n", "## Memory References\n- referenced: x, a-b\n"),
        # the heading, or the section's last line, ends the log with no newline
        ("# S\n\n## Memory References", "# S\n\n## Memory References\n- Referenced: a-b\n"),
        (
            "## Memory References\n- Created: x",
            "## Memory References\n- Created: x\n- Referenced: a-b\n",
        ),
        # a CRLF log: its section found, every line it gets ends as its own do
        ("# S\r\n", "# S\r\n\r\n## Memory References\r\n- Referenced: a-b\r\n"),
        (
            "## Memory References\r\n- Referenced: x\r\n",
            "## Memory References\r\n- Referenced: x, a-b\r\n",
        ),
        (
            "## Memory References\r\n- Created: x\r\n\r\n## Notes\r\n",
            "## Memory References\r\n- Created: x\r\n- Referenced: a-b\r\n\r\n## Notes\r\n",
        ),
    ],
)
def test_references_go_where_the_log_has_room(log: str, expected: str) -> None:
    assert add_references(log.encode(), "Referenced", ["a-b"]).decode() == expected


_LINES = st.sampled_from(["# S", "", "## Memory References", "- Created: x", "text"])


@given(st.lists(_LINES, min_size=3))
def test_a_crlf_log_takes_references_as_its_lf_twin_does(lines: list[str]) -> None:
    """Three lines at least: with fewer, CRLF is not the ending most of the log's lines have."""
    lf = "\n".join(lines).encode()
    crlf = "\r\n".join(lines).encode()
    assert add_references(crlf, "Referenced", ["a-b"]) == add_references(
        lf, "Referenced", ["a-b"]
    ).replace(b"\n", b"\r\n")


_DOC_TOOL = re.compile(r"^### `(memory_[a-z_]+)`\n(.*?)(?=^##)", re.MULTILINE | re.DOTALL)
_JSON = re.compile(r"^```json\n(.*?)^```", re.MULTILINE | re.DOTALL)


def test_mcp_md_shows_every_tool_as_its_declaration_makes_it() -> None:
    page = MCP_PAGE.read_text()
    assert sorted(documented_tools(page)) == sorted(TOOLS)
    assert page == render_mcp(page), f"MCP.md is stale: run {COMMAND}"


def test_an_input_schema_is_what_the_declared_parameters_say() -> None:
    params = (
        Param("path", Kind.FOLDER),  # no Arg: not taken over MCP
        Param("query", Kind.TEXT, required=True, arg=Arg(bounds={"maxLength": 9})),
        Param("limit", Kind.COUNT, ("--limit",), default=10, low=1, arg=Arg()),
        Param("fact_id", Kind.TEXT, ("--id",), arg=Arg("id")),
        Param("until", Kind.DATE, ("--until",), arg=Arg()),
        Param(
            "paths",
            Kind.TEXT,
            ("--paths",),
            multiple=True,
            arg=Arg(bounds={"minLength": 1}, most=3),
        ),
        Param("all", Kind.FLAG, ("--all",), arg=Arg()),
        Param("agent", Kind.CHOICE, ("--agent",), choices=("a", "b"), arg=Arg()),
    )
    assert input_schema(params) == {
        "type": "object",
        "properties": {
            "query": {"type": "string", "maxLength": 9},
            "limit": {"type": "integer", "minimum": 1, "default": 10},
            "id": {"type": "string"},
            "until": {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"},
            "paths": {"type": "array", "items": {"type": "string", "minLength": 1}, "maxItems": 3},
            "all": {"type": "boolean"},
            "agent": {"type": "string", "enum": ["a", "b"]},
        },
        "required": ["query"],
        "additionalProperties": False,
    }
    with pytest.raises(ValueError, match="path"):
        input_schema((Param("path", Kind.FOLDER, arg=Arg()),))


def test_a_tool_writes_when_its_command_writes() -> None:
    by_name = {tool_name(line): line for line in LINES if line.tool is not None}
    assert set(by_name) | {"memory_reference"} == set(TOOLS)
    for name, line in by_name.items():
        assert TOOLS[name].journal is line.command.journal, name
        assert TOOLS[name].description == line.tool


def test_mcp_md_documents_every_tool_with_the_schemas_the_server_uses() -> None:
    doc = (PROJECT / "MCP.md").read_text()
    documented = {}
    for name, body in _DOC_TOOL.findall(doc):
        blocks = [json.loads(block) for block in _JSON.findall(body)]
        assert len(blocks) == 2, name  # input, then output
        documented[name] = blocks
    assert set(documented) == set(TOOLS)
    for name, tool in TOOLS.items():
        assert documented[name] == [tool.input_schema, tool.output_schema], name
        for schema in documented[name]:
            jsonschema.Draft202012Validator.check_schema(schema)


def test_a_sessions_folder_leading_outside_the_repo_is_refused(tmp_path: Path) -> None:
    root = enabled_repo(tmp_path / "repo")
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "memory/sessions/.gitkeep").unlink()
    (root / "memory/sessions").rmdir()
    (root / "memory/sessions").symlink_to(outside)
    done = call(McpSession(root), "memory_reference", {"ids": ["fact-1"]})
    assert done.result is None and "leads outside the repo" in done.err
    assert list(outside.iterdir()) == []


def test_a_committed_log_is_left_alone_and_check_logs_stays_clean(tmp_path: Path) -> None:
    root = git_init(enabled_repo(tmp_path / "repo"))
    session = McpSession(root)
    first = tool(session, "memory_reference", {"ids": ["fact-1"]})["log"]
    assert tool(session, "memory_reference", {"ids": ["fact-2"]})["log"] == first
    git = ["git", "-C", str(root), "-c", "user.name=a", "-c", "user.email=a@b"]
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "work"], check=True)
    kept = (root / first).read_bytes()
    later = tool(session, "memory_reference", {"ids": ["fact-3"]})["log"]
    assert later != first and (root / first).read_bytes() == kept
    assert cli("check-logs", root).exit_code == 0


def test_a_staged_log_is_left_alone_as_capture_leaves_it(tmp_path: Path) -> None:
    """One rule for both (DESIGN §19): a log staged for the next commit is what git records."""
    root = git_init(enabled_repo(tmp_path / "repo"))
    session = McpSession(root)
    first = tool(session, "memory_reference", {"ids": ["fact-1"]})["log"]
    subprocess.run(["git", "-C", str(root), "add", first], check=True)
    kept = (root / first).read_bytes()
    later = tool(session, "memory_reference", {"ids": ["fact-2"]})["log"]
    assert later != first and (root / first).read_bytes() == kept


@pytest.mark.parametrize("args", [["mcp"], ["mcp", "--wait", "1"], ["mcp", "serve"]])
def test_mcp_path_serves_and_a_bad_path_is_one_line(tmp_path: Path, args: list[str]) -> None:
    result = cli(*args, tmp_path / "missing")
    assert result.exit_code == 1
    missing = tmp_path / "missing"
    assert (
        result.output
        == f"agent-memory: {missing}: not a directory; pass the path of the repo to work on\n"
    )
