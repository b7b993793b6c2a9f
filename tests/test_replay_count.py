"""Replay's headline against an independent count: a real history in git, each session log
committed after a review, and for each log `agent-memory context` run on a checkout of the
commit before it. Replay's view of each state is that output byte for byte, and its count of
the uses in full is the count of the used ids the printed context shows in full."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from agent_memory.commands.replay import replayed
from agent_memory.commands.settle import memory_of
from agent_memory.core.replay.states import Seen
from agent_memory.parse.sessions import first_prompt, read_refs
from agent_memory.shell.repo import Repo
from conftest import cli, git_init, run_console

BUDGET = 1100
FACTS = (  # (id, text, section)
    ("outbox", "Outbox writes go through the relay " + "o" * 260, "Key Decisions"),
    ("retry", "Retries back off exponentially " + "r" * 120, "Key Decisions"),
    ("no-sync", "Never call the network from a hook " + "n" * 200, "Architectural Invariants"),
    ("cache-key", "The cache key holds the schema version " + "k" * 130, "Key Decisions"),
    ("proxy", "The proxy strips hop-by-hop headers " + "p" * 300, "Key Decisions"),
)
LOGS = (  # (day, ids used, the first prompt recorded, or none)
    ("2026-01-02", ("outbox",), None),
    ("2026-01-03", ("retry", "outbox"), "Make the retries back off"),
    ("2026-01-05", ("proxy",), None),
    ("2026-01-06", ("cache-key", "no-sync", "ghost"), "Bump the `cache-key` schema"),
    ("2026-01-08", ("outbox", "proxy"), None),
    ("2026-01-09", ("retry",), "retry retry"),
    ("2026-01-12", ("cache-key", "proxy", "outbox"), None),
    ("2026-01-13", ("no-sync", "retry"), None),
)


def _git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)
    return done.stdout.decode()


def _history(root: Path) -> list[tuple[str, str]]:
    """The repo's history: each log committed after a review on its day. Returns (the commit
    before the log's, the log's name) for each."""
    git_init(root)
    _git(root, "config", "user.email", "t@example.com")
    _git(root, "config", "user.name", "t")
    assert cli("enable", root, "--today", "2026-01-01").exit_code == 0
    for fact_id, text, section in FACTS:
        added = cli(
            "fact",
            "add",
            text,
            root,
            "--id",
            fact_id,
            "--section",
            section,
            "--today",
            "2026-01-01",
        )
        assert added.exit_code == 0, added.output
    before = []
    for n, (day, used, prompt) in enumerate(LOGS):
        assert cli("review", root, "--today", day).exit_code == 0
        _git(root, "add", "-A")
        _git(root, "commit", "-qm", f"review {n}", "--allow-empty")
        name = f"{day}-10000{n}.md"
        recorded = f"## First Prompt\n\n{prompt}\n\n" if prompt else ""
        (root / "memory/sessions" / name).write_text(
            f"# Session\n\n{recorded}## Memory References\n- Referenced: {', '.join(used)}\n"
        )
        before.append((_git(root, "rev-parse", "HEAD").strip(), name))
        _git(root, "add", "-A")
        _git(root, "commit", "-qm", f"log {n}")
    return before


def _in_full(text: str, fact_id: str) -> bool:
    """The printed context shows the fact's text: all of it (every first line here is longer
    than a one-line form keeps)."""
    return next(words for i, words, _ in FACTS if i == fact_id) in text


def test_replay_s_views_and_headline_are_what_context_prints_on_each_state(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    before = _history(root)
    views: dict[int, Seen] = {}
    repo = Repo(root)
    memory, _ = memory_of(repo)
    done = replayed(
        repo, memory, [memory.policy], (BUDGET,), watch=lambda i, s: views.update({i: s[0]})
    )
    headline = sum(1 for step in done.run().steps for _, o in step.uses if o == "shown")
    assert len(done.found) == len(LOGS)  # every log's start is in git
    # a review ran before each session here, so the rules' projection saw the same memory
    assert done.projected[0][0].steps == done.run().steps
    result = cli("replay", root, "--json", "--max-bytes", str(BUDGET))
    assert json.loads(result.output)["summary"]["totals"]["shown"] == headline

    state = tmp_path / "state"
    _git(tmp_path, "clone", "-q", str(root), str(state))
    counted = 0
    existing = 0
    for index, (commit, name) in enumerate(before):
        _git(state, "checkout", "-q", commit)
        log = (root / "memory/sessions" / name).read_text()
        task = first_prompt(log) or ""
        printed = run_console(
            "context", state, "--max-bytes", str(BUDGET), "--task", task, cwd=tmp_path
        )
        assert printed.returncode == 0, printed.stderr
        assert printed.stdout.rstrip("\n") == views[index].view.text.rstrip("\n")
        live = {f for f in read_refs(log.encode()).used if re.search(rf"`{f}`", printed.stdout)}
        existing += len(live)
        counted += sum(_in_full(printed.stdout, fact_id) for fact_id in live)
    assert headline == counted
    assert 0 < counted < existing  # the budget leaves some out: the count can tell


def test_a_start_is_counted_on_the_memory_it_found_not_on_today_s_text(tmp_path: Path) -> None:
    """A fact that grew past the budget since was shown in full to the sessions before; a log
    batched into one commit with the next, or not yet committed, is counted on what the commit
    before holds, or on the rules' projection."""
    root = tmp_path / "repo"
    git_init(root)
    _git(root, "config", "user.email", "t@example.com")
    _git(root, "config", "user.name", "t")
    assert cli("enable", root, "--today", "2026-01-01").exit_code == 0
    small = "The relay batches writes"
    added = cli("fact", "add", small, root, "--id", "relay", "--today", "2026-01-01")
    assert added.exit_code == 0, added.output

    def log(name: str) -> None:
        (root / "memory/sessions" / name).write_text("# S\n\n## Memory References\n- Used: relay\n")

    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "memory")
    log("2026-01-02-100000.md")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "log 1")
    grown = cli(
        "fact", "edit", "relay", small + " " + "and more " * 1500, root, "--today", "2026-01-03"
    )
    assert grown.exit_code == 0, grown.output
    log("2026-01-03-100000.md")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "grown, log 2")
    log("2026-01-04-100000.md")  # not committed
    summary = json.loads(cli("replay", root, "--json").output)["summary"]
    assert summary["logs_found_in_git"] == 2
    # log 1 found the small text (in full); log 2's commit holds its log and the grown fact,
    # but the commit before it the small one; log 3 is projected on today's text (too large)
    assert (summary["totals"]["shown"], summary["totals"]["uses"]) == (2, 3)


def test_a_hostile_memory_in_history_is_projected_not_read(tmp_path: Path) -> None:
    """A commit whose continuity.md no reader takes (bytes that are not UTF-8, a link) gives
    its sessions no state from git: they are projected, the replay answers, exit 0."""
    root = tmp_path / "repo"
    git_init(root)
    _git(root, "config", "user.email", "t@example.com")
    _git(root, "config", "user.name", "t")
    assert cli("enable", root, "--today", "2026-01-01").exit_code == 0
    continuity = root / "memory/continuity.md"
    good = continuity.read_bytes()
    logs = root / "memory/sessions"
    for n, bad in enumerate((b"\xff\xfe not UTF-8\n", None, good)):
        continuity.unlink()
        if bad is None:
            continuity.symlink_to("/etc/passwd")
        else:
            continuity.write_bytes(bad)
        _git(root, "add", "-A")
        _git(root, "commit", "-qm", f"memory {n}")
        (logs / f"2026-01-0{n + 2}-100000.md").write_text("# S\n")
        _git(root, "add", "-A")
        _git(root, "commit", "-qm", f"log {n}")
    done = cli("replay", root, "--json")
    assert done.exit_code == 0, done.output
    assert json.loads(done.output)["summary"]["logs_found_in_git"] == 1  # the last one only
