"""``doctor``'s rules: what is wired, and whether it would run, from what was read.

Pure: the command reads the agents' settings in the repo, their own files in the user's home
(Codex's trust and hook review, Gemini CLI's trusted folders), the PATH and the git config, and
this module turns them into findings, one line each with its fix. An ``error`` is something
that would not run; it makes ``doctor`` exit 1.
"""

import shlex
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any, NamedTuple

from ...layout import MERGE_DRIVER, MERGE_DRIVER_FALLBACK
from . import hooks, mcp_config

ERROR, WARNING, OK = "error", "warning", "ok"


class Finding(NamedTuple):
    scope: str  # an agent, or "merge driver"
    severity: str  # error (would not run), warning, ok
    what: str
    fix: str = ""

    def __str__(self) -> str:
        return f"{self.severity}: {self.scope}: {self.what}" + (
            f" — {self.fix}" if self.fix else ""
        )


class Wired(NamedTuple):
    """What one agent's files in the repo hold of ours."""

    hooks: str  # "current", "partial", "5.0.0", "none", or why it could not be read
    mcp: str  # "registered", "none", or why it could not be read
    codex_keys: tuple[str, ...] = ()  # Codex's hook-state key of each of our handlers
    ignored: Mapping[str, str] = MappingProxyType({})  # a file of ours git ignores → the rule


class Machine(NamedTuple):
    """What this machine says, outside the repo."""

    command: str | None  # where ``agent-memory`` resolves on PATH
    sdk: bool  # the MCP extra is installed
    codex: Mapping[str, Any] | None  # Codex's config.toml, read; None when absent
    codex_projects: tuple[str, ...]  # the paths Codex would look up the project's trust by
    gemini_trusted: bool | None  # Gemini CLI's rule for the repo's folder; None: no rule
    gemini_why: str  # where that came from
    sdk_install: str = "install the mcp extra"  # the way, from where the tool was installed
    path_install: str = "put agent-memory on PATH where the agent runs"


def hooks_state(text: str | None, agent: str) -> str:
    """Which of our hook groups the agent's settings hold."""
    if text is None:
        return "none"
    found = hooks.positions(text, agent)
    ours = hooks.wanted(agent)
    if hooks.legacy(text, agent):
        return "5.0.0"
    if not found:
        return "none"
    return "current" if ours.keys() <= found.keys() else "partial"


def hooks_load(agent: str, wired: Wired, machine: Machine) -> bool:
    """Whether an agent that loaded the repo's MCP entry loads its hooks too, as far as its own
    files say. Claude Code and Gemini CLI read both with the same trust; Codex runs a trusted
    project's hooks only once they are reviewed (``/hooks``)."""
    if agent != "codex":
        return True
    return not any(f.severity == ERROR for f in _codex_trust(wired, machine))


def agent_findings(agent: str, wired: Wired, machine: Machine) -> list[Finding]:
    """One agent's lines: what is registered, whether its command resolves, whether the agent
    will load it."""
    if wired.hooks == "none" and wired.mcp == "none":
        return [Finding(agent, OK, "no hooks, no MCP entry (both opt-in)")]
    found = [*_hooks(agent, wired), *_mcp(agent, wired, machine)]
    found += [Finding(agent, WARNING, *unshared(p, rule)) for p, rule in wired.ignored.items()]
    if machine.command is None:
        found.append(
            Finding(
                agent,
                ERROR,
                "agent-memory is not on PATH, so the agent cannot run what it names",
                f"{machine.path_install}, or start the agent with its venv active",
            )
        )
    else:
        found.append(Finding(agent, OK, f"agent-memory resolves to {machine.command}"))
    if agent == "codex":
        found += _codex_trust(wired, machine)
    if agent == "gemini":
        found += _gemini_trust(machine)
    return found


def unshared(
    path: str, rule: str, otherwise: str = "else each teammate installs their own"
) -> tuple[str, str]:
    """What is wrong with a file written for the team that git ignores, and the way on."""
    return (
        f"{path} is ignored by git ({rule}): it stays on this machine, no teammate gets it",
        f"git add -f {path} shares it (git then tracks it despite the rule); {otherwise}",
    )


def _hooks(agent: str, wired: Wired) -> list[Finding]:
    path, fix = hooks.AGENTS[agent].path, f"agent-memory hooks install --agent {agent}"
    if wired.hooks == "current":
        return [Finding(agent, OK, f"hooks registered in {path}")]
    if wired.hooks == "partial":
        return [Finding(agent, WARNING, f"some of our hooks are missing from {path}", fix)]
    if wired.hooks == "5.0.0":
        return [
            Finding(
                agent,
                ERROR,
                f"{path} holds 5.0.0's shell-snippet hooks (they fail "
                "outside sh and from a subdirectory)",
                fix,
            )
        ]
    if wired.hooks == "none":
        return [Finding(agent, OK, "no hooks (opt-in)", fix)]
    return [Finding(agent, ERROR, f"{path} {wired.hooks}", "fix the file")]


def _mcp(agent: str, wired: Wired, machine: Machine) -> list[Finding]:
    path = mcp_config.FILES[agent][0]
    if wired.mcp == "none":
        return [
            Finding(agent, OK, "no MCP entry (opt-in)", f"agent-memory mcp install --agent {agent}")
        ]
    if wired.mcp != "registered":
        if path == hooks.AGENTS[agent].path and wired.hooks.startswith("cannot be read"):
            return []  # one file for both (Gemini CLI's settings): the hooks' line says it
        said = wired.mcp.removesuffix("; fix it, then run again")
        return [Finding(agent, ERROR, f"{path} {said}", "fix the file")]
    if not machine.sdk:
        return [
            Finding(
                agent,
                ERROR,
                f"MCP entry in {path}, but the MCP SDK is not installed "
                "here: the server cannot start",
                machine.sdk_install,
            )
        ]
    return [Finding(agent, OK, f"MCP entry registered in {path}")]


def _codex_trust(wired: Wired, machine: Machine) -> list[Finding]:
    config = machine.codex or {}
    projects = config.get("projects")
    levels = [
        p.get("trust_level")
        for key in machine.codex_projects
        if isinstance(projects, dict) and isinstance(p := projects.get(key), dict)
    ]
    where = machine.codex_projects[0] if machine.codex_projects else "the repo"
    if "trusted" not in levels:
        fix = (
            f'start codex in the repo and trust it, or set [projects."{where}"] '
            'trust_level = "trusted" in ~/.codex/config.toml'
        )
        return [
            Finding(
                "codex",
                ERROR,
                "the project is not trusted: Codex loads none of its .codex files",
                fix,
            )
        ]
    found = [Finding("codex", OK, "the project is trusted")]
    if wired.codex_keys:
        state = (
            (config.get("hooks") or {}).get("state")
            if isinstance(config.get("hooks"), dict)
            else None
        )
        states = [state.get(key) if isinstance(state, dict) else None for key in wired.codex_keys]
        if any(isinstance(s, dict) and s.get("enabled") is False for s in states):
            found.append(
                Finding("codex", ERROR, "a hook of ours is disabled", "enable it in /hooks")
            )
        elif not all(isinstance(s, dict) and s.get("trusted_hash") for s in states):
            found.append(
                Finding(
                    "codex",
                    ERROR,
                    "our hooks are not reviewed: Codex runs a project's hooks only once trusted",
                    "run /hooks in codex and trust agent-memory's hooks",
                )
            )
        else:
            found.append(Finding("codex", OK, "our hooks are reviewed (/hooks)"))
    return found


def _gemini_trust(machine: Machine) -> list[Finding]:
    if machine.gemini_trusted:
        return [Finding("gemini", OK, f"the folder is trusted ({machine.gemini_why})")]
    what = "distrusted" if machine.gemini_trusted is False else "not yet trusted"
    return [
        Finding(
            "gemini",
            ERROR,
            f"the folder is {what} ({machine.gemini_why}): Gemini CLI "
            "reads none of .gemini/settings.json",
            "trust it when Gemini CLI asks, or with /permissions",
        )
    ]


def merge_driver_findings(routed: bool | None, value: str | None, command: str | None) -> Finding:
    """The merge driver: routed to by ``.gitattributes``, and what the git config runs."""
    scope = "merge driver"
    if routed is None:
        return Finding(scope, OK, "not in a git work tree")
    if not routed:
        return Finding(
            scope,
            WARNING,
            ".gitattributes does not send memory files to the driver: git merges them as text",
            "agent-memory enable",
        )
    if value is None:
        return Finding(
            scope,
            WARNING,
            "not set in this clone's git config: git merges memory files as text",
            "agent-memory enable",
        )
    if value == MERGE_DRIVER:
        severity = ERROR if command is None else WARNING
        return Finding(
            scope,
            severity,
            "5.0.0's bare command: where agent-memory is not on "
            "PATH a merge keeps ours with no conflict markers",
            "agent-memory enable",
        )
    if value.startswith("if ") and value.endswith(MERGE_DRIVER_FALLBACK):
        return Finding(scope, OK, f"set; runs {_installed(value)}, else PATH's, else git's")
    return Finding(scope, OK, f"set by hand to {value!r}")


def _installed(value: str) -> str:
    words = shlex.split(value[3 : value.index(" --version")], posix=True)
    return " ".join(words) or "?"


def newest_findings(agent: str, logs: Sequence[str], wired: Wired) -> list[Finding]:
    """The newest session log captured from ``agent`` (its name holds ``-<agent>-``)."""
    if wired.hooks == "none":
        return []
    captured = sorted(name for name in logs if f"-{agent}-" in name)
    if not captured:
        return [
            Finding(
                agent,
                WARNING,
                "no session captured yet",
                "end a session, or run agent-memory session capture --transcript FILE",
            )
        ]
    return [Finding(agent, OK, f"newest captured session: {captured[-1]}")]
