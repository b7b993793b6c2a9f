"""The tool as users get it: an installed console script and a wheel that carries its data."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from conftest import PROJECT, tree

VERSION = (PROJECT / "VERSION").read_text().strip()


def test_console_script_runs_from_another_directory(repo: Path, tmp_path: Path) -> None:
    script = shutil.which("agent-memory")
    assert script is not None, "install the package first: pip install -e '.[test]'"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    version = subprocess.run([script, "--version"], cwd=elsewhere, capture_output=True, text=True)
    assert version.stdout == f"agent-memory {VERSION}\n"
    done = subprocess.run(
        [script, "enable", str(repo), "--today", "2026-06-13"],
        cwd=elsewhere,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert ".agent/version.md" in tree(repo)
    assert list(elsewhere.iterdir()) == []


def test_wheel_carries_templates_version_and_protocol_docs(tmp_path: Path) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
            str(PROJECT),
        ],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("agent_memory-*.whl")
    assert VERSION in wheel.name
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {
        "agent_memory/_data/VERSION",
        "agent_memory/cli.py",
        "agent_memory/_data/schema/report.schema.json",
    }
    expected |= {
        f"agent_memory/_data/{doc}.md"
        for doc in ("README", "ENABLE", "MIGRATE", "DECAY", "REVIEW", "UPGRADE", "MERGE")
    }
    templates = PROJECT / "templates"
    expected |= {
        f"agent_memory/_data/templates/{p.relative_to(templates).as_posix()}"
        for p in templates.rglob("*")
        if p.is_file()
    }
    assert expected <= names
