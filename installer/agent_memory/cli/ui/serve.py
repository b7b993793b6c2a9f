"""``agent-memory ui [PATH]``: serve the memory to a browser on the loopback address until
Ctrl-C."""

from __future__ import annotations

import gc
import webbrowser

from ...commands.report import Report, Result
from ...errors import AgentMemoryError
from ...shell.repo import Repo
from .actions import Setting
from .server import Server

PORT_MOST = 65535


def serve(repo: Repo, setting: Setting, port: int, browser: bool) -> Result:
    """Print the address (its token in it), open it unless told not to, and serve until Ctrl-C;
    a change that has started when Ctrl-C comes is finished first."""
    if port > PORT_MOST:
        raise AgentMemoryError(f"--port {port} is not a port; pass 1 to {PORT_MOST}, or 0 for any")
    gc.enable()  # off for a command's short run (``cli.entry``); a server runs for hours
    server = Server(repo.root, repo.shown, setting, port)
    mode = " (read-only)" if setting.read_only else ""
    print(f"Serving {repo.shown}{mode} at {server.address}", flush=True)
    print("Stop with Ctrl-C.", flush=True)
    if browser and not webbrowser.open(server.address):
        print("No browser could be opened here: open the address above.", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return Result(Report("ui", repo.shown, "stopped"), 0)
