"""The agents' own files in the user's home, read for ``doctor``: never written, bounded, and a
file that cannot be read is "no answer", never a traceback.

Codex keeps a project's trust and its hooks' review in ``$CODEX_HOME/config.toml`` (default
``~/.codex``); Gemini CLI keeps trusted folders in ``~/.gemini/trustedFolders.json``
(``GEMINI_CLI_TRUSTED_FOLDERS_PATH``; ``GEMINI_CLI_HOME`` for the home) and turns the check
off with ``security.folderTrust.enabled: false`` in ``~/.gemini/settings.json``.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..core.agents import jsontext
from ..errors import AgentMemoryError
from .files import read_regular

if sys.version_info >= (3, 11):
    import tomllib
else:  # the same parser, before it joined the standard library
    import tomli as tomllib  # type: ignore[import-not-found]  # absent where mypy runs

_MOST = 1 << 20  # bytes of an agent's own file read at most: they hold kilobytes


def codex_config(env: Mapping[str, str]) -> dict[str, Any] | None:
    """Codex's user config, parsed; None when absent or unreadable."""
    home = Path(env["CODEX_HOME"]) if env.get("CODEX_HOME") else _home(env) / ".codex"
    text = _text(home / "config.toml")
    if text is None:
        return None
    try:
        found: dict[str, Any] = tomllib.loads(text)
    except (ValueError, RecursionError):  # not TOML, an endless integer, nesting too deep
        return None
    return found


def gemini_trust(folder: Path, env: Mapping[str, str]) -> tuple[bool | None, str]:
    """Whether Gemini CLI trusts ``folder``, as its own rule decides, and why."""
    forced = env.get("GEMINI_CLI_TRUST_WORKSPACE")
    if forced in ("true", "false"):
        return forced == "true", f"GEMINI_CLI_TRUST_WORKSPACE={forced}"
    home = Path(env["GEMINI_CLI_HOME"]) if env.get("GEMINI_CLI_HOME") else _home(env)
    settings = _json(home / ".gemini" / "settings.json")
    security = settings.get("security") if isinstance(settings, dict) else None
    trust = security.get("folderTrust") if isinstance(security, dict) else None
    if isinstance(trust, dict) and trust.get("enabled") is False:
        return True, "folder trust is off in ~/.gemini/settings.json"
    where = env.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH") or str(home / ".gemini/trustedFolders.json")
    rules = _json(Path(where))
    return _longest_rule(folder, rules if isinstance(rules, dict) else {}, where)


def _longest_rule(folder: Path, rules: Mapping[str, Any], where: str) -> tuple[bool | None, str]:
    """Gemini CLI's rule: the longest rule path that holds the folder decides (``TRUST_PARENT``
    trusts the rule's parent folder)."""
    real = _real(folder)
    best, level = -1, None
    for path, value in rules.items():
        if value not in ("TRUST_FOLDER", "TRUST_PARENT", "DO_NOT_TRUST"):
            continue
        effective = _real(Path(path).parent if value == "TRUST_PARENT" else Path(path))
        if (effective == real or effective in real.parents) and len(path) > best:
            best, level = len(path), value
    if level is None:
        return None, f"no rule for it in {where}"
    return level != "DO_NOT_TRUST", f"{level} in {where}"


def _real(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path.absolute()


def _home(env: Mapping[str, str]) -> Path:
    return Path(env.get("HOME") or Path("~").expanduser())


def _text(path: Path) -> str | None:
    try:
        data = read_regular(path, str(path), limit=_MOST)
        return data.decode("utf-8") if data is not None else None
    except (AgentMemoryError, OSError, UnicodeDecodeError, ValueError):
        return None


def _json(path: Path) -> object:
    """The JSON (with comments, as both agents allow) of ``path``; None when it cannot be read."""
    text = _text(path)
    if text is None:
        return None
    try:
        doc = jsontext.load(text)
        return jsontext.value(doc, jsontext.parse(doc))
    except (jsontext.BadJSON, RecursionError, ValueError):
        return None
