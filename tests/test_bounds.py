"""What 2,134 hostile cases found in 5.1.0 (DESIGN §15): every parser bounds depth, size and
expansion, every refusal is one line, and no run waits forever."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import cli, run_console, tree


@pytest.mark.parametrize("seconds", ["nan", "inf", "NaN", "1e400", "-inf"])
@pytest.mark.parametrize(
    "command", [("recover",), ("session", "capture"), ("mcp", "serve")], ids=" ".join
)
def test_a_wait_that_is_not_a_finite_number_is_a_usage_error(
    repo: Path, command: tuple[str, ...], seconds: str
) -> None:
    before = tree(repo)
    done = run_console(*command, repo, "--wait", seconds, cwd=repo)
    assert done.returncode == 2 and "--wait" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    assert tree(repo) == before


@pytest.mark.parametrize(
    "order",
    ["hooks mcp hooks mcp", "hooks mcp mcp hooks", "mcp hooks mcp hooks", "mcp hooks hooks mcp"],
)
def test_installs_then_removes_in_any_order_leave_no_settings_file(repo: Path, order: str) -> None:
    assert cli("enable", repo, "--vendor", "none", "--today", "2026-06-01").exit_code == 0
    first, second, third, fourth = order.split()
    for command, verb in ((first, "install"), (second, "install")):
        assert cli(command, verb, repo, "--agent", "gemini").exit_code == 0
    for command in (third, fourth):
        assert cli(command, "remove", repo, "--agent", "gemini").exit_code == 0
    assert not (repo / ".gemini/settings.json").exists()  # a 7-byte {\n  \n}\n was left


def test_a_settings_file_the_user_had_empty_is_given_back(repo: Path) -> None:
    assert cli("enable", repo, "--vendor", "none", "--today", "2026-06-01").exit_code == 0
    (repo / ".gemini").mkdir()
    (repo / ".gemini/settings.json").write_text("{}\n")
    assert cli("hooks", "install", repo, "--agent", "gemini").exit_code == 0
    assert cli("hooks", "remove", repo, "--agent", "gemini").exit_code == 0
    assert (repo / ".gemini/settings.json").read_text() == "{}\n"


@pytest.mark.parametrize("then", ["report", "recover"])
def test_the_temp_file_of_a_report_killed_at_its_rename_is_removed(repo: Path, then: str) -> None:
    assert cli("enable", repo, "--vendor", "none", "--today", "2026-06-01").exit_code == 0
    left = repo / ".r.html.k3x9_0qa.agent-memory-tmp"  # what a kill at fsync or rename leaves
    left.write_text("<!doctype html><p>half")
    mine = repo / "notes.agent-memory-tmp"  # not a name of ours: stays
    mine.write_text("keep")
    args = ("--html", repo / "r.html", "--today", "2026-06-02") if then == "report" else ()
    done = cli(then, repo, *args)
    assert done.exit_code == 0, done.output
    assert not left.exists() and mine.read_text() == "keep"
