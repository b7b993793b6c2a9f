"""Commands that install, repair and wire the tool into a repo and its agents."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from . import options as opts
from .base import execute, main


@main.command()
@opts.enable
def enable(
    path: Path, vendors: tuple[str, ...], keep_vendor_files: bool, as_json: bool, **flags: Any
) -> None:
    """Install the memory layer into PATH, migrate what other tools left, or upgrade it in place."""
    from ..commands.enable import enable as run
    from ..commands.settle import Options

    options = Options(**flags)
    execute(lambda: run(path, vendors, options, keep_vendor_files=keep_vendor_files), as_json)


@main.command()
@opts.repo_arg
@opts.wait_opt
@opts.json_opt
def recover(path: Path, wait: float, as_json: bool) -> None:
    """Roll back the plan an interrupted run left half-applied (its journal), and nothing else.

    Every writing command does this first; read-only ones (lint, status, recall, --check,
    --dry-run) never write, so they refuse while a journal is present.
    """
    from ..commands.recover import recover as run

    execute(lambda: run(path, wait), as_json)


@main.group()
def hooks() -> None:
    """An agent's repo-level hooks: context at session start, capture at its end (HOOKS.md)."""


@hooks.command("install")
@opts.hooks
def hooks_install(path: Path, agent: str, as_json: bool, **flags: Any) -> None:
    """Add our hooks to the agent's settings in PATH; every other byte of the file is kept."""
    from ..commands.hooks import hooks_install as run

    execute(lambda: run(path, agent, flags), as_json)


@hooks.command("remove")
@opts.hooks
def hooks_remove(path: Path, agent: str, as_json: bool, **flags: Any) -> None:
    """Take our hooks out of the agent's settings in PATH, giving back the bytes from before."""
    from ..commands.hooks import hooks_remove as run

    execute(lambda: run(path, agent, flags), as_json)


@main.command()
@opts.disable
def disable(path: Path, keep_memory: bool, as_json: bool, **flags: Any) -> None:
    """Take out what enable installed (blocks, managed files, stamp); memory/ is kept unless
    --remove-memory (then it is copied to the backup first)."""
    from ..commands.disable import disable as run
    from ..commands.settle import Options

    execute(lambda: run(path, Options(**flags), keep_memory=keep_memory), as_json)
