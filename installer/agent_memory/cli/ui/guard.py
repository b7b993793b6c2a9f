"""Who may ask the server anything: the rules a request passes before any page is made.

The server listens on the loopback address, which every user and every web page of the machine
can reach. So a request's path must begin with the random token (``/TOKEN/``: a capability
address, every link of a page relative to it). Not a cookie: a browser sends a cookie of
127.0.0.1 to every port of it, so another local server the user visits would get the token, and
a second ``ui`` would overwrite the first's. Its ``Host`` must be the address served, so a name
rebound to 127.0.0.1 by a hostile page gets nothing (DNS rebinding); a write is a POST whose
``Origin`` (or ``Referer``) is the server itself and which carries a token issued with the page
that holds its form: one token per page, shared by its forms and good only for the address
they post to; a preview writes nothing, so its token serves every preview of that page, and an
apply's (issued with the preview) is good once.
"""

from __future__ import annotations

import hmac
import secrets
import threading
from collections import OrderedDict
from collections.abc import Mapping

ISSUED_MOST = 2048  # form tokens kept, one per page rendered; the oldest goes first
POLICY = (
    "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
    "frame-ancestors 'none'; base-uri 'none'"
)
HEADERS: Mapping[str, str] = {
    "Content-Security-Policy": POLICY,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
    "Cross-Origin-Resource-Policy": "same-origin",
}


class Guard:
    """The secret of one server, the address it serves, and the form tokens it issued."""

    def __init__(self, host: str, port: int, token: str | None = None) -> None:
        self.token = token or secrets.token_urlsafe(32)
        self.authority = f"{host}:{port}"
        self.origin = f"http://{self.authority}"
        self.home = f"{self.origin}/{self.token}/"  # the address to open: every page is under it
        self._issued: OrderedDict[str, str] = OrderedDict()  # each token, the path it posts to
        self._lock = threading.Lock()

    def host_ok(self, host: str | None) -> bool:
        return host == self.authority

    def token_ok(self, given: str | None) -> bool:
        return given is not None and hmac.compare_digest(given.encode(), self.token.encode())

    def inside(self, path: str) -> str | None:
        """The page ``path`` asks for under the token's prefix (``/TOKEN/inbox``: ``/inbox``), or
        None when it does not begin with the token."""
        head, slash, rest = path.removeprefix("/").partition("/")
        return f"/{rest}" if slash and self.token_ok(head) else None

    def same_origin(self, origin: str | None, referer: str | None) -> bool:
        """A write comes from a page of this server: its Origin says so, or, from a browser
        that sends none, its Referer."""
        if origin is not None:
            return origin == self.origin
        return referer is not None and referer.startswith(f"{self.origin}/")

    def issue(self, action: str) -> str:
        """The token of one page's forms, which post to ``action``."""
        made = secrets.token_urlsafe(24)
        with self._lock:
            self._issued[made] = action
            while len(self._issued) > ISSUED_MOST:
                self._issued.popitem(last=False)
        return made

    def redeem(self, given: str | None, action: str, once: bool) -> bool:
        """Whether ``given`` was issued for forms posting to ``action`` (and, when ``once``, is
        used now)."""
        if not given:
            return False
        with self._lock:
            if self._issued.get(given) != action:
                return False
            if once:
                del self._issued[given]
            return True
