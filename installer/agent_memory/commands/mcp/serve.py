"""``agent-memory mcp [PATH]``: serve the repo's memory to an agent as MCP tools over stdio."""

from __future__ import annotations

import importlib.util

from ... import resources
from ...errors import AgentMemoryError
from ...shell.installed import sdk_hint
from ...shell.repo import Repo
from ..report import Report, Result

# The modules the optional extra brings; any other missing module is a real error.
_EXTRA = ("mcp", "mcp_types", "anyio", "jsonschema", "pydantic")


def sdk_installed() -> bool:
    """Whether ``agent-memory mcp`` can start here, asked without importing the SDK."""
    return all(importlib.util.find_spec(name) is not None for name in _EXTRA)


def serve(repo: Repo, wait: float) -> Result:
    """Serve until the client closes the connection; nothing is printed on stdout but MCP."""
    try:
        # The SDK takes about half a second to import: only this command may pay for it.
        from .server import serve as run
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] not in _EXTRA:
            raise
        raise AgentMemoryError(f"the MCP SDK is not installed; {sdk_hint()}") from None
    run(repo.root, wait)
    return Result(Report("mcp", resources.version(), repo.shown, "stopped"), 0)
