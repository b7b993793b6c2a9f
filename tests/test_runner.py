"""One runner for every command (commands/runner.py), and the repo found from anywhere inside it
(shell/discovery.py), checked for every command the table declares (cli/table.py)."""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agent_memory.cli.table import LINES
from agent_memory.commands.runner import Journal
from agent_memory.resources import version
from conftest import PROJECT, build_tree, cli, git_init, run_console, tree

EXAMPLE = PROJECT / "examples/evolving-memory-example/after"
TODAY = "2026-05-09"
VERSION = version()
TRANSCRIPT = PROJECT / "tests/fixtures/transcripts"

# A command line for each declared command, run where PATH is not given. Every declared line
# must be here, so a new command gets these tests by being declared.
SAMPLES: dict[tuple[str, ...], list[str]] = {
    ("enable",): ["--today", TODAY],
    ("recover",): [],
    ("hooks", "install"): ["--agent", "claude", "--today", TODAY],
    ("hooks", "remove"): ["--agent", "claude", "--today", TODAY],
    ("disable",): ["--today", TODAY],
    ("review",): ["--today", TODAY],
    ("status",): [],
    ("lint",): [],
    ("context",): [],
    ("recall",): ["outbox"],
    ("explain",): ["outbox-writes", "--today", TODAY],
    ("fact", "add"): ["A fact from a subdirectory", "--today", TODAY],
    ("fact", "edit"): ["outbox-writes", "Outbox writes go through the outbox", "--today", TODAY],
    ("fact", "supersede"): ["outbox-writes", "--text", "Writes go through a queue"],
    ("fact", "retract"): ["outbox-writes", "--reason", "the outbox is gone", "--today", TODAY],
    ("fact", "archive"): ["outbox-writes", "--today", TODAY],
    ("fact", "restore"): ["outbox-writes", "--today", TODAY],
    ("fact", "pin"): ["outbox-writes", "--today", TODAY],
    ("fact", "unpin"): ["outbox-writes", "--today", TODAY],
    ("fact", "expire"): ["outbox-writes", "2026-12-31", "--today", TODAY],
    ("fact", "relate"): ["outbox-writes", "replica-reads", "--today", TODAY],
    ("fact", "cite"): ["replica-reads", "memory/decay-policy.md:2-3", "--today", TODAY],
    ("fact", "recite"): ["outbox-writes", "--today", TODAY],
    ("fact", "show"): ["outbox-writes"],
    ("import",): ["context-yaml", "--from", "CONTEXT.yaml", "--today", TODAY],
    ("fact", "accept"): ["--all", "--today", TODAY],
    ("fact", "forget"): ["outbox writes table", "--today", TODAY],
    ("fact", "share"): ["outbox-writes", "--today", TODAY],  # the team's: refused alike
    ("fact", "reject"): ["2026-05-09-090000#1", "--reason", "not now", "--today", TODAY],
    ("proposals",): [],
    ("session", "new"): ["--now", "2026-05-09T10:00:00"],
    ("session", "capture"): ["--agent", "claude", "--transcript"],
    ("check-logs",): [],
    ("merge-file",): [],
    ("replay",): [],
    ("report",): ["--format", "md"],
    ("mcp", "serve"): [],
    ("mcp", "install"): ["--agent", "claude"],
    ("mcp", "remove"): ["--agent", "claude"],
    ("hook", "session-start"): [],
    ("hook", "pre-compact"): [],
    ("hook", "session-end"): [],
    ("hook", "prompt"): [],
    ("doctor",): [],
    ("ui",): ["--no-browser"],
}
# Commands that do not take a folder to discover from (git hands merge-file its files; the
# MCP server's discovery is tested through its tools) or that need more than a sample line.
NO_DISCOVERY = {("merge-file",), ("mcp", "serve"), ("session", "capture")}
# The hooks find the repo from their payload's cwd (tests/test_hook.py).
NO_DISCOVERY |= {("hook", event) for event in ("session-start", "pre-compact", "session-end")}
NO_DISCOVERY |= {("hook", "prompt")}
NO_DISCOVERY |= {("ui",)}  # serves until Ctrl-C: tests/test_ui.py runs it on a folder


def test_every_declared_command_has_a_sample() -> None:
    assert {line.words for line in LINES} == set(SAMPLES)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repo enabled at its top (with a fact and a log), and a subdirectory two levels
    down."""
    root = git_init(tmp_path / "repo")
    assert cli("enable", root, "--today", TODAY).exit_code == 0
    fact = ["Outbox writes go through one table", root, "--id", "outbox-writes"]
    fact += ["--cite", "memory/decay-policy.md:1-3"]
    assert cli("fact", "add", *fact, "--today", TODAY).exit_code == 0
    other = ["Reads go to the replicas", root, "--id", "replica-reads", "--today", TODAY]
    assert cli("fact", "add", *other).exit_code == 0
    assert cli("session", "new", root, "--now", "2026-05-09T09:00:00").exit_code == 0
    (root / "src/deep").mkdir(parents=True)
    return root


def _argv(words: tuple[str, ...]) -> list[str]:
    sample = SAMPLES[words]
    if words == ("session", "capture"):
        return [*words, *sample, str(next((TRANSCRIPT / "claude").glob("*.jsonl")))]
    return [*words, *sample]


@pytest.mark.parametrize("words", sorted(set(SAMPLES) - NO_DISCOVERY), ids=" ".join)
def test_a_command_in_a_subdirectory_works_on_the_enclosing_repo(
    tmp_path: Path, repo: Path, words: tuple[str, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    """From repo/src/deep without PATH, a command does what it does at the top with PATH."""
    twin = tmp_path / "twin"
    shutil.copytree(repo, twin, symlinks=True)
    argv = [*_argv(words), *(["--json"] if _takes_json(words) else [])]
    monkeypatch.chdir(twin)
    at_top = cli(*argv)
    monkeypatch.chdir(repo / "src/deep")
    below = cli(*argv)
    assert (below.exit_code, _named(below.output, repo)) == (
        at_top.exit_code,
        _named(at_top.output, twin),
    )
    assert _files(repo) == _files(twin)


def _takes_json(words: tuple[str, ...]) -> bool:
    line = next(line for line in LINES if line.words == words)
    return any("--json" in p.flags for p in line.params)


def _named(output: str, root: Path) -> str:
    """The output with the repo's own name taken out (found above, a report names its path; in
    it, ".")."""
    named = output.replace(str(root.resolve()), "<repo>").replace(str(root), "<repo>")
    return named.replace('"repo": "."', '"repo": "<repo>"')


def _files(root: Path) -> dict[str, bytes]:
    return {
        rel: data.replace(str(root).encode(), b"<repo>")
        for rel, data in tree(root).items()
        if not rel.startswith(".agent-memory.lock")
    }


def test_enable_without_path_targets_the_work_tree_top(tmp_path: Path) -> None:
    root = git_init(tmp_path / "repo")
    (root / "src").mkdir()
    result = run_console("enable", "--today", TODAY, cwd=root / "src")
    assert result.returncode == 0, result.stderr
    assert (root / "memory/continuity.md").is_file()
    assert not (root / "src/memory").exists()


def test_enable_inside_an_enabled_repo_is_refused_in_one_line(repo: Path) -> None:
    before, config = tree(repo), _config(repo)
    result = run_console("enable", "src", "--today", TODAY, cwd=repo)
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        f"agent-memory: src: is inside the agent-memory repo {repo.resolve()}; a repo has one "
        f"memory: run `agent-memory enable {repo.resolve()}` (or enable from there without PATH)"
    ]
    assert tree(repo) == before
    assert _config(repo) == config


def test_enable_in_git_s_own_folder_is_refused_in_one_line(tmp_path: Path) -> None:
    # A bare repository (a server's, a mirror) and a work tree's .git hold no checked-out files:
    # a memory written there is git's internals, never a file of the project.
    bare = tmp_path / "bare.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    work = git_init(tmp_path / "work")
    for cwd, args, shown in (
        (bare, [], "."),
        (bare / "refs", [], "."),
        (tmp_path, ["bare.git"], "bare.git"),
        (work, [".git"], ".git"),
        (work, [".git/hooks"], ".git/hooks"),
    ):
        before = tree(tmp_path)
        result = run_console("enable", *args, "--today", TODAY, cwd=cwd)
        assert result.returncode == 1, (cwd, args)
        assert result.stderr.splitlines() == [
            f"agent-memory: {shown}: is in git's own folder, where no file of the project is "
            "checked out; run enable in the repository's work tree (a clone with its files)"
        ]
        assert tree(tmp_path) == before


def _config(root: Path) -> str:
    listed = ["git", "-C", str(root), "config", "--local", "--list"]
    return subprocess.run(listed, capture_output=True, text=True, check=True).stdout


def test_enable_without_path_in_a_subdirectory_of_an_enabled_repo_upgrades_it(
    repo: Path,
) -> None:
    result = run_console("enable", "--today", TODAY, "--check", cwd=repo / "src/deep")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"agent-memory {VERSION}: {repo.resolve()} is up to date")
    assert not (repo / "src/deep/memory").exists()


def test_outside_any_repo_the_error_names_what_was_searched(tmp_path: Path) -> None:
    top = git_init(tmp_path / "plain")
    (top / "a/b").mkdir(parents=True)
    result = run_console("status", cwd=top / "a/b")
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        f"agent-memory: .: not an agent-memory repo (looked for memory/continuity.md or "
        f".agent/version.md here and in every folder above up to {top.resolve()} (the git work "
        "tree's top)); run agent-memory enable first"
    ]


def test_discovery_never_goes_above_the_git_work_tree(tmp_path: Path) -> None:
    """An enabled repo holding a nested git repo (a submodule, a vendored project): commands in
    the nested one do not work on the outer memory."""
    outer = tmp_path / "outer"
    shutil.copytree(EXAMPLE, outer)
    git_init(outer)
    inner = git_init(outer / "vendor/lib")
    before = tree(outer)
    result = run_console("fact", "add", "Not for the outer memory", cwd=inner)
    assert result.returncode == 1 and "not an agent-memory repo" in result.stderr
    assert tree(outer) == before


def test_the_mcp_tools_work_on_the_repo_the_server_found(repo: Path) -> None:
    from agent_memory.cli.mcp.tools import McpSession, call
    from agent_memory.commands.runner import Needs, open_repo

    found = open_repo(Needs.REPO, repo / "src/deep")
    done = call(McpSession(found.root), "memory_status", {})
    assert done.result is not None, done.err
    assert done.result.report.summary["facts"] > 0


WRITING = [
    line.words
    for line in LINES
    if line.command.journal is Journal.WRITES and any("--dry-run" in p.flags for p in line.params)
]


@pytest.mark.parametrize("words", WRITING, ids=" ".join)
@pytest.mark.parametrize("flag", ["--dry-run", "--check"])
def test_a_dry_run_with_a_leftover_journal_writes_and_deletes_nothing(
    repo: Path, words: tuple[str, ...], flag: str
) -> None:
    build_tree(repo, {".agent-memory.journal/journal": "agent-memory journal 1 crc32:00\n"})
    before = tree(repo)
    result = cli(*_argv(words), repo, flag, "--json")
    assert result.exit_code == 1, result.output
    assert json.loads(result.stdout)["findings"][0]["path"] == ".agent-memory.journal"
    assert tree(repo) == before
    assert not (repo / ".agent-memory.lock").exists()


@pytest.mark.parametrize(
    "words",
    [line.words for line in LINES if line.command.journal is Journal.READS],
    ids=" ".join,
)
def test_a_read_only_command_with_a_leftover_journal_writes_and_deletes_nothing(
    repo: Path, words: tuple[str, ...]
) -> None:
    build_tree(repo, {".agent-memory.journal/journal": "agent-memory journal 1 crc32:00\n"})
    before = tree(repo)
    result = cli(*_argv(words), repo)
    assert result.exit_code == 1, result.output
    assert ".agent-memory.journal" in result.stderr
    assert tree(repo) == before


def test_only_the_runner_catches_the_error_base() -> None:
    """The command lines and the MCP server print what the runner answers; none of them catches
    AgentMemoryError itself, and the runner catches it once."""
    package = PROJECT / "installer/agent_memory"
    fronts = list((package / "cli").rglob("*.py"))
    catches = {}
    for path in [*fronts, package / "commands/runner.py"]:
        for node in ast.walk(ast.parse(path.read_text())):
            caught = isinstance(node, ast.ExceptHandler) and node.type is not None
            if caught and "AgentMemoryError" in ast.unparse(node.type):  # type: ignore[union-attr]
                catches[path.name] = catches.get(path.name, 0) + 1
    assert catches == {"runner.py": 1}


@pytest.fixture
def swift(tmp_path: Path) -> Path:
    """A Swift package's layout (issue 39, item 3): a fact scoped to Sources/Core, another to
    Sources/UI, committed, and a change outside both."""
    root = git_init(tmp_path / "swift")
    files = {"Sources/Core/File.swift": "struct A {}\n", "Sources/UI/View.swift": "struct V {}\n"}
    build_tree(root, {**files, "README.md": "# Widgets\n"})
    assert cli("enable", root, "--today", TODAY).exit_code == 0
    core = ["Core types are value types", root, "--paths", "Sources/Core/**", "--today", TODAY]
    assert cli("fact", "add", *core).exit_code == 0
    ui = ["UI views use SwiftUI only", root, "--paths", "Sources/UI/**", "--today", TODAY]
    assert cli("fact", "add", *ui).exit_code == 0
    commit = ["-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qm", "i"]
    for args in (["add", "-A"], commit):
        subprocess.run(["git", "-C", str(root), *args], check=True)
    (root / "README.md").write_text("# Widgets, changed\n")
    return root


def test_paths_on_the_command_line_are_read_from_where_the_user_stands(swift: Path) -> None:
    """As in git: from Sources/Core, File.swift is Sources/Core/File.swift."""
    here = swift / "Sources/Core"
    shown = run_console("context", "--paths", "File.swift", cwd=here)
    assert shown.returncode == 0 and "Core types are value types" in shown.stdout
    assert "SwiftUI" not in shown.stdout  # scoped elsewhere: the path still ranks
    at_top = run_console("context", "--paths", "Sources/Core/File.swift", cwd=swift)
    assert at_top.stdout == shown.stdout


def test_a_printed_path_works_from_where_the_user_stands(swift: Path, tmp_path: Path) -> None:
    here = swift / "Sources/Core"
    made = run_console("session", "new", "--now", "2026-05-10T10:00:00", cwd=here)
    assert made.returncode == 0 and made.stdout == "../../memory/sessions/2026-05-10-100000.md\n"
    assert (here / made.stdout.strip()).is_file()
    named = run_console("session", "new", "swift", "--now", "2026-05-10T11:00:00", cwd=tmp_path)
    assert named.stdout == "swift/memory/sessions/2026-05-10-110000.md\n"
    away = tmp_path / "away"
    away.mkdir()
    far = run_console("session", "new", swift, "--now", "2026-05-10T12:00:00", cwd=away)
    assert Path(far.stdout.strip()).is_absolute() and Path(far.stdout.strip()).is_file()


def test_a_hook_started_in_a_subdirectory_counts_it_as_touched(swift: Path) -> None:
    """The session's cwd, Sources/Core, is a path it touches: its scoped fact is shown, though
    git's only change is README.md."""
    here = swift / "Sources/Core"
    payload = json.dumps({"cwd": str(here), "hook_event_name": "SessionStart", "session_id": "s"})
    done = subprocess.run(
        [sys.executable, "-m", "agent_memory", "hook", "session-start"],
        input=payload, cwd=here, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert "Core types are value types" in answer["hookSpecificOutput"]["additionalContext"]
