"""How this very tool was installed, so that a hint names an install that works from where the
user got it (README § Install: a clone, with pipx, uv or a venv's pip), never a package name no
registry holds.

pip records where a package came from in ``direct_url.json`` (PEP 610): a folder, an archive or
a VCS URL. Without that record the tool came from a package index, and its name is the way.
"""

import json
import shlex
import sys
from pathlib import PurePosixPath
from typing import NamedTuple
from urllib.parse import unquote, urlsplit

_NAME = "agent-memory"


class Origin(NamedTuple):
    """Where the tool was installed from (None: a package index) and how."""

    source: str | None  # a folder or archive path, or a URL pip takes after "name @"
    editable: bool = False


def origin() -> Origin:
    """This install's origin, as its metadata records it."""
    # Imported here: importlib.metadata costs tens of ms, paid only when a hint is shown.
    import importlib.metadata

    try:
        text = importlib.metadata.distribution(_NAME).read_text("direct_url.json")
        record = json.loads(text) if text else None
    except (importlib.metadata.PackageNotFoundError, ValueError, OSError):
        return Origin(None)
    if not isinstance(record, dict) or not isinstance(url := record.get("url"), str) or not url:
        return Origin(None)
    info = record.get("dir_info")
    editable = isinstance(info, dict) and info.get("editable") is True
    parts = urlsplit(url)
    if parts.scheme == "file":
        return Origin(unquote(parts.path), editable)
    vcs = record.get("vcs_info")
    if isinstance(vcs, dict) and isinstance(vcs.get("vcs"), str):
        return Origin(f"{vcs['vcs']}+{url}")
    return Origin(url)


def install_command(extra: str | None, found: Origin) -> str:
    """The command that installs the tool (with ``extra``) the way it was installed here."""
    wanted = f"[{extra}]" if extra else ""
    if found.source is None:
        spec = f"{_NAME}{wanted}"
    elif found.source.startswith("/"):
        spec = f"{found.source}{wanted}"
    else:
        spec = f"{_NAME}{wanted} @ {found.source}"
    spec = ("-e " if found.editable else "") + shlex.quote(spec)
    venv = PurePosixPath(sys.prefix).parts
    if "pipx" in venv and "venvs" in venv:
        return f"pipx install --force {spec}"
    if "uv" in venv and "tools" in venv:
        return f"uv tool install --force {spec}"
    return f"{shlex.quote(sys.executable)} -m pip install {spec}"


def sdk_hint() -> str:
    """How to add the MCP extra to this install."""
    return f"install the mcp extra: {install_command('mcp', origin())}"


def path_hint() -> str:
    """How to make the tool resolve on PATH for an agent: link this install's command."""
    command = shlex.quote(str(PurePosixPath(sys.executable).parent / _NAME))
    return f"put it on PATH where the agent runs: ln -s {command} ~/.local/bin/ (README § Install)"
