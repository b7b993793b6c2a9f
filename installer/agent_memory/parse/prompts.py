"""A user's prompt as an agent's transcript holds it, without what the agent or a hook put there.

Agents store some text they add themselves as user messages: Claude Code's slash-command echoes
(``<command-name>/exit</command-name>``), Codex's ``<environment_context>``, Gemini CLI's
``<hook_context>`` (a session-start hook's output, written before the user's words in the same
message). Each is a block wrapped in a tag whose name holds a ``-`` or a ``_``, which no HTML
element's name does; such blocks at the start of a message are taken off, and what is left is
the user's (HOOKS.md § The first prompt). A tag never closed is the user's text.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .. import patterns

_OPENING = patterns.compile(r"<([a-z][a-z0-9]{0,31}[-_][a-z0-9_-]{0,31})>")
_TEXT_PARTS = ("text", "input_text")  # Claude Code's and Codex's; Gemini CLI's parts have no type
_BLOCKS_MAX = 100  # injected blocks taken off one message, at most


def user_text(content: Any) -> str | None:
    """The user's own words in a message's ``content`` (a string, or a list of parts of which
    those with a string ``text`` count), or None when nothing of the user's is left."""
    if isinstance(content, str):
        text = content
    elif isinstance(content, list):
        text = "\n".join(_texts(content))
    else:
        return None
    return _without_injected(text) or None


def _texts(parts: Iterable[Any]) -> Iterable[str]:
    for part in parts:
        if isinstance(part, str):
            yield part
        elif isinstance(part, dict) and part.get("type", "text") in _TEXT_PARTS:
            yield from (text for text in (part.get("text"),) if isinstance(text, str))


def _without_injected(text: str) -> str:
    """``text`` stripped, and without the injected blocks it starts with."""
    text = text.strip()
    for _ in range(_BLOCKS_MAX):
        opening = _OPENING.match(text)
        if opening is None:
            break
        close = text.find(f"</{opening.group(1)}>", opening.end())
        if close == -1:
            break
        text = text[close + len(opening.group(1)) + 3 :].strip()
    return text
