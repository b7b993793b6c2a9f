"""Codex's ``apply_patch``: the files a patch names (HOOKS.md § Transcripts).

Codex runs a patch as its own tool, or through any of its shell tools, where it intercepts the
``apply_patch`` command; either way the patch's text names each file on a line of its own.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable
from typing import Any

from .. import patterns

_PATCH_FILE = patterns.compile(
    r"^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+?)\s*$", re.M
)


def patch_files(texts: Iterable[str]) -> tuple[str, ...]:
    """The files a patch in ``texts`` adds, updates, deletes or moves to, as it names them."""
    return tuple(m.group(1) for text in texts for m in _PATCH_FILE.finditer(text))


def shell_patch_files(texts: tuple[str, ...], workdir: Any) -> tuple[str, ...]:
    """Codex intercepts ``apply_patch`` run through any of its shell tools (``shell``'s argv,
    ``exec_command``'s ``cmd``, a heredoc): the files of a patch in any of the call's strings,
    in the call's own ``workdir`` when it names an absolute one (else the session's cwd)."""
    if not any("*** Begin Patch" in text for text in texts):
        return ()
    if not isinstance(workdir, str) or not workdir.startswith("/"):
        return patch_files(texts)
    return tuple(posixpath.join(workdir, path) for path in patch_files(texts))
