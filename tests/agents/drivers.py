"""How each agent is set up and run headless: its user-level files, its flags, its session id,
and where its transcript is.

What a user does once by hand is done here the same way, in the temporary HOME: Claude Code's
approval of the project's MCP server, Codex's trust of the project and review of its hooks
(``/hooks``), Gemini CLI's trusted folder. The repo's own files are what ``agent-memory enable``,
``hooks install`` and ``mcp install`` wrote; nothing here edits them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path

from agents.launch import Agent, Run, base_env, codex_hooks, new_session_id, run, write_json

FAKE_KEY = "e2e-fake-key-not-a-secret"
COMPACT_AT = 50_000  # Codex: compact once a prompt is this large (the script's heavy step)
HEAVY = 950_000  # a prompt size past every agent's compaction threshold (Gemini: half of 1M)


class Driver:
    """One agent in one sandbox: ``home`` is its HOME, ``url`` the scripted model."""

    agent: Agent
    compacts_on_command = False  # Claude Code: `/compact`; the others compact on a large prompt

    def __init__(self, agent: Agent, binary: Path, home: Path, url: str) -> None:
        self.agent, self.binary, self.home, self.url = agent, binary, home, url

    def env(self) -> dict[str, str]:
        return base_env(self.home)

    def prepare(self, repo: Path) -> None:
        """The user's one-time set-up for ``repo``, in HOME."""

    def start(self, prompt: str, cwd: Path) -> tuple[Run, str]:
        """A new session; the run and its session id."""
        raise NotImplementedError

    def resume(self, session: str, prompt: str, cwd: Path) -> Run:
        raise NotImplementedError

    def compact(self, session: str, cwd: Path) -> Run:
        raise NotImplementedError

    def transcripts(self) -> list[Path]:
        """The session transcripts the agent wrote under HOME."""
        raise NotImplementedError

    def invoke(self, argv: list[str], cwd: Path) -> Run:
        """The agent's command line with ``argv``, as the user types it (``claude mcp list``)."""
        return run([str(self.binary), *argv], cwd, self.env())


class Claude(Driver):
    compacts_on_command = True

    def env(self) -> dict[str, str]:
        return {
            **base_env(self.home),
            "ANTHROPIC_BASE_URL": self.url,
            "ANTHROPIC_API_KEY": FAKE_KEY,
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_ERROR_REPORTING": "1",
            "CLAUDE_CODE_MAX_RETRIES": "1",
        }

    def prepare(self, repo: Path) -> None:
        # The answer to "use the MCP servers in this project's .mcp.json?"
        write_json(
            self.home / ".claude" / "settings.json", {"enabledMcpjsonServers": ["agent-memory"]}
        )

    def _argv(self, prompt: str) -> list[str]:
        allowed = (
            "Agent Bash Write mcp__agent-memory__memory_recall mcp__agent-memory__memory_reference"
        )
        return ["-p", prompt, "--output-format", "json", "--allowedTools", allowed]

    def start(self, prompt: str, cwd: Path) -> tuple[Run, str]:
        session = new_session_id()
        return self.invoke([*self._argv(prompt), "--session-id", session], cwd), session

    def resume(self, session: str, prompt: str, cwd: Path) -> Run:
        return self.invoke([*self._argv(prompt), "--resume", session], cwd)

    def compact(self, session: str, cwd: Path) -> Run:
        return self.resume(session, "/compact", cwd)

    def transcripts(self) -> list[Path]:
        return sorted((self.home / ".claude" / "projects").glob("*/*.jsonl"))


class Codex(Driver):
    review_hooks = True  # False: the project is trusted, its hooks were never reviewed

    @property
    def codex_home(self) -> Path:
        return self.home / ".codex"

    def env(self) -> dict[str, str]:
        return {**base_env(self.home), "CODEX_HOME": str(self.codex_home), "E2E_API_KEY": FAKE_KEY}

    def prepare(self, repo: Path) -> None:
        config = self.codex_home / "config.toml"
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text(
            'model = "e2e-model"\n'
            'model_provider = "e2e"\n'
            f"model_auto_compact_token_limit = {COMPACT_AT}\n"
            "check_for_update_on_startup = false\n"
            "[analytics]\nenabled = false\n"
            "[model_providers.e2e]\n"
            'name = "e2e"\n'
            f'base_url = "{self.url}/v1"\n'
            'wire_api = "responses"\n'
            'env_key = "E2E_API_KEY"\n'
            "request_max_retries = 0\n"
            "stream_max_retries = 0\n"
            f"[projects.{json.dumps(str(repo))}]\n"
            'trust_level = "trusted"\n'
        )
        if self.review_hooks:
            self.trust_hooks(repo)

    def trust_hooks(self, repo: Path) -> None:
        """What the user's review in /hooks records: each hook's hash, as Codex computes it."""
        config = self.codex_home / "config.toml"
        hooks = codex_hooks(self.binary, self.env(), repo)
        with config.open("a") as out:
            for hook in hooks:
                out.write(f"[hooks.state.{json.dumps(hook['key'])}]\n")
                out.write(f"trusted_hash = {json.dumps(hook['currentHash'])}\n")

    _FLAGS = ("--json", "--dangerously-bypass-approvals-and-sandbox", "--skip-git-repo-check")

    def start(self, prompt: str, cwd: Path) -> tuple[Run, str]:
        done = self.invoke(["exec", *self._FLAGS, prompt], cwd)
        return done, _codex_thread(done)

    def resume(self, session: str, prompt: str, cwd: Path) -> Run:
        return self.invoke(["exec", *self._FLAGS, "resume", session, prompt], cwd)

    def transcripts(self) -> list[Path]:
        return sorted((self.codex_home / "sessions").glob("*/*/*/rollout-*.jsonl"))


def _codex_thread(done: Run) -> str:
    for line in done.stdout.splitlines():
        if '"thread.started"' in line:
            return str(json.loads(line).get("thread_id", ""))
    return ""


class Gemini(Driver):
    MODEL = "gemini-2.5-flash"  # named, so the CLI does not ask a router model first

    def env(self) -> dict[str, str]:
        return {
            **base_env(self.home),
            "GEMINI_API_KEY": FAKE_KEY,
            "GOOGLE_GEMINI_BASE_URL": self.url,
        }

    def prepare(self, repo: Path) -> None:
        settings = {
            "security": {"auth": {"selectedType": "gemini-api-key"}},
            "privacy": {"usageStatisticsEnabled": False},
            "telemetry": {"enabled": False},
            "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
        }
        write_json(self.home / ".gemini" / "settings.json", settings)
        write_json(self.home / ".gemini" / "trustedFolders.json", {str(repo): "TRUST_FOLDER"})

    def _argv(self, prompt: str) -> list[str]:
        return ["-m", self.MODEL, "--yolo", "--output-format", "json", "-p", prompt]

    def start(self, prompt: str, cwd: Path) -> tuple[Run, str]:
        done = self.invoke(self._argv(prompt), cwd)
        return done, _json_field(done.stdout, "session_id")

    def resume(self, session: str, prompt: str, cwd: Path) -> Run:
        return self.invoke(["--resume", session, *self._argv(prompt)], cwd)

    def transcripts(self) -> list[Path]:
        return sorted((self.home / ".gemini" / "tmp").glob("*/chats/session-*.json*"))


def _json_field(stdout: str, key: str) -> str:
    found = re.search(r"\{.*\}", stdout, re.S)
    try:
        return str(json.loads(found.group(0)).get(key, "")) if found else ""
    except ValueError:
        return ""


DRIVERS: Mapping[str, type[Driver]] = {"claude": Claude, "codex": Codex, "gemini": Gemini}
