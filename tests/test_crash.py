"""Crashes and concurrent runs: a killed run leaves the repo before or after, never between.

The crash matrix kills real runs (forked processes running the real CLI) at every durable step
of their plan and at seeded random moments, then runs another command and checks the tree.
"""

from __future__ import annotations

import random
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from agent_memory.layout import JOURNAL_DIR, LOCK_FILE
from agent_memory.resources import version
from agent_memory.shell import journal_format
from conftest import PROJECT, build_tree, cli, git_init, run_forked, tree

pytestmark = pytest.mark.slow

EXAMPLES = PROJECT / "examples"
LEFTOVERS = re.compile(r"\.agent-memory(-tmp|\.lock|\.journal)")


Scenario = tuple[str, Callable[[Path], None], list[str]]


def _copy(example: str) -> Callable[[Path], None]:
    def make(repo: Path) -> None:
        shutil.copytree(EXAMPLES / example, repo)

    return make


def _empty(repo: Path) -> None:
    repo.mkdir()


def _disabled(repo: Path) -> None:
    shutil.copytree(EXAMPLES / "legacy-2x-repo/after", repo)
    assert cli("disable", repo, "--today", "2026-05-07").exit_code == 0


def _git(*commands: str) -> Callable[[Path], None]:
    """A git repo that ran ``commands`` (enable, disable): made once beside the first repo
    asked for, then copied, .git and all."""

    def make(repo: Path) -> None:
        template = repo.parent / f"template-{'-'.join(commands)}"
        if not template.exists():
            git_init(template)
            for command in commands:
                flags = ["--vendor", "none"] if command == "enable" else []
                assert cli(command, template, *flags, "--today", "2026-05-07").exit_code == 0
        shutil.copytree(template, repo, symlinks=True)

    return make


def _state(repo: Path) -> dict[str, bytes]:
    """The tree and, in a git repo, the merge driver's git config: a run that sets or unsets it
    ends with that step, and a kill just before it must leave the two in line after recover."""
    state = tree(repo)
    if (repo / ".git").is_dir():
        config = subprocess.run(
            ["git", "config", "--local", "--get", "merge.agent-memory.driver"],
            cwd=repo,
            capture_output=True,
            check=False,
        )
        state["<git config: merge.agent-memory.driver>"] = config.stdout
    return state


SCENARIOS: list[Scenario] = [
    ("enable-mode-a", _empty, ["enable", "--today", "2026-06-13"]),
    ("enable-mode-b-upgrade", _copy("legacy-2x-repo/before"), ["enable", "--today", "2026-06-13"]),
    ("enable-mode-c", _copy("vendor-repo/before"), ["enable", "--today", "2026-06-13"]),
    ("review", _copy("evolving-memory-example/before"), ["review", "--today", "2026-05-08"]),
    (
        "review-full",
        _copy("evolving-memory-example/before"),
        ["review", "--full", "--today", "2026-05-08"],
    ),
    ("enable-restore", _disabled, ["enable", "--today", "2026-05-08"]),
    (
        "disable-remove-memory",
        _copy("legacy-2x-repo/after"),
        ["disable", "--remove-memory", "--today", "2026-05-08"],
    ),
    ("disable-git-config", _git("enable"), ["disable", "--today", "2026-05-08"]),
    ("enable-restore-git-config", _git("enable", "disable"), ["enable", "--today", "2026-05-08"]),
]


def _states(
    tmp: Path, make: Callable[[Path], None], args: list[str]
) -> tuple[dict[str, bytes], dict[str, bytes], float]:
    """The tree before and after a clean run, and how long a warm run takes: the faster of two
    (the first pays for cold caches, and random moments past the end of a run kill nothing)."""
    durations, states = [], []
    for n in range(2):
        clean = tmp / f"clean-{n}"
        make(clean)
        before = _state(clean)
        started = time.perf_counter()
        assert run_forked([*args[:1], str(clean), *args[1:]], {}) == 0
        durations.append(time.perf_counter() - started)
        states.append(_state(clean))
    assert states[0] == states[1]
    return before, states[0], min(durations)


@pytest.mark.parametrize(("name", "make", "args"), SCENARIOS, ids=[s[0] for s in SCENARIOS])
def test_killed_at_every_step_and_at_random_moments(
    tmp_path: Path, name: str, make: Callable[[Path], None], args: list[str]
) -> None:
    before, after, duration = _states(tmp_path, make, args)
    assert before != after
    rng = random.Random(f"crash-matrix-{name}")
    kills = 0
    moments: list[tuple[str, float]] = []
    step = 1
    while True:  # every durable step, until a run gets through without being stopped
        moments.append(("step", step))
        step += 1
        if step > 400:  # pragma: no cover - a plan that never ends
            raise AssertionError("too many steps")
        repo = tmp_path / f"probe-{step}"
        make(repo)
        code = run_forked(
            [*args[:1], str(repo), *args[1:]], {"AGENT_MEMORY_FAULT_AT_STEP": str(step - 1)}
        )
        shutil.rmtree(repo)
        if code == 0:
            moments.pop()
            break
    index = 0

    def attempt(kind: str, value: float) -> None:
        nonlocal kills, index
        index += 1
        repo = tmp_path / f"run-{index}"
        make(repo)
        env = {"AGENT_MEMORY_FAULT_AT_STEP": str(int(value))} if kind == "step" else {}
        code = run_forked([*args[:1], str(repo), *args[1:]], env, None if kind == "step" else value)
        kills += code == -9
        # A read-only command refuses a half-written tree; recover (which every writing command
        # does first) restores a consistent state.
        if (repo / JOURNAL_DIR).exists():
            refused = cli("status", repo)
            assert refused.exit_code == 1 and "agent-memory recover" in refused.output
        # Killed while starting git, a run leaves a child that shares the lock's open file for
        # the moment before it execs: the lock is live until then, and recover leaves it alone
        # or, with a journal to roll back, names the holder (a live run, as far as it can tell).
        for _ in range(100):
            follow = cli("recover", repo)
            assert "Traceback" not in follow.output
            assert follow.exit_code == 0 or "another agent-memory run" in follow.output
            if follow.exit_code == 0 and not (repo / LOCK_FILE).exists():
                break
            time.sleep(0.01)
        else:
            pytest.fail(f"{name}: {kind} {value}: the lock is still held after a second")
        assert cli("recover", repo).exit_code == 0  # the lock is free: the git config follows
        state = _state(repo)
        stamped = re.search(rb"version:\s+(\S+)", state.get(".agent/version.md", b""))
        between_rungs = stamped is not None and stamped.group(1).decode() != version()
        if state not in (before, after) and name == "enable-mode-b-upgrade" and between_rungs:
            # Killed between two rungs (2.x → 3.0.0 → 5.0.0 → …): the stamp says where it stopped,
            # and the next run resumes there and ends where a clean run does.
            assert cli(*args[:1], repo, *args[1:]).exit_code == 0
            state = _state(repo)
        assert state in (before, after), (
            f"{name}: {kind} {value}: tree is neither before nor after; differs from after in "
            f"{sorted(p for p in {*state, *after} if state.get(p) != after.get(p))}"
        )
        assert not any(LEFTOVERS.search(path) for path in state), state.keys()
        shutil.rmtree(repo)

    for kind, value in moments:
        attempt(kind, value)
    tries = 0
    while kills < 48 and tries < 400:  # then seeded random moments, until 48 runs were killed
        tries += 1
        attempt("time", rng.uniform(0.0, duration))
    print(f"{name}: {kills} kills, {len(moments)} at steps, {tries} at random moments")
    assert kills >= 48, kills  # nine scenarios: at least 432 kills in all


def _continuity(facts: int, uses: int, added: str) -> bytes:
    body = "".join(
        f"- Fact {i}\n  <!-- id: fact-{i} | created: 2026-01-01 | last_used: 2026-01-02 | "
        f"uses: {uses + i % 3} | tier: active -->\n"
        for i in range(facts)
    )
    extra = f"- {added}\n  <!-- id: {added} | created: 2026-01-03 | uses: 1 | tier: working -->\n"
    return f"# Continuity\n\n## Key Decisions\n{body}{extra if added else ''}".encode()


def test_merge_file_killed_at_random_moments_leaves_ours_whole(tmp_path: Path) -> None:
    """git takes what the driver left in %A as the merge: killed at any moment, OURS is as it
    was or merged, never cut; only a temp file of ours (git-ignored) may stay beside it."""
    sides = {"o": _continuity(1500, 1, ""), "a": _continuity(1500, 2, "ours"), "b": b""}
    sides["b"] = _continuity(1500, 1, "theirs")

    def args(folder: Path) -> list[str]:
        return ["merge-file", *(str(folder / name) for name in "oab"), "memory/continuity.md"]

    clean = build_tree(tmp_path / "clean", sides)
    started = time.perf_counter()
    assert run_forked(args(clean), {}) == 0
    duration, merged = time.perf_counter() - started, (clean / "a").read_bytes()
    assert merged not in (sides["a"], b"")
    rng, kills, tries = random.Random("crash-matrix-merge-file"), 0, 0
    while kills < 48 and tries < 400:
        tries += 1
        run = build_tree(tmp_path / f"run-{tries}", sides)
        kills += run_forked(args(run), {}, rng.uniform(0.0, duration)) == -9
        state = tree(run)
        temps = [p for p in state if re.fullmatch(r"\.a\.[a-z0-9_]{8}\.agent-memory-tmp", p)]
        assert {p: state[p] for p in state if p not in temps} in ({**sides}, {**sides, "a": merged})
        shutil.rmtree(run)
    print(f"merge-file: {kills} kills in {tries} runs")
    assert kills >= 48, kills


def _at_once(repo: Path, *flags: str) -> list[tuple[int, str, str]]:
    """Four reviews of one repo started together: (exit code, stdout, stderr) of each."""
    command = [sys.executable, "-m", "agent_memory", "review", str(repo), "--today", "2026-05-08"]
    procs = [
        subprocess.Popen(
            [*command, *flags], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for _ in range(4)
    ]
    return [(p.wait(), *p.communicate()) for p in procs]


def test_four_runs_at_once_one_applies_and_the_others_name_the_holder(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLES / "evolving-memory-example/before", repo)
    # Enough logs that runs overlap: the review reads all of them in --full.
    logs = {
        f"memory/sessions/2026-05-0{d}-{n:06d}.md": "## Memory References\n- Referenced: none\n"
        for d in range(1, 8)
        for n in range(400)
    }
    build_tree(repo, logs)
    clean = tmp_path / "clean"
    shutil.copytree(repo, clean)
    assert cli("review", clean, "--full", "--today", "2026-05-08").exit_code == 0
    results = _at_once(repo, "--full", "--json")
    changed = [out for code, out, _ in results if code == 0 and '"outcome": "changed"' in out]
    locked = [err for code, _, err in results if code == 1]
    assert len(changed) == 1, results
    for err in locked:
        assert re.search(r"another agent-memory run \(pid \d+ on .+\) is working", err), err
    assert all(code in (0, 1) for code, _, _ in results)
    assert tree(repo) == tree(clean)


def test_wait_lets_concurrent_runs_take_turns(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLES / "evolving-memory-example/before", repo)
    clean = tmp_path / "clean"
    shutil.copytree(repo, clean)
    cli("review", clean, "--today", "2026-05-08")
    assert [code for code, _, _ in _at_once(repo, "--wait", "60")] == [0, 0, 0, 0]
    assert tree(repo) == tree(clean)


def _tamper(repo: Path, outside: Path, how: str) -> None:
    entries = repo / JOURNAL_DIR / "entries"
    data = entries.read_bytes()
    if how == "flip":
        entries.write_bytes(data[:-1] + bytes([data[-1] ^ 1]))
    elif how == "truncate":
        entries.write_bytes(data[: len(data) // 2])
    elif how == "re-signed-outside":  # a forger recomputes the checksum: paths are checked too
        loaded, originals = journal_format.load(data)
        forged = [loaded[0]._replace(path=f"../{outside.name}/sentinel"), *loaded[1:]]
        entries.write_bytes(journal_format.dump(forged, originals))
    else:  # "symlinked": the journal folder swapped for a link to a copy elsewhere
        shutil.move(str(repo / JOURNAL_DIR), str(outside / "journal"))
        (repo / JOURNAL_DIR).symlink_to(outside / "journal", target_is_directory=True)


@pytest.mark.parametrize("how", ["flip", "truncate", "re-signed-outside", "symlinked"])
def test_a_killed_runs_journal_tampered_with_afterwards_is_refused_never_applied(
    tmp_path: Path, how: str
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "sentinel").write_text("outside the repo\n")
    for step in (2, 3):  # killed after the journal's commit, after the first file replaced
        repo = tmp_path / f"repo-{step}"
        _copy("evolving-memory-example/before")(repo)
        args = ["review", str(repo), "--today", "2026-05-08"]
        assert run_forked(args, {"AGENT_MEMORY_FAULT_AT_STEP": str(step)}) == -9
        _tamper(repo, outside, how)
        (repo / LOCK_FILE).unlink()  # a dead run's lock, which any writing run clears
        interrupted, outside_before = tree(repo), tree(outside)
        for command in (["recover"], ["review", "--today", "2026-05-08"], ["status"]):
            result = cli(command[0], repo, *command[1:])
            assert result.exit_code == 1 and "Traceback" not in result.output
            assert re.search(r"^agent-memory: \.agent-memory\.journal: ", result.output, re.M)
        assert tree(repo) == interrupted and tree(outside) == outside_before
