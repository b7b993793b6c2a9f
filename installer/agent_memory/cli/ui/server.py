"""The HTTP server: the standard library's, one thread per connection, on the loopback address.

``ThreadingHTTPServer`` because a browser holds connections open (keep-alive, and the ones it
opens ahead of need), which would stall a server answering one at a time; the memory is read
afresh on every request, and two writes meet at the repo's lock as two command line runs do.
On Ctrl-C the answers under way are waited for, so a write that has started finishes its plan
(no journal or lock is left behind), and connections left idle are not.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Callable, Iterator
from functools import partial
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from ...commands.report import Report, Result
from ...commands.runner import Call, Command, Journal, answer
from .actions import Setting
from .browse import Body, fact_page, memory_page
from .changes import apply_page, preview_page
from .guard import HEADERS, Guard
from .health import health_page
from .html import ASSETS, e, page
from .inbox import inbox_page
from .kept import Kept

HOST = "127.0.0.1"
# Each page: the pages that read refuse while a journal waits (``browse.opened``), and each
# change's own line applies the journal rule of a writing command.
PAGE = Command("ui", Journal.OWN)
BODY_MOST = 64 * 1024  # a form's body; a fact's text is at most 4,000 characters


class Server(ThreadingHTTPServer):
    # A connection a browser keeps open idle is not waited for; a request being answered is
    # (``working``, ``server_close``).
    daemon_threads = True
    block_on_close = False

    def __init__(self, root: Path, shown: str, setting: Setting, port: int = 0) -> None:
        self._busy = 0  # before binding: a port taken closes the server at once
        self._closing = False
        self._idle = threading.Condition()
        super().__init__((HOST, port), Handler)
        self.root = root
        self.shown = shown
        self.setting = setting
        self.guard = Guard(HOST, self.server_address[1])
        self.kept = Kept()  # health's report, worked out in the background

    @contextlib.contextmanager
    def working(self) -> Iterator[bool]:
        """Around the answer to one request; False once the server is closing (answer nothing)."""
        with self._idle:
            if self._closing:
                yield False
                return
            self._busy += 1
        try:
            yield True
        finally:
            with self._idle:
                self._busy -= 1
                self._idle.notify_all()

    def server_close(self) -> None:
        """Stop taking connections and requests, then wait for the answers under way: a change
        that has started finishes its plan, so no journal or lock is left behind."""
        super().server_close()
        with self._idle:
            self._closing = True
            self._idle.wait_for(lambda: self._busy == 0)

    def handle_error(self, request: object, client_address: object) -> None:
        """A browser that closed its connection early is no error; anything else is one line
        on stderr, never a traceback."""
        failed = sys.exc_info()[1]
        if not isinstance(failed, ConnectionError):
            print(f"agent-memory ui: a request failed: {failed!r}", file=sys.stderr, flush=True)

    @property
    def address(self) -> str:
        """The address to open: the token is its first folder, every page under it."""
        return self.guard.home


class Handler(BaseHTTPRequestHandler):
    server: Server
    protocol_version = "HTTP/1.1"
    timeout = 60  # an idle connection is closed: it holds a thread

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: the terminal shows the address and nothing a page asked."""

    def do_GET(self) -> None:
        url = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        path = self._allowed(url.path)
        if path is None:
            return
        if path in ASSETS:  # the only files served: the page's own, held in code
            self._send(HTTPStatus.OK, *ASSETS[path])
            return
        setting, root = self.server.setting, self.server.root
        issue = partial(self.server.guard.issue, "/preview")  # one token per page, for its forms
        pages: dict[str, tuple[str, Callable[[], Body]]] = {
            "/": ("Memory", lambda: memory_page(root, query.get("q", ""), query.get("filter", ""))),
            "/fact": (
                f"Fact {query.get('id', '')}",
                lambda: fact_page(root, query.get("id", ""), setting, issue),
            ),
            "/inbox": ("Inbox", lambda: inbox_page(root, setting, issue)),
            "/health": ("Health", lambda: health_page(root, setting, self.server.kept)),
        }
        if path not in pages:
            self._refuse(HTTPStatus.NOT_FOUND, "no such page")
            return
        self._render(*pages[path])

    def do_POST(self) -> None:
        path = self._allowed(urlsplit(self.path).path)
        if path is None:
            return
        guard = self.server.guard
        if not guard.same_origin(self.headers.get("Origin"), self.headers.get("Referer")):
            self._refuse(HTTPStatus.FORBIDDEN, "a change must come from a page of this server")
            return
        if self.server.setting.read_only:
            self._refuse(HTTPStatus.FORBIDDEN, "served with --read-only: no change is taken")
            return
        form = self._form()
        if form is None:
            return
        if path not in ("/preview", "/apply"):
            self._refuse(HTTPStatus.NOT_FOUND, "no such action")
            return
        if not guard.redeem(form.get("csrf"), path, once=path == "/apply"):
            self._refuse(HTTPStatus.FORBIDDEN, "this form has expired; reload its page")
            return
        root, setting = self.server.root, self.server.setting
        if path == "/preview":
            issue = partial(guard.issue, "/apply")
            self._render("Preview", lambda: preview_page(root, form, setting, issue))
        else:
            self._render("Applied", lambda: apply_page(root, form, setting))

    def _allowed(self, path: str) -> str | None:
        """The Host and the token, checked before anything else: the page asked for under the
        token's prefix, or None (refused; the token without its slash is sent on to the home)."""
        guard = self.server.guard
        if not guard.host_ok(self.headers.get("Host")):
            self._refuse(HTTPStatus.FORBIDDEN, "wrong Host: open the address the server printed")
            return None
        inside = guard.inside(path)
        if inside is None and guard.token_ok(path.removeprefix("/")):
            self.send_response(HTTPStatus.SEE_OTHER)
            self.send_header("Location", f"/{guard.token}/")
            self._close_headers(0)
            return None
        if inside is None:
            self._refuse(HTTPStatus.FORBIDDEN, "no token: open the address the server printed")
        return inside

    def _form(self) -> dict[str, str] | None:
        kind = self.headers.get("Content-Type", "").split(";")[0].strip()
        try:
            size = int(self.headers.get("Content-Length", ""))
        except ValueError:
            size = -1
        if kind != "application/x-www-form-urlencoded" or not 0 <= size <= BODY_MOST:
            self._refuse(HTTPStatus.BAD_REQUEST, "a form was expected")
            return None
        raw = self.rfile.read(size).decode("utf-8", errors="replace")
        return {k: v[0] for k, v in parse_qs(raw, keep_blank_values=True).items()}

    def _render(self, title: str, make: Callable[[], Body]) -> None:
        """The page ``make`` builds, run by the runner as a command is: an error it raises is
        the one line the command line would print, shown on the page."""
        call = Call(lambda _repo: Result(Report("ui", "", "shown", heading=tuple(make())), 0))
        with self.server.working() as open_:
            if not open_:
                self._refuse(HTTPStatus.SERVICE_UNAVAILABLE, "the server is stopping")
                return
            said = answer(PAGE, self.server.root, call, as_json=False)
        status, body = HTTPStatus.OK, list(said.result.report.heading) if said.result else []
        if said.error is not None:
            status, body = (
                HTTPStatus.UNPROCESSABLE_ENTITY,
                [f'<div class="error">{e(said.err)}</div>'],
            )
        shown = page(title, body, repo=self.server.shown, read_only=self.server.setting.read_only)
        self._send(status, shown, "text/html; charset=utf-8")

    def _refuse(self, status: HTTPStatus, why: str) -> None:
        self.close_connection = True  # a body left unread must not be read as the next request
        self._send(status, f"{why}\n".encode(), "text/plain; charset=utf-8")

    def _send(self, status: HTTPStatus, data: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self._close_headers(len(data))
        self.wfile.write(data)

    def _close_headers(self, length: int) -> None:
        self.send_header("Content-Length", str(length))
        self.end_headers()

    def end_headers(self) -> None:
        """Every answer carries the policy and the other headers, the standard library's own
        error pages too (a bad request line, a method it does not serve)."""
        for name, value in HEADERS.items():
            self.send_header(name, value)
        super().end_headers()
