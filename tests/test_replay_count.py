"""Replay's headline against an independent count: a real history in git, each session log
committed after a review, and for each log `agent-memory context` run on a checkout of the
commit before it. Replay's view of each state is that output byte for byte, and its count of
the uses in full is the count of the used ids the printed context shows in full."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_memory.commands.replay import replayed
from agent_memory.commands.settle import memory_of
from agent_memory.core.agents.context import View
from agent_memory.core.replay.history import latest_logs
from agent_memory.parse.rawlog import Commit
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
    views: dict[int, View] = {}
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
        assert printed.stdout.rstrip("\n") == views[index].text.rstrip("\n")
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


_HOSTILE = {  # a memory file of a commit, as no reader takes it
    "continuity.md, not UTF-8": ("memory/continuity.md", b"\xff\xfe not UTF-8\n"),
    "continuity.md, a link": ("memory/continuity.md", None),
    "a quarter the log names, not UTF-8": (
        "memory/archive/2025-Q4.md",
        b"# Archive\n\n## Key Decisions\n- \xff <!-- id: gone | tier: archived -->\n",
    ),
    "vision.md, a link": ("memory/vision.md", None),
    "a thread, a link": ("memory/open-threads/t.md", None),
}


@pytest.mark.parametrize("broken", sorted(_HOSTILE))
def test_a_hostile_memory_in_history_is_projected_not_read(tmp_path: Path, broken: str) -> None:
    """A commit holding a memory file that the work tree's reader would read and no reader
    takes (bytes that are not UTF-8, a link) gives the session after it no state from git: it
    is projected, the replay answers, exit 0."""
    root = tmp_path / "repo"
    git_init(root)
    _git(root, "config", "user.email", "t@example.com")
    _git(root, "config", "user.name", "t")
    assert cli("enable", root, "--today", "2026-01-01").exit_code == 0
    path, data = _HOSTILE[broken]
    where = root / path
    where.parent.mkdir(exist_ok=True)
    kept = where.read_bytes() if where.exists() else None
    logs = root / "memory/sessions"
    for n in range(2):
        where.unlink(missing_ok=True)
        if n == 1 and kept is not None:
            where.write_bytes(kept)
        elif n == 0 and data is None:
            where.symlink_to("/etc/passwd")
        elif n == 0:
            where.write_bytes(data)
        _git(root, "add", "-A")
        _git(root, "commit", "-qm", f"memory {n}")
        (logs / f"2026-01-0{n + 2}-100000.md").write_text(
            "# S\n\n## Memory References\n- Referenced: gone\n"
        )
        _git(root, "add", "-A")
        _git(root, "commit", "-qm", f"log {n}")
    done = cli("replay", root, "--json")
    assert done.exit_code == 0, done.output
    assert json.loads(done.output)["summary"]["logs_found_in_git"] == 1  # the last one only


def _logged(tmp_path: Path, names: int = 2) -> Path:
    """An enabled repo in git, then ``names`` logs, each committed on its own."""
    root = tmp_path / "repo"
    git_init(root)
    _git(root, "config", "user.email", "t@example.com")
    _git(root, "config", "user.name", "t")
    assert cli("enable", root, "--today", "2026-01-01").exit_code == 0
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "enable")
    for n in range(names):
        (root / f"memory/sessions/2026-01-0{n + 2}-100000.md").write_text(f"# S {n}\n")
        _git(root, "add", "-A")
        _git(root, "commit", "-qm", f"log {n}")
    return root


def _found_in_git(root: Path) -> int:
    done = cli("replay", root, "--json")
    assert done.exit_code == 0, done.output
    return int(json.loads(done.output)["summary"]["logs_found_in_git"])


def test_a_log_added_beside_one_removed_is_added_whatever_git_is_configured_to_see(
    tmp_path: Path,
) -> None:
    """Renames are not looked for: a log removed and another of the same text added in one
    commit is that commit's new log, with diff.renames on or off."""
    root = _logged(tmp_path, 1)
    (root / "memory/sessions/2026-01-02-100000.md").rename(
        root / "memory/sessions/2026-01-03-100000.md"
    )
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "one log for another")
    for renames in ("true", "false", "copies"):
        _git(root, "config", "diff.renames", renames)
        assert _found_in_git(root) == 1  # the log now in the tree, from the commit that added it


def test_signatures_shown_by_git_s_configuration_are_not_read_as_commits(tmp_path: Path) -> None:
    """log.showSignature puts a verdict line before each signed commit's fields: the commits
    and their parents are still read."""
    key = tmp_path / "key"
    made = subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], capture_output=True
    )
    if made.returncode != 0:
        pytest.skip(f"ssh-keygen could not make a key: {made.stderr.decode()}")
    signers = tmp_path / "allowed"
    signers.write_text(f"t@example.com {key.with_suffix('.pub').read_text()}")
    root = tmp_path / "repo"
    git_init(root)
    for name, value in (
        ("user.email", "t@example.com"), ("user.name", "t"), ("gpg.format", "ssh"),
        ("user.signingkey", str(key)), ("commit.gpgsign", "true"),
        ("gpg.ssh.allowedSignersFile", str(signers)),
    ):  # fmt: skip
        _git(root, "config", name, value)
    assert cli("enable", root, "--today", "2026-01-01").exit_code == 0
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "enable")
    for n in range(2):
        (root / f"memory/sessions/2026-01-0{n + 2}-100000.md").write_text(f"# S {n}\n")
        _git(root, "add", "-A")
        _git(root, "commit", "-qm", f"log {n}")
    _git(root, "config", "log.showSignature", "true")
    assert "Good" in _git(root, "log", "-1")  # git shows the signature, as configured
    assert _found_in_git(root) == 2


def test_a_partial_clone_s_history_is_not_read(tmp_path: Path) -> None:
    """A clone without blobs would fetch each one it lacks: its logs are projected, and no
    object comes in."""
    source = _logged(tmp_path, 2)
    _git(source, "config", "uploadpack.allowFilter", "true")
    clone = tmp_path / "clone"
    clone_args = ["clone", "-q", "--filter=blob:none", "--no-checkout", f"file://{source}"]
    subprocess.run(["git", *clone_args, str(clone)], check=True, capture_output=True)
    _git(clone, "checkout", "-q", "HEAD")  # the work tree's blobs alone come in
    objects = _git(clone, "count-objects", "-v")
    assert _found_in_git(clone) == 0
    assert _git(clone, "count-objects", "-v") == objects


def test_a_log_a_merge_brings_or_adds_counts_on_its_first_parent(tmp_path: Path) -> None:
    """A log made on a branch counts on the state before it there; one a merge commit itself
    adds, on the merge's first parent."""
    root = _logged(tmp_path, 1)
    _git(root, "checkout", "-qb", "side")
    (root / "memory/sessions/2026-01-05-100000.md").write_text("# side\n")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "side's log")
    _git(root, "checkout", "-q", "-")
    (root / "notes.txt").write_text("main moved on\n")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "main")
    _git(root, "merge", "-q", "--no-commit", "--no-ff", "side")
    (root / "memory/sessions/2026-01-06-100000.md").write_text("# made in the merge\n")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "merge")
    assert _found_in_git(root) == 3


@st.composite
def _walks(
    draw: st.DrawFn,
) -> list[Commit]:
    """Commits each after its parents (any earlier commit, or none), each adding, changing or
    removing logs and strays against its first parent, as ``git log --raw`` gives them."""
    names = [f"2026-01-0{n}-100000.md" for n in range(1, 6)] + ["README.md", ".gitkeep"]
    walk: list[Commit] = []
    files: dict[str, dict[str, str]] = {}
    for n in range(draw(st.integers(1, 12))):
        parents = draw(st.lists(st.sampled_from(range(n)), max_size=2, unique=True)) if n else []
        held = dict(files[f"c{parents[0]}"]) if parents else {}
        changes = []
        for name in draw(st.lists(st.sampled_from(names), max_size=4, unique=True)):
            if name in held and draw(st.booleans()):
                changes.append((name, "000000", "0" * 40, "D"))
                del held[name]
            else:
                blob = draw(st.sampled_from(["a" * 40, "b" * 40]))
                changes.append((name, "100644", blob, "M" if name in held else "A"))
                held[name] = blob
        files[f"c{n}"] = held
        walk.append(Commit(f"c{n}", tuple(f"c{p}" for p in parents), tuple(changes)))
    return walk


@given(_walks(), st.integers(1, 4))
def test_the_latest_logs_of_a_commit_are_those_its_tree_holds(
    walk: list[Commit], count: int
) -> None:
    """Followed from commit to commit, the logs of each commit are those that replaying its own
    first-parent chain from nothing gives."""

    def tree(commit: str) -> dict[str, str]:
        _, parents, changes = next(c for c in walk if c[0] == commit)
        held = tree(parents[0]) if parents else {}
        for name, mode, blob, _ in changes:
            if mode == "000000":
                held.pop(name, None)
            else:
                held[name] = blob
        return held

    wanted = {c[0] for c in walk}
    found = latest_logs(walk, wanted, count)
    for commit in wanted:
        held = tree(commit)
        logs = sorted((n for n in held if n[0].isdigit()), reverse=True)[:count]
        assert found[commit] == tuple((n, "100644", held[n]) for n in logs)


def test_a_history_s_roots_are_read_whatever_git_is_configured_to_show(tmp_path: Path) -> None:
    """A log a root commit adds (here an unrelated history merged in) is that commit's, which
    has no state before it: projected, with log.showRoot on or off."""
    root = _logged(tmp_path, 2)
    branch = _git(root, "rev-parse", "--abbrev-ref", "HEAD").strip()
    _git(root, "checkout", "-q", "--orphan", "other")
    _git(root, "rm", "-rqf", ".")
    (root / "memory/sessions").mkdir(parents=True, exist_ok=True)
    (root / "memory/sessions/2026-01-01-090000.md").write_text("# elsewhere\n")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "another history")
    _git(root, "checkout", "-qf", branch)
    _git(root, "merge", "-q", "--allow-unrelated-histories", "-m", "join", "other")
    for shown in ("true", "false"):
        _git(root, "config", "log.showRoot", shown)
        assert _found_in_git(root) == 2


@pytest.mark.parametrize(
    ("key", "value"), [("log.follow", "true"), ("i18n.logOutputEncoding", "UTF-16")]
)
def test_the_walk_reads_every_commit_whatever_git_is_configured_to_follow_or_encode(
    tmp_path: Path, key: str, value: str
) -> None:
    """log.follow made git follow the sessions folder as one file, leaving out the commits that
    did not touch it; an output encoding of UTF-16 made every commit line unreadable. Either
    way the logs were projected, silently."""
    root = _logged(tmp_path, 2)
    (root / "README.md").write_text("a change elsewhere\n")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "unrelated")
    (root / "memory/sessions/2026-01-09-100000.md").write_text("# S after\n")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "a log after it")
    expected = _found_in_git(root)
    _git(root, "config", key, value)
    assert _found_in_git(root) == expected == 3


def test_a_file_name_of_any_bytes_is_read_as_a_name(tmp_path: Path) -> None:
    """git's raw lines are told from paths by where they stand, not by what a name holds."""
    root = _logged(tmp_path, 1)
    sessions = root / "memory/sessions"
    for n, stray in enumerate(("\x01odd", "zz\x01", ":100644 100644 x", "\n:000000")):
        (sessions / stray).write_text("not a log\n")
        (sessions / f"2026-01-1{n}-100000.md").write_text(f"# S {n}\n")
        _git(root, "add", "-A")
        _git(root, "commit", "-qm", f"log and stray {n}")
    assert _found_in_git(root) == 5


def test_without_git_to_ask_every_state_is_projected(tmp_path: Path) -> None:
    """A repo in git, replayed by a tool that cannot find git: the projection, exit 0."""
    root = _logged(tmp_path, 2)
    (tmp_path / "no-git").mkdir()
    done = run_console("replay", root, "--json", cwd=root, PATH=str(tmp_path / "no-git"))
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)["summary"]
    assert summary["logs_found_in_git"] == 0
    assert _found_in_git(root) == 2  # and with git, from git
