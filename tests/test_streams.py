"""Output a stream cannot encode (cli/streams.py): a latin-1 or ASCII stdout, or the C locale,
gets each such character escaped, never a traceback, and the exit code is the command's."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agent_memory.cli import streams
from conftest import PROJECT, cli

EXAMPLE = PROJECT / "examples/evolving-memory-example/after"
TODAY = ("--today", "2026-06-01")


def run(
    *args: str | Path, cwd: Path, stdin: str = "", **env: str
) -> subprocess.CompletedProcess[bytes]:
    """The console script as a subprocess, its output as bytes, in an environment with no
    say over the encoding but ``env``'s."""
    clean = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONIOENCODING", "PYTHONUTF8") and not k.startswith(("LC_", "LANG"))
    }
    return subprocess.run(
        [sys.executable, "-m", "agent_memory", *map(str, args)],
        cwd=cwd,
        input=stdin.encode(),
        capture_output=True,
        env={**clean, **env},
        check=False,
    )


@pytest.fixture
def due(tmp_path: Path) -> Path:
    """The example over its limit (status advises so with an em dash), with a fact in an arrow
    and an emoji."""
    root = tmp_path / "repo"
    shutil.copytree(EXAMPLE, root)
    policy = root / "memory/decay-policy.md"
    policy.write_text(
        policy.read_text().replace("continuity_max_facts: 30", "continuity_max_facts: 1")
    )
    added = cli("fact", "add", "Retries go → the outbox 😀 first", root, *TODAY)
    assert added.exit_code == 0, added.output
    return root


def test_status_and_explain_escape_what_latin_1_cannot_encode(due: Path) -> None:
    """Both ended in a UnicodeEncodeError traceback (click wrote to a strict latin-1 stdout)."""
    status = run("status", ".", cwd=due, PYTHONIOENCODING="latin-1")
    assert status.returncode == 0 and status.stderr == b""
    assert b"continuity.md is over a limit \\u2014 " in status.stdout
    explained = run("explain", "retries-go-the-outbox-first", ".", *TODAY, cwd=due,
                    PYTHONIOENCODING="latin-1")  # fmt: skip
    assert explained.returncode == 0, explained.stderr
    assert b"Retries go \\u2192 the outbox \\ud83d\\ude00 first" in explained.stdout


def test_json_stays_json_that_reads_back_to_the_same_text(due: Path) -> None:
    words = ("recall", "outbox", ".", "--json")
    plain = run(*words, cwd=due, PYTHONIOENCODING="utf-8")
    latin = run(*words, cwd=due, PYTHONIOENCODING="latin-1")
    assert plain.returncode == latin.returncode == 0
    assert json.loads(latin.stdout.decode("latin-1")) == json.loads(plain.stdout)


def test_a_hook_s_answer_stays_json_in_latin_1(due: Path) -> None:
    """The session-start hook ended in a traceback, and the agent got no context."""
    payload = json.dumps({"cwd": str(due), "session_id": "s1", "source": "startup"})
    plain = run("hook", "session-start", cwd=due, stdin=payload, PYTHONIOENCODING="utf-8")
    latin = run("hook", "session-start", cwd=due, stdin=payload, PYTHONIOENCODING="latin-1")
    assert (plain.returncode, latin.returncode, latin.stderr) == (0, 0, b"")
    assert json.loads(latin.stdout.decode("latin-1")) == json.loads(plain.stdout)
    assert "→" in json.loads(plain.stdout)["hookSpecificOutput"]["additionalContext"]


@pytest.mark.parametrize("locale", [{"LANG": "C"}, {"LC_ALL": "C"}, {"LC_ALL": "C", "LANG": "C"}])
def test_the_c_locale_writes_what_utf_8_writes(due: Path, locale: dict[str, str]) -> None:
    """Python reads the C locale as UTF-8 (PEP 538, 540): the same bytes, the quick path's and
    the hook's alike."""
    payload = json.dumps({"cwd": str(due), "session_id": "s1", "source": "startup"})
    for words, stdin in [(("status", "."), ""), (("hook", "session-start"), payload)]:
        plain = run(*words, cwd=due, stdin=stdin, PYTHONIOENCODING="utf-8")
        in_c = run(*words, cwd=due, stdin=stdin, **locale)
        assert (in_c.returncode, in_c.stdout, in_c.stderr) == (0, plain.stdout, b"")


def test_an_error_line_is_escaped_and_keeps_its_exit_code(tmp_path: Path) -> None:
    done = run("status", "→", cwd=tmp_path, PYTHONIOENCODING="latin-1")
    assert done.returncode == 1 and done.stdout == b""
    assert done.stderr.startswith(b"agent-memory: \\u2192") and b"Traceback" not in done.stderr


def test_the_escape_is_json_s() -> None:
    streams.escaping()
    assert "é→😀".encode("ascii", streams.ESCAPE) == b"\\u00e9\\u2192\\ud83d\\ude00"
    assert json.loads(f'"{"é→😀".encode("latin-1", streams.ESCAPE).decode("latin-1")}"') == "é→😀"
