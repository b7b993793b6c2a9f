"""What 2,134 hostile cases found in 5.1.0 (DESIGN §15): every parser bounds depth, size and
expansion, every refusal is one line, and no run waits forever."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from agent_memory.parse import cites as cites_of
from conftest import build_tree, children_cpu, cli, run_console, tree


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


def _bomb(levels: int) -> str:
    """A CONTEXT.yaml whose ``levels`` levels of nine aliases each expand ninefold (364 bytes
    at nine levels: 387 million strings)."""
    names = "abcdefghij"
    lines = [f"{names[0]}: &{names[0]} [" + ", ".join(['"lol"'] * 9) + "]"]
    for level in range(1, levels):
        lines.append(
            f"{names[level]}: &{names[level]} [" + ", ".join([f"*{names[level - 1]}"] * 9) + "]"
        )
    return "\n".join([*lines, f"core:\n  - id: bomb\n    content: *{names[levels - 1]}\n"])


def _one_line(done: Any) -> str:
    output = done.stderr if hasattr(done, "returncode") else done.output
    assert "Traceback" not in output and len(output.strip().splitlines()) == 1, output
    return output


@pytest.mark.parametrize("levels", [6, 9])
def test_a_yaml_alias_bomb_is_one_line_for_enable_and_import(repo: Path, levels: int) -> None:
    (repo / "CONTEXT.yaml").write_text(_bomb(levels))
    before = tree(repo)
    started = time.process_time()
    done = run_console("enable", repo, "--today", "2026-06-01", cwd=repo)
    assert done.returncode == 1 and "CONTEXT.yaml:2: YAML repeats a list" in _one_line(done)
    assert tree(repo) == before
    (repo / "CONTEXT.yaml").rename(repo.parent / "CONTEXT.yaml")
    assert cli("enable", repo, "--vendor", "none", "--today", "2026-06-01").exit_code == 0
    before = tree(repo)
    args = ("--from", repo.parent / "CONTEXT.yaml", "--today", "2026-06-02")
    done = run_console("import", "context-yaml", repo, *args, cwd=repo)
    assert done.returncode == 1 and "alias (*name)" in _one_line(done)
    assert tree(repo) == before
    assert time.process_time() - started < 10  # 20 s and 1 GB at nine levels, in each process


_HOSTILE_YAML = {
    "an impossible date": ("created: 2026-02-30", "day is out of range for month"),
    "20,000 nested brackets": ("tags: " + "[" * 20_000 + "]" * 20_000, "nests deeper than 64"),
    "a 5,000-digit integer": ("uses: " + "7" * 5000, "an integer of thousands of digits"),
}


@pytest.mark.parametrize("case", _HOSTILE_YAML, ids=str)
def test_a_claude_topic_files_hostile_front_matter_is_one_line(repo: Path, case: str) -> None:
    assert cli("enable", repo, "--vendor", "none", "--today", "2026-06-01").exit_code == 0
    line, said = _HOSTILE_YAML[case]
    topics = build_tree(repo.parent / "memory-claude", {
        "MEMORY.md": "- [Deploy](deploy.md) — how we ship\n",
        "deploy.md": f"---\nname: Deploy\ndescription: how we ship\ntype: project\n{line}\n---\n"
        "Deploy with `make release`; never from a laptop.\n",
    })  # fmt: skip
    before = tree(repo)
    done = cli("import", "claude", repo, "--from", topics, "--today", "2026-06-02")
    assert done.exit_code == 1 and "deploy.md:5: YAML" in done.output and said in done.output
    _one_line(done)
    assert tree(repo) == before


def test_co_cli_tags_that_are_not_a_list_are_read(repo: Path) -> None:
    assert cli("enable", repo, "--vendor", "none", "--today", "2026-06-01").exit_code == 0
    memories = build_tree(repo.parent / "memories", {
        "001-outbox.md": "---\nid: 1\ncreated: 2026-05-01\ntags: 5\n---\nUse the outbox.\n",
        "002-cache.md": "---\nid: 2\ncreated: 2026-05-02\ntags: decision\n---\nNo cache.\n",
    })  # fmt: skip
    done = cli("import", "co-cli", repo, "--from", memories, "--today", "2026-06-02")
    assert done.exit_code == 0, done.output
    assert "2 facts added" in done.output or "2 fact" in done.output


@pytest.mark.parametrize(
    ("toml", "said"),
    [
        ("x = " + "1" * 5000, "an integer of thousands of digits"),
        ("x = " + "[" * 20_000 + "]" * 20_000, "nests its values too deep"),
        ("x = " + "{a = " * 3000 + "1" + "}" * 3000, "nests its values too deep"),
    ],
    ids=["integer", "array", "table"],
)
def test_a_hostile_codex_config_is_one_line_for_doctor_and_mcp_install(
    repo: Path, toml: str, said: str
) -> None:
    assert cli("enable", repo, "--vendor", "none", "--today", "2026-06-01").exit_code == 0
    build_tree(repo, {".codex/config.toml": toml + "\n", "home/.codex/config.toml": toml + "\n"})
    before = tree(repo)
    done = run_console("mcp", "install", repo, "--agent", "codex", cwd=repo)
    assert done.returncode == 1 and said in _one_line(done)
    doctor = run_console("doctor", repo, cwd=repo, CODEX_HOME=str(repo / "home/.codex"))
    assert "Traceback" not in doctor.stderr and said in doctor.stdout + doctor.stderr
    assert tree(repo) == before


@pytest.mark.parametrize(
    "args",
    [
        ("fact", "retract", "deploy-from-ci-only", "{repo}", "--reason", "\udcff"),
        ("fact", "add", "x", "{repo}", "--paths", "src/\udcff"),
        ("explain", "x\udcff", "{repo}"),
        ("fact", "add", "Ship \udcff", "{repo}"),
    ],
    ids=["retract reason", "add paths", "explain", "add text"],
)
def test_an_argument_that_is_not_utf8_is_one_line(repo: Path, args: tuple[str, ...]) -> None:
    assert cli("enable", repo, "--vendor", "none", "--today", "2026-06-01").exit_code == 0
    assert cli("fact", "add", "Deploy from CI only", repo, "--today", "2026-06-02").exit_code == 0
    before = tree(repo)
    done = run_console(*(arg.replace("{repo}", str(repo)) for arg in args), cwd=repo)
    assert done.returncode == 1 and "is not UTF-8 text" in _one_line(done)
    assert tree(repo) == before


def test_a_source_file_named_in_bytes_that_are_not_utf8_is_imported(repo: Path) -> None:
    assert cli("enable", repo, "--vendor", "none", "--today", "2026-06-01").exit_code == 0
    topics = build_tree(repo.parent / "claude", {
        "deploy.md": "---\nname: Deploy\ndescription: how we ship\ntype: project\n---\n"
        "Deploy with `make release`.\n",
    })  # fmt: skip
    odd = os.fsdecode(b"\xffcache.md")
    (topics / odd).write_text("---\nname: Cache\ntype: project\n---\nNo cache on auth.\n")
    done = run_console(
        "import", "claude", repo, "--from", topics, "--today", "2026-06-02", cwd=repo
    )
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    text = (repo / "memory/continuity.md").read_text(encoding="utf-8")
    assert "origin: claude:_cache.md" in text
    assert cli("lint", repo).exit_code == 0


def test_escape_sequences_in_a_fact_never_reach_the_terminal(repo: Path) -> None:
    assert cli("enable", repo, "--vendor", "none", "--today", "2026-06-01").exit_code == 0
    continuity = repo / "memory/continuity.md"
    text = continuity.read_text()
    hostile = (
        "- Widgets ship \x1b]0;PWNED\x07\x1b[2J nightly\r over the old line \u202edeifirev\u202c\n"
        "  <!-- id: widgets | tier: working | created: 2026-06-01 | last_used: 2026-06-01 "
        "| uses: 1 -->\n"
    )
    continuity.write_text(text.replace("## Open Threads\n", "## Open Threads\n\n" + hostile, 1))
    for args in (
        ("recall", "Widgets"),
        ("fact", "show", "widgets"),
        ("context",),
        ("explain", "widgets"),
    ):
        done = run_console(*args, repo, cwd=repo)
        assert done.returncode == 0, (args, done.stderr)
        assert "Widgets" in done.stdout, args
        printed = done.stdout + done.stderr
        assert not set("\x1b\x07\r\u202e\u202c") & set(printed), (args, printed)
        assert "\\x1b]0;PWNED\\x07\\x1b[2J" in done.stdout, args
    linted = run_console("lint", repo, cwd=repo)
    assert "memory/continuity.md:" in linted.stdout
    assert "warning [control-character] holds the control character U+001B" in linted.stdout
    assert "\\u202edeifirev\\u202c" in run_console("fact", "show", "widgets", repo, cwd=repo).stdout


def _cited_everywhere(repo: Path, facts: int, cites: int, lines: int) -> None:
    """``facts`` facts, each citing ``cites`` five-line blocks of one ``lines``-line file whose
    first lines changed since (every block is searched for where it went)."""
    assert cli("enable", repo, "--vendor", "none", "--today", "2026-06-01").exit_code == 0
    old = b"".join(b"line %d of the generated table\n" % n for n in range(lines))
    body = []
    for n in range(facts):
        places = [cites_of.cite("gen/table.txt", 1 + 5 * k, 5 + 5 * k, old) for k in range(cites)]
        value = ", ".join(f"{c.path}:{c.start}-{c.end}@{c.hash}" for c in places)
        body.append(
            f"- The generated table's block {n} holds the lookup rows\n  <!-- id: table-{n} | "
            f"tier: working | created: 2026-06-01 | last_used: 2026-06-01 | uses: 1 | "
            f"cites: {value} -->\n"
        )
    continuity = repo / "memory/continuity.md"
    text = continuity.read_text().replace(
        "## Key Decisions\n", "## Key Decisions\n" + "".join(body)
    )
    continuity.write_text(text)
    (repo / "gen").mkdir()
    (repo / "gen/table.txt").write_bytes(b"a new first line\n" * 7 + old[: -len(old) // 2])


@pytest.mark.parametrize(
    ("facts", "cites", "lines"), [(40, 1, 200_000), (200, 50, 2_000)], ids=["40x1", "200x50"]
)
def test_stale_citations_are_checked_within_a_bound(
    repo: Path, facts: int, cites: int, lines: int
) -> None:
    _cited_everywhere(repo, facts, cites, lines)
    payload = json.dumps({"session_id": "s1", "cwd": str(repo), "hook_event_name": "SessionStart"})
    for args in (("status", repo), ("lint", repo), ("context", repo)):
        started = children_cpu()  # CPU: a loaded machine stretches wall time, not this
        done = run_console(*args, cwd=repo)
        assert done.returncode in (0, 1) and "Traceback" not in done.stderr, done.stderr
        assert children_cpu() - started < 12, args  # 14.5 s and past 20 s before
    started = children_cpu()
    hook = subprocess.run(
        [sys.executable, "-m", "agent_memory", "hook", "session-start"],
        input=payload, capture_output=True, text=True, cwd=repo, check=False,
    )  # fmt: skip
    assert hook.returncode == 0 and "table-0" in hook.stdout, hook.stderr
    assert children_cpu() - started < 12  # 15 to 17 s before


def test_a_log_naming_200_000_unknown_ids_is_read_within_a_bound(repo: Path) -> None:
    """lint looked for each unknown id's line over the whole log, and the search for archived
    ids to reactivate compiled a pattern per id (even with no archive): lint ran for hours on
    such a log, and status and the session-start hook for 12 to 24 s."""
    assert cli("enable", repo, "--vendor", "none", "--today", "2026-01-01").exit_code == 0
    named = ", ".join(f"y-{n}" for n in range(200_000))
    log = repo / "memory/sessions/2026-01-04-100000.md"
    log.write_text(f"# S\n\n## Memory References\n- Referenced: {named}\n")
    (repo / "memory/archive").mkdir(exist_ok=True)
    (repo / "memory/archive/2026-Q1.md").write_text(
        "# Archive\n\n## Facts\n- Old y-17 thing\n  <!-- id: y-17 | created: 2026-01-01 | "
        "last_used: 2026-01-01 | uses: 1 | tier: archived -->\n"
    )
    started = children_cpu()
    status = run_console("status", repo, cwd=repo)
    assert "1 archived fact named by unread session logs waits to be reactivated (y-17)" in (
        status.stdout
    ), status.stderr
    linted = run_console("lint", repo, cwd=repo)
    warnings = [line for line in linted.stdout.splitlines() if "[unknown-id]" in line]
    assert len(warnings) == 199_999 and all(":4: warning" in line for line in warnings)
    assert sum("did you mean" in line for line in warnings) <= 100
    assert children_cpu() - started < 20
