"""The README works as written: the daily-loop transcript, the set-up commands, the links,
the size."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import PROJECT

README = (PROJECT / "README.md").read_text()
PAGES = [PROJECT / "README.md", *sorted((PROJECT / "docs").glob("*.md")), PROJECT / "CHANGELOG.md"]


def _transcript() -> list[tuple[str, list[str]]]:
    """(command, expected output lines) for each ``$`` line of the Daily loop console block."""
    section = README.split("## Daily loop", 1)[1]
    block = section.split("```console\n", 1)[1].split("```", 1)[0]
    steps: list[tuple[str, list[str]]] = []
    for line in block.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        else:
            steps[-1][1].append(line)
    return steps


def test_the_daily_loop_transcript_still_runs_as_shown(tmp_path: Path) -> None:
    steps = _transcript()
    assert any(command.startswith("agent-memory fact add") for command, _ in steps)
    tool = f"{sys.executable} -m agent_memory "
    env = {**os.environ, "PYTHONPATH": str(PROJECT / "installer")}
    for command, expected in steps:
        real = (
            tool + command[len("agent-memory ") :]
            if command.startswith("agent-memory ")
            else command
        )
        done = subprocess.run(
            ["bash", "-c", real], cwd=tmp_path, capture_output=True, text=True, env=env
        )
        assert (done.stdout + done.stderr).splitlines() == expected, command


def test_the_readme_stays_a_newcomers_page() -> None:
    assert len(README.encode()) <= 10_000, "README.md is over 10 KB: move detail to docs/"


def test_the_test_command_is_the_one_ci_runs() -> None:
    command = "python -m pip install -c constraints.txt -e '.[test]' && python -m pytest"
    assert f"    {command}   # the tests" in README
    ci = (PROJECT / ".ci/run").read_text().replace(" -q ", " ")
    assert command in ci
    assert "python -m pip install . && agent-memory enable path/to/repo" in README


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(PROJECT).as_posix())
def test_every_link_to_a_file_of_the_project_leads_to_one(page: Path) -> None:
    text = page.read_text()
    links = re.findall(r"\]\(([^)\s]+)\)", re.sub(r"^```.*?^```", "", text, flags=re.M | re.S))
    local = [link for link in links if not re.match(r"[a-z]+:", link)]
    for link in local:
        target, _, anchor = link.partition("#")
        path = (page.parent / target).resolve() if target else page
        assert path.is_relative_to(PROJECT) and path.exists(), f"{page.name}: {link}"
        if anchor and path.suffix == ".md":
            assert anchor in _anchors(path.read_text()), f"{page.name}: {link}"


def _anchors(text: str) -> set[str]:
    """The anchors GitHub gives a page's headings."""
    return {
        re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        for heading in re.findall(r"^#+ (.*)$", text, re.M)
    }
