"""``hooks install`` / ``hooks remove``: the agents' settings merged as text, given back exactly."""

from __future__ import annotations

import difflib
import json
import subprocess
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_memory.core.agents import hooks, jsontext
from conftest import PROJECT, children_cpu, cli, run_console, tree

CLAUDE_SETTINGS = """{
    "permissions": {"allow": ["Bash(npm test)"]},
    "hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "./check.sh"}]}
        ],
        "SessionStart": [
            {"hooks": [{"type": "command", "command": "echo welcome"}]}
        ]
    },
    "model": "sonnet"
}
"""
CODEX_HOOKS = (
    '{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]}}'
)
GEMINI_SETTINGS = """// project settings
{
  "general": {"vimMode": true},  /* the user's own */
  "hooks": {
    "BeforeTool": [{"matcher": "write_file", "hooks": [{"type": "command", "command": "lint"}]}],
    "SessionEnd": []
  }
}
"""
EXISTING = {"claude": CLAUDE_SETTINGS, "codex": CODEX_HOOKS, "gemini": GEMINI_SETTINGS}


@pytest.fixture
def enabled(repo: Path) -> Path:
    assert cli("enable", repo, "--vendor", "none", "--today", "2026-01-01").exit_code == 0
    return repo


def _only_insertions(old: str, new: str) -> bool:
    ops = difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes()
    return all(op in ("equal", "insert") for op, *_ in ops)


@pytest.mark.parametrize("agent", list(EXISTING))
def test_install_keeps_every_byte_and_remove_gives_them_back(enabled: Path, agent: str) -> None:
    where = enabled / hooks.AGENTS[agent].path
    where.parent.mkdir(parents=True, exist_ok=True)
    where.write_text(EXISTING[agent])
    before = tree(enabled)
    result = cli("hooks", "install", enabled, "--agent", agent)
    assert result.exit_code == 0, result.output
    text = where.read_text()
    assert _only_insertions(EXISTING[agent], text)
    for event, group in hooks.wanted(agent).items():
        assert group in _loads(text)["hooks"][event]
    assert cli("enable", enabled, "--check").exit_code == 0  # the manifest still reads
    installed = tree(enabled)
    again = cli("hooks", "install", enabled, "--agent", agent)
    assert again.exit_code == 0 and tree(enabled) == installed
    assert cli("hooks", "remove", enabled, "--agent", agent).exit_code == 0
    assert tree(enabled) == before
    assert "nothing to remove" in cli("hooks", "remove", enabled, "--agent", agent).output


def _loads(text: str) -> dict[str, object]:
    """JSON with the // and /* */ comments Gemini allows taken out (none inside strings here)."""
    lines = [
        line.split("//")[0] if line.lstrip().startswith("//") else line for line in text.split("\n")
    ]
    joined = "\n".join(lines)
    while "/*" in joined:
        start = joined.index("/*")
        joined = joined[:start] + joined[joined.index("*/", start) + 2 :]
    return json.loads(joined)  # type: ignore[no-any-return]


@pytest.mark.parametrize("agent", list(EXISTING))
def test_a_missing_settings_file_is_created_and_removed_again(enabled: Path, agent: str) -> None:
    before = tree(enabled)
    assert cli("hooks", "install", enabled, "--agent", agent).exit_code == 0
    data = json.loads((enabled / hooks.AGENTS[agent].path).read_text())
    assert list(data) == ["hooks"]  # Codex refuses a hooks.json with any other root key
    assert cli("hooks", "remove", enabled, "--agent", agent).exit_code == 0
    assert tree(enabled) == before


def test_remove_after_the_user_edited_the_file_keeps_their_edit(enabled: Path) -> None:
    where = enabled / ".claude/settings.json"
    where.parent.mkdir()
    where.write_text(CLAUDE_SETTINGS)
    cli("hooks", "install", enabled, "--agent", "claude")
    where.write_text(where.read_text().replace('"sonnet"', '"opus"'))
    result = cli("hooks", "remove", enabled, "--agent", "claude")
    assert result.exit_code == 0 and "changed since install" in result.output
    assert where.read_text() == CLAUDE_SETTINGS.replace('"sonnet"', '"opus"')


def test_bad_settings_are_one_line_and_nothing_written(enabled: Path, tmp_path: Path) -> None:
    where = enabled / ".claude/settings.json"
    where.parent.mkdir()
    deep = '{"a": ' + "[" * 100_000 + "]" * 100_000 + "}"
    twice = '{"hooks": {}, "hooks": {}}'  # the agent reads the last, we would edit the first
    for bad in (
        '{"hooks": [1, 2]}',
        '{"hooks": {"SessionEnd": {}}}',
        '{"a": 1,',
        "[1]",
        deep,
        twice,
    ):
        where.write_text(bad)
        before = tree(enabled)
        done = run_console("hooks", "install", enabled, "--agent", "claude", cwd=tmp_path)
        assert done.returncode == 1 and len(done.stderr.splitlines()) == 1, done.stderr
        assert "Traceback" not in done.stderr and tree(enabled) == before


def test_hooks_need_an_enabled_repo_and_enable_never_installs_them(repo: Path) -> None:
    result = cli("hooks", "install", repo, "--agent", "codex")
    assert result.exit_code == 1 and "run agent-memory enable first" in result.output
    cli("enable", repo)
    assert not any(p.startswith((".claude/", ".codex/", ".gemini/")) for p in tree(repo))


def test_dry_run_shows_the_diff_and_writes_nothing(enabled: Path) -> None:
    before = tree(enabled)
    result = cli("hooks", "install", enabled, "--agent", "gemini", "--dry-run")
    assert result.exit_code == 0 and "+++ b/.gemini/settings.json" in result.output
    assert tree(enabled) == before


@pytest.mark.parametrize("agent", list(EXISTING))
def test_the_installed_commands_run_from_a_subdirectory_with_no_shell(
    enabled: Path, agent: str
) -> None:
    """What each agent would run, started where a session started in a subdirectory runs it:
    each entry is one program and its words (no variable, ``;`` or redirection), run without a
    shell; the start hook answers with the context as JSON alone on stdout and nothing on
    stderr; the end and pre-compaction hooks write the log from the transcript named on stdin
    and print nothing on either channel (Gemini CLI shows stderr as a message)."""
    assert cli("hooks", "install", enabled, "--agent", agent, "--prompt-recall").exit_code == 0
    spec = hooks.AGENTS[agent]
    groups = _loads((enabled / spec.path).read_text())["hooks"]
    assert isinstance(groups, dict)
    commands = [groups[event][-1]["hooks"][0]["command"] for event in spec.events]
    for command in commands:
        assert not set(command) & set("$;&|<>\"%'`"), command
    start, compaction, end, _prompt = (command.split() for command in commands)
    sub = enabled / "src" / "deep"
    sub.mkdir(parents=True)
    event = {"claude": "SessionStart", "codex": "SessionStart", "gemini": "SessionStart"}[agent]
    payload = json.dumps({"cwd": str(sub), "hook_event_name": event, "session_id": "x"})
    done = subprocess.run(start, cwd=sub, input=payload, capture_output=True, text=True)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    answer = json.loads(done.stdout)["hookSpecificOutput"]
    assert answer["hookEventName"] == "SessionStart"
    assert answer["additionalContext"].startswith("# Memory context")
    transcript = PROJECT / f"tests/fixtures/transcripts/{agent}/" / {
        "claude": "session-basic.jsonl", "codex": "rollout-basic.jsonl",
        "gemini": "session-basic.jsonl",
    }[agent]  # fmt: skip
    payload = json.dumps({"cwd": str(sub), "session_id": "x", "transcript_path": str(transcript)})
    for command in (compaction, end):
        done = subprocess.run(command, cwd=sub, input=payload, capture_output=True, text=True)
        assert (done.returncode, done.stdout, done.stderr) == (0, "", ""), done.stderr
    logs = [p for p in tree(enabled) if p.startswith("memory/sessions/2026-11-20-091400-")]
    assert len(logs) == 1 and f"-{agent}-" in logs[0]  # the second capture had nothing new


def test_hooks_md_lists_what_each_agent_gets() -> None:
    doc = (PROJECT / "HOOKS.md").read_text()
    for agent, spec in hooks.AGENTS.items():
        assert f"`{spec.path}`" in doc, agent
        for event in spec.events:
            assert f"`{event}`" in doc, (agent, event)
    assert "- claude: .claude/settings.json | original " in doc


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=10,
)


@settings(max_examples=60, deadline=None)
@given(
    # The user's other keys: a "hooks" that is not an object is refused (NotAnObject), not this.
    st.dictionaries(st.text(max_size=6).filter(lambda key: key != "hooks"), _json, max_size=4),
    st.dictionaries(
        st.sampled_from(["SessionEnd", "Stop", "PreCompact"]), st.lists(_json, max_size=2)
    ),
    st.sampled_from([None, 0, 2, 4]),
    st.sampled_from(list(hooks.AGENTS)),
)
def test_install_then_remove_is_the_identity(
    other: dict[str, object], events: dict[str, object], indent: int | None, agent: str
) -> None:
    settings_doc = {**other, "hooks": events} if events or indent == 2 else other
    text = json.dumps(settings_doc, indent=indent) + ("\n" if indent else "")
    installed, added = hooks.install(text, agent)
    assert _only_insertions(text, installed)
    assert hooks.install(installed, agent) == (installed, frozenset())
    restored, exact = hooks.remove(installed, agent, hooks.sha256(text), added)
    assert (restored, exact) == (text, True)
    assert hooks.remove(installed, agent, hooks.sha256(text), None) == (text, True)


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.text(alphabet='{}[]":,0123456789.-e truefalsn/*\n\\', max_size=40), _json.map(json.dumps)
    )
)
def test_the_span_reader_agrees_with_json_and_fails_only_with_one_error(text: str) -> None:
    try:
        expected: object = json.loads(text)
    except ValueError:
        expected = ValueError
    try:
        doc = jsontext.load(text)
    except jsontext.BadJSON:
        assert expected is ValueError or "/" in text  # comments: read by us, not by json
        return
    if "/" in text:
        return
    node = jsontext.parse(doc)
    assert jsontext.value(doc, node) == expected
    spans = zip(node.bounds[1::3], node.bounds[2::3], strict=True)
    found = [json.loads(text[start:end]) for start, end in spans]
    if isinstance(expected, dict):
        assert dict(zip(node.keys, found, strict=True)) == expected
    elif isinstance(expected, list):
        assert found == expected


def test_disable_says_when_a_settings_file_changed_since_install(enabled: Path) -> None:
    """HOOKS.md: edited since install, only our groups come out, the rest stays, and it says so."""
    where = enabled / hooks.AGENTS["claude"].path
    where.parent.mkdir(parents=True, exist_ok=True)
    where.write_text(CLAUDE_SETTINGS)
    assert cli("hooks", "install", enabled, "--agent", "claude").exit_code == 0
    edited = where.read_text().replace('"permissions"', '"env": {"A": "1"},\n  "permissions"', 1)
    assert edited != where.read_text()
    where.write_text(edited)
    done = cli("disable", enabled, "--today", "2026-02-01")
    assert done.exit_code == 0, done.output
    assert "changed since install: took out our hooks, kept the rest" in done.output
    assert '"env": {"A": "1"}' in where.read_text()
    assert "agent-memory" not in where.read_text()


def test_remove_edits_only_the_agents_own_settings_never_a_file_the_stamp_names(
    enabled: Path,
) -> None:
    """The stamp is input (a clone's committed file): its ``## Agent hooks`` line may name a
    session log holding our groups, and remove must leave that log as it is."""
    assert cli("hooks", "install", enabled, "--agent", "claude").exit_code == 0
    log = enabled / "memory/sessions/2026-01-01-000000-x.md"
    groups = {event: [group] for event, group in hooks.AGENTS["claude"].events.items()}
    log.write_text(json.dumps({"model": "x", "hooks": groups}, indent=2))
    stamp = enabled / ".agent/version.md"
    stamp.write_text(
        stamp.read_text().replace(".claude/settings.json |", f"{log.relative_to(enabled)} |")
    )
    before = log.read_bytes()
    result = cli("hooks", "remove", enabled, "--agent", "claude")
    assert result.exit_code == 0, result.output
    assert log.read_bytes() == before
    assert not (enabled / ".claude/settings.json").exists()  # install created it: it goes


@pytest.mark.parametrize("edited", [False, True])
def test_remove_takes_out_only_what_install_added(enabled: Path, edited: bool) -> None:
    """A group identical to ours that was there before install (install left it alone) and an
    event list the user had, empty, stay after remove, also when the file changed since."""
    ours = hooks.AGENTS["gemini"].events
    where = enabled / hooks.AGENTS["gemini"].path
    where.parent.mkdir()
    start = json.dumps(ours["SessionStart"])
    where.write_text(
        f'{{\n  "hooks": {{\n    "SessionStart": [{start}],\n    "SessionEnd": []\n  }}\n}}\n'
    )
    original = where.read_text()
    assert cli("hooks", "install", enabled, "--agent", "gemini").exit_code == 0
    if edited:
        where.write_text(where.read_text().replace("{", '{\n  "theme": "dark",', 1))
    assert cli("hooks", "remove", enabled, "--agent", "gemini").exit_code == 0
    expected = original.replace("{", '{\n  "theme": "dark",', 1) if edited else original
    assert where.read_text() == expected


def test_a_line_from_before_added_was_recorded_still_gives_the_bytes_back(enabled: Path) -> None:
    where = enabled / hooks.AGENTS["claude"].path
    where.parent.mkdir()
    where.write_text(CLAUDE_SETTINGS)
    before = tree(enabled)
    assert cli("hooks", "install", enabled, "--agent", "claude").exit_code == 0
    stamp = enabled / ".agent/version.md"
    line = next(x for x in stamp.read_text().splitlines() if x.startswith("- claude: "))
    assert line.endswith(" | added SessionStart, PreCompact list, SessionEnd list")
    stamp.write_text(stamp.read_text().replace(line, line.split(" | added ")[0]))  # as 5.0.0 wrote
    assert cli("hooks", "remove", enabled, "--agent", "claude").exit_code == 0
    assert tree(enabled) == before


def _big_settings(size: int) -> str:
    """A settings file of at most ``size`` bytes (and not much less) in the costliest shape:
    many small items (a long allow-list, many hook events, a long list our group goes in)."""
    group = {"hooks": [{"type": "command", "command": "x"}]}

    def settings(n: int) -> str:
        events = {f"Event{i}": [] for i in range(n)}
        hooks = {**events, "SessionStart": [group] * n}
        return json.dumps({"permissions": {"allow": ["Bash(x)"] * n}, "hooks": hooks})

    n = size // 100
    return settings(n * size // len(settings(n)) - 100)


def test_a_settings_file_of_a_megabyte_is_edited_in_linear_time(enabled: Path) -> None:
    """HOOKS.md's bound: a file just under 1 MiB, item-dense, installed and removed in seconds
    (the span reader was once a Python pass per value, and remove ran a dozen of them)."""
    where = enabled / hooks.AGENTS["claude"].path
    where.parent.mkdir()
    text = _big_settings(jsontext.MAX_BYTES - 4096)
    assert jsontext.MAX_BYTES - 20000 < len(text) <= jsontext.MAX_BYTES - 4096
    where.write_text(text)
    started = time.process_time()  # CPU: a loaded machine stretches wall time, not this
    assert cli("hooks", "install", enabled, "--agent", "claude").exit_code == 0
    assert cli("hooks", "remove", enabled, "--agent", "claude").exit_code == 0
    assert time.process_time() - started < 8
    assert where.read_text() == text


def test_a_settings_file_over_the_bound_is_one_line(enabled: Path, tmp_path: Path) -> None:
    where = enabled / hooks.AGENTS["gemini"].path
    where.parent.mkdir()
    where.write_text(_big_settings(8 << 20))
    before = tree(enabled)
    started = children_cpu()
    done = run_console("hooks", "install", enabled, "--agent", "gemini", cwd=tmp_path)
    assert children_cpu() - started < 5
    assert done.returncode == 1 and done.stderr.splitlines() == [
        "agent-memory: .gemini/settings.json: is larger than 1 MiB; refusing to read it"
    ]
    assert tree(enabled) == before
