"""What ``doctor`` reads of the wiring: the agents' files in the repo, the machine (PATH, the MCP
SDK, the agents' trust in the user's home), and whether an agent would run our hooks.

``commands/doctor.py`` lists the findings; ``commands/reference.py`` asks ``hooks_run`` whether
an MCP client's session is captured; ``mcp install`` and the server ask whether the SDK is
installed.
"""

from __future__ import annotations

import importlib.util
import os
import shutil

from ..core.agents import doctor as rules
from ..core.agents import hooks, jsontext, mcp_config
from ..core.agents.doctor import Machine, Wired
from ..errors import AgentMemoryError
from . import homes
from .discovery import work_tree_top
from .git import ignore_rules
from .installed import path_hint, sdk_hint
from .repo import Repo

_CODEX_HOOKS = ".codex/hooks.json"
# The modules the optional extra brings; any other missing module is a real error.
EXTRA = ("mcp", "mcp_types", "anyio", "jsonschema", "pydantic")


def sdk_installed() -> bool:
    """Whether ``agent-memory mcp`` can start here, asked without importing the SDK."""
    return all(importlib.util.find_spec(name) is not None for name in EXTRA)


def machine_of(repo: Repo) -> Machine:
    """What this machine says of the repo: the command, the MCP SDK, the agents' trust."""
    env = os.environ
    top = work_tree_top(repo.root)
    projects = tuple(dict.fromkeys(str(p) for p in (repo.root, top) if p is not None))
    command, sdk = shutil.which("agent-memory"), sdk_installed()
    return Machine(
        command, sdk, homes.codex_config(env), projects, *homes.gemini_trust(repo.root, env),
        "" if sdk else sdk_hint(), "" if command else path_hint(),
    )  # fmt: skip


def hooks_run(repo: Repo, agent: str) -> bool:
    """Whether ``agent``, which loaded the repo's MCP entry, runs the repo's hooks of ours on
    this machine too (``doctor``'s verdict on its trust), so that its sessions are captured."""
    return rules.hooks_load(agent, wired_of(repo, agent), machine_of(repo))


def hooks_of(repo: Repo, agent: str) -> tuple[str, str | None]:
    """Which of our hook groups the agent's settings in the repo hold (``doctor``'s states:
    none, current, partial, 5.0.0), and their text; a file that cannot be read says why."""
    try:
        text = _text(repo, hooks.AGENTS[agent].path)
        return rules.hooks_state(text, agent), text
    except (AgentMemoryError, jsontext.BadJSON, hooks.NotAnObject, UnicodeDecodeError) as exc:
        return f"cannot be read: {exc}", None


def wired_of(repo: Repo, agent: str) -> Wired:
    """What the agent's files in the repo hold of ours; a file that cannot be read says why."""
    path = hooks.AGENTS[agent].path
    state, text = hooks_of(repo, agent)
    keys: tuple[str, ...] = ()
    if agent == "codex" and text is not None and state == "current":
        keys = _codex_keys(repo, text)
    rel = mcp_config.FILES[agent][0]
    try:
        data = repo.read(rel, limit=jsontext.MAX_BYTES)
        mcp = "none" if data is None else _registered(agent, data)
    except AgentMemoryError as exc:
        mcp = f"cannot be read: {exc}"
    ours = [p for p, held in ((path, state != "none"), (rel, mcp != "none")) if held]
    return Wired(state, mcp, keys, ignore_rules(repo.root, ours))


def _registered(agent: str, data: bytes) -> str:
    try:
        return "registered" if mcp_config.install(agent, data) == data else "none"
    except mcp_config.ConfigError as exc:
        return str(exc)


def _text(repo: Repo, rel: str) -> str | None:
    data = repo.read(rel, limit=jsontext.MAX_BYTES)
    return None if data is None else data.decode("utf-8")


def _codex_keys(repo: Repo, text: str) -> tuple[str, ...]:
    """Codex's hook-state key of each of our handlers: the file's path, the event in snake
    case, the group's index in the event's list and the handler's in the group."""
    source = repo.root / _CODEX_HOOKS
    snake = {event: "".join(f"_{c.lower()}" if c.isupper() else c for c in event).lstrip("_")
             for event in hooks.AGENTS["codex"].events}  # fmt: skip
    return tuple(f"{source}:{snake[e]}:{i}:0" for e, i in hooks.positions(text, "codex").items())
