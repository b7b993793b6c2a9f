"""Hostile and broken inputs (tests/corpus/): one clear line, no traceback, nothing written.

Each case is a folder with ``case.json`` (command, expected exit code, message pattern, whether the
tree must stay unchanged, an optional setup or generated input, optional ``env`` and ``left``: the
tool's transient names a refused case leaves where they were) and ``tree/``, laid over a repo
freshly enabled with --vendor none (or an empty one when ``fresh`` is false). The hostile setups
(journals, locks, symlinks, FIFOs) are in ``hostile.py``; every case runs under a 60 s alarm and
checks that the sentinel folder beside the repo is byte-for-byte and mtime-for-mtime unchanged.
"""

from __future__ import annotations

import json
import re
import shutil
import signal
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import cli, git_init, stats
from hostile import SETUPS

CORPUS = Path(__file__).parent / "corpus"
CASES = sorted(p for p in CORPUS.iterdir() if (p / "case.json").is_file())


def _setup(kind: str | None, repo: Path, outside: Path) -> None:
    if kind is None:
        return
    if kind == "symlink-memory-outside":
        shutil.copytree(repo / "memory", outside / "memory")
        shutil.rmtree(repo / "memory")
        (repo / "memory").symlink_to(outside / "memory", target_is_directory=True)
    elif kind == "symlink-agent-outside":
        shutil.move(str(repo / ".agent"), str(outside / ".agent"))
        (repo / ".agent").symlink_to(outside / ".agent", target_is_directory=True)
        (repo / ".agent/version.md").write_text(
            (repo / ".agent/version.md").read_text().replace("3.0.0", "2.9.0", 1)
        )
    elif kind == "symlink-log-passwd":
        (repo / "memory/sessions/2026-06-10-100000.md").symlink_to("/etc/passwd")
    elif kind == "read-only-continuity":
        (repo / "memory/continuity.md").chmod(stat.S_IRUSR | stat.S_IRGRP)
    elif kind == "continuity-directory":
        (repo / "memory/continuity.md").unlink()
        (repo / "memory/continuity.md").mkdir()
    else:
        SETUPS[kind](repo, outside)


def _generate(kind: str | None, repo: Path) -> None:
    if kind is None:
        return
    if kind == "million-lines":
        body = "".join(f"- fact {i}\n" for i in range(1_000_000))
        (repo / "memory/continuity.md").write_text("# Continuity\n\n## Key Decisions\n" + body)
    elif kind == "fifty-mb-log":
        chunk = "- worked on the thing, then on the other thing\n" * 20_000
        with (repo / "memory/sessions/2026-06-10-100000.md").open("w") as handle:
            handle.write("# Session\n\n## What We Did\n")
            while handle.tell() < 50 * 1024 * 1024:
                handle.write(chunk)
            handle.write("\n## Memory References\n- Referenced: none\n")
    else:  # pragma: no cover
        raise AssertionError(kind)


def test_the_corpus_has_at_least_forty_cases() -> None:
    assert len(CASES) >= 40


@pytest.fixture
def bounded() -> Iterator[None]:
    """A case that hangs (a FIFO read, a quadratic regex) fails instead of stalling the suite."""

    def hung(_signum: int, _frame: object) -> None:
        raise TimeoutError("the command did not finish in 60 s")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(60)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_case(case: Path, tmp_path: Path, bounded: None, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = json.loads((case / "case.json").read_text())
    for name, value in spec.get("env", {}).items():
        monkeypatch.setenv(name, value)
    repo = git_init(tmp_path / "repo")
    outside = tmp_path / "outside"  # the sentinel folder beside the repo
    outside.mkdir()
    (outside / "sentinel.txt").write_text("outside the repo\n")
    if spec["fresh"]:
        with monkeypatch.context() as clean:
            clean.delenv("SOURCE_DATE_EPOCH", raising=False)
            enabled = cli("enable", repo, "--vendor", "none", "--today", "2026-06-01")
        assert enabled.exit_code == 0
    if (case / "tree").is_dir():
        shutil.copytree(case / "tree", repo, dirs_exist_ok=True)
    _generate(spec["generate"], repo)
    _setup(spec["setup"], repo, outside)
    before, outside_before = stats(repo), stats(outside)
    result = cli(
        spec["command"][0],
        *spec["command"][1:],
        *([] if spec["command"][0] == "session" else [repo]),
    )
    output = result.output
    assert result.exit_code == spec["exit"], output
    assert "Traceback" not in output
    assert re.search(spec["pattern"], output), output
    if spec["exit"] == 1:
        errors = [line for line in output.splitlines() if line.startswith("agent-memory:")]
        findings = [line for line in output.splitlines() if ": error [" in line]
        # One line that says what stops the run, or (lint only) the error findings it reports.
        assert len(errors) == 1 or (spec["command"][0] == "lint" and not errors and findings)
    if spec["unchanged"]:
        assert stats(repo) == before
    assert stats(outside) == outside_before
    leftovers = {p.name for p in repo.iterdir() if ".agent-memory" in p.name}
    assert leftovers == set(spec.get("left", [])), leftovers
