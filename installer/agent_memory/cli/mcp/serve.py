"""``agent-memory mcp [PATH]``: serve the repo's memory to an agent as MCP tools over stdio."""

from __future__ import annotations

from ...commands.report import Report, Result
from ...errors import AgentMemoryError
from ...shell.installed import sdk_hint
from ...shell.repo import Repo
from ...shell.wiring import EXTRA


def serve(repo: Repo, wait: float) -> Result:
    """Serve until the client closes the connection; nothing is printed on stdout but MCP."""
    try:
        # The SDK takes about half a second to import: only this command may pay for it.
        from .server import serve as run
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] not in EXTRA:
            raise
        raise AgentMemoryError(f"the MCP SDK is not installed; {sdk_hint()}") from None
    run(repo.root, wait)
    return Result(Report("mcp", repo.shown, "stopped"), 0)
