"""``agent-memory doctor``: per agent, what is wired and whether it would run. Read-only.

It reads the agents' settings in the repo, their own trust files in the user's home
(``shell/homes.py``), PATH, and the git config; ``core/agents/doctor.py`` says what that means,
one line per finding with its fix. Exit 1 when something would not run.
"""

from __future__ import annotations

import os
import shutil

from .. import resources
from ..core.agents import doctor as rules
from ..core.agents import hooks, jsontext, mcp_config
from ..core.agents.doctor import Finding, Machine, Wired
from ..core.install.attributes import routes_to_driver
from ..errors import AgentMemoryError, Problem
from ..layout import AGENTS_MD, CONTINUITY, GITATTRIBUTES, MANIFEST, MERGE_DRIVER_KEY
from ..shell import homes
from ..shell.discovery import work_tree_top
from ..shell.git import git_dirs, ignore_rules, local_config
from ..shell.installed import path_hint, sdk_hint
from ..shell.load import load
from ..shell.repo import Repo
from .mcp.serve import sdk_installed
from .report import Report, Result

_CODEX_HOOKS = ".codex/hooks.json"


def doctor(repo: Repo) -> Result:
    machine = machine_of(repo)
    command = machine.command
    logs = load(repo, archives=False).logs
    found: list[Finding] = []
    for agent in hooks.AGENTS:
        wired = wired_of(repo, agent)
        found += rules.agent_findings(agent, wired, machine)
        found += rules.newest_findings(agent, logs, wired)
    in_git = git_dirs(repo.root) is not None
    routed = bool(routes_to_driver(repo.read(GITATTRIBUTES))) if in_git else None
    value = local_config(repo.root, MERGE_DRIVER_KEY) if in_git else None
    found.append(rules.merge_driver_findings(routed, value, command))
    found += _unshared(repo)
    problems = [
        Problem(f.scope, None, f.severity, "doctor", f"{f.what}" + (f" — {f.fix}" if f.fix else ""))
        for f in found
        if f.severity != rules.OK
    ]  # fmt: skip
    failing = any(f.severity == rules.ERROR for f in found)
    summary = {"findings": [f._asdict() for f in found]}
    outcome = "problems" if failing else "ok"
    report = Report("doctor", resources.version(), repo.shown, outcome, None, problems, summary)
    return Result(report._replace(findings=(), closing=tuple(map(str, found))), int(failing))


def _unshared(repo: Repo) -> list[Finding]:
    """The files enable wrote for the team that git ignores (the agents' are theirs)."""
    ours = [rel for rel in (AGENTS_MD, MANIFEST, CONTINUITY) if repo.exists(rel)]
    ignored = ignore_rules(repo.root, ours)
    warn = rules.WARNING
    return [
        Finding("memory", warn, *rules.unshared(p, r, "or take the rule out"))
        for p, r in ignored.items()
    ]


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


def wired_of(repo: Repo, agent: str) -> Wired:
    """What the agent's files in the repo hold of ours; a file that cannot be read says why."""
    path = hooks.AGENTS[agent].path
    keys: tuple[str, ...] = ()
    try:
        text = _text(repo, path)
        state = rules.hooks_state(text, agent)
        if agent == "codex" and text is not None and state == "current":
            keys = _codex_keys(repo, text)
    except (AgentMemoryError, jsontext.BadJSON, hooks.NotAnObject, UnicodeDecodeError) as exc:
        state = f"cannot be read: {exc}"
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
