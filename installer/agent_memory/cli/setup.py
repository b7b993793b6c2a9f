"""Command lines that install, repair and wire the tool into a repo and its agents.

Each ``build`` imports its command's module when the command runs (``table.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..commands.runner import Call, Command, Journal, Needs
from .calls import calls
from .declared import (
    AGENTS,
    CHECK,
    DRY_RUN,
    JSON,
    PATH,
    WAIT,
    WRITING,
    Declared,
    Kind,
    Param,
    Values,
    options,
)

if TYPE_CHECKING:
    from .declared import Built, Progress


def _enable(v: Values, _progress: Progress) -> Built:
    from ..commands.enable import enable

    vendors, keep, full = v["vendors"], v["keep_vendor_files"], v["full_diff"]
    opts = options(v)
    return v["path"], Call(
        lambda repo: enable(repo, vendors, opts, keep_vendor_files=keep, full_diff=full), opts
    )


def _hooks(removing: bool) -> Declared:
    def build(v: Values, _progress: Progress) -> Built:
        from ..commands import hooks

        agent, opts, prompt = v["agent"], options(v), bool(v.get("prompt_recall"))
        if removing:
            return v["path"], Call(lambda repo: hooks.hooks_remove(repo, agent, opts), opts)
        return v["path"], Call(lambda repo: hooks.hooks_install(repo, agent, opts, prompt), opts)

    word = "remove" if removing else "install"
    helps = {
        "install": "Add our hooks to the agent's settings in PATH; every other byte of the file "
        "is kept.",
        "remove": "Take our hooks out of the agent's settings in PATH, giving back the bytes "
        "from before.",
    }
    agent = Param(
        "agent", Kind.CHOICE, ("--agent",), "The agent whose hooks.", required=True, choices=AGENTS
    )
    prompt = Param(
        "prompt_recall",
        Kind.FLAG,
        ("--prompt-recall",),
        "Also add the prompt hook: on each prompt, the facts matching it that the session was "
        "not shown.",
    )
    return Declared(
        ("hooks", word),
        helps[word],
        Command(f"hooks {word}", Journal.WRITES, Needs.ENABLED),
        (PATH, agent, *(() if removing else (prompt,)), *WRITING),
        build,
    )


def _disable(v: Values, _progress: Progress) -> Built:
    from ..commands.disable import disable

    keep, opts = v["keep_memory"], options(v)
    return v["path"], Call(lambda repo: disable(repo, opts, keep_memory=keep), opts)


def _mcp_serve(v: Values, _progress: Progress) -> Built:
    from .mcp.serve import serve

    wait = v["wait"]
    return v["path"], Call(lambda repo: serve(repo, wait))


def _mcp(removing: bool) -> Declared:
    def build(v: Values, _progress: Progress) -> Built:
        from ..commands.mcp.install import mcp_install

        agents, opts = v["agents"], options(v)
        return v["path"], Call(lambda repo: mcp_install(repo, agents, opts, removing), opts)

    word = "remove" if removing else "install"
    helps = {
        "install": "Register `agent-memory mcp` in each agent's MCP configuration for PATH "
        "(MCP.md lists the files); every other key of the file is kept.",
        "remove": "Take exactly the entry `mcp install` wrote out of each agent's MCP "
        "configuration.",
    }
    agents = Param(
        "agents",
        Kind.CHOICE,
        ("--agent",),
        "The agent whose repo-level MCP configuration to change (repeatable).",
        required=True,
        multiple=True,
        choices=AGENTS,
    )
    return Declared(
        ("mcp", word),
        helps[word],
        Command(f"mcp {word}", Journal.WRITES, Needs.ENABLED),
        (PATH, agents, CHECK, DRY_RUN, JSON, WAIT),
        build,
    )


LINES: tuple[Declared, ...] = (
    Declared(
        ("enable",),
        "Install the memory layer into PATH, migrate what other tools left, or upgrade it in "
        "place.",
        Command("enable", Journal.WRITES, Needs.TARGET),
        (
            PATH,
            Param(
                "vendors",
                Kind.CHOICE,
                ("--vendor",),
                "Bootstrap for this vendor (repeatable; default: claude and gemini; 'none' for "
                "none).",
                multiple=True,
                choices=("claude", "gemini", "cursor", "copilot", "none"),
            ),
            Param(
                "keep_vendor_files",
                Kind.FLAG,
                ("--keep-vendor-files",),
                "Migration (mode C): only add pointer blocks; leave every vendor file's text in "
                "place.",
            ),
            Param(
                "full_diff",
                Kind.FLAG,
                ("--full-diff",),
                "With --dry-run, also show the diff of agent-memory's own files (.agent/), "
                "which are otherwise named only.",
            ),
            *WRITING,
        ),
        _enable,
    ),
    Declared(
        ("recover",),
        "Roll back the plan an interrupted run left half-applied (its journal), and nothing "
        "else.\n\nEvery writing command does this first; read-only ones (lint, status, recall, "
        "--check,\n--dry-run) never write, so they refuse while a journal is present.",
        Command("recover", Journal.OWN, Needs.REPO),
        (PATH, WAIT, JSON),
        calls("recover", "recover", "wait"),
    ),
    _hooks(removing=False),
    _hooks(removing=True),
    Declared(
        ("disable",),
        "Take out what enable installed (blocks, managed files, stamp); memory/ is kept unless"
        "\n--remove-memory (then it is copied to the backup first).",
        Command("disable", Journal.WRITES, Needs.REPO),
        (
            PATH,
            Param(
                "keep_memory",
                Kind.SWITCH,
                ("--keep-memory", "--remove-memory"),
                "Keep memory/ (the default), or take it out too, every file copied first to "
                ".agent/backup/disable-<date>/memory/.",
                default=True,
            ),
            *WRITING,
        ),
        _disable,
    ),
    Declared(
        ("mcp", "serve"),
        "Run the MCP server for PATH on stdin/stdout until the client disconnects.",
        Command("mcp", Journal.OWN, Needs.REPO),
        (
            PATH,
            Param(
                "wait",
                Kind.SECONDS,
                ("--wait",),
                "How long a tool call waits for another run's lock before it reports that run.",
                default=5.0,
                metavar="SECONDS",
                show_default=True,
            ),
        ),
        _mcp_serve,
    ),
    _mcp(removing=False),
    _mcp(removing=True),
    Declared(
        ("doctor",),
        "Say, per agent, whether our hooks and MCP entry are registered and would run (the "
        "command on PATH,\nthe agent's trust), the merge driver's state and the newest captured "
        "session; read-only.\n\nOne line per finding with its fix; exit 1 when something would "
        "not run.",
        Command("doctor", Journal.OWN, Needs.ENABLED),
        (PATH, JSON),
        calls("doctor", "doctor"),
    ),
)
