"""Scope globs (DECAY.md § Scopes) match in time linear in the path, whatever the glob holds, and
mean what the regular expression they replace meant."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_memory.parse import scopes
from conftest import cli, git_init

_GLOB = st.lists(st.sampled_from(["a", "b", ".", "/", "*", "?", "**", "**/"]), max_size=8)
_PATH = st.text(st.sampled_from("ab./"), max_size=10)


def _backtracking(glob: str) -> re.Pattern[str]:
    """The 5.1.0 translation, kept as the meaning the automaton must agree with."""
    parts = []
    for piece in re.split(r"(\*\*/?|\*|\?)", glob):
        if piece.startswith("**"):
            parts.append("(?:.*/)?" if piece == "**/" else ".*")
        elif piece == "*":
            parts.append("[^/]*")
        elif piece == "?":
            parts.append("[^/]")
        else:
            parts.append(re.escape(piece))
    return re.compile("".join(parts) + r"\Z", re.DOTALL)


@settings(max_examples=2000, deadline=None)
@given(_GLOB.map("".join), st.lists(_PATH, min_size=1, max_size=3))
def test_the_automaton_agrees_with_the_regular_expression(glob: str, paths: list[str]) -> None:
    expected = any(_backtracking(glob).match(path) for path in paths)
    assert scopes.matches([glob], paths) == expected


def test_ordinary_globs_keep_their_meaning() -> None:
    assert scopes.matches(["src/**"], ["src/a/b.py"])
    assert scopes.matches(["**/*.py"], ["a.py", "x"])
    assert scopes.matches(["**/*.py"], ["deep/er/a.py"])
    assert not scopes.matches(["*.py"], ["deep/a.py"])
    assert scopes.matches(["docs/?.md"], ["docs/a.md"])
    assert not scopes.matches(["docs/?.md"], ["docs//.md"])
    assert scopes.matches(["mkdocs.yml"], ["mkdocs.yml"])
    assert not scopes.matches(["**/x"], ["ax"])


def test_hostile_globs_match_long_paths_in_linear_time() -> None:
    deep = "/".join("abcdefghijkl") + ".py"
    started = time.process_time()
    assert not scopes.matches(["**/" * 24 + "x"], [deep, "a/" * 2000 + "y"])
    assert scopes.matches(["**/" * 66 + "x"], ["a/" * 2000 + "x"])
    assert not scopes.matches(["*a*a*a*a*a*a*a*a*b"], ["a" * 40 + "/b", "a" * 4000 + "/b"])
    assert time.process_time() - started < 2.0  # the regular expression took 41 s on the first


def test_context_and_the_hook_end_on_a_glob_of_24_doubled_stars(tmp_path: Path) -> None:
    repo = git_init(tmp_path / "repo")
    assert cli("enable", repo, "--vendor", "none", "--today", "2026-06-01").exit_code == 0
    glob = "**/" * 24 + "x"
    added = cli("fact", "add", "Widgets", repo, "--paths", glob, "--today", "2026-06-02")
    assert added.exit_code == 0, added.output
    deep = repo / "a/b/c/d/e/f/g/h/i/j/k/l.py"
    deep.parent.mkdir(parents=True)
    deep.write_text("x = 1\n")
    started = time.process_time()
    shown = cli("context", repo, "--paths", "a/b/c/d/e/f/g/h/i/j/k/l.py")
    assert shown.exit_code == 0 and "Widgets" not in shown.output
    assert cli("context", repo, "--paths", "a/b/x").output.count("Widgets") == 1
    assert time.process_time() - started < 5.0  # 41 to 52 s with the regular expression
    payload = json.dumps({"session_id": "s1", "cwd": str(repo), "hook_event_name": "SessionStart"})
    started = time.perf_counter()
    hook = subprocess.run(
        [sys.executable, "-m", "agent_memory", "hook", "session-start"],
        input=payload, capture_output=True, text=True, cwd=repo, check=False,
    )  # fmt: skip
    assert hook.returncode == 0, hook.stderr
    assert time.perf_counter() - started < 10  # 27 to 40 s with the untracked file, before
