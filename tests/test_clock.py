"""The date once (DESIGN §25): the runner works out today — ``--today``, else SOURCE_DATE_EPOCH,
else the clock (``shell/clock.py``) — and every command reads it from the repo it is handed;
nothing in ``parse/`` or ``core/`` reads the clock or the environment."""

from __future__ import annotations

import ast
import datetime as dt
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from agent_memory.cli.app import main
from agent_memory.commands.runner import Needs, open_repo
from agent_memory.errors import AgentMemoryError
from agent_memory.shell import clock
from conftest import PROJECT, cli, stats

PACKAGE = PROJECT / "installer/agent_memory"
_CLOCK_CALLS = frozenset({"today", "now", "utcnow"})  # on a date or datetime
_TIME = frozenset({"time", "time_ns", "localtime", "gmtime", "ctime"})
_ENVIRONMENT = frozenset({"environ", "environb", "getenv", "getenvb"})


def clock_readings(source: str) -> list[str]:
    """What in ``source`` reads the clock or the environment, as written (one per use)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = ast.unparse(node.func.value).rsplit(".", 1)[-1]
            if node.func.attr in _CLOCK_CALLS and owner in ("date", "datetime"):
                found.append(ast.unparse(node.func))
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if (node.value.id, node.attr in _TIME) == ("time", True):
                found.append(ast.unparse(node))
            if node.value.id == "os" and node.attr in _ENVIRONMENT:
                found.append(ast.unparse(node))
        if isinstance(node, ast.ImportFrom) and node.module in ("os", "time"):
            names = {alias.name for alias in node.names}
            found += sorted(names & (_ENVIRONMENT | _TIME))
    return found


@pytest.mark.parametrize("layer", ["parse", "core"])
def test_nothing_below_the_shell_reads_the_clock_or_the_environment(layer: str) -> None:
    readings = {
        str(path.relative_to(PACKAGE)): found
        for path in sorted((PACKAGE / layer).rglob("*.py"))
        if (found := clock_readings(path.read_text()))
    }
    assert readings == {}


def test_no_command_reads_the_clock() -> None:
    """A command reads the run's time from its repo (``Repo.now``, ``Repo.today``): ``session
    new`` and an MCP session's log read the clock, and SOURCE_DATE_EPOCH did not name them. (A
    command may read the environment for other things: ``import`` reads the agents' homes.)"""
    readings = {
        str(path.relative_to(PACKAGE)): found
        for path in sorted((PACKAGE / "commands").rglob("*.py"))
        if (found := [f for f in clock_readings(path.read_text()) if "environ" not in f])
    }
    assert readings == {}


@pytest.mark.parametrize(
    "source",
    [
        "import datetime as dt\nx = dt.datetime.now(tz=dt.timezone.utc).date()",
        "import datetime\nx = datetime.date.today()",
        "from datetime import date\nx = date.today()",
        "import os\nx = os.environ.get('SOURCE_DATE_EPOCH')",
        "import os\nx = os.getenv('HOME')",
        "import time\nx = time.time()",
        "from os import environ",
        "from time import time",
    ],
)
def test_the_scan_sees_each_way_of_reading_them(source: str) -> None:
    assert clock_readings(source)


def test_the_scan_leaves_dates_that_are_handed_in() -> None:
    assert (
        clock_readings("x = inputs.today.isoformat()\ny = repo.today\nz = dt.date(2026, 1, 1)")
        == []
    )


def test_the_runner_works_out_the_date_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1781568000")  # 2026-06-16
    assert open_repo(Needs.HERE, tmp_path).today == dt.date(2026, 6, 16)
    assert open_repo(Needs.HERE, tmp_path, dt.date(2027, 1, 2)).today == dt.date(2027, 1, 2)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "")  # empty is unset (reproducible-builds.org)
    assert clock.today() == dt.datetime.now(tz=dt.timezone.utc).date()
    monkeypatch.delenv("SOURCE_DATE_EPOCH")
    assert clock.today() == dt.datetime.now(tz=dt.timezone.utc).date()


@pytest.mark.parametrize(
    "epoch", ["abc", "-1", " 1780000000", "1780000000\n", "1e9", "1.5", "253402300800", "¹⁷⁰⁰"]
)
def test_a_source_date_epoch_that_is_no_time_is_refused(
    epoch: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """It was dropped for the clock, silently, by every command but those with a date option."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", epoch)
    with pytest.raises(AgentMemoryError, match=r"^SOURCE_DATE_EPOCH=.* is not a time; set it"):
        clock.now()
    assert clock.today(dt.date(2026, 1, 1)) == dt.date(2026, 1, 1)  # --today: not read


def test_the_last_second_a_date_can_hold_is_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "253402300799")
    assert clock.now() == dt.datetime(9999, 12, 31, 23, 59, 59, tzinfo=dt.timezone.utc)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "0")
    assert clock.today() == dt.date(1970, 1, 1)


# Every kind of command: those with a date option and those without, a hook, a writer.
COMMANDS = [
    ["status"],
    ["context"],
    ["recall", "outbox"],
    ["session", "new"],
    ["review", "--if-due"],
    ["explain", "outbox-first"],
    ["report"],
    ["fact", "add", "x y"],
    ["hook", "session-start"],
]


@pytest.fixture
def enabled(repo: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(repo)
    assert cli("enable", ".", "--today", "2026-01-01", "--vendor", "none").exit_code == 0
    added = cli("fact", "add", "Outbox first", ".", "--today", "2026-01-01")
    assert added.exit_code == 0, added.output
    return repo


@pytest.mark.parametrize("words", COMMANDS, ids=" ".join)
def test_every_command_refuses_it_in_one_line_and_writes_nothing(
    words: list[str], enabled: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same rule for all: ``status``, ``context``, ``recall``, ``session new`` and the hook
    went on by the clock; the rest stopped with click's usage block, exit 2."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "abc")
    before = stats(enabled)
    payload = json.dumps({"cwd": str(enabled), "session_id": "s1", "source": "startup"})
    done = CliRunner().invoke(main, words, input=payload, catch_exceptions=False)
    assert (done.exit_code, done.stdout) == (1, "")
    assert done.stderr.splitlines() == [
        "agent-memory: SOURCE_DATE_EPOCH='abc' is not a time; set it to whole seconds since "
        "1970-01-01 UTC (ASCII digits, 0 to 253402300799) or unset it"
    ]
    assert stats(enabled) == before


@pytest.mark.parametrize(
    "words", [["fact", "add", "x y", "--dry-run"], ["explain", "outbox-first"]], ids=" ".join
)
def test_today_wins_over_a_source_date_epoch_that_is_no_time(
    words: list[str], enabled: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``fact add --today`` was refused: its unset ``--until`` read the environment."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "abc")
    done = cli(*words, "--today", "2026-01-02")
    assert done.exit_code == 0, done.output


def test_an_empty_source_date_epoch_is_unset(
    enabled: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "")
    assert cli("status").exit_code == 0


def test_the_mcp_server_refuses_it_as_the_command_line_does(
    enabled: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("jsonschema")
    from agent_memory.cli.mcp.tools import McpSession, call

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "abc")
    done = call(McpSession(enabled), "memory_status", {})
    assert done.error is not None
    assert done.err.startswith("agent-memory: SOURCE_DATE_EPOCH='abc' is not a time")


def test_review_if_due_answers_on_the_date_it_is_given(repo: Path) -> None:
    """The quiet path of ``review --if-due`` read the clock, not ``--today``: a fact past its
    ``valid-until`` on the date given went unseen until the clock passed it too."""
    assert cli("enable", repo, "--today", "2026-01-01", "--vendor", "none").exit_code == 0
    added = cli("fact", "add", "Freeze ends in spring", repo, "--until", "2090-03-01", "--today",
                "2026-01-02")  # fmt: skip
    assert added.exit_code == 0, added.output
    before = cli("review", repo, "--if-due", "--dry-run", "--today", "2090-02-01")
    assert before.exit_code == 0 and before.output == ""  # nothing due: says nothing
    after = cli("review", repo, "--if-due", "--dry-run", "--today", "2090-03-02")
    assert after.exit_code == 0, after.output
    assert "- Expired: 1 (freeze-ends-in-spring)" in after.output


def test_session_new_names_the_log_by_source_date_epoch(
    enabled: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """It named the log by the wall clock whatever SOURCE_DATE_EPOCH said."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1780000000")  # 2026-05-28T20:26:40Z
    done = cli("session", "new", "--json")
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["summary"]["path"] == "memory/sessions/2026-05-28-202640.md"


def test_an_mcp_session_s_log_is_named_by_source_date_epoch(
    enabled: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("jsonschema")
    from agent_memory.cli.mcp.tools import McpSession, call

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1780000000")
    done = call(McpSession(enabled), "memory_reference", {"ids": ["outbox-first"]})
    assert done.result is not None, done.err
    assert done.result.report.summary["log"] == "memory/sessions/2026-05-28-202640-mcp.md"
