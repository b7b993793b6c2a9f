"""`agent-memory ui`'s pages, each asked over HTTP of a real server, against `agent-memory status`
run in the same run.

    python benchmarks/ui_bench.py [--logs 10000] [--facts 1000] [--runs 7]

The repo is command_bench's: review_bench's (--facts facts, --logs logs), reviewed once and
widened so that no review is due, with 10,000 archived facts, and continuity.md topped up to
--facts live facts (the review archived most of them). The server runs in this process on
127.0.0.1; each page is asked --runs times in turn with the others and with `status` (a process
of its own), and the medians are printed, each page's as a ratio to `status`'s wall time. The
budget (issue 41): the memory page renders in under 300 ms on the server. Health runs the
report, which replays every log: its figure is the report's (the replay's budget), shown beside.
"""

from __future__ import annotations

import http.client
import statistics
import subprocess
import threading
import time
from pathlib import Path

from agent_memory.cli.ui.actions import Setting
from agent_memory.cli.ui.server import Server
from context_bench import widen
from hook_bench import archive
from measure import byte_compile
from review_bench import TOOL, repo_arguments, reviewed_repo

BUDGET = 0.300
PAGES = {
    "memory (every live fact)": "/",
    "memory, archived (first 500)": "/?filter=archived",
    "memory, pinned": "/?filter=pinned",
    "search": "/?q=module%20m4242",
    "a fact": "/fact?id={fact}",
    "inbox": "/inbox",
    "health (replays every log)": "/health",
}


def _ask(port: int, path: str, cookie: str) -> tuple[float, int]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    headers = {"Host": f"127.0.0.1:{port}", "Cookie": cookie}
    started = time.perf_counter()
    connection.request("GET", path, headers=headers)
    reply = connection.getresponse()
    size = len(reply.read())
    took = time.perf_counter() - started
    connection.close()
    assert reply.status == 200, (path, reply.status)
    return took, size


def top_up(root: Path, live: int) -> None:
    """Live facts added to continuity.md until it holds ``live`` (the review archived many)."""
    cont = root / "memory/continuity.md"
    text = cont.read_text()
    body = "".join(
        f"- Live decision {i} about subsystem {i % 97} and module m{i}\n  <!-- id: live-{i} | "
        "created: 2029-12-01 | last_used: 2029-12-01 | uses: 2 | tier: active -->\n"
        for i in range(max(0, live - text.count("<!-- id: ")))
    )
    cont.write_text(text.replace("## Key Decisions\n", "## Key Decisions\n" + body, 1))


def _a_live_fact(root: Path) -> str:
    text = (root / "memory/continuity.md").read_text()
    return text.split("<!-- id: ", 1)[1].split(" ", 1)[0]


def main() -> None:
    args = repo_arguments(runs=7)
    byte_compile()
    with reviewed_repo(args.logs, args.facts) as root:
        widen(root)
        archive(root, 10_000)
        top_up(root, args.facts)
        server = Server(root, str(root), Setting())
        thread = threading.Thread(target=server.serve_forever)
        thread.start()
        port = server.server_address[1]
        cookie = server.guard.set_cookie().split(";")[0]
        paths = {k: v.format(fact=_a_live_fact(root)) for k, v in PAGES.items()}
        status = [*TOOL, "status", str(root)]
        report = [*TOOL, "report", str(root)]
        try:
            sizes = {name: _ask(port, path, cookie)[1] for name, path in paths.items()}
            subprocess.run(status, check=True, capture_output=True)
            took: dict[str, list[float]] = {n: [] for n in ["status", *paths, "report (the CLI)"]}
            for _ in range(args.runs):
                for name, command in (("status", status), ("report (the CLI)", report)):
                    started = time.perf_counter()
                    subprocess.run(command, check=True, capture_output=True)
                    took[name].append(time.perf_counter() - started)
                for name, path in paths.items():
                    took[name].append(_ask(port, path, cookie)[0])
        finally:
            server.shutdown()
            server.server_close()
            thread.join()
    print(f"logs={args.logs} facts={args.facts} archived=10000 runs={args.runs}, run in turn")
    base = statistics.median(took["status"])
    print(f"{'':30} {'wall':>9}   {'/status':>7}   {'bytes':>9}")
    for name, samples in took.items():
        seconds = statistics.median(samples)
        flag = "" if name not in paths or seconds < BUDGET else "  over 300 ms"
        size = f"{sizes[name]:9,}" if name in sizes else ""
        print(f"{name:<30} {seconds:8.4f}s   {seconds / base:6.2f}x   {size}{flag}")


if __name__ == "__main__":
    main()
