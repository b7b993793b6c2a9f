"""The derived store in .git/agent-memory: a cache that changes no output, whatever it holds."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from agent_memory.shell.store import NAME
from conftest import build_tree, git_init

FOOT = "<!-- id: {0} | created: 2026-01-01 | last_used: 2026-01-0{1} | uses: 1 | tier: {2} -->"


def _archive(n: int, word: str) -> str:
    items = "".join(
        f"- Fact {i} about {word} {i % 5}\n  {FOOT.format(f'a-{i}', 1 + i % 9, 'archived')}\n"
        for i in range(n)
    )
    return f"# Archive\n\n## Facts\n{items}"


def _repo(tmp_path: Path) -> Path:
    root = build_tree(
        tmp_path / "r",
        {
            "memory/continuity.md": "# Continuity\n\n## Key Decisions\n\n"
            f"- Cats live in the shed\n  {FOOT.format('shed', 2, 'active')}\n",
            "memory/archive/2026-Q1.md": _archive(40, "cats"),
        },
    )
    return git_init(root)


def _run(root: Path, *args: str, stdin: str | None = None) -> tuple[int, str, str]:
    done = subprocess.run(
        [sys.executable, "-m", "agent_memory", *args],
        cwd=root,
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
    )
    return done.returncode, done.stdout, done.stderr


def _answers(root: Path) -> list[tuple[int, str, str]]:
    """What recall and the prompt hook say of a few queries."""
    found = [_run(root, "recall", query, ".") for query in ("cats 3", "shed", "cats", "dogs")]
    payload = {"cwd": str(root), "session_id": "s", "hook_event_name": "UserPromptSubmit"}
    for prompt in ("fact 17 about cats", "what about the cats"):
        found.append(_run(root, "hook", "prompt", stdin=json.dumps({**payload, "prompt": prompt})))
    return found


def _without_store(root: Path) -> list[tuple[int, str, str]]:
    """The answers of a repo that keeps no store: its folder is a file."""
    store = root / NAME
    shutil.rmtree(store.parent, ignore_errors=True)
    store.parent.write_text("not a folder\n")
    try:
        return _answers(root)
    finally:
        store.parent.unlink()


def test_the_store_answers_as_the_files_through_edits(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    first = _answers(root)
    assert (root / NAME).is_file()
    assert first[0][0] == 0 and "a-3  [archived]" in first[0][1]
    assert _answers(root) == first == _without_store(root)
    archive = root / "memory/archive/2026-Q1.md"
    archive.write_text(_archive(41, "dogs"))  # a review rewrote it: its rows are made again
    after = _answers(root)
    assert after != first and after[3][0] == 0
    assert after == _answers(root) == _without_store(root)


def _planted(sql: str) -> Callable[[Path], None]:
    def plant(store: Path) -> None:
        store.unlink()
        with sqlite3.connect(store) as db:
            db.executescript(sql)

    return plant


def _lying(sql: str) -> Callable[[Path], None]:
    def lie(store: Path) -> None:
        with sqlite3.connect(store) as db:
            db.execute("PRAGMA trusted_schema = OFF")
            db.execute(sql)

    return lie


def _locked(store: Path) -> None:
    """Left to the test: a concurrent run writing."""


BROKEN: dict[str, Callable[[Path], None]] = {
    "deleted": lambda store: store.unlink(),
    "truncated": lambda store: os.truncate(store, 1000),
    "emptied": lambda store: os.truncate(store, 0),
    "garbage": lambda store: store.write_bytes(b"\x00garbage" * 999),
    "another database": _planted("CREATE TABLE files (x); INSERT INTO files VALUES (1);"),
    "a trigger": _lying("CREATE TRIGGER t AFTER INSERT ON files BEGIN DELETE FROM facts; END"),
    "a view": _lying("CREATE VIEW v AS SELECT * FROM facts"),
    "another schema version": _lying("PRAGMA user_version = 99"),
    "another tool version": _lying("UPDATE meta SET value = '0.0.1'"),
    # The attack of a planted index: a matching fact's row names the lines of another fact,
    # another id, or a tier its file does not give it
    "a row at another fact": _lying(
        "UPDATE facts SET place = (SELECT place FROM facts WHERE name = 'a-30') WHERE name = 'a-17'"
    ),
    "a row past the file": _lying("UPDATE facts SET place = '[[], 2, 900, 901]'"),
    "a link": lambda store: (store.unlink(), store.symlink_to(store.parent / "elsewhere")),
    "a fifo": lambda store: (store.unlink(), os.mkfifo(store)),
    "locked": _locked,
}


@pytest.mark.parametrize("how", sorted(BROKEN))
def test_a_store_in_any_state_changes_no_output(tmp_path: Path, how: str) -> None:
    root = _repo(tmp_path)
    expected = _answers(root)
    store = root / NAME
    BROKEN[how](store)
    if how == "locked":
        db = sqlite3.connect(store, isolation_level=None)
        db.execute("BEGIN EXCLUSIVE")
        try:
            assert _answers(root) == expected
        finally:
            db.execute("ROLLBACK")
            db.close()
        return
    assert _answers(root) == expected
    assert _answers(root) == expected  # and again, from what the first run left


def test_a_read_only_git_folder_changes_no_output(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    expected = _without_store(root)
    (root / ".git").chmod(0o500)
    try:
        assert _answers(root) == expected
        assert not (root / NAME).parent.exists() or os.geteuid() == 0
    finally:
        (root / ".git").chmod(0o700)


def test_a_worktree_keeps_no_store(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    expected = _without_store(root)
    (root / ".git").rename(tmp_path / "git")
    (root / ".git").write_text(f"gitdir: {tmp_path / 'git'}\n")
    assert _answers(root) == expected
    assert not (tmp_path / "git/agent-memory").exists()


def test_a_planted_store_ranks_but_never_shows_words_of_its_own(tmp_path: Path) -> None:
    """A row's id, use and tier rank a fact (a planted store may move which facts come first),
    but what is shown of a hit is read from the file's lines by the reader."""
    root = _repo(tmp_path)
    everything = _run(root, "recall", "cats", ".", "--limit", "100")[1].splitlines()
    _lying("UPDATE facts SET name = 'made-up', tier = 'core', used = 99999999")(root / NAME)
    for code, out, _ in _answers(root):
        assert code in (0, 1)
        assert set(out.splitlines()) <= {*everything, *(f"no fact matches {q!r}" for q in ["dogs"])}
