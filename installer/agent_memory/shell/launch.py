"""The page the browser is opened on: it sends the browser on to the server's address, so that
the address's token is never an argument of a process. ``webbrowser.open(address)`` would put it
in the browser's command line, which every user of the machine reads (``/proc/PID/cmdline``) for
as long as the browser runs. As Jupyter does: a file only the user may read, in a folder only the
user may enter, opened by its ``file://`` address and removed when the server stops.
"""

from __future__ import annotations

import contextlib
import html
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from .files import write_all

PAGE = "open.html"


def redirect_html(address: str) -> bytes:
    """A page that goes on to ``address`` at once, without a script (a link if it does not)."""
    shown = html.escape(address, quote=True)
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="refresh" content="0;url={shown}">'
        '<meta name="referrer" content="no-referrer"><title>agent-memory ui</title></head>'
        f'<body><p><a href="{shown}">Open the memory</a></p></body></html>\n'
    ).encode()


@contextlib.contextmanager
def redirect_page(address: str) -> Iterator[Path]:
    """A private page (0600, in a fresh 0700 folder) sending the browser on to ``address``,
    removed with its folder when the block ends."""
    folder = Path(tempfile.mkdtemp(prefix="agent-memory-ui-"))  # 0700, made for us alone
    try:
        page = folder / PAGE
        fd = os.open(page, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        try:
            write_all(fd, redirect_html(address))
        finally:
            os.close(fd)
        yield page
    finally:
        shutil.rmtree(folder, ignore_errors=True)
