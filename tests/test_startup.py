"""What the commands an agent runs many times a session load at start-up.

Their speed is measured in benchmarks/; what is checked here, on every run, is the cause of the
slow-downs found there: a library loaded for nothing (OpenSSL through hashlib is 5 ms, packaging
4 ms, json 3 ms, markdown-it and ruamel.yaml more, dataclasses brings inspect, shutil brings bz2
and lzma, tempfile its random source) on a path that never uses it.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import PROJECT

EXAMPLE = PROJECT / "examples/evolving-memory-example/after"
HEAVY = {
    *("hashlib", "packaging", "ruamel", "markdown_it", "subprocess", "difflib", "json"),
    *("dataclasses", "inspect", "shutil", "tempfile", "click"),
}
# Runs the command in-process, then names every top-level module the run loaded. What the
# interpreter loaded before (a site-packages .pth file may load shutil and tempfile) is not ours.
_PROBE = """
import sys
before = {name.split(".")[0] for name in sys.modules}
from agent_memory.cli import entry
sys.argv = ["agent-memory", *sys.argv[1:]]
try:
    entry()
except SystemExit:
    pass
print(" ".join(sorted({name.split(".")[0] for name in sys.modules} - before)), file=sys.stderr)
"""


@pytest.mark.parametrize(
    ("command", "allowed"),
    [
        (["context"], set()),
        (["review", "--if-due"], set()),
        (["explain", "outbox-writes"], set()),
        (["status"], set()),
        (["recall", "outbox"], {"hashlib"}),  # the derived store's rows are a file's sha256
        # a write: the journal's format and its folder's removal need neither json nor shutil
        (["fact", "add", "A new fact", "--today", "2026-06-01"], set()),
    ],
    ids=lambda value: " ".join(value) if isinstance(value, list) else "",
)
def test_daily_commands_load_no_library_they_do_not_use(
    tmp_path: Path, command: list[str], allowed: set[str]
) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo)
    assert _loaded([*command, str(repo)]) & (HEAVY - allowed) == set()


def _loaded(args: list[str], stdin: str | None = None) -> set[str]:
    """The top-level modules the command ``args`` adds to what Python itself loaded."""
    ran = subprocess.run(
        [sys.executable, "-c", _PROBE, *args],
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
    )
    assert ran.returncode == 0, ran.stderr
    return set(ran.stderr.splitlines()[-1].split())


def test_status_reads_a_stamp_without_packaging(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo)
    (repo / ".agent").mkdir()
    (repo / ".agent/version.md").write_text(
        "# agent-memory install manifest\n- version: 5.0.0\n- vendors: none\n"
    )
    ran = subprocess.run(
        [sys.executable, "-c", _PROBE, "status", str(repo)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert ran.returncode == 0, ran.stderr
    assert "installed 5.0.0" in ran.stdout
    assert "packaging" not in ran.stderr.splitlines()[-1].split()


@pytest.mark.parametrize(
    ("event", "allowed"),
    [
        ("prompt", {"json", "hashlib"}),  # the payload is JSON; the store's rows, by sha256
        ("session-start", {"json"}),  # git is asked with posix_spawn, not subprocess
    ],
)
def test_the_hooks_an_agent_runs_each_turn_load_no_library_they_do_not_use(
    tmp_path: Path, event: str, allowed: set[str]
) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo)
    payload = f'{{"cwd": "{repo}", "prompt": "nothing of note", "hook_event_name": "x"}}'
    assert _loaded(["hook", event], payload) & (HEAVY - allowed) == set()


# Our own modules only the curation commands and the review need (about 7 ms of imports, a tenth
# of a session start, when every plan's leak check and fact add's personal file pulled them in).
_CURATION = ("agent_memory.core.facts.curate", "agent_memory.core.review.verdicts")
_OURS = """
import sys
from agent_memory.cli import entry
sys.argv = ["agent-memory", *sys.argv[1:]]
try:
    entry()
except SystemExit:
    pass
print(" ".join(sorted(name for name in sys.modules if name.startswith("agent_memory."))),
      file=sys.stderr)
"""


@pytest.mark.parametrize(
    "command",
    [
        ["context"],
        ["status"],
        ["review", "--if-due"],
        ["hook", "session-start"],
        ["fact", "add", "A new fact", "--today", "2026-06-01"],
    ],
    ids=" ".join,
)
def test_the_daily_commands_load_none_of_the_curation_modules(
    tmp_path: Path, command: list[str]
) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo)
    payload = f'{{"cwd": "{repo}", "hook_event_name": "SessionStart"}}'
    args = command if command[0] == "hook" else [*command, str(repo)]
    ran = subprocess.run(
        [sys.executable, "-c", _OURS, *args], input=payload, capture_output=True, text=True
    )
    assert ran.returncode == 0, ran.stderr
    assert set(ran.stderr.splitlines()[-1].split()) & set(_CURATION) == set()
