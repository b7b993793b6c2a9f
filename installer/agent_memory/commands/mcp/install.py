"""``agent-memory mcp install|remove --agent A``: register the MCP server with an agent, or not.

Writes the agent's repo-level MCP configuration (MCP.md lists the files) through the same plan
and apply as every command; ``core.mcp_config`` decides the bytes, keeping everything the user
wrote. Opt-in: ``enable`` never registers the server.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...core.agents import jsontext, mcp_config
from ...core.plan import FileEdit, Outcome, Plan
from ...errors import AgentMemoryError
from ...shell.installed import sdk_hint
from ...shell.repo import Repo
from ...shell.wiring import sdk_installed
from ..hooks import ignored_notes, not_on_path
from ..report import Report, Result
from ..settle import Options, settle


def mcp_install(repo: Repo, agents: Sequence[str], options: Options, removing: bool) -> Result:
    command = "mcp remove" if removing else "mcp install"
    plan = Plan.of(_edit(repo, agent, removing) for agent in dict.fromkeys(agents))
    settled = settle(repo, [plan], options, "unchanged")
    summary: dict[str, Any] = {"agents": list(dict.fromkeys(agents))}
    summary["files"] = [e.path for e in plan.writes]
    notes: tuple[str, ...] = ()
    if not removing:
        # Registered all the same: the file is committed, and teammates may have the SDK.
        summary["sdk_installed"] = sdk_installed()
        notes = () if summary["sdk_installed"] else (_NO_SDK + sdk_hint(),)
        notes += tuple(filter(None, [not_on_path()]))
        notes += ignored_notes(repo, [mcp_config.FILES[agent][0] for agent in summary["agents"]])
    report = Report(command, repo.shown, settled.outcome, plan, (), summary)
    return Result(report._replace(closing=notes), settled.exit_code, settled.diff)


_NO_SDK = "warning: the MCP SDK is not installed here, so no agent can start the server; "


def _edit(repo: Repo, agent: str, removing: bool) -> FileEdit:
    rel = mcp_config.FILES[agent][0]
    before = repo.read(rel, limit=jsontext.MAX_BYTES)  # an agent's configuration: kilobytes
    try:
        after = mcp_config.remove(agent, before) if removing else mcp_config.install(agent, before)
    except mcp_config.ConfigError as exc:
        raise AgentMemoryError(str(exc), rel, exc.line) from None
    if after == before:
        outcome = Outcome.UNCHANGED
    elif after is None:
        outcome = Outcome.REMOVED
    else:
        outcome = Outcome.written(before)
    what = "without" if removing else "with"
    return FileEdit(rel, before, after, outcome, f"{agent}'s MCP servers {what} agent-memory")
