"""One session, one log (DESIGN §19), and the transcripts the agents really write: Gemini CLI's
resume and rewind, Codex's exec_command and patch events, Claude Code's subagents, and hooks that
fire with no transcript."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import agent_memory.parse.facts
from agent_memory.commands.capture import capture_transcript
from agent_memory.errors import InputError
from agent_memory.parse.footer import ID, ID_PATTERN, id_values
from agent_memory.parse.memory import known_ids
from agent_memory.parse.sessions import read_refs
from agent_memory.shell.repo import Repo
from conftest import cli, tree
from test_capture import FIXTURES, TRANSCRIPTS, USED, _git, _uses, memory_repo

__all__ = ["memory_repo"]  # the fixture, used by name

GEMINI = FIXTURES / "gemini/session-basic.jsonl"
GEMINI_ID = "b8e1c0d2-4f6a-4c3e-9d21-7a5e3f1b0c94"
CLAUDE_ID = "7d3f2c1e-5b8a-4e2f-9c61-0a4b8d2e6f13"


def _logs(repo: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((repo / "memory/sessions").glob("*.md"))}


def _capture(repo: Path, transcript: Path) -> str:
    done = cli("session", "capture", repo, "--transcript", transcript)
    assert done.exit_code == 0, done.output
    return done.output


def _prefix(source: Path, target: Path, count: int) -> Path:
    """The transcript as it stood after its first ``count`` lines (a hook firing mid-session)."""
    target.write_bytes(b"".join(source.read_bytes().splitlines(keepends=True)[:count]))
    return target


# -- one session, one log ------------------------------------------------------------------------


def test_a_hook_firing_before_every_turn_gives_one_log_and_counts_each_id_once(
    memory_repo: Path, tmp_path: Path
) -> None:
    """Gemini CLI fires PreCompress before every model turn: each firing captures the session
    again, and the session still has one log, the same bytes a single capture gives."""
    growing = tmp_path / "session.jsonl"
    for count in (5, 12, 18, 23):
        _capture(memory_repo, _prefix(GEMINI, growing, count))
    logs = _logs(memory_repo)
    assert list(logs) == ["2026-11-20-091400-gemini-b8e1c0d2.md"]
    other = tmp_path / "other"
    subprocess.run(["git", "clone", "-q", str(memory_repo), str(other)], check=True)
    _capture(other, GEMINI)
    assert _logs(other) == logs
    assert cli("review", memory_repo, "--today", "2026-11-21").exit_code == 0
    assert all(n == (2 if i in USED else 1) for i, n in _uses(memory_repo).items())


def test_a_log_a_review_read_is_never_rewritten_the_session_goes_on_in_a_new_part(
    memory_repo: Path, tmp_path: Path
) -> None:
    _capture(memory_repo, _prefix(TRANSCRIPTS["claude"], tmp_path / "s.jsonl", 12))
    [(first, data)] = _logs(memory_repo).items()
    assert cli("review", memory_repo, "--today", "2026-11-21").exit_code == 0
    read = _logs(memory_repo)[first]  # with the summary review --session would add: none here
    _capture(memory_repo, TRANSCRIPTS["claude"])
    logs = _logs(memory_repo)
    assert len(logs) == 2 and logs[first] == read and data in read
    [second] = set(logs) - {first}
    assert second > first and b"- transcript lines: 13-20\n" in logs[second]
    assert b"- transcript lines: 5-11\n" in logs[first]


@pytest.mark.parametrize("commit", [True, False])
def test_a_log_git_holds_is_never_rewritten(
    memory_repo: Path, tmp_path: Path, commit: bool
) -> None:
    """Committed (check-logs holds it to its bytes), or staged: what the next commit records."""
    _capture(memory_repo, _prefix(TRANSCRIPTS["claude"], tmp_path / "s.jsonl", 12))
    [(first, data)] = _logs(memory_repo).items()
    _git(memory_repo, "add", "memory/sessions")
    if commit:
        _git(memory_repo, "commit", "-qm", "session")
    _capture(memory_repo, TRANSCRIPTS["claude"])
    logs = _logs(memory_repo)
    assert len(logs) == 2 and logs[first] == data
    if commit:
        assert cli("check-logs", memory_repo, "--base", "HEAD").exit_code == 0


def test_a_log_someone_wrote_into_is_not_rewritten(memory_repo: Path, tmp_path: Path) -> None:
    _capture(memory_repo, _prefix(TRANSCRIPTS["claude"], tmp_path / "s.jsonl", 12))
    [(first, data)] = _logs(memory_repo).items()
    mine = data + b"\n## Notes\nWhy the cancel route matters.\n"
    (memory_repo / "memory/sessions" / first).write_bytes(mine)
    _capture(memory_repo, TRANSCRIPTS["claude"])
    logs = _logs(memory_repo)
    assert len(logs) == 2 and logs[first] == mine


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (b"- Referenced: post-only-mutations\n", b"- Referenced: post-only-mutations, x\n"),
        (b"- src/api/routes.py\n", b"- src/api/routes.py\nWhy the cancel route matters.\n"),
        (b"\n## Files Changed", b"\n## Files Changed"),  # untouched: rewritten, one log
    ],
)
def test_a_log_edited_inside_its_sections_is_not_rewritten(
    memory_repo: Path, tmp_path: Path, old: bytes, new: bytes
) -> None:
    """A line changed, or one added, under headings capture writes itself: the headings alone
    said the log was capture's, and the next capture dropped the person's text."""
    _capture(memory_repo, _prefix(TRANSCRIPTS["claude"], tmp_path / "s.jsonl", 12))
    [(first, data)] = _logs(memory_repo).items()
    assert old in data
    mine = data.replace(old, new, 1)
    (memory_repo / "memory/sessions" / first).write_bytes(mine)
    _capture(memory_repo, TRANSCRIPTS["claude"])
    logs = _logs(memory_repo)
    if mine == data:
        assert list(logs) == [first] and b"- transcript lines: 5-20\n" in logs[first]
    else:
        assert len(logs) == 2 and logs[first] == mine


# -- Gemini CLI: resume ($set) and rewind ($rewindTo) ---------------------------------------------


def _history(path: Path) -> list[dict[str, object]]:
    """The messages of a Gemini CLI session file as the CLI folds them: by id, last copy."""
    messages: dict[str, dict[str, object]] = {}
    for line in path.read_text().splitlines():
        record = json.loads(line)
        if "type" in record and "id" in record:
            messages[record["id"]] = record
    return list(messages.values())


def _resumed(path: Path, turn: str) -> Path:
    """What ``gemini --resume`` appends: the session id, then the whole history as ``$set``
    (``updateMessagesFromHistory``), then the new turn."""
    history = _history(path)
    asked = {"id": "5f0c9a3e-0002", "timestamp": "2026-11-21T10:00:01.000Z", "type": "user"}
    asked["content"] = [{"text": "And the outbox?"}]
    said = {"id": "a1c2e3f4-0099", "timestamp": "2026-11-21T10:00:05.000Z", "type": "gemini"}
    said |= {"content": turn, "thoughts": [], "tokens": None, "model": "gemini-2.5-pro"}
    records = [
        {"$set": {"sessionId": GEMINI_ID}},
        asked,
        {"$set": {"messages": [*history, asked], "lastUpdated": "2026-11-21T10:00:01.000Z"}},
        said,
    ]
    with path.open("a") as out:
        out.writelines(json.dumps(r) + "\n" for r in records)
    return path


@pytest.mark.parametrize("reviewed", [False, True])
def test_a_resumed_gemini_session_counts_its_history_once(
    memory_repo: Path, tmp_path: Path, reviewed: bool
) -> None:
    session = _prefix(GEMINI, tmp_path / "session.jsonl", 23)
    _capture(memory_repo, session)
    if reviewed:
        assert cli("review", memory_repo, "--today", "2026-11-20").exit_code == 0
    _capture(memory_repo, _resumed(session, "Fact outbox-writes still holds."))
    logs = _logs(memory_repo)
    assert len(logs) == 1 + reviewed
    newest = read_refs(logs[max(logs)]).used
    assert newest == ({"outbox-writes"} if reviewed else USED | {"outbox-writes"})
    if reviewed:
        assert max(logs).startswith("2026-11-21-100005-gemini-")  # named by the new turn


def test_a_rewound_gemini_session_keeps_no_rewound_message(
    memory_repo: Path, tmp_path: Path
) -> None:
    session = _prefix(GEMINI, tmp_path / "session.jsonl", 23)
    said = {"id": "a1c2e3f4-0100", "timestamp": "2026-11-20T09:20:00.000Z", "type": "gemini"}
    said |= {"content": "Fact outbox-writes still holds.", "toolCalls": []}
    with session.open("a") as out:
        out.write(json.dumps(said) + "\n")
        out.write(json.dumps({"$rewindTo": "a1c2e3f4-0100"}) + "\n")
    _capture(memory_repo, session)
    [data] = _logs(memory_repo).values()
    assert read_refs(data).used == USED


GEMINI_RESUMED = FIXTURES / "gemini/session-resumed-compressed.jsonl"


def test_a_gemini_session_resumed_then_compressed_keeps_its_first_runs_work(
    memory_repo: Path, tmp_path: Path
) -> None:
    """Gemini CLI 0.61, two runs of one session: ``--resume`` lists the history again as
    ``$set`` (each tool result twice), then a compression replaces it with a summary under new
    ids. The hooks capture after the first run (20 lines), before each model turn (28, 35) and
    at the end: the log is the one a single capture gives, with the work of both runs."""
    growing = tmp_path / "session.jsonl"
    for count in (21, 28, 35, 39):
        _capture(memory_repo, _prefix(GEMINI_RESUMED, growing, count))
    [text] = [data.decode() for data in _logs(memory_repo).values()]
    assert "- transcript lines: 7-38\n" in text
    calls = "mcp_agent-memory_memory_recall 1, run_shell_command 2, write_file 2"
    assert f"- tool calls: 5 ({calls})\n" in text
    assert "## Files Changed\n- notes/one.txt\n- notes/two.txt\n\n" in text
    assert read_refs(text.encode()).used == {"post-only-mutations", "outbox-writes"}
    other = tmp_path / "other"
    subprocess.run(["git", "clone", "-q", str(memory_repo), str(other)], check=True)
    _capture(other, GEMINI_RESUMED)
    assert _logs(other) == _logs(memory_repo)


# -- Codex 0.169: apply_patch through exec_command, and the patch events ---------------------------

_CWD = "/home/dev/src/orders-api"


def _codex(path: Path, *records: dict[str, object]) -> Path:
    meta = {"id": "019a9f3e-6c2d-7b41-9e55-2f8d0c1a7b37", "timestamp": "2026-11-20T09:14:00.000Z"}
    meta |= {"cwd": _CWD, "originator": "codex_cli_rs", "cli_version": "0.169.0"}
    lines = [{"timestamp": "2026-11-20T09:14:00.000Z", "type": "session_meta", "payload": meta}]
    lines += [{"timestamp": "2026-11-20T09:14:05.000Z", **r} for r in records]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in lines))
    return path


def _exec(call: str, cmd: str) -> dict[str, object]:
    arguments = json.dumps({"cmd": cmd, "workdir": _CWD, "yield_time_ms": 10000})
    payload = {"type": "function_call", "name": "exec_command", "arguments": arguments}
    return {"type": "response_item", "payload": payload | {"call_id": call}}


def _patched(call: str, changes: dict[str, object], success: bool = True) -> dict[str, object]:
    payload = {"type": "patch_apply_end", "call_id": call, "turn_id": "019a9f3e-0001"}
    payload |= {"stdout": "Success.", "stderr": "", "success": success, "changes": changes}
    return {"type": "event_msg", "payload": payload | {"status": "completed"}}


def test_codex_patches_run_through_exec_command_are_files_changed(
    memory_repo: Path, tmp_path: Path
) -> None:
    patch = "*** Begin Patch\n*** Update File: src/api/routes.py\n@@\n-a\n+b\n*** End Patch"
    update = {"type": "update", "unified_diff": "@@\n-a\n+b\n", "move_path": None}
    moved = {"type": "update", "unified_diff": "", "move_path": f"{_CWD}/src/api/new.py"}
    added = {"type": "add", "content": "x = 1\n"}
    rollout = _codex(
        tmp_path / "rollout.jsonl",
        _exec("call_1", f"apply_patch <<'EOF'\n{patch}\nEOF\n"),
        _patched("call_1", {f"{_CWD}/src/api/routes.py": update}),
        _exec("call_2", 'apply_patch "$(cat /tmp/p.diff)"'),
        _patched("call_2", {f"{_CWD}/src/api/old.py": moved, f"{_CWD}/docs/a.md": added}),
        _patched("call_3", {f"{_CWD}/src/refused.py": added}, success=False),
    )
    _capture(memory_repo, rollout)
    [text] = [d.decode() for d in _logs(memory_repo).values()]
    files = "- src/api/routes.py\n- src/api/old.py\n- src/api/new.py\n- docs/a.md\n\n"
    assert f"## Files Changed\n{files}" in text
    assert "- tool calls: 2 (exec_command 2)\n" in text


# -- Claude Code: subagents ----------------------------------------------------------------------


def _subagent(folder: Path, name: str, said: str, file: str) -> Path:
    """A subagent's transcript as Claude Code 2.1 writes it: every record isSidechain, with the
    session's id and the subagent's agentId."""
    common = {"isSidechain": True, "sessionId": CLAUDE_ID, "cwd": _CWD, "version": "2.1.197"}
    common |= {"agentId": name, "userType": "external", "gitBranch": "main"}
    task = {**common, "type": "user", "uuid": "u1", "parentUuid": None}
    task |= {"timestamp": "2026-11-20T09:14:30.000Z"}
    task["message"] = {"role": "user", "content": "Update the cancel docs."}
    call = {"type": "tool_use", "id": "toolu_1", "name": "Edit"}
    call["input"] = {"file_path": f"{_CWD}/{file}", "old_string": "a", "new_string": "b"}
    work = {**common, "type": "assistant", "uuid": "u2", "parentUuid": "u1"}
    work |= {"timestamp": "2026-11-20T09:14:31.000Z", "requestId": "req_1"}
    work["message"] = {"role": "assistant", "content": [{"type": "text", "text": said}, call]}
    path = folder / f"agent-{name}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in (task, work)))
    return path


def test_claude_subagents_are_part_of_their_session(memory_repo: Path, tmp_path: Path) -> None:
    main = tmp_path / "project" / f"{CLAUDE_ID}.jsonl"
    main.parent.mkdir()
    main.write_bytes(TRANSCRIPTS["claude"].read_bytes())
    folder = tmp_path / "project" / CLAUDE_ID / "subagents"
    sub = _subagent(folder, "a1b2c3d", "Per outbox-writes, done.", "docs/cancel.md")
    _subagent(folder, "acompact-9f8e7d", "Summary: user-only-id.", "docs/x.md")
    _capture(memory_repo, main)
    [(name, data)] = _logs(memory_repo).items()
    assert read_refs(data).used == USED | {"outbox-writes"}
    assert b"- docs/cancel.md\n" in data and b"docs/x.md" not in data
    again = _capture(memory_repo, sub)  # the subagent's file: the session's log, as it is
    assert f"already captured in {name}" in again and _logs(memory_repo) == {name: data}


def test_a_subagent_transcript_alone_is_the_subagent_s_work(
    memory_repo: Path, tmp_path: Path
) -> None:
    sub = _subagent(tmp_path / CLAUDE_ID / "subagents", "a1b2c3d", "Per outbox-writes.", "a.md")
    assert "captured claude session" in _capture(memory_repo, sub)
    [data] = _logs(memory_repo).values()
    assert read_refs(data).used == {"outbox-writes"} and b"\n- a.md\n" in data


# -- hooks with nothing to capture ----------------------------------------------------------------


@pytest.mark.parametrize(
    "payload",
    [
        {"session_id": "x", "hook_event_name": "SessionEnd", "reason": "other"},
        {"session_id": "x", "transcript_path": None},
        {"session_id": "x", "transcript_path": ""},
        {"session_id": "x", "transcript_path": "/nowhere/projects/-x/4f2a.jsonl"},
    ],
)
def test_a_hook_with_no_transcript_has_nothing_to_capture(
    memory_repo: Path, payload: dict[str, object]
) -> None:
    """``claude mcp list`` fires SessionEnd with a transcript that does not exist; Codex and
    Gemini payloads can carry a null or empty one: exit 0, one line on stderr, nothing written."""
    before = tree(memory_repo)
    done = subprocess.run(
        [sys.executable, "-m", "agent_memory", "session", "capture", str(memory_repo), "--hook"],
        input=json.dumps(payload), capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0 and done.stdout == "", done
    assert done.stderr.startswith("agent-memory: nothing to capture: ")
    assert done.stderr.count("\n") == 1
    assert tree(memory_repo) == before


def test_a_transcript_a_person_names_that_is_not_there_is_an_error(memory_repo: Path) -> None:
    before = tree(memory_repo)
    done = cli("session", "capture", memory_repo, "--transcript", memory_repo / "no.jsonl")
    assert done.exit_code == 1 and done.output.count("\n") == 1
    assert tree(memory_repo) == before


def test_the_hook_commands_entry_takes_the_hook_s_session_id(
    memory_repo: Path, tmp_path: Path
) -> None:
    """``capture_transcript`` (repo, transcript, agent, session id) is what the hook commands
    call: the hook's session id stands in for a transcript's that is missing, and one of the
    wrong shape is no id at all."""
    lines = TRANSCRIPTS["claude"].read_text().splitlines(keepends=True)
    nameless = tmp_path / "nameless.jsonl"
    nameless.write_text("".join(line.replace(CLAUDE_ID, "") for line in lines))
    repo = Repo(memory_repo)
    with repo.locked():
        bad = "x" * 200
        with pytest.raises(InputError, match="names no session id"):
            capture_transcript(repo, nameless, "claude", bad)
        done = capture_transcript(repo, nameless, "claude", CLAUDE_ID)
        nothing = capture_transcript(repo, None)
    assert done.report.summary["path"].endswith("-claude-7d3f2c1e.md")
    assert nothing.notes == ("agent-memory: nothing to capture: the hook names no transcript",)


def test_hook_session_end_passes_the_payload_s_session_id(
    memory_repo: Path, tmp_path: Path
) -> None:
    """The hook commands hand capture the payload's session_id: a transcript that names none
    is captured under it, not refused."""
    lines = TRANSCRIPTS["claude"].read_text().splitlines(keepends=True)
    nameless = tmp_path / "nameless.jsonl"
    nameless.write_text("".join(line.replace(CLAUDE_ID, "") for line in lines))
    payload = {"cwd": str(memory_repo), "session_id": CLAUDE_ID, "transcript_path": str(nameless)}
    payload["hook_event_name"] = "SessionEnd"
    done = subprocess.run(
        [sys.executable, "-m", "agent_memory", "hook", "session-end"],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0 and done.stdout == "" and done.stderr == "", done.stderr
    [log] = [p for p in (memory_repo / "memory/sessions").glob("*-claude-7d3f2c1e.md")]
    assert f"- session: {CLAUDE_ID}\n" in log.read_text()


# -- a session started below the repo's top ------------------------------------------------------


def _files_changed(text: str) -> list[str]:
    block = text.split("## Files Changed\n", 1)[1].split("\n\n", 1)[0]
    return [line[2:] for line in block.splitlines()]


@pytest.mark.parametrize("name", ["claude", "codex", "gemini"])
def test_files_are_named_from_the_repos_top_when_the_agent_ran_below_it(
    memory_repo: Path, tmp_path: Path, name: str
) -> None:
    """Each fixture run again in ``src/app`` of this repo (its cwd, or for Gemini CLI the hash
    of it): Codex's patches name files relative to that folder, the others absolute paths in it;
    the log names them from the repo's top, as git and the review do."""
    _capture(memory_repo, TRANSCRIPTS[name])
    [top_level] = [_files_changed(d.decode()) for d in _logs(memory_repo).values()]
    for log in (memory_repo / "memory/sessions").glob("*.md"):
        log.unlink()
    here = f"{memory_repo}/src/app"
    text = TRANSCRIPTS[name].read_text().replace(_CWD, here)
    if name == "gemini":
        text = text.replace(json.loads(text.splitlines()[0])["projectHash"], _sha256(here))
    moved = tmp_path / "moved.jsonl"
    moved.write_text(text)
    _capture(memory_repo, moved)
    [data] = _logs(memory_repo).values()
    assert top_level and _files_changed(data.decode()) == [f"src/app/{p}" for p in top_level]


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def test_codex_in_a_subdirectory_names_patched_files_from_the_top(
    memory_repo: Path, tmp_path: Path
) -> None:
    """Codex 0.169 started in ``src/app``: a patch's relative paths are relative to the session's
    cwd, or to the ``workdir`` its exec_command names; a path that leaves the repo is dropped."""
    here = f"{memory_repo}/src/app"
    meta = {"id": "019a9f3e-6c2d-7b41-9e55-2f8d0c1a7b38", "timestamp": "2026-11-20T09:14:00.000Z"}
    meta |= {"cwd": here, "originator": "codex_exec", "cli_version": "0.169.0"}
    turn = {"cwd": here, "approval_policy": "never", "model": "gpt-5.1-codex"}

    def patch(*paths: str) -> str:
        body = "".join(f"*** Add File: {path}\n+x\n" for path in paths)
        return f"apply_patch <<'EOF'\n*** Begin Patch\n{body}*** End Patch\nEOF\n"

    def call(cmd: str, **more: str) -> dict[str, object]:
        payload = {"type": "function_call", "id": "fc_1", "name": "exec_command"}
        payload |= {"arguments": json.dumps({"cmd": cmd, **more}), "call_id": "call_1"}
        return {"type": "response_item", "payload": payload}

    records = [
        {"type": "session_meta", "payload": meta},
        {"type": "turn_context", "payload": turn},
        call(patch(f"{here}/here.txt", "there.txt", "../../../outside.txt")),
        call(patch("a.md", "/etc/passwd"), workdir=f"{memory_repo}/docs"),
    ]
    rollout = tmp_path / "rollout.jsonl"
    stamp = {"timestamp": "2026-11-20T09:14:05.000Z"}
    rollout.write_text("".join(json.dumps(stamp | r) + "\n" for r in records))
    _capture(memory_repo, rollout)
    [data] = _logs(memory_repo).values()
    assert _files_changed(data.decode()) == ["src/app/here.txt", "src/app/there.txt", "docs/a.md"]


@pytest.mark.parametrize("through", ["link", "real"])
def test_a_session_reaching_the_repo_through_a_symlink_names_files_from_the_top(
    memory_repo: Path, tmp_path: Path, through: str
) -> None:
    """The agent ran in ``src/app`` of the repo as a symlink names it (``$PWD``), the capture
    reads the repo by its real path, or the other way round: the files are still named from
    the top, not from the folder the agent ran in."""
    link = tmp_path / "link"
    link.symlink_to(memory_repo.parent, target_is_directory=True)
    seen = link / memory_repo.name if through == "link" else memory_repo
    captured = memory_repo if through == "link" else link / memory_repo.name
    here = f"{seen}/src/app"
    meta = {"id": "019a9f3e-6c2d-7b41-9e55-2f8d0c1a7b39", "timestamp": "2026-11-20T09:14:00.000Z"}
    meta |= {"cwd": here, "originator": "codex_exec", "cli_version": "0.169.0"}
    body = f"*** Add File: {here}/here.txt\n+x\n*** Add File: there.txt\n+x\n"
    cmd = f"apply_patch <<'EOF'\n*** Begin Patch\n{body}*** End Patch\nEOF\n"
    payload = {"type": "function_call", "id": "fc_1", "name": "exec_command"}
    payload |= {"arguments": json.dumps({"cmd": cmd}), "call_id": "call_1"}
    records = [
        {"type": "session_meta", "payload": meta},
        {"type": "response_item", "payload": payload},
    ]
    rollout = tmp_path / "rollout.jsonl"
    stamp = {"timestamp": "2026-11-20T09:14:05.000Z"}
    rollout.write_text("".join(json.dumps(stamp | r) + "\n" for r in records))
    _capture(captured, rollout)
    [data] = _logs(memory_repo).values()
    assert _files_changed(data.decode()) == ["src/app/here.txt", "src/app/there.txt"]


# -- the archive is parsed only where an id the agent named may be --------------------------------

_ARCHIVED = (
    "  <!-- id: {} | created: 2020-01-01 | last_used: 2020-01-01 | uses: 1 | tier: archived -->\n"
)


@pytest.mark.parametrize("named", [(), ("cold-storage",), ("decoy-word",)])
def test_capture_parses_only_the_archive_files_that_may_hold_a_named_id(
    memory_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, named: tuple[str, ...]
) -> None:
    """An archive of thousands of facts costs a capture nothing when the agent named none of
    them; what it names is the same either way: an archived fact's id counts, a word that only
    looks like one in a comment does not."""
    archive = memory_repo / "memory/archive"
    archive.mkdir(exist_ok=True)
    facts = "".join(f"- Old decision {i}\n{_ARCHIVED.format(f'old-{i}')}" for i in range(50))
    (archive / "2020-Q1.md").write_text(f"# Archive 2020-Q1\n\n## Facts\n{facts}")
    cold = f"- Cold storage for orders\n{_ARCHIVED.format('cold-storage')}"
    decoy = "- Mentions <!-- see the id: decoy-word --> in passing\n"
    (archive / "2020-Q2.md").write_text(f"# Archive 2020-Q2\n\n## Facts\n{cold}{decoy}")
    said = {"id": "a1c2e3f4-0100", "timestamp": "2026-11-20T09:20:00.000Z", "type": "gemini"}
    said |= {"content": f"Fact post-only-mutations holds; {' '.join(named)}.", "toolCalls": []}
    session = _prefix(GEMINI, tmp_path / "session.jsonl", 23)
    with session.open("a") as out:
        out.write(json.dumps(said) + "\n")
    parsed: list[str] = []
    real = agent_memory.parse.facts.parse
    monkeypatch.setattr(
        agent_memory.parse.facts,
        "parse",
        lambda path, data: parsed.append(path) or real(path, data),
    )
    assert capture_transcript(Repo(memory_repo), session).exit_code == 0
    [data] = _logs(memory_repo).values()
    assert read_refs(data).used == USED | ({"cold-storage"} & set(named))
    assert [p for p in parsed if "archive" in p] == ["memory/archive/2020-Q2.md"] * bool(named)


_BLANK = st.sampled_from(["", " ", "  ", "\t", "\u00a0", "\u2003"])
_WORDS = st.text(st.sampled_from("ab-: |<!>id"), max_size=12)


@st.composite
def _fact(draw: st.DrawFn) -> str:
    """A fact with a footer in any of the spellings the fact reader accepts: the key in any
    case and blanks around it and the value, other fields before it, junk text before it."""
    fact_id = draw(st.from_regex(ID_PATTERN, fullmatch=True).filter(lambda i: len(i) < 20))
    key = draw(st.sampled_from(["id", "ID", "Id"]))
    blanks = [draw(_BLANK) for _ in range(4)]
    before = draw(st.sampled_from(["", " tier: working |", " see: a-b |"]))
    close = draw(st.sampled_from([" -->", "-->", ""]))
    field = f"{blanks[0]}{key}{blanks[1]}:{blanks[2]}{fact_id}{blanks[3]}"
    return f"- {draw(_WORDS)}\n  {draw(_WORDS)}<!--{before}{field}| tier: working{close}\n"


@settings(max_examples=100, deadline=None)
@given(st.lists(_fact(), max_size=5))
@example(["- \n  <!--id:<!-- tier: working |id:0| tier: working -->\n"])
def test_id_values_holds_every_id_the_fact_reader_finds(found: list[str]) -> None:
    text = "# Archive 2020-Q1\n\n## Facts\n" + "".join(found)
    parsed = agent_memory.parse.facts.parse("memory/archive/2020-Q1.md", text.encode())
    # An id that is not one (lint's error: "<!-- tier: working", read from a footer that repeats
    # its id) holds blanks, so no agent names it as a token, and capture need not find it.
    assert {i for i in known_ids([parsed]) if ID.fullmatch(i)} <= id_values(text)
