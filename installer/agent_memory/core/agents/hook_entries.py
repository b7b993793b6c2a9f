"""The entries ``hooks install`` writes into each agent's settings, and the ones 5.0.0 wrote.

One command per event (``agent-memory hook session-start``, …) and nothing else: no variable,
no ``;``, no redirection, so the same entry runs under sh (Claude Code; Codex's ``$SHELL -lc``),
cmd.exe (Codex on Windows) and PowerShell (Gemini CLI on Windows). The command finds the repo
from the payload's ``cwd`` and prints only what the agent reads. Each timeout is the one the
agent applies to that event (HOOKS.md § Hooks per agent): Codex clamps a session-end hook to
3 s; Claude Code gives session-end hooks 1.5 s together unless a hook's ``timeout`` raises it;
Gemini CLI counts milliseconds.
"""

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

COMMAND = "agent-memory"  # committed settings name the bare command: they are shared
SESSION_START, PRE_COMPACT = "session-start", "pre-compact"
SESSION_END, PROMPT = "session-end", "prompt"


class AgentHooks(NamedTuple):
    path: str  # the settings file, relative to the repo
    events: Mapping[str, dict[str, Any]]  # the agent's event -> the matcher group we add
    optional: frozenset[str]  # events installed only when asked (--prompt-recall)
    legacy: Mapping[str, dict[str, Any]]  # the agent's event -> the group 5.0.0 added
    subcommands: Mapping[str, str]  # the agent's event -> ``hook`` subcommand


def command(subcommand: str) -> str:
    return f"{COMMAND} hook {subcommand}"


def _group(command: str, timeout: int, **extra: str) -> dict[str, Any]:
    return {"hooks": [{"type": "command", **extra, "command": command, "timeout": timeout}]}


def _agent(
    path: str, events: tuple[tuple[str, str, int], ...], named: bool, legacy: tuple[str, int]
) -> AgentHooks:
    """``events``: (the agent's event, our subcommand, timeout) in install order, the prompt
    hook last; ``legacy``: how 5.0.0 named the project folder, and its timeout."""

    def extra(sub: str) -> dict[str, str]:
        return {"name": f"{COMMAND}-{sub}"} if named else {}

    groups = {event: _group(command(sub), timeout, **extra(sub)) for event, sub, timeout in events}
    optional = frozenset(event for event, sub, _ in events if sub == PROMPT)
    project, seconds = legacy
    start = f"agent-memory review --if-due {project} >&2; agent-memory context --hook {project}"
    end = f"agent-memory session capture --hook {project} >&2"
    old = {"name": "agent-memory"} if named else {}
    olds = (start, end, end)
    ends = {
        event: _group(text, seconds, **old)
        for (event, _, _), text in zip(events, olds, strict=False)
    }
    subs = {event: sub for event, sub, _ in events}
    return AgentHooks(path, groups, optional, ends, MappingProxyType(subs))


def _agents() -> Mapping[str, AgentHooks]:
    def events(compact: str, prompt: str, end: int, scale: int) -> tuple[tuple[str, str, int], ...]:
        return (
            ("SessionStart", SESSION_START, 30 * scale),
            (compact, PRE_COMPACT, 30 * scale),
            ("SessionEnd", SESSION_END, end * scale),
            (prompt, PROMPT, 10 * scale),
        )

    return MappingProxyType(
        {
            "claude": _agent(
                ".claude/settings.json",
                events("PreCompact", "UserPromptSubmit", 10, 1),
                False,
                ('"${CLAUDE_PROJECT_DIR:-.}"', 30),
            ),
            "codex": _agent(
                ".codex/hooks.json",
                events("PreCompact", "UserPromptSubmit", 3, 1),
                False,
                (".", 30),
            ),
            "gemini": _agent(  # Gemini counts timeouts in milliseconds
                ".gemini/settings.json",
                events("PreCompress", "BeforeAgent", 10, 1000),
                True,
                ('"${GEMINI_PROJECT_DIR:-.}"', 30000),
            ),
        }
    )


AGENTS = _agents()
