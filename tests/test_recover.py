"""``recover``: what it says of the repo it leaves is true, whatever moment the run died at."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from agent_memory.parse import manifest
from agent_memory.resources import version
from conftest import PROJECT, cli, run_forked, tree

BEFORE = "the repo is as it was before that run"


@pytest.mark.parametrize(
    ("example", "command"),
    [
        ("handrun-4x-repo/before", ["enable", "--today", "2026-08-25"]),  # rung by rung
        ("evolving-memory-example/before", ["review", "--today", "2026-05-08"]),  # one plan
    ],
)
def test_what_recover_says_is_the_state_it_leaves(
    tmp_path: Path, example: str, command: list[str]
) -> None:
    """Killed at every durable step: "as it was before that run" only when it is; a repo an
    upgrade left between two rungs is named at its version, with what finishes it; a run killed
    after its last write (its journal empty) is not said to be rolled back."""
    source = PROJECT / "examples" / example
    before = tree(source)
    said = set()
    for step in range(1, 200):
        repo = tmp_path / f"step-{step}"
        shutil.copytree(source, repo)
        args = [command[0], str(repo), *command[1:]]
        if run_forked(args, {"AGENT_MEMORY_FAULT_AT_STEP": str(step)}) == 0:
            break
        result = cli("recover", repo)
        assert result.exit_code == 0, result.output
        state = tree(repo)
        assert BEFORE not in result.output or state == before, f"step {step}: {result.output}"
        stamp = state.get(".agent/version.md")
        parsed = manifest.parse(stamp) if stamp is not None else None
        if parsed is not None and parsed.ours and str(parsed.version) != version():
            assert f"the repo is at agent-memory {parsed.version}" in result.output
            assert "run agent-memory enable to" in result.output
        said.add(re.sub(r"\d+\.\d+\.\d+", "X", result.output.splitlines()[0]))
        shutil.rmtree(repo)
    assert any("journal empty" in line for line in said), said  # killed after the last write
