"""``--json``: one document from every command, errors included, valid against our schema."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from agent_memory import resources
from agent_memory.cli.app import main
from conftest import PROJECT, run_console, tree
from test_cli import commands

SCHEMA = json.loads(resources.data("schema/report.schema.json"))
TYPES: dict[str, Callable[[Any], bool]] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def violations(value: Any, schema: dict[str, Any], where: str = "$") -> list[str]:
    """The schema keywords the report schema uses: type, enum, minimum, required,
    properties, additionalProperties (false) and items. Any other keyword is refused."""
    known = {"$schema", "$id", "title", "description", "type", "enum", "minimum", "required"}
    known |= {"properties", "additionalProperties", "items"}
    assert set(schema) <= known, set(schema) - known
    types = schema.get("type", [])
    types = [types] if isinstance(types, str) else types
    if types and not any(TYPES[t](value) for t in types):
        return [f"{where}: {value!r} is not {types}"]
    found = []
    if "enum" in schema and value not in schema["enum"]:
        found.append(f"{where}: {value!r} not in {schema['enum']}")
    if "minimum" in schema and isinstance(value, int) and value < schema["minimum"]:
        found.append(f"{where}: {value} < {schema['minimum']}")
    if isinstance(value, dict):
        found += [f"{where}: missing {k!r}" for k in schema.get("required", ()) if k not in value]
        properties = schema.get("properties", {})
        if schema.get("additionalProperties") is False:
            found += [f"{where}: unexpected {k!r}" for k in value if k not in properties]
        for key, sub in properties.items():
            if key in value:
                found += violations(value[key], sub, f"{where}.{key}")
    if isinstance(value, list) and "items" in schema:
        for index, item in enumerate(value):
            found += violations(item, schema["items"], f"{where}[{index}]")
    return found


def test_the_validator_catches_what_it_should() -> None:
    good = {"command": "x", "version": "1", "repo": ".", "outcome": "ok", "plan": []}
    good |= {"findings": [], "summary": {}}
    assert violations(good, SCHEMA) == []
    assert violations({**good, "extra": 1}, SCHEMA)
    assert violations({**good, "findings": [{"path": "p", "line": 0}]}, SCHEMA)
    assert violations({k: v for k, v in good.items() if k != "plan"}, SCHEMA)


def run_json(*args: str | Path) -> tuple[int, dict[str, Any]]:
    result = CliRunner().invoke(main, [*map(str, args), "--json"], catch_exceptions=False)
    assert "Traceback" not in result.output
    doc = json.loads(result.stdout)  # exactly one document on stdout
    assert violations(doc, SCHEMA) == [], (args, violations(doc, SCHEMA))
    return result.exit_code, doc


@pytest.fixture
def enabled(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    code, _ = run_json("enable", root, "--today", "2026-03-01")
    assert code == 0
    return root


def test_every_command_prints_one_valid_document(enabled: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    sides = []
    for side in ("base", "ours", "theirs"):
        sides.append(tmp_path / side)
        sides[-1].write_text("# Continuity\n\n## Key Decisions\n")
    runs = {
        ("enable",): ("enable", enabled),
        ("merge-file",): ("merge-file", *sides, "memory/continuity.md"),
        ("fact", "add"): ("fact", "add", "Pin Node 20", enabled, "--today", "2026-03-02"),
        ("explain",): ("explain", "pin-node-20", enabled),
        ("fact", "edit"): ("fact", "edit", "pin-node-20", "Pin Node 22", enabled),
        ("fact", "cite"): ("fact", "cite", "pin-node-20", "memory/decay-policy.md:1-2", enabled),
        ("fact", "recite"): ("fact", "recite", "pin-node-20", enabled),
        ("fact", "relate"): ("fact", "relate", "pin-node-20", "pin-node-20", enabled),
        ("fact", "expire"): ("fact", "expire", "pin-node-20", "2027-01-01", enabled),
        ("fact", "pin"): ("fact", "pin", "pin-node-20", enabled),
        ("fact", "unpin"): ("fact", "unpin", "pin-node-20", enabled),
        ("fact", "archive"): ("fact", "archive", "pin-node-20", enabled),
        ("fact", "restore"): ("fact", "restore", "pin-node-20", enabled),
        ("fact", "show"): ("fact", "show", "pin-node-20", enabled),
        ("fact", "accept"): ("fact", "accept", "--all", enabled, "--today", "2026-03-02"),
        ("fact", "retract"): ("fact", "retract", "pin-node-20", "--reason", "EOL", enabled),
        ("fact", "supersede"): ("fact", "supersede", "pin-node-20", "--text", "Node 24", enabled),
        ("session", "new"): ("session", "new", enabled, "--now", "2026-03-02T10:00:00"),
        ("review",): ("review", enabled, "--today", "2026-03-02"),
        ("status",): ("status", enabled),
        ("lint",): ("lint", enabled),
        ("recall",): ("recall", "node", enabled),
        ("check-logs",): ("check-logs", enabled),
        ("recover",): ("recover", enabled),
        ("context",): ("context", enabled),
        ("import",): ("import", "gemini", enabled, "--from", sides[0], "--today", "2026-03-02"),
        ("replay",): ("replay", enabled, "--policy", "active_window=9"),
        ("report",): ("report", enabled, "--today", "2026-03-02"),
        ("session", "capture"): (
            "session",
            "capture",
            enabled,
            "--transcript",
            PROJECT / "tests/fixtures/transcripts/claude/session-basic.jsonl",
        ),
        ("hooks", "install"): ("hooks", "install", enabled, "--agent", "claude"),
        ("hooks", "remove"): ("hooks", "remove", enabled, "--agent", "claude"),
        ("mcp", "install"): ("mcp", "install", enabled, "--agent", "claude"),
        ("mcp", "remove"): ("mcp", "remove", enabled, "--agent", "claude"),
        ("doctor",): ("doctor", enabled),
        ("fact", "forget"): ("fact", "forget", "Node 24", enabled),
        ("fact", "share"): ("fact", "share", "pin-node-20", enabled),
        ("fact", "reject"): ("fact", "reject", "2026-03-02-100000#1", "--reason", "no", enabled),
        ("proposals",): ("proposals", enabled),
        ("disable",): ("disable", enabled, "--today", "2026-03-02"),  # last: it takes it all out
    }
    serving = {("mcp", "serve"), ("ui",)}  # servers: MCP on stdout; ui a page server, no --json
    # A hook prints what its agent reads (tests/test_hook.py), not our document.
    serving |= {("hook", e) for e in ("session-start", "pre-compact", "session-end", "prompt")}
    assert set(runs) >= set(commands()) - serving, "a command has no --json run here"
    for words, args in runs.items():
        code, doc = run_json(*args)
        assert doc["command"] == " ".join(words) and code in (0, 1), (words, doc)
        if words in (("enable",), ("recover",), ("merge-file",)):
            continue  # these work on a repo that is not (yet) enabled, or on no repo
        # Outside an enabled repo: refused in one document, nothing written.
        code, doc = run_json(*[outside if a == enabled else a for a in args])
        assert code == 1 and doc["outcome"] == "error", words
        assert doc["command"] == " ".join(words) and doc["repo"] == str(outside)
        assert [f["check"] for f in doc["findings"]] == ["refused"]
        assert "agent-memory enable" in doc["findings"][0]["message"]
        assert tree(outside) == {}, words


def test_session_new_json_reports_its_plan(enabled: Path) -> None:
    _, doc = run_json("session", "new", enabled, "--now", "2026-03-02T10:00:00")
    assert doc["outcome"] == "changed"
    assert doc["plan"] == [
        {
            "path": "memory/sessions/2026-03-02-100000.md",
            "outcome": "created",
            "reason": "new session log",
        }
    ]


def test_the_schema_ships_in_the_project_data() -> None:
    assert (PROJECT / "schema/report.schema.json").read_bytes() == resources.data(
        "schema/report.schema.json"
    )


def usage_json(*args: str | Path) -> tuple[dict[str, Any], str]:
    """A usage error with --json: exit 2, one valid error document on stdout, click's text on
    stderr."""
    result = CliRunner().invoke(main, [*map(str, args), "--json"], catch_exceptions=False)
    assert result.exit_code == 2, (args, result.output)
    doc = json.loads(result.stdout)
    assert violations(doc, SCHEMA) == [], (args, violations(doc, SCHEMA))
    assert doc["outcome"] == "error" and doc["plan"] == []
    [finding] = doc["findings"]
    assert finding["check"] == "usage" and finding["severity"] == "error"
    assert "Usage: " in result.stderr and "Error: " in result.stderr
    return doc, finding["message"]


@pytest.mark.parametrize("words", commands(), ids=" ".join)
def test_a_usage_error_with_json_prints_one_error_document(words: tuple[str, ...]) -> None:
    doc, message = usage_json(*words, "--no-such-option")
    assert doc["command"] == " ".join(words)
    assert "--no-such-option" in message


@pytest.mark.parametrize(
    ("args", "command", "said"),
    [
        (("review", ".", "--today", "2026-13-45"), "review", "is not a date"),
        (("enable", ".", "--vendor", "emacs"), "enable", "emacs"),
        (("context", ".", "--max-bytes", "10"), "context", "--max-bytes"),
        (("recall",), "recall", "QUERY"),
        (("hooks", "install", "."), "hooks install", "--agent"),
        (("fact", "add"), "fact add", "TEXT"),
        (("no-such-command",), "", "no-such-command"),
        (("--no-such-option",), "", "--no-such-option"),
    ],
)
def test_bad_values_and_missing_arguments_with_json_too(
    args: tuple[str, ...], command: str, said: str
) -> None:
    doc, message = usage_json(*args)
    assert doc["command"] == command and said in message, (doc, message)


def test_without_json_a_usage_error_is_click_text_alone(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["status", "--no-such-option"])
    assert result.exit_code == 2 and result.stdout == "" and "Error: " in result.stderr
    # "--json" after "--" is an argument (a query), not the option.
    result = CliRunner().invoke(main, ["recall", str(tmp_path), "--bogus", "--", "--json"])
    assert result.exit_code == 2 and result.stdout == ""


def test_the_console_script_prints_the_document_and_exits_2(tmp_path: Path) -> None:
    done = run_console("lint", tmp_path, "--bogus", "--json", cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    doc = json.loads(done.stdout)
    assert violations(doc, SCHEMA) == [] and doc["command"] == "lint"
    assert "Error: No such option" in done.stderr


def test_the_schema_lists_every_outcome_a_plan_reports() -> None:
    """A symlinked CLAUDE.md is reported ``linked`` by enable and disable: --json must be
    valid for it, and for every other outcome."""
    from agent_memory.core.plan import Outcome

    listed = SCHEMA["properties"]["plan"]["items"]["properties"]["outcome"]["enum"]
    assert sorted(listed) == sorted(outcome.value for outcome in Outcome)
