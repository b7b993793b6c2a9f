"""The worked examples are tests: running the documented command on before/ gives after/."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from conftest import PROJECT, cli, tree

EXAMPLE = PROJECT / "examples/evolving-memory-example"


def test_evolving_memory_example_is_byte_exact(tmp_path: Path) -> None:
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


BACKUP = re.compile(r"`(\.agent/backup/\d+\.\d+\.\d+/[^`]*)`")


@pytest.mark.parametrize(
    ("doc", "example"),
    [
        ("examples/handrun-4x-repo/README.md", "handrun-4x-repo"),
        ("examples/legacy-2x-repo/README.md", "legacy-2x-repo"),
        ("UPGRADE.md", "handrun-4x-repo"),  # § Adopting walks through that example
    ],
)
def test_a_backup_the_docs_name_is_where_the_example_keeps_it(doc: str, example: str) -> None:
    """The backup folder is named after the release that writes the backup (the re-sync's, or
    the adoption rung's for the hand-written INDEX): a document naming another one drifted."""
    named = BACKUP.findall((PROJECT / doc).read_text())
    assert named
    after = tree(PROJECT / "examples" / example / "after")
    for path in named:
        assert any(p == path or (path.endswith("/") and p.startswith(path)) for p in after), path
