"""The symlink layouts and the large consolidation under examples/: byte-exact, links kept."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from conftest import PROJECT, cli, stats

SYMLINKED = PROJECT / "examples/symlinked-bootstraps"
LARGE = PROJECT / "examples/large-consolidation"
TODAY = "2026-06-13"
COMMAND = "agent-memory enable after --today 2026-06-13"


def snapshot(root: Path) -> dict[str, tuple[str, bytes | str]]:
    """Every file and link under ``root``: a link by its target, a file by its bytes."""
    out: dict[str, tuple[str, bytes | str]] = {}
    for dirpath, dirs, names in os.walk(root):
        for name in [*names, *dirs]:
            path = Path(dirpath) / name
            rel = path.relative_to(root).as_posix()
            if path.is_symlink():
                out[rel] = ("link", str(path.readlink()))
            elif path.is_file():
                out[rel] = ("file", path.read_bytes())
    return out


def run_example(example: Path, tmp_path: Path) -> tuple[Path, str]:
    repo = tmp_path / "after"
    shutil.copytree(example / "before", repo, symlinks=True)
    result = cli("enable", repo, "--today", TODAY)
    assert result.exit_code == 0, result.output
    assert snapshot(repo) == snapshot(example / "after")
    before = stats(repo)
    assert "up to date" in cli("enable", repo, "--today", "2026-07-01").output
    assert stats(repo) == before
    return repo, result.output


@pytest.mark.parametrize("layout", sorted(p.name for p in SYMLINKED.iterdir() if p.is_dir()))
def test_symlink_layout_example_is_byte_exact(tmp_path: Path, layout: str) -> None:
    _, output = run_example(SYMLINKED / layout, tmp_path)
    assert "  linked  " in output or "  linked       " in output
    assert any(p.is_symlink() for p in (SYMLINKED / layout / "before").rglob("*"))
    assert f"`{layout}`" in (SYMLINKED / "README.md").read_text()


def test_large_consolidation_example_is_byte_exact(tmp_path: Path) -> None:
    repo, output = run_example(LARGE, tmp_path)
    size = (repo / "AGENTS.md").stat().st_size
    assert f"is {size:,} bytes, over Codex's default budget of 32,768" in output
    readme = (LARGE / "README.md").read_text()
    assert f"{size:,} bytes" in readme and COMMAND in readme
    assert COMMAND in (SYMLINKED / "README.md").read_text()
