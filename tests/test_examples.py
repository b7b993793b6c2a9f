"""The worked examples are tests: running the documented command on before/ gives after/."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from agent_memory import disk
from conftest import PROJECT, cli, tree

EXAMPLE = PROJECT / "examples/evolving-memory-example"


@pytest.mark.parametrize("worker", [False, True], ids=["serial", "forked-worker"])
def test_evolving_memory_example_is_byte_exact(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, worker: bool
) -> None:
    if worker:  # the logs split between this process and a forked worker, as big repos are
        monkeypatch.setattr(disk, "PARALLEL_MIN", 2)
        monkeypatch.setattr(disk, "_cpus", lambda: 2)
    repo = tmp_path / "after"
    shutil.copytree(EXAMPLE / "before", repo)
    newest = repo / "memory/sessions/2026-05-07-100000.md"
    result = cli("review", repo, "--today", "2026-05-08", "--session", newest)
    assert result.exit_code == 0, result.output
    assert tree(repo) == tree(EXAMPLE / "after")
    for line in (
        "Reactivated: 1 (drizzle-vs-prisma)",
        "Swept threads: 1 (migrate-ci)",
        "Archived: 3 (eslint-airbnb, redis-sessions, yarn-v1-workspaces)",
    ):
        assert line in result.output
    again = cli("review", repo, "--today", "2026-05-08")
    assert again.exit_code == 0 and tree(repo) == tree(EXAMPLE / "after")


def test_example_readme_names_the_command_the_test_runs() -> None:
    readme = (EXAMPLE / "README.md").read_text()
    assert (
        "agent-memory review after --today 2026-05-08 --session "
        "after/memory/sessions/2026-05-07-100000.md"
    ) in readme
