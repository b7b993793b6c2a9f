"""A user's prompt as an agent's transcript holds it, without what the agent or a hook put there.

Agents store some text they add themselves as user messages: Claude Code's slash-command echoes
(``<command-name>/exit</command-name>``) and ``<system-reminder>`` blocks after the user's words,
Codex's ``<environment_context>``, Gemini CLI's ``<hook_context>`` (a session-start hook's output,
written before the user's words in the same message). Each is a block wrapped in a tag whose
name holds a ``-`` or a ``_``, which no HTML element's name does; such blocks at the start of a
message, and on lines of their own at its end, are taken off, and what is left is the user's
(HOOKS.md § The first prompt). A tag never closed is the user's text. A slash command keeps what
the person typed, ``/review PR 123``, when it has arguments; alone (``/clear``) it says nothing of
the task. A message that is our session-start view (its title line first), Claude Code's note of
a hook's success or Gemini CLI's of the editor's state is no one's prompt, nor is Claude Code's note
of an interruption (``[Request interrupted by user]``), which starts the message the person typed
next, if any.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from .. import patterns

_OPENING = patterns.compile(r"<([a-z][a-z0-9]{0,31}[-_][a-z0-9_-]{0,31})>")
_CLOSING = patterns.compile(r"</([a-z][a-z0-9]{0,31}[-_][a-z0-9_-]{0,31})>\Z")
_TEXT_PARTS = ("text", "input_text")  # Claude Code's and Codex's; Gemini CLI's parts have no type
_BLOCKS_MAX = 100  # injected blocks taken off one message, at most
VIEW_TITLE = "# Memory context"  # the session-start view's first line (context.TITLE)
# Claude Code's record of a hook's run ("SessionStart:startup hook success: ..."), not the user's.
_HOOK_NOTE = patterns.compile(
    r"(?:SessionStart|SessionEnd|UserPromptSubmit|PreCompact|PreToolUse|PostToolUse|Stop"
    r"|SubagentStop|Notification)(?::[A-Za-z_|*-]{1,40})? hook (?:success|error|blocking error"
    r"|cancelled)(?::|\Z)"
)
# Claude Code's note that the person stopped the agent (Esc), written as a user's message.
_INTERRUPTED = patterns.compile(r"\[Request interrupted by user(?: for tool use)?\][ \t]*(?:\n|\Z)")
# Gemini CLI's note of the editor's state (its IDE mode), recorded as a user's message.
_EDITOR_CONTEXT = patterns.compile(
    r"Here is (?:the user's editor context as a JSON object|a summary of changes in the user's "
    r"editor context, in JSON format)\. This is for your information only\."
)
_COMMAND = patterns.compile(r"<command-name>(/[^<>\s]{1,64})</command-name>")
_ARGS = patterns.compile(r"<command-args>(.*?)</command-args>", re.DOTALL)
# A slash command typed alone (Gemini CLI keeps ``/fix`` as the message's displayContent).
_LONE_COMMAND = patterns.compile(r"/[A-Za-z][A-Za-z0-9_:.-]{0,63}")


def user_text(content: Any) -> str | None:
    """The user's own words in a message's ``content`` (a string, or a list of parts of which
    those with a string ``text`` count), or None when nothing of the user's is left."""
    if isinstance(content, str):
        text = content
    elif isinstance(content, list):
        text = "\n".join(_texts(content))
    else:
        return None
    return _command(text) or _without_injected(text) or None


def _texts(parts: Iterable[Any]) -> Iterable[str]:
    for part in parts:
        if isinstance(part, str):
            yield part
        elif isinstance(part, dict) and part.get("type", "text") in _TEXT_PARTS:
            yield from (text for text in (part.get("text"),) if isinstance(text, str))


def _command(text: str) -> str | None:
    """A slash command with arguments as the person typed it (``/review PR 123``); None for
    any other message, and for a command alone (``/clear``), which says nothing of the task."""
    if "<command-args>" not in text:
        return None
    name, args = _COMMAND.search(text), _ARGS.search(text)
    if name is None or args is None or not args.group(1).strip():
        return None
    return f"{name.group(1)} {args.group(1).strip()}"


def _without_injected(text: str) -> str:
    """``text`` stripped, without Claude Code's note of an interruption and the injected blocks
    it starts with, and those that end it on lines of their own; empty for our view or a hook's
    note."""
    text = text.strip()
    interrupted = _INTERRUPTED.match(text)
    text = text[interrupted.end() :].strip() if interrupted else text
    for _ in range(_BLOCKS_MAX):
        opening = _OPENING.match(text)
        if opening is None:
            break
        close = text.find(f"</{opening.group(1)}>", opening.end())
        if close == -1:
            break
        text = text[close + len(opening.group(1)) + 3 :].strip()
    for _ in range(_BLOCKS_MAX):
        closing = _CLOSING.search(text)
        start = -1 if closing is None else text.rfind(f"<{closing.group(1)}>", 0, closing.start())
        if closing is None or start == -1 or (start and text[start - 1] != "\n"):
            break
        text = text[:start].strip()
    if text.split("\n", 1)[0].rstrip() == VIEW_TITLE or _HOOK_NOTE.match(text):
        return ""
    if _EDITOR_CONTEXT.match(text):
        return ""
    if _LONE_COMMAND.fullmatch(text):  # a command alone says nothing of the task
        return ""
    return text
