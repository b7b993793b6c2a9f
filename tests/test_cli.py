"""The command line itself: help everywhere, and the usage guide describes every command."""

from __future__ import annotations

import click

from agent_memory.cli.app import main
from conftest import PROJECT, cli


def commands(group: click.Group = main, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every leaf command as its words: ("enable",), ("session", "new"), ..."""
    found: list[tuple[str, ...]] = []
    for name, command in group.commands.items():
        assert command.help, name
        if isinstance(command, click.Group):
            found += commands(command, (*prefix, name))
        else:
            found.append((*prefix, name))
    return found


def test_every_command_and_option_has_help() -> None:
    assert len(commands()) >= 6
    for words in commands():
        command = main
        for word in words:
            command = command.commands[word]  # type: ignore[attr-defined]
        for param in command.params:
            if isinstance(param, click.Option):
                assert param.help, f"{words} {param.opts}"
        assert cli(*words, "--help").exit_code == 0


def test_the_usage_guide_describes_every_command_and_main_help_shows_the_flow() -> None:
    usage = (PROJECT / "docs/usage.md").read_text()
    for words in commands():
        assert f"**`agent-memory {' '.join(words)} " in usage, words
    assert "review --if-due" in cli("--help").output


def test_usage_errors_exit_2() -> None:
    assert cli("review", "--today", "2026-13-45").exit_code == 2
    assert cli("enable", "--vendor", "emacs").exit_code == 2
