"""The frame every page shares, its one style sheet, and the escaping every repo text goes
through: a page is made of these and of text passed to ``e``, nothing else."""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping
from urllib.parse import urlencode

from ...parse.untrusted import shown

STYLE = b"""\
body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
header{background:#1d2330;color:#fff;padding:.6em 1.2em;display:flex;gap:1.4em;align-items:center}
header a{color:#cfe0ff;text-decoration:none}header strong{color:#fff}
main{max-width:72em;margin:0 auto;padding:1em 1.2em}
h1{font-size:1.35em}h2{font-size:1.1em;margin-top:1.6em}h3{font-size:1em;margin:1.2em 0 .3em}
.fact{background:#fff;border:1px solid #dde1e8;border-radius:6px;padding:.5em .8em;margin:.4em 0}
.fact p{margin:.2em 0}.meta{color:#5b6475;font-size:.85em}
.tier{display:inline-block;border-radius:3px;padding:0 .4em;font-size:.8em;background:#e8ecf3}
.tier-core{background:#ffe9b3}.tier-active{background:#d5f2dc}.tier-working{background:#dbe8ff}
.tier-reference{background:#eee}.tier-superseded,.tier-retracted{background:#f6d5d5}
pre{background:#fff;border:1px solid #dde1e8;padding:.6em;overflow:auto;white-space:pre-wrap}
.diff{font:13px/1.35 ui-monospace,monospace}
form.inline{display:inline-block;margin:.2em .4em .2em 0}
form.action{background:#fff;border:1px solid #dde1e8;border-radius:6px;padding:.5em .8em;
margin:.4em 0}
input[type=text],textarea{font:inherit;width:100%;box-sizing:border-box}
button{font:inherit;padding:.2em .8em;cursor:pointer}
button[disabled]{cursor:not-allowed}
.notice{background:#fff7d6;border:1px solid #ecd98b;padding:.5em .8em;border-radius:6px}
.error{background:#fde2e2;border:1px solid #e9a5a5;padding:.5em .8em;border-radius:6px}
table{border-collapse:collapse;background:#fff}td,th{border:1px solid #dde1e8;padding:.2em .6em}
nav.filters a{margin-right:.8em}
.diff .add{background:#dcf5e1}.diff .del{background:#fbe0e0}
"""

ICON = (
    b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16">'
    b'<rect width="16" height="16" rx="3" fill="#1d2330"/>'
    b'<path d="M4 11V5h2l2 3 2-3h2v6" stroke="#cfe0ff" fill="none"/></svg>'
)
ASSETS = {"/style.css": (STYLE, "text/css; charset=utf-8"), "/icon.svg": (ICON, "image/svg+xml")}
PAGES = (("/", "Memory"), ("/inbox", "Inbox"), ("/health", "Health"))


def e(text: object) -> str:
    """Any text from the repo (or from a request), as inert HTML: each control character a
    terminal would obey written as the command line shows it (``\\x00``), never sent raw."""
    return html.escape(shown(str(text)), quote=True)


def link(path: str, query: Mapping[str, str] | None = None) -> str:
    """An address of this server, relative and escaped for an attribute: every page sits right
    under the token's prefix (``/TOKEN/fact``), so a relative link stays under it."""
    where = path.removeprefix("/") or "./"
    return e(f"{where}?{urlencode(query)}" if query else where)


def page(title: str, body: Iterable[str], *, repo: str, read_only: bool) -> bytes:
    """A whole page: the header's links, ``body`` (already escaped), no script."""
    nav = "".join(f'<a href="{link(p)}">{e(name)}</a>' for p, name in PAGES)
    mode = '<span class="meta">read-only</span>' if read_only else ""
    text = (
        "<!doctype html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<title>{e(title)} · agent-memory</title><link rel="stylesheet" href="style.css">'
        '<link rel="icon" href="icon.svg"></head><body>'
        f"<header><strong>agent-memory</strong> <span>{e(repo)}</span>{nav}{mode}</header>"
        f"<main><h1>{e(title)}</h1>{''.join(body)}</main></body></html>\n"
    )
    return text.encode("utf-8")


def form(
    action: str, token: str, fields: Iterable[str], button: str, *, hidden: Mapping[str, str]
) -> str:
    """A POST form carrying its page's token and ``hidden`` values; ``fields`` already HTML."""
    kept = "".join(
        f'<input type="hidden" name="{e(k)}" value="{e(v)}">'
        for k, v in {**hidden, "csrf": token}.items()
    )
    return (
        f'<form class="action" method="post" action="{link(action)}">{kept}{"".join(fields)}'
        f"<button>{e(button)}</button></form>"
    )


def text_field(name: str, label: str, value: str = "", *, area: bool = False) -> str:
    if area:
        return f'<label>{e(label)}<textarea name="{e(name)}" rows="4">{e(value)}</textarea></label>'
    return f'<label>{e(label)} <input type="text" name="{e(name)}" value="{e(value)}"></label>'


def diff(text: str) -> str:
    """A plan's lines and unified diff, each added or removed line marked for its colour."""
    lines = []
    pieces = text.split("\n")
    for n, line in enumerate(pieces):
        end = "\r" if n < len(pieces) - 1 and line.endswith("\r") else ""  # a CRLF end, as ``e``
        shown = e(line.removesuffix(end)) + end
        kind = "" if line.startswith(("+++", "---")) else {"+": "add", "-": "del"}.get(line[:1], "")
        lines.append(f'<span class="{kind}">{shown}</span>' if kind else shown)
    return f'<pre class="diff">{chr(10).join(lines)}</pre>'


def pre(text: str, cls: str = "") -> str:
    return f'<pre class="{e(cls)}">{e(text)}</pre>' if text else ""
