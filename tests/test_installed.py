"""Install hints name an install that works from where the user got the tool (issue 39, item 5):
the clone's path with the venv's own pip, pipx or uv — never a package no registry holds."""

from __future__ import annotations

import importlib.metadata
import json
import sys
from pathlib import Path

import pytest

from agent_memory.shell import installed
from agent_memory.shell.installed import Origin, install_command, origin
from conftest import PROJECT


def test_this_editable_install_is_found_as_the_clone_it_came_from() -> None:
    found = origin()
    assert found == Origin(str(PROJECT), editable=True)
    command = install_command("mcp", found)
    assert command == f"{sys.executable} -m pip install -e '{PROJECT}[mcp]'"


@pytest.mark.parametrize(
    ("prefix", "found", "expected"),
    [
        (
            "/home/u/.local/share/pipx/venvs/agent-memory",
            Origin("/home/u/src/agent memory"),
            "pipx install --force '/home/u/src/agent memory[mcp]'",
        ),
        (
            "/home/u/.local/share/uv/tools/agent-memory",
            Origin("/home/u/src/agent-memory"),
            "uv tool install --force '/home/u/src/agent-memory[mcp]'",
        ),
        (
            "/home/u/.local/share/pipx/venvs/agent-memory",
            Origin("git+https://example.org/agent-memory.git"),
            "pipx install --force 'agent-memory[mcp] @ git+https://example.org/agent-memory.git'",
        ),
        (
            "/home/u/.local/share/pipx/venvs/agent-memory",
            Origin(None),
            "pipx install --force 'agent-memory[mcp]'",
        ),
    ],
)
def test_the_hint_follows_the_install(
    monkeypatch: pytest.MonkeyPatch, prefix: str, found: Origin, expected: str
) -> None:
    monkeypatch.setattr(sys, "prefix", prefix)
    assert install_command("mcp", found) == expected


def test_a_venv_install_from_a_clone_uses_that_venvs_own_pip(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """README's venv route: ~/.local/share/agent-memory/bin/pip install ."""
    venv = tmp_path / "agent-memory"
    monkeypatch.setattr(sys, "prefix", str(venv))
    monkeypatch.setattr(sys, "executable", str(venv / "bin/python"))
    command = install_command("mcp", Origin("/home/u/src/agent-memory"))
    assert command == f"{venv}/bin/python -m pip install '/home/u/src/agent-memory[mcp]'"
    assert installed.path_hint().startswith(f"put it on PATH where the agent runs: ln -s {venv}")


class _Dist:
    def __init__(self, text: str | None) -> None:
        self.text = text

    def read_text(self, name: str) -> str | None:
        assert name == "direct_url.json"
        return self.text


@pytest.mark.parametrize(
    ("record", "expected"),
    [
        (None, Origin(None)),
        ("not json", Origin(None)),
        (json.dumps({"url": "file:///srv/a%20b", "dir_info": {}}), Origin("/srv/a b")),
        (
            json.dumps({"url": "https://x.org/r.git", "vcs_info": {"vcs": "git"}}),
            Origin("git+https://x.org/r.git"),
        ),
        (json.dumps(["url"]), Origin(None)),
    ],
)
def test_the_record_is_read_whatever_it_holds(
    monkeypatch: pytest.MonkeyPatch, record: str | None, expected: Origin
) -> None:
    monkeypatch.setattr(importlib.metadata, "distribution", lambda _name: _Dist(record))
    assert origin() == expected
