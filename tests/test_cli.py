"""The command line itself: help everywhere, and the README lists every command."""

from __future__ import annotations

import click

from agent_memory.cli import main
from conftest import PROJECT, cli


def test_every_command_and_option_has_help() -> None:
    assert isinstance(main, click.Group)
    for name, command in main.commands.items():
        assert command.help, name
        for param in command.params:
            if isinstance(param, click.Option):
                assert param.help, f"{name} {param.opts}"
        assert cli(name, "--help").exit_code == 0


def test_readme_lists_every_command_and_main_help_shows_the_flow() -> None:
    readme = (PROJECT / "README.md").read_text()
    for name in main.commands:  # type: ignore[attr-defined]
        assert f"`agent-memory {name} [PATH]`" in readme, name
    assert "review --if-due" in cli("--help").output


def test_usage_errors_exit_2() -> None:
    assert cli("review", "--today", "2026-13-45").exit_code == 2
    assert cli("enable", "--vendor", "emacs").exit_code == 2
