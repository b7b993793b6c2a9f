"""``agent-memory hook <event>``: payloads in, exactly what the agent reads out; the entries
``hooks install`` writes, and those of 5.0.0 replaced."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_memory.cli.app import main
from agent_memory.commands import context as context_command
from agent_memory.commands import hook_prompt
from agent_memory.core.agents import hooks, prompt_recall
from agent_memory.core.agents.recall import recall
from agent_memory.errors import InputError
from agent_memory.parse import hookinput
from agent_memory.parse.facts import parse
from agent_memory.shell import focus as focus_shell
from agent_memory.shell.focus import focus
from agent_memory.shell.repo import Repo
from conftest import PROJECT, build_tree, cli, git_init, run_console, tree

EXAMPLE = PROJECT / "examples/evolving-memory-example/after"


@pytest.fixture
def enabled(repo: Path) -> Path:
    assert cli("enable", repo, "--vendor", "none", "--today", "2026-01-01").exit_code == 0
    return repo


def _hook(event: str, payload: str | bytes, cwd: Path) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        ["agent-memory", "hook", event], cwd=cwd, input=payload if isinstance(payload, bytes)
        else payload.encode(), capture_output=True, check=False,
    )  # fmt: skip
    return subprocess.CompletedProcess(
        done.args, done.returncode, done.stdout.decode(), done.stderr.decode()
    )


@pytest.mark.parametrize("event", ["session-start", "pre-compact", "session-end", "prompt"])
@pytest.mark.parametrize(
    "payload",
    [
        b"",
        b"not json",
        b"[1, 2]",
        b'{"cwd": 7}',
        b'{"cwd": "/tmp/a\\nb"}',
        b'{"cwd": "' + b"a" * 5000 + b'"}',
        b'{"cwd": "\xff"}',
        b"[" * 100_000 + b"]" * 100_000,
        b'{"cwd": "/nonexistent/folder", "prompt": "quasar", "transcript_path": "/t"}',
    ],
    ids=[
        "empty",
        "text",
        "array",
        "cwd-number",
        "cwd-newline",
        "cwd-long",
        "not-utf8",
        "deep",
        "no-folder",
    ],
)
def test_a_bad_payload_is_one_line_and_exit_1_never_2(
    enabled: Path, event: str, payload: bytes
) -> None:
    """Exit 2 would block the user's prompt (Claude Code, Codex) or deny it (Gemini CLI)."""
    before = tree(enabled)
    done = _hook(event, payload, enabled)
    assert done.returncode == 1 and done.stdout == "", done.stdout
    assert len(done.stderr.splitlines()) == 1 and "Traceback" not in done.stderr, done.stderr
    assert tree(enabled) == before


def test_a_payload_too_long_or_never_whole_says_so_and_what_to_do(enabled: Path) -> None:
    """A prompt of over 1 MiB was "not a JSON object"; a payload that never ended advised the
    ``--transcript`` of ``session capture``, an option no hook has."""
    prompt = {"cwd": str(enabled), "hook_event_name": "UserPromptSubmit", "prompt": "x" * (1 << 20)}
    done = _hook("prompt", json.dumps(prompt), enabled)
    assert done.returncode == 1 and "the hook's input is longer than 1,048,576 bytes" in done.stderr
    hook = subprocess.Popen(
        ["agent-memory", "hook", "prompt"], cwd=enabled, stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert hook.stdin is not None and hook.stderr is not None
    hook.stdin.write('{"prompt": "')
    hook.stdin.flush()  # and kept open, as an agent may
    try:
        assert hook.wait(timeout=20) == 1
    finally:
        hook.kill()
        hook.stdin.close()
    said = hook.stderr.read()
    assert "no whole JSON object arrived" in said and "--transcript" not in said, said


_WRITER = (
    "import sys, time; from pathlib import Path; from agent_memory.shell.repo import Repo\n"
    "root = Path(sys.argv[1]); journal = root / '.agent-memory.journal'\n"
    "with Repo(root).locked():\n"
    "    journal.mkdir(); print('writing', flush=True); time.sleep(0.6); journal.rmdir()\n"
)


def test_the_reading_hooks_wait_for_a_run_that_is_writing(enabled: Path) -> None:
    """A writing run's journal stands for a moment while it applies its plan: the context and a
    prompt's recall wait for it, as a capture waits for the lock, where they failed at once and
    the session started, or the prompt went, without its context."""
    assert cli("fact", "add", "The kelp service talks to ember", enabled).exit_code == 0
    where = {"cwd": str(enabled), "session_id": "s", "prompt": "kelp ember"}
    for event, name in (("session-start", "SessionStart"), ("prompt", "UserPromptSubmit")):
        writer = subprocess.Popen(
            [sys.executable, "-c", _WRITER, str(enabled)], stdout=subprocess.PIPE, text=True
        )
        assert writer.stdout is not None and writer.stdout.readline() == "writing\n"
        done = _hook(event, json.dumps({**where, "hook_event_name": name}), enabled)
        assert writer.wait(timeout=20) == 0
        assert done.returncode == 0 and done.stderr == "", (event, done.stderr)
        if event == "session-start":
            assert "kelp" in json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]


def test_a_payload_outside_any_enabled_repo_says_so(tmp_path: Path) -> None:
    payload = json.dumps({"cwd": str(tmp_path), "hook_event_name": "SessionStart"})
    done = _hook("session-start", payload, tmp_path)
    assert done.returncode == 1 and "run agent-memory enable first" in done.stderr


def test_session_start_finds_the_repo_from_the_payloads_cwd(enabled: Path, tmp_path: Path) -> None:
    """Codex runs hooks in the session's folder; the command must not depend on it either."""
    sub = enabled / "packages" / "web"
    sub.mkdir(parents=True)
    payload = json.dumps({"cwd": str(sub), "hook_event_name": "SessionStart", "source": "startup"})
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = _hook("session-start", payload, elsewhere)
    assert done.returncode == 0 and done.stderr == ""
    answer = json.loads(done.stdout)
    assert list(answer) == ["hookSpecificOutput"]
    assert answer["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    context = cli("context", enabled).output
    assert answer["hookSpecificOutput"]["additionalContext"].rstrip("\n") == context.rstrip("\n")


@pytest.mark.parametrize("control", ["\x7f", "\x9b"])
def test_a_fact_holding_del_or_c1_gives_json_the_agent_can_read(
    enabled: Path, control: str
) -> None:
    """``json.dumps`` leaves DEL and C1 raw, and the text printer wrote them as ``\\x7f``, which
    is no JSON escape: every hook that showed such a fact printed a line no agent could read."""
    assert cli("fact", "add", "Ship the nightly build", "--id", "ship", enabled).exit_code == 0
    continuity = enabled / "memory/continuity.md"
    continuity.write_text(continuity.read_text().replace("nightly", f"night{control}ly"))
    foot = (
        "<!-- id: {} | created: 2026-01-01 | last_used: 2026-01-01 | uses: 1 | tier: archived -->"
    )
    filler = "".join(f"- Filler fact {n}\n  {foot.format(f'filler-{n}')}\n" for n in range(30))
    quarter = f"# Archive\n\n## Facts\n- The quasar{control} cache\n  {foot.format('quasar')}\n"
    (enabled / "memory/archive").mkdir(exist_ok=True)
    (enabled / "memory/archive/2026-Q1.md").write_text(quarter + filler)
    where = {"cwd": str(enabled), "session_id": "s"}
    start = {**where, "hook_event_name": "SessionStart", "source": "startup"}
    prompt = {**where, "hook_event_name": "UserPromptSubmit", "prompt": "the quasar cache"}
    for event, payload, text in (
        ("session-start", start, f"night{control}ly"),
        ("prompt", prompt, f"quasar{control} cache"),
    ):
        done = _hook(event, json.dumps(payload), enabled)
        assert done.returncode == 0, done.stderr
        assert text in json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]


def test_session_start_runs_a_due_review_silently(tmp_path: Path) -> None:
    root = tmp_path / "example"
    shutil.copytree(EXAMPLE.parent / "before", root)
    git_init(root)
    assert cli("review", root, "--check").exit_code == 1  # a review is due there
    payload = json.dumps({"cwd": str(root), "hook_event_name": "SessionStart"})
    done = _hook("session-start", payload, root)
    assert done.returncode == 0 and done.stderr == ""
    assert "not due" in json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert cli("review", root, "--check").exit_code == 0  # it ran


def test_session_start_lists_the_logs_once_when_no_review_is_due(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The due check and the context read the same live memory: a history of 100,000 logs is
    listed once per session start, not once for each."""
    root = tmp_path / "example"
    shutil.copytree(EXAMPLE, root)
    listed: list[str] = []
    list_dir = Repo.list_dir

    def counted(self: Repo, rel: str, *args: Any, **kwargs: Any) -> Any:
        listed.append(rel)
        return list_dir(self, rel, *args, **kwargs)

    monkeypatch.setattr(Repo, "list_dir", counted)
    payload = json.dumps({"cwd": str(root), "hook_event_name": "SessionStart"})
    done = CliRunner().invoke(main, ["hook", "session-start"], input=payload)
    assert done.exit_code == 0, done.output
    answer = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "memory/continuity.md" in answer and "not due" in answer
    assert listed.count("memory/sessions") == 1


def _prompt(root: Path, text: str, event: str = "UserPromptSubmit") -> str:
    payload = json.dumps({"cwd": str(root), "hook_event_name": event, "prompt": text})
    done = _hook("prompt", payload, root)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    return done.stdout


def test_prompt_recall_adds_what_the_start_context_did_not_show(tmp_path: Path) -> None:
    root = tmp_path / "example"
    shutil.copytree(EXAMPLE, root)
    before = tree(root)
    out = _prompt(
        root, "Where do the Redis sessions live, and what TTL do they get?", "BeforeAgent"
    )
    answer = json.loads(out)["hookSpecificOutput"]
    assert answer["hookEventName"] == "BeforeAgent"  # Gemini CLI's name, answered back
    text = answer["additionalContext"]
    assert "`redis-sessions` [archived] memory/archive/2026-Q2.md:" in text
    assert len(text.encode()) <= 1024 and len(text.splitlines()) <= 4
    assert _prompt(root, "the rate limit of the public api") == ""  # the start context shows it
    assert _prompt(root, "fix the bug please") == ""  # nothing clears the floor
    assert _prompt(root, "") == ""
    assert tree(root) == before  # stateless: nothing written


def test_prompt_recall_skips_only_what_the_start_showed_for_the_paths_git_gives(
    tmp_path: Path,
) -> None:
    """The session start left out a fact scoped to paths the work tree did not touch: a
    prompt that matches it gets it, as the start context is laid out again with those paths."""
    root = tmp_path / "example"
    shutil.copytree(EXAMPLE, root)
    text = "Docs are built with mkdocs material and published by the zephyr pipeline"
    added = cli(
        "fact",
        "add",
        text,
        root,
        "--id",
        "docs-mkdocs",
        "--paths",
        "docs/**",
        "--today",
        "2026-06-01",
    )
    assert added.exit_code == 0, added.output
    git_init(root)
    build_tree(root, {"src/app.py": "changed\n"})
    start = json.dumps({"cwd": str(root), "hook_event_name": "SessionStart"})
    shown = json.loads(_hook("session-start", start, root).stdout)
    assert "mkdocs" not in shown["hookSpecificOutput"]["additionalContext"]
    out = _prompt(root, "how does the zephyr pipeline publish the mkdocs material docs")
    assert "`docs-mkdocs`" in out


def test_prompt_recall_lays_out_the_start_with_the_folder_the_session_started_in(
    tmp_path: Path,
) -> None:
    """A session started in `src/` (nothing changed: git gives no path) was shown no fact
    scoped to `docs/**`: a prompt that matches it gets it, as the start's view is laid out
    again with that folder too, not as if nothing were known about paths."""
    root = tmp_path / "example"
    shutil.copytree(EXAMPLE, root)
    text = "Docs are built with mkdocs material and published by the zephyr pipeline"
    added = cli("fact", "add", text, root, "--id", "docs-mkdocs", "--paths", "docs/**")
    assert added.exit_code == 0, added.output
    build_tree(root, {"src/app.py": "x\n"})
    git_init(root)
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    subprocess.run(
        ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "a"],
        check=True,
    )
    here = root / "src"
    start = json.dumps({"cwd": str(here), "hook_event_name": "SessionStart"})
    shown = json.loads(_hook("session-start", start, here).stdout)
    assert "mkdocs" not in shown["hookSpecificOutput"]["additionalContext"]
    out = _prompt(here, "how does the zephyr pipeline publish the mkdocs material docs")
    assert "`docs-mkdocs`" in out


def test_prompt_recall_is_at_most_five_hits_and_eight_kib_in_full_first(tmp_path: Path) -> None:
    foot = "<!-- id: fact-{0} | created: 2026-01-01 | last_used: 2026-01-01 | uses: 1 | tier: archived -->"  # noqa: E501
    body = "".join(f"- Quasar zebra {i}\n  {'x' * 2400}\n  {foot.format(i)}\n" for i in range(8))
    body += "".join(f"- Other {i}\n  {foot.format(f'other-{i}')}\n" for i in range(200))
    build_tree(
        tmp_path,
        {"memory/continuity.md": "# C\n", "memory/archive/2026-Q1.md": "# A\n\n## F\n" + body},
    )
    text = json.loads(_prompt(tmp_path, "quasar zebra"))["hookSpecificOutput"]["additionalContext"]
    assert len(text.encode()) <= prompt_recall.BYTES == 8192 and prompt_recall.MOST == 5
    # three in full (their whole text, from the file), then two by their one line: a fourth
    # in full would pass 8 KiB
    assert text.count(", in full:\n") == 3 and text.count("x" * 2400) == 3
    assert text.count("\n- `fact-") == 5
    body = body.replace("x" * 2400, "x")
    build_tree(tmp_path, {"memory/archive/2026-Q1.md": "# A\n\n## F\n" + body})
    text = json.loads(_prompt(tmp_path, "quasar zebra"))["hookSpecificOutput"]["additionalContext"]
    assert text.count("\n- `fact-") == 5 == text.count(", in full:\n")  # at most five


def test_prompt_recall_brings_in_full_a_fact_the_start_showed_by_name(tmp_path: Path) -> None:
    """The start view had room for its one line only: a prompt that matches it gets its text;
    a fact the start showed in full is never shown again."""
    foot = "<!-- id: {0} | created: 2026-01-01 | last_used: 2026-01-{1:02d} | uses: 1 | tier: active -->"  # noqa: E501
    prose = "the service keeps its state in one place " * 12
    body = "".join(
        f"- Note {i} on the {topic}\n  {prose}\n  {foot.format(f'note-{i}', 1 + i)}\n"
        for i, topic in enumerate(
            ["kestrel ledger quorum", *(f"topic {n}" for n in range(18)), "osprey harbor beacon"]
        )
    )
    build_tree(tmp_path, {"memory/continuity.md": f"# C\n\n## Conventions\n{body}"})
    start = cli("context", tmp_path).output
    assert "- `note-0` — Note 0 on the kestrel ledger quorum" in start  # by name: used first of all
    assert f"- Note 19 on the osprey harbor beacon\n  {prose.rstrip()}\n  `note-19`\n" in start
    text = _prompt(tmp_path, "why does the kestrel ledger quorum keep its state there")
    context = json.loads(text)["hookSpecificOutput"]["additionalContext"]
    assert "- `note-0` [active] memory/continuity.md:6, in full:\n" in context
    assert (
        f"  - Note 0 on the kestrel ledger quorum\n    {prose.rstrip()}\n    `note-0`\n" in context
    )
    again = "the osprey harbor beacon"
    memory = parse("memory/continuity.md", (tmp_path / "memory/continuity.md").read_bytes())
    (best,) = recall(" ".join(prompt_recall.terms(again)), [memory], 1)
    assert best.id == "note-19" and best.score >= prompt_recall.FLOOR
    assert _prompt(tmp_path, again) == ""  # it clears the floor, but was shown in full


def test_prompt_recall_brings_a_fact_as_large_as_the_start_s_budget_allows(
    tmp_path: Path,
) -> None:
    """A fact of 7 KB, which the start view could have shown in full, is shown there by its
    excerpt (a more likely use took the room); a prompt that matches it brings all of it."""
    foot = (
        "<!-- id: {0} | created: 2026-01-01 | last_used: 2026-01-0{1} | uses: 1 | tier: active -->"
    )
    long = "\n  ".join(["the lighthouse relay keeps its log of every beacon it passed on"] * 110)
    body = f"- Lighthouse relay design\n  {long}\n  {foot.format('relay-design', 1)}\n"
    body += f"- Used last {'y' * 3000}\n  {foot.format('used-last', 2)}\n"
    build_tree(tmp_path, {"memory/continuity.md": f"# C\n\n## Key Decisions\n{body}"})
    (tmp_path / "memory/sessions").mkdir()
    (tmp_path / "memory/sessions/2026-01-02-100000.md").write_text(
        "# S\n\n## Memory References\n- Used: used-last\n"
    )
    start = cli("context", tmp_path).output
    assert "`agent-memory fact show relay-design` prints it" in start  # named, by its excerpt
    assert long not in start
    assert 7000 < len(long.encode()) < prompt_recall.BYTES
    text = _prompt(tmp_path, "how does the lighthouse relay keep its beacon log")
    context = json.loads(text)["hookSpecificOutput"]["additionalContext"]
    assert ", in full:\n  - Lighthouse relay design\n    the lighthouse relay" in context
    assert long.replace("\n  ", "\n    ") + "\n    `relay-design`\n" in context


def test_prompt_recall_lays_out_the_start_context_only_for_a_live_hit(tmp_path: Path) -> None:
    """What the start context listed is asked only of a hit over the floor from a live file: a
    prompt that clears nothing, or whose hits are archived (no start context lists one), never
    pays for laying it out; a live fact it listed is left out."""
    root = tmp_path / "example"
    shutil.copytree(EXAMPLE, root)
    rendered: list[int] = []

    def counted(repo: Any, found: Any, here: Any, held: Any) -> frozenset[str]:
        rendered.append(1)
        return context_command.listed_at_start(repo, found, here, held)

    def ask(text: str) -> list[str]:
        payload = json.dumps({"cwd": str(root), "prompt": text})
        done = hook_prompt.prompt(io.StringIO(payload), counted)
        assert done.exit_code == 0
        return list(done.report.summary.get("hits", []))

    assert ask("fix the bug please") == [] and rendered == []
    assert ask("Where do the Redis sessions live, and what TTL do they get?") == ["redis-sessions"]
    assert rendered == []
    assert ask("the rate limit of the public api") == [] and rendered == [1]


def test_prompt_recall_asks_git_for_the_paths_only_when_a_fact_can_use_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The paths git gives change the start context only through a fact's scope or citation:
    with none, a live hit's check lays the context out without asking git."""
    root = git_init(tmp_path / "example")
    shutil.copytree(EXAMPLE, root, dirs_exist_ok=True)
    build_tree(root, {"src/app.py": "changed\n"})
    asked = tmp_path / "asked"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "git").write_text(
        f'#!/bin/sh\necho "$*" >> "{asked}"\nexec "{shutil.which("git")}" "$@"\n'
    )
    (bin_dir / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    payload = json.dumps({"cwd": str(root), "prompt": "the rate limit of the public api"})

    def listed() -> list[str]:
        shown: list[str] = []

        def counted(repo: Any, found: Any, here: Any, held: Any) -> frozenset[str]:
            ids = context_command.listed_at_start(repo, found, here, held)
            shown.extend(ids)
            return ids

        assert hook_prompt.prompt(io.StringIO(payload), counted).exit_code == 0
        return shown

    assert "public-api-rate-limit" in listed() and not asked.exists()
    text = "Docs are built with mkdocs material and published by the zephyr pipeline"
    scoped = cli("fact", "add", text, root, "--id", "docs-mkdocs", "--paths", "docs/**")
    assert scoped.exit_code == 0, scoped.output
    assert "docs-mkdocs" not in listed()  # src/app.py touched: out of its scope
    assert "diff" in asked.read_text()


def _installed_by_5_0_0(repo: Path, agent: str, original: str) -> Path:
    """The agent's settings (``original`` before) with 5.0.0's hook entries, recorded in the
    manifest as 5.0.0's install recorded them."""
    rel = hooks.AGENTS[agent].path
    where = repo / rel
    where.parent.mkdir(exist_ok=True)
    old, added = hooks.install(original, agent, hooks.AGENTS[agent].legacy)
    where.write_text(old)
    stamp = repo / ".agent/version.md"
    record = hooks.Record(rel, hooks.sha256(original), added)
    stamp.write_text(hooks.record(stamp.read_text(), agent, record))
    return where


@pytest.mark.parametrize("undo", ["hooks remove", "disable"])
def test_hooks_install_replaces_the_entries_5_0_0_wrote(enabled: Path, undo: str) -> None:
    """A repo whose hooks 5.0.0 installed (shell snippets): install puts this release's in
    their place, and remove (or disable) still gives back the bytes from before the first
    install."""
    original = '{\n  "model": "sonnet"\n}\n'
    where = _installed_by_5_0_0(enabled, "claude", original)
    assert cli("hooks", "install", enabled, "--agent", "claude").exit_code == 0
    text = where.read_text()
    assert "${CLAUDE_PROJECT_DIR" not in text and ">&2" not in text
    assert "agent-memory hook session-start" in text and '"model": "sonnet"' in text
    assert cli("hooks", "install", enabled, "--agent", "claude").exit_code == 0
    assert where.read_text() == text  # twice changes nothing
    if undo == "disable":
        assert cli("disable", enabled, "--today", "2026-01-02").exit_code == 0
    else:
        assert cli("hooks", "remove", enabled, "--agent", "claude").exit_code == 0
    assert where.read_text() == original


@pytest.mark.parametrize("agent", ["claude", "codex", "gemini"])
def test_enable_names_the_hooks_5_0_0_wrote_and_the_command_that_replaces_them(
    enabled: Path, agent: str
) -> None:
    """An upgrade leaves an agent's settings as they are: 5.0.0's shell snippets stayed, failing
    outside sh and from a subdirectory, and only doctor said so."""
    where = _installed_by_5_0_0(enabled, agent, "{}\n")
    before = where.read_bytes()
    done = cli("enable", enabled, "--today", "2026-01-02")
    assert done.exit_code == 0, done.output
    rel = hooks.AGENTS[agent].path
    assert f"{rel}: warning [hooks] holds 5.0.0's shell-snippet hooks" in done.output
    assert f"agent-memory hooks install --agent {agent} replaces them" in done.output
    assert where.read_bytes() == before  # named, not rewritten
    assert cli("hooks", "install", enabled, "--agent", agent).exit_code == 0
    assert "5.0.0's" not in cli("enable", enabled, "--today", "2026-01-02").output


@pytest.mark.parametrize("agent", ["claude", "codex", "gemini"])
def test_a_file_5_0_0_created_is_replaced_and_removed(enabled: Path, agent: str) -> None:
    spec = hooks.AGENTS[agent]
    where = enabled / spec.path
    where.parent.mkdir()
    where.write_text(hooks.install(None, agent, spec.legacy)[0])
    stamp = enabled / ".agent/version.md"
    record = hooks.Record(spec.path, "absent", None)  # 5.0.0 recorded no "added"
    stamp.write_text(hooks.record(stamp.read_text(), agent, record))
    assert cli("hooks", "remove", enabled, "--agent", agent, "--dry-run").exit_code == 0
    assert cli("hooks", "install", enabled, "--agent", agent, "--prompt-recall").exit_code == 0
    groups = json.loads(where.read_text())["hooks"]
    assert groups == {event: [group] for event, group in spec.events.items()}
    names = [g[0]["hooks"][0].get("name", g[0]["hooks"][0]["command"]) for g in groups.values()]
    assert len(set(names)) == len(names)  # Gemini's /hooks disable names one handler
    assert cli("hooks", "remove", enabled, "--agent", agent).exit_code == 0
    assert not where.exists()


def test_hooks_remove_takes_out_5_0_0_entries_never_reinstalled(enabled: Path) -> None:
    original = '// mine\n{"general": {"vimMode": true}}\n'
    where = _installed_by_5_0_0(enabled, "gemini", original)
    assert cli("hooks", "remove", enabled, "--agent", "gemini").exit_code == 0
    assert where.read_text() == original


def test_install_warns_when_the_command_is_not_on_path(enabled: Path, tmp_path: Path) -> None:
    done = run_console("hooks", "install", enabled, "--agent", "claude", cwd=tmp_path, PATH="")
    assert done.returncode == 0 and "agent-memory is not on PATH" in done.stdout
    done = run_console("mcp", "install", enabled, "--agent", "claude", cwd=tmp_path, PATH="")
    assert done.returncode == 0 and "agent-memory is not on PATH" in done.stdout


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def _committed(repo: Path, files: dict[str, str], branch: str) -> None:
    """The repo's first commit, of ``files``, on ``branch``."""
    _git(repo, "config", "user.email", "a@b.c")
    _git(repo, "config", "user.name", "a")
    build_tree(repo, files)
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "base")
    _git(repo, "branch", "-M", branch)


def test_focus_names_the_branchs_and_the_work_trees_changes(repo: Path) -> None:
    _committed(repo, {"src/old.py": "x\n", "README.md": "r\n"}, "main")
    _git(repo, "checkout", "-qb", "x;$(touch${IFS}pwned)")
    build_tree(repo, {"src/new.py": "y\n", "-n ew\nline.py": "z\n"})
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "feature")
    build_tree(repo, {"README.md": "changed\n", "notes/untracked.md": "u\n"})
    found = focus(repo, "  Add the export button  ")
    assert found.paths == ("-n ew\nline.py", "README.md", "notes/untracked.md", "src/new.py")
    assert found.task == "Add the export button"
    assert not (repo / "pwned").exists()
    assert focus(repo.parent, None).paths == ()  # no git work tree: nothing known


def test_focus_asks_git_only_of_the_bases_its_refs_hold(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A base git lacks is not asked (the process would fail), a packed one is; the memory's
    untracked files are left out, a folder of the code named like it is not."""
    _committed(repo, {"src/old.py": "x\n"}, "master")
    _git(repo, "checkout", "-qb", "feature")
    build_tree(repo, {"src/new.py": "y\n"})
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "feature")
    _git(repo, "pack-refs", "--all")  # master is now in packed-refs alone
    build_tree(repo, {"memory/sessions/new.md": "n\n", "src/memory/cache.py": "c\n"})
    asked = tmp_path / "asked"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    real = shutil.which("git")
    (bin_dir / "git").write_text(f'#!/bin/sh\necho "$*" >> "{asked}"\nexec "{real}" "$@"\n')
    (bin_dir / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    assert focus(repo, None).paths == ("src/memory/cache.py", "src/new.py")
    questions = asked.read_text()
    assert "refs/heads/master" in questions and "refs/heads/main" not in questions
    assert "origin" not in questions
    monkeypatch.setenv("GIT_COMMON_DIR", str(repo / ".git"))  # the refs may be elsewhere
    assert focus(repo, None).paths == ("src/memory/cache.py", "src/new.py")
    assert "refs/remotes/origin/HEAD" in asked.read_text()
    asked.unlink()
    monkeypatch.delenv("GIT_COMMON_DIR")
    monkeypatch.setattr(focus_shell, "_PACKED_BYTES", 16)  # too large to read: git is asked
    assert focus(repo, None).paths == ("src/memory/cache.py", "src/new.py")
    assert "refs/remotes/origin/HEAD" in asked.read_text()


def test_questions_started_early_give_the_same_answer_and_are_reaped(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The session start asks git before it reads the memory: the answer is the one asked
    then, and a question left unanswered (the context failed) is stopped and reaped."""
    _committed(repo, {"src/old.py": "x\n"}, "main")
    build_tree(repo, {"src/old.py": "y\n", "src/new.py": "n\n"})
    asked = focus_shell.ask(repo)
    assert asked.diff is not None and asked.untracked is not None
    assert focus(repo, "the task", asked) == focus(repo, "the task")
    monkeypatch.setattr(focus_shell, "_SECONDS", 0.5)
    late = focus_shell.ask(repo)
    time.sleep(0.7)  # a review ran meanwhile: the answer waits in the pipe, and is read
    assert focus(repo, None, late).paths == ("src/new.py", "src/old.py")
    assert focus(repo, None).paths == ("src/new.py", "src/old.py")
    for child in (asked.diff, asked.untracked):
        with pytest.raises(ChildProcessError):  # reaped
            os.waitpid(child.pid, os.WNOHANG)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "git").write_text("#!/bin/sh\nexec sleep 30\n")
    (bin_dir / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    hung = focus_shell.ask(repo)
    started = time.monotonic()
    focus_shell.drop(hung)
    assert time.monotonic() - started < 2
    for child in (hung.diff, hung.untracked):
        assert child is not None
        with pytest.raises(ChildProcessError):
            os.waitpid(child.pid, os.WNOHANG)


@pytest.mark.parametrize(
    ("script", "paths"),
    [
        ("exec sleep 30", ()),  # no answer in time: the question is left unanswered
        ("yes src/a.py | tr '\\n' '\\0'", ("src/a.py",)),  # an endless answer: its first bytes
        ("echo fatal: not a git repository >&2; exit 128", ()),
    ],
)
@pytest.mark.parametrize("spawn", [True, False], ids=["posix_spawn", "subprocess"])
def test_focus_asks_git_within_a_bound_of_time_and_output(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    script: str,
    paths: tuple[str, ...],
    spawn: bool,
) -> None:
    if not spawn:  # as on a Python without posix_spawn (PyPy, an older Android)
        monkeypatch.delattr(os, "posix_spawnp")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "git"
    fake.write_text(f"#!/bin/sh\n{script}\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(focus_shell, "_SECONDS", 0.3)
    started = time.monotonic()
    assert focus(tmp_path, None).paths == paths
    assert time.monotonic() - started < 5  # five questions at most, each given up on in time


def test_session_start_gathers_what_the_session_is_about(repo: Path) -> None:
    """The paths and the first prompt, for `context --task/--paths` (DESIGN §22)."""
    import io

    from agent_memory.commands.hook import session_start

    assert cli("enable", repo, "--vendor", "none", "--today", "2026-01-01").exit_code == 0
    build_tree(repo, {"src/app.py": "x\n"})
    payload = {"cwd": str(repo), "hook_event_name": "SessionStart", "prompt": "Fix the login"}
    result = session_start(io.StringIO(json.dumps(payload)), lambda _repo: pytest.fail("due"))
    found = result.report.summary["focus"]
    assert "src/app.py" in found["paths"] and ".gitignore" in found["paths"]
    assert not [p for p in found["paths"] if p.startswith("memory/")]  # the memory's own files
    assert found["task"] == "Fix the login"


def test_session_start_shows_what_the_work_tree_touches(repo: Path) -> None:
    """The paths the session's work tree changed reach the context: a fact scoped to them is
    shown, one scoped elsewhere is not (DECAY.md § Scopes, HOOKS.md § Session start)."""
    assert cli("enable", repo, "--vendor", "none", "--today", "2026-01-01").exit_code == 0
    for text, scope in (("Exports are streamed in pages", "src/export/**"),
                        ("Docs are built with mkdocs", "docs/**")):  # fmt: skip
        added = cli("fact", "add", text, repo, "--paths", scope, "--today", "2026-01-01")
        assert added.exit_code == 0, added.output
    build_tree(repo, {"src/export/csv.py": "x\n"})
    payload = json.dumps({"cwd": str(repo), "hook_event_name": "SessionStart"})
    done = _hook("session-start", payload, repo)
    shown = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "Exports are streamed in pages" in shown and "mkdocs" not in shown


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)
_FIELDS = st.dictionaries(
    st.sampled_from(["cwd", "prompt", "hook_event_name", "session_id", "transcript_path"]),
    _JSON | st.text(),
)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=64) | _JSON.map(lambda v: json.dumps(v).encode()) | _FIELDS.map(
    lambda v: json.dumps(v).encode()))  # fmt: skip
def test_any_payload_is_read_or_refused_in_one_line(data: bytes) -> None:
    """A payload is input like a transcript: read, or one ``InputError``, nothing else."""
    try:
        found = hookinput.payload(data)
    except InputError as exc:
        assert "\n" not in str(exc)
        return
    assert found.cwd is None or (found.cwd and "\n" not in found.cwd)
    assert found.prompt is None or len(found.prompt) <= hookinput.PROMPT_MAX


def test_a_prompt_of_a_pasted_log_is_answered_within_the_hooks_time(tmp_path: Path) -> None:
    """Each distinct word costs a pass over every fact: only the first ones are searched."""
    import time

    foot = "<!-- id: f-{0} | created: 2026-01-01 | last_used: 2026-01-01 | uses: 1 | tier: archived"
    body = "".join(f"- Fact {i} about part{i % 500}\n  {foot.format(i)} -->\n" for i in range(5000))
    build_tree(
        tmp_path,
        {"memory/continuity.md": "# C\n", "memory/archive/2026-Q1.md": "# A\n\n## F\n" + body},
    )
    pasted = " ".join(f"word{i}" for i in range(20_000)) + " part7"
    started = time.monotonic()
    assert _prompt(tmp_path, pasted) == ""  # part7 is past the words searched
    assert time.monotonic() - started < 5
