"""What 2,134 hostile cases found in 5.1.0 (DESIGN §15): every parser bounds depth, size and
expansion, every refusal is one line, and no run waits forever."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import run_console, tree


@pytest.mark.parametrize("seconds", ["nan", "inf", "NaN", "1e400", "-inf"])
@pytest.mark.parametrize(
    "command", [("recover",), ("session", "capture"), ("mcp", "serve")], ids=" ".join
)
def test_a_wait_that_is_not_a_finite_number_is_a_usage_error(
    repo: Path, command: tuple[str, ...], seconds: str
) -> None:
    before = tree(repo)
    done = run_console(*command, repo, "--wait", seconds, cwd=repo)
    assert done.returncode == 2 and "--wait" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    assert tree(repo) == before
