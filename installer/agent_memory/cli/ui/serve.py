"""``agent-memory ui [PATH]``: serve the memory to a browser on the loopback address until
Ctrl-C."""

from __future__ import annotations

import contextlib
import gc
import webbrowser

from ...commands.report import Report, Result
from ...errors import AgentMemoryError
from ...shell.launch import redirect_page
from ...shell.repo import Repo
from .actions import Setting
from .server import HOST, Server

PORT_MOST = 65535


def serve(repo: Repo, setting: Setting, port: int, browser: bool) -> Result:
    """Print the address (its token in it), open the browser on it unless told not to (through a
    private page: ``shell/launch``), and serve until Ctrl-C; a change that has started when
    Ctrl-C comes is finished first."""
    if port > PORT_MOST:
        raise AgentMemoryError(f"--port {port} is not a port; pass 1 to {PORT_MOST}, or 0 for any")
    gc.enable()  # off for a command's short run (``cli.entry``); a server runs for hours
    try:
        server = Server(repo.root, repo.shown, setting, port)
    except OSError as exc:
        raise AgentMemoryError(
            f"cannot listen on {HOST}:{port} ({exc.strerror or exc}); pass another --port, or "
            "--port 0 for a free one"
        ) from None
    mode = " (read-only)" if setting.read_only else ""
    print(f"Serving {repo.shown}{mode} at {server.address}", flush=True)
    print("Stop with Ctrl-C.", flush=True)
    try:
        with redirect_page(server.address) if browser else contextlib.nullcontext() as page:
            # the private page's address, not the server's: a browser's arguments are public
            if page is not None and not webbrowser.open(page.as_uri()):
                print("No browser could be opened here: open the address above.", flush=True)
            server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return Result(Report("ui", repo.shown, "stopped"), 0)
