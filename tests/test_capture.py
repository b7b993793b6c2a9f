"""``session capture``: a fixture transcript per agent → a log → a review that counts exactly the
ids the agent used; and what capture must never do."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_memory.commands import capture as capture_command
from agent_memory.core.agents import capture as capturing
from agent_memory.core.agents import parts
from agent_memory.core.agents.capture import collect, named_ids
from agent_memory.parse import transcripts
from agent_memory.parse.dates import parse_moment
from agent_memory.parse.footer import ID
from agent_memory.parse.sessions import read_refs
from conftest import PROJECT, cli, run_console, tree

FIXTURES = PROJECT / "tests/fixtures/transcripts"
TRANSCRIPTS = {
    "claude": FIXTURES / "claude/session-basic.jsonl",
    "codex": FIXTURES / "codex/rollout-basic.jsonl",
    "gemini": FIXTURES / "gemini/session-basic.jsonl",
    "gemini-legacy": FIXTURES / "gemini/session-legacy.json",
}
FOOT = "  <!-- id: {} | created: 2026-01-01 | last_used: 2026-01-01 | uses: 1 | tier: working -->\n"
FACTS = {
    "post-only-mutations": "POST-only for mutations",
    "release-4.6.2-shipped": "Release 4.6.2 shipped",
    "outbox-writes": "All writes go through the outbox",
    "user-only-id": "A label only the user names",
}
# Ids with dots are DESIGN §13's; until the fact reader takes them, the repo leaves that fact out
# and the agent's mention of it names nothing known. The tests hold either way.
FACTS = {i: text for i, text in FACTS.items() if ID.match(i)}
USED = {"post-only-mutations", "release-4.6.2-shipped"} & set(FACTS)
REFERENCED = ", ".join(i for i in ("post-only-mutations", "release-4.6.2-shipped") if i in USED)


def _git(root: Path, *args: str, date: str = "2026-01-01T00:00:00Z") -> None:
    env = {**os.environ, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    env |= {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t"}
    env["GIT_COMMITTER_EMAIL"] = "t@t"
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, env=env)


@pytest.fixture
def memory_repo(repo: Path) -> Path:
    """An enabled repo knowing the fixtures' ids, committed before the sessions started."""
    assert cli("enable", repo, "--today", "2026-01-01", "--vendor", "none").exit_code == 0
    continuity = repo / "memory/continuity.md"
    body = "".join(f"- {text}\n{FOOT.format(i)}" for i, text in FACTS.items())
    continuity.write_text(
        continuity.read_text().replace("## Key Decisions\n", f"## Key Decisions\n{body}")
    )
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "memory")
    return repo


def _add(path: Path, heading: str, text: str) -> None:
    path.write_text(path.read_text().replace(heading, heading + text))


def _captured(repo: Path, transcript: Path) -> Path:
    return repo / cli("session", "capture", repo, "--transcript", transcript).output.split()[0]


def _uses(repo: Path) -> dict[str, int]:
    text = (repo / "memory/continuity.md").read_text()
    return {m[1]: int(m[2]) for m in re.finditer(r"id: ([\w.-]+) .*?uses: (\d+)", text)}


@pytest.mark.parametrize("name", list(TRANSCRIPTS))
def test_capture_then_review_counts_exactly_the_ids_the_agent_used(
    memory_repo: Path, name: str
) -> None:
    result = cli("session", "capture", memory_repo, "--transcript", TRANSCRIPTS[name])
    assert result.exit_code == 0, result.output
    rel = result.output.splitlines()[0]
    agent = name.split("-")[0]
    assert re.fullmatch(rf"memory/sessions/2026-11-20-091400-{agent}-[0-9a-f]{{8}}\.md", rel)
    log = (memory_repo / rel).read_bytes()
    text = log.decode()
    assert f"- Referenced: {REFERENCED}\n- Created: (none)\n" in text
    assert read_refs(log).used == USED
    assert "## Files Changed\n- src/api/routes.py\n- memory/continuity.md\n" in text
    assert "- tool calls: 5 (" in text
    assert cli("lint", memory_repo).exit_code == 0
    assert cli("review", memory_repo, "--today", "2026-11-21").exit_code == 0
    assert _uses(memory_repo) == {i: 2 if i in USED else 1 for i in FACTS}


def test_same_transcript_same_bytes_and_a_second_capture_writes_nothing(
    memory_repo: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    subprocess.run(["git", "clone", "-q", str(memory_repo), str(other)], check=True)
    first = cli("session", "capture", memory_repo, "--transcript", TRANSCRIPTS["codex"])
    cli("session", "capture", other, "--transcript", TRANSCRIPTS["codex"])
    rel = first.output.splitlines()[0]
    assert (memory_repo / rel).read_bytes() == (other / rel).read_bytes()
    before = tree(memory_repo)
    again = cli("session", "capture", memory_repo, "--transcript", TRANSCRIPTS["codex"])
    assert again.exit_code == 0 and "nothing new to capture: already captured" in again.output
    assert tree(memory_repo) == before


def test_a_session_before_year_1000_is_named_as_every_log_and_captured_once(
    memory_repo: Path, tmp_path: Path
) -> None:
    """strftime writes year 1 as ``1``: the log's name was no log's name, so no command read it
    and a second capture refused to overwrite it."""
    transcript = tmp_path / "old.jsonl"
    text = TRANSCRIPTS["claude"].read_text()
    transcript.write_text(re.sub(r'"timestamp":"2026-', '"timestamp":"0001-', text))
    first = cli("session", "capture", memory_repo, "--transcript", transcript)
    assert first.exit_code == 0, first.output
    rel = first.output.splitlines()[0]
    assert re.fullmatch(r"memory/sessions/0001-11-20-091400-claude-[0-9a-f]{8}\.md", rel)
    before = tree(memory_repo)
    again = cli("session", "capture", memory_repo, "--transcript", transcript)
    assert again.exit_code == 0 and "nothing new to capture: already captured" in again.output
    assert tree(memory_repo) == before


def test_a_transcript_already_captured_is_answered_without_reading_the_archive(
    memory_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hook fires again and again on one transcript (Gemini CLI before every turn): when
    nothing in it is new, the archive (thousands of facts) is not read for the ids it holds."""
    read: list[int] = []
    archive_files = capture_command.archive_files

    def counted(repo: object) -> object:
        read.append(1)
        return archive_files(repo)  # type: ignore[arg-type]

    monkeypatch.setattr(capture_command, "archive_files", counted)
    first = cli("session", "capture", memory_repo, "--transcript", TRANSCRIPTS["claude"])
    assert first.exit_code == 0 and read == [1]
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(memory_repo)]
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "the log"], check=True)  # recorded: the log is closed
    again = cli("session", "capture", memory_repo, "--transcript", TRANSCRIPTS["claude"])
    assert again.exit_code == 0 and "nothing new to capture: already captured" in again.output
    assert read == [1]


def test_an_open_log_that_covers_the_transcript_is_answered_without_the_memory_or_git(
    memory_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Gemini CLI fires its hook before every model turn: while the session's open log covers
    every record, a capture writes nothing and reads neither the memory nor git (a fact added
    since waits for the session's next record); a new record rewrites the open log whole."""
    transcript = tmp_path / "session.jsonl"
    transcript.write_bytes(TRANSCRIPTS["claude"].read_bytes())
    first = cli("session", "capture", memory_repo, "--transcript", transcript)
    rel = first.output.splitlines()[0]
    assert cli("fact", "add", "Cancel is POST-only too", memory_repo).exit_code == 0
    logged = (memory_repo / rel).read_bytes()
    loads: list[int] = []
    load = capture_command.load

    def counted(*args: object, **kwargs: object) -> object:
        loads.append(1)
        return load(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(capture_command, "load", counted)
    monkeypatch.setattr(capture_command, "file_before", None)  # git is not asked
    again = cli("session", "capture", memory_repo, "--transcript", transcript)
    assert again.exit_code == 0, again.output
    assert f"nothing new to capture: already captured in {rel.rsplit('/', 1)[-1]}" in again.output
    assert (memory_repo / rel).read_bytes() == logged and loads == []
    monkeypatch.undo()
    last = json.loads(transcript.read_text().splitlines()[-2])  # an assistant record
    last |= {
        "uuid": "c1a0ffff-0000-4000-8000-0000000000aa",
        "timestamp": "2026-11-20T09:20:00.000Z",
    }
    with transcript.open("a") as more:
        more.write(json.dumps(last) + "\n")
    rewritten = cli("session", "capture", memory_repo, "--transcript", transcript)
    assert rewritten.output.splitlines()[0] == rel
    assert b"- Created: cancel-is-post-only-too\n" in (memory_repo / rel).read_bytes()


def test_a_cut_transcript_gives_a_marked_partial_log_the_rest_completes(
    memory_repo: Path,
) -> None:
    cut = cli(
        "session",
        "capture",
        memory_repo,
        "--transcript",
        FIXTURES / "claude/session-truncated.jsonl",
    )
    rel = cut.output.splitlines()[0]
    text = (memory_repo / rel).read_text()
    assert "- incomplete: the transcript's last line is cut mid-record" in text
    assert "- Referenced: post-only-mutations\n" in text  # not recovered from the cut
    assert "- memory/continuity.md" not in text
    rest = cli("session", "capture", memory_repo, "--transcript", TRANSCRIPTS["claude"])
    assert rest.output.splitlines()[0] == rel  # the session's open log, rewritten whole
    whole = (memory_repo / rel).read_bytes()
    assert read_refs(whole).used == USED
    assert b"- transcript lines: 5-20\n" in whole and b"incomplete" not in whole
    assert len(list((memory_repo / "memory/sessions").glob("*.md"))) == 1


@pytest.mark.parametrize("name", ["claude", "codex", "gemini"])  # the legacy one is one object
def test_a_cut_last_record_capture_skips_is_no_longer_marked_once_whole(
    memory_repo: Path, tmp_path: Path, name: str
) -> None:
    """A transcript's last record is often one capture reads nothing of (Claude Code's /exit,
    Codex's task_complete, Gemini CLI's $set): cut, it marked the log incomplete, and once whole
    the next capture found nothing new to add and left the mark, which was committed."""
    whole = TRANSCRIPTS[name].read_bytes()
    transcript = tmp_path / "t.jsonl"
    transcript.write_bytes(whole[:-40])
    first = cli("session", "capture", memory_repo, "--transcript", transcript)
    rel = first.output.splitlines()[0]
    assert b"- incomplete:" in (memory_repo / rel).read_bytes(), first.output
    transcript.write_bytes(whole)  # the session ended: its last line is whole
    again = cli("session", "capture", memory_repo, "--transcript", transcript)
    assert again.exit_code == 0, again.output
    log = (memory_repo / rel).read_bytes()
    assert b"- incomplete:" not in log and read_refs(log).used == USED
    assert len(list((memory_repo / "memory/sessions").glob("*.md"))) == 1


def test_facts_added_or_reworded_since_the_session_start_are_listed(memory_repo: Path) -> None:
    continuity = memory_repo / "memory/continuity.md"
    text = continuity.read_text().replace(
        "All writes go through the outbox", "All writes go via the outbox"
    )
    new = "- Cancel is POST-only too\n" + FOOT.format("cancel-post-only").replace(
        "2026-01-01", "2026-11-20"
    )
    continuity.write_text(text.replace("## Conventions\n", f"## Conventions\n{new}"))
    rel = cli(
        "session", "capture", memory_repo, "--transcript", TRANSCRIPTS["gemini"]
    ).output.splitlines()[0]
    text = (memory_repo / rel).read_text()
    assert f"- Referenced: {REFERENCED}, outbox-writes\n" in text
    assert "- Created: cancel-post-only\n" in text


def test_without_git_history_new_facts_are_those_born_that_day(tmp_path: Path) -> None:
    repo = tmp_path / "plain"
    cli("enable", repo.mkdir() or repo, "--today", "2026-11-20", "--vendor", "none")
    continuity = repo / "memory/continuity.md"
    body = FOOT.format("post-only-mutations").replace("2026-01-01", "2026-11-20")
    continuity.write_text(
        continuity.read_text().replace(
            "## Key Decisions\n", f"## Key Decisions\n- POST only\n{body}"
        )
    )
    rel = cli(
        "session", "capture", repo, "--transcript", TRANSCRIPTS["claude"]
    ).output.splitlines()[0]
    refs = read_refs((repo / rel).read_bytes())
    assert refs.created == {"post-only-mutations"} and refs.used == {"post-only-mutations"}


def test_a_one_file_thread_and_the_vision_hold_known_ids(tmp_path: Path) -> None:
    """Capture knew only continuity.md's and the archive's ids: a use of a thread kept in its
    own file (DESIGN §13) was dropped, though lint and the review know that id."""
    repo = tmp_path / "plain"
    cli("enable", repo.mkdir() or repo, "--today", "2026-11-01", "--vendor", "none")
    thread = "- [ ] Release 4.6.2 shipped\n" + FOOT.format("release-4.6.2-shipped")
    (repo / "memory/open-threads").mkdir()
    (repo / "memory/open-threads/thread-release.md").write_text(thread)
    footer = FOOT.format("post-only-mutations").strip().replace("working", "core")
    (repo / "memory/vision.md").write_text(
        f"# Vision\n\n> POST-only for mutations\n>\n> {footer}\n"
    )
    rel = cli(
        "session", "capture", repo, "--transcript", TRANSCRIPTS["claude"]
    ).output.splitlines()[0]
    assert read_refs((repo / rel).read_bytes()).used == USED
    assert cli("lint", repo).exit_code == 0


def test_secrets_in_what_capture_writes_are_redacted(memory_repo: Path, tmp_path: Path) -> None:
    key = "ghp_" + "Zq8Lm2Vx7Kp4Rt9Wn3Bc6Hy1Jd5Fg0Ts2QaE4"  # a session id pasted with a token
    lines = TRANSCRIPTS["claude"].read_text().replace("7d3f2c1e-5b8a-4e2f-9c61-0a4b8d2e6f13", key)
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(lines)
    result = cli("session", "capture", memory_repo, "--transcript", transcript)
    assert "secrets redacted" in result.output
    text = (memory_repo / result.output.splitlines()[0]).read_text()
    assert key not in text and "[redacted: " in text and "- redacted: 1 " in text


def test_bad_input_is_one_line_exit_1_and_nothing_written(
    memory_repo: Path, tmp_path: Path
) -> None:
    before = tree(memory_repo)
    junk = tmp_path / "junk.txt"
    junk.write_bytes(b"\x00\x01 not json\n")
    os.mkfifo(tmp_path / "fifo")
    no_id = tmp_path / "no-id.jsonl"
    no_id.write_text('{"type":"user","message":{"content":"hi"}}\n')
    for args in (
        ["--transcript", junk],
        ["--transcript", tmp_path / "fifo"],
        ["--transcript", tmp_path / "missing.jsonl"],
        ["--transcript", no_id],
        ["--hook"],
    ):
        done = run_console("session", "capture", memory_repo, *args, cwd=tmp_path)
        assert done.returncode == 1 and done.stdout == "", args
        assert len(done.stderr.splitlines()) == 1 and "Traceback" not in done.stderr
    assert tree(memory_repo) == before


def test_hook_reads_the_transcript_path_from_stdin(memory_repo: Path, tmp_path: Path) -> None:
    payload = {
        "session_id": "x",
        "transcript_path": str(TRANSCRIPTS["claude"]),
        "cwd": str(memory_repo),
    }
    done = subprocess.run(
        [sys.executable, "-m", "agent_memory", "session", "capture", "--hook"],
        input=json.dumps(payload), cwd=memory_repo, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("memory/sessions/2026-11-20-091400-claude-7d3f2c1e.md")


def test_ids_are_whole_tokens_and_a_sentence_period_is_not_part_of_one() -> None:
    known = frozenset({"post-only-mutations", "release-4.6.2-shipped", "rate-limit", "a.b"})
    text = (
        "the post-only rule; Post-only-mutations; x-post-only-mutations; release-4.6.2-shipped. "
        "open-threads/rate-limit.md and `a.b`, <!-- id: rate-limit -->"
    )
    encoded = frozenset(i.encode() for i in known)
    assert named_ids([text], encoded) == ["release-4.6.2-shipped", "a.b"]
    assert named_ids(["“post-only-mutations”, then rate-limit."], encoded) == [
        "post-only-mutations",
        "rate-limit",
    ]
    # Each string of a call on its own: a comment one leaves open does not hide the next.
    assert named_ids(["<!-- id: rate-limit", "rate-limit.", "a.b"], encoded) == [
        "rate-limit",
        "a.b",
    ]


def test_hooks_md_names_every_edit_tool_capture_reads_and_ships_in_the_wheel() -> None:
    doc = (PROJECT / "HOOKS.md").read_text()
    for tool in [*transcripts._CLAUDE_EDITS, "apply_patch", "write_file", "replace"]:
        assert f"`{tool}`" in doc, tool
    assert '"HOOKS.md" = "agent_memory/_data/HOOKS.md"' in (PROJECT / "pyproject.toml").read_text()


_KEYS = st.sampled_from(
    ["type", "message", "content", "payload", "sessionId", "timestamp", "id", "toolCalls",
     "args", "input", "name", "text", "role", "$set", "$rewindTo", "messages", "arguments",
     "changes", "move_path", "success", "cmd", "isSidechain", "status"]
)  # fmt: skip
_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.sampled_from(
        ["assistant", "user", "gemini", "text", "tool_use", "session_meta", "response_item",
         "message", "function_call", "apply_patch", "success", "post-only-mutations",
         "2026-11-20T09:14:00Z", "event_msg", "patch_apply_end", "exec_command",
         "*** Begin Patch\n*** Add File: a.py\n"]
    ) | st.text(st.characters(codec=None, exclude_categories=()), max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=4),
    max_leaves=12,
)  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.dictionaries(_KEYS, _VALUES, max_size=5), max_size=6),
    st.sampled_from([None, "claude", "codex", "gemini"]),
    st.booleans(),
)
def test_no_transcript_crashes_the_reader(
    records: list[dict[str, object]], agent: str | None, cut: bool
) -> None:
    raw = "".join(json.dumps(r) + "\n" for r in records).encode()
    if cut:
        raw = raw[: len(raw) // 2]
    try:
        agent, items = transcripts.read(raw.splitlines(keepends=True), agent)
        session = collect(items, frozenset({"post-only-mutations"}), 0)
    except transcripts.NotATranscript:
        return
    assert session.named in ((), ("post-only-mutations",))
    if session.session_id and session.start and parse_moment(session.start):  # it encodes
        name = parts.log_name(agent, session.session_id, session.start, frozenset())
        assert name is not None
        capturing.render(
            agent, session, name, session.files, capturing.Changes((), ())
        ).text.encode()


SESSION = "7d3f2c1e-5b8a-4e2f-9c61-0a4b8d2e6f13"


def _claude(
    path: Path, session: str = SESSION, start: str = "2026-11-20T09:14:00.000Z", **extra: object
) -> Path:
    """A Claude Code transcript in the real shape: the user's line, then the agent's line that
    names a fact and writes a file (``extra`` overrides that line's fields or its Write input)."""
    head = {"type": "user", "sessionId": session, "cwd": "/home/dev/app", "timestamp": start}
    head["message"] = {"role": "user", "content": "Go"}
    write = {"file_path": "/home/dev/app/src/a.py", "content": "x = 1"}
    write.update({k: v for k, v in extra.items() if k == "file_path"})
    call = {"type": "tool_use", "id": "t1", "name": extra.get("name", "Write"), "input": write}
    said = {"type": "text", "text": "Per post-only-mutations, done."}
    body = {"type": "assistant", "sessionId": session, "cwd": "/home/dev/app"}
    body |= {"timestamp": extra.get("timestamp", start), "message": {"content": [said, call]}}
    path.write_text("".join(json.dumps(r) + "\n" for r in (head, body)))
    return path


def _one_log(repo: Path) -> str:
    logs = sorted((repo / "memory/sessions").glob("*.md"))
    assert len(logs) == 1, logs
    return logs[0].read_text()


_INJECTED = "x\n- transcript lines: 1-999999\n\n## Memory References\n- Created: nobody-made-it"


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("file_path", _INJECTED),
        ("name", _INJECTED),
        ("timestamp", "2026-11-20T09:14:00Z\n- transcript lines: 1-999999"),
        *(
            ("file_path", f"/home/dev/app/src/b{char}.py")
            for char in ("\u2028", "\x85", "\x00", "\ud800", "\x1b[2J", "\t", "\r")
        ),
    ],
)
def test_a_transcript_string_never_adds_a_line_to_the_log(
    memory_repo: Path, tmp_path: Path, field: str, value: str
) -> None:
    """A Write's file_path, a tool's name or a record's time holding a newline was copied into
    the log as is: `- transcript lines: 1-999999` made every later capture of the session
    "already captured", and `- Created: x` created a fact nobody made. Every value the
    transcript supplies is now written as one line; the log reads back as the session was."""
    transcript = _claude(tmp_path / "t.jsonl", **{field: value})
    result = run_console(
        "session", "capture", memory_repo, "--transcript", transcript, cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    data = (memory_repo / result.stdout.splitlines()[0]).read_bytes()
    text = data.decode()  # every byte encodes
    assert text.count("\n- transcript lines: ") == 1 and "\n- transcript lines: 2-2\n" in text
    refs = read_refs(data)
    assert refs.created == frozenset() and refs.used == {"post-only-mutations"}
    assert not re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029]", text)
    assert "- end: 2026-11-20T09:14:00.000Z\n" in text  # a bad time is no time
    again = cli("session", "capture", memory_repo, "--transcript", transcript)
    assert "already captured in" in again.output


@pytest.mark.parametrize(
    "session", ["7d3f2c1e\n- transcript lines: 1-999999", "7d3f2c1e\ud800", "", "a b", "x" * 200]
)
def test_a_session_id_that_is_no_id_is_one_line_and_nothing_written(
    memory_repo: Path, tmp_path: Path, session: str
) -> None:
    before = tree(memory_repo)
    transcript = _claude(tmp_path / "t.jsonl", session)
    done = run_console("session", "capture", memory_repo, "--transcript", transcript, cwd=tmp_path)
    assert done.returncode == 1 and len(done.stderr.splitlines()) == 1, done.stderr
    assert "names no session id" in done.stderr and "Traceback" not in done.stderr
    assert tree(memory_repo) == before


def test_two_sessions_whose_ids_share_their_first_8_characters_each_get_their_log(
    memory_repo: Path, tmp_path: Path
) -> None:
    """Codex's ids are UUIDv7, whose first 8 characters are the time: two sessions started
    within a minute share them. The second was "already captured in" the first's log."""
    first = _claude(tmp_path / "a.jsonl", "019a9f3e-6c2d-7b41-9e55-2f8d0c1a7b36")
    later = _claude(tmp_path / "b.jsonl", "019a9f3e-7000-7b41-9e55-aaaaaaaaaaaa")
    same_second = _claude(tmp_path / "c.jsonl", "019a9f3e-8000-7b41-9e55-bbbbbbbbbbbb")
    later.write_text(later.read_text().replace("09:14:00.000Z", "09:14:40.000Z"))
    written = []
    for transcript in (first, later, same_second):
        done = cli("session", "capture", memory_repo, "--transcript", transcript)
        assert done.exit_code == 0 and "captured claude session" in done.output, done.output
        written.append(done.output.splitlines()[0])
    assert written == [
        "memory/sessions/2026-11-20-091400-claude-019a9f3e.md",
        "memory/sessions/2026-11-20-091440-claude-019a9f3e.md",
        "memory/sessions/2026-11-20-091400-claude-019a9f3e80007b419e55bbbbbbbbbbbb.md",
    ]
    for transcript in (first, later, same_second):  # each is its own, and already captured
        again = cli("session", "capture", memory_repo, "--transcript", transcript)
        assert "already captured in" in again.output
    assert cli("review", memory_repo, "--today", "2026-11-21").exit_code == 0
    assert _uses(memory_repo)["post-only-mutations"] == 4


def _hold_lock(repo: Path, seconds: float) -> subprocess.Popen[str]:
    """Another run holding the repo's lock for ``seconds``, started once it holds it."""
    code = (
        "import sys, time; from pathlib import Path; from agent_memory.shell.repo import Repo\n"
        "with Repo(Path(sys.argv[1])).locked():\n"
        "    print('held', flush=True); time.sleep(float(sys.argv[2]))\n"
    )
    holder = subprocess.Popen(
        [sys.executable, "-c", code, str(repo), str(seconds)], stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout is not None and holder.stdout.readline() == "held\n"
    return holder


def test_the_hook_waits_a_moment_for_the_lock_and_capture_takes_wait(
    memory_repo: Path, tmp_path: Path
) -> None:
    """The session-end hook exited 1 while another run held the lock, saying `pass --wait`,
    which capture did not accept. The hook now waits up to 1.5 s (Codex allows a session-end
    hook 3 s in all); capture takes --wait, as the message says."""
    payload = json.dumps({"transcript_path": str(TRANSCRIPTS["claude"])})
    holder = _hold_lock(memory_repo, 0.6)
    hook = subprocess.run(
        [sys.executable, "-m", "agent_memory", "session", "capture", "--hook", str(memory_repo)],
        input=payload, capture_output=True, text=True, check=False,
    )  # fmt: skip
    holder.wait()
    assert hook.returncode == 0, hook.stderr
    holder = _hold_lock(memory_repo, 2.5)
    args = ("session", "capture", memory_repo, "--transcript", TRANSCRIPTS["codex"])
    refused = run_console(*args, cwd=tmp_path)
    waited = run_console(*args, "--wait", "10", cwd=tmp_path)
    holder.wait()
    assert refused.returncode == 1 and "pass --wait SECONDS" in refused.stderr
    assert waited.returncode == 0, waited.stderr


def test_the_hook_takes_its_json_without_waiting_for_the_end_of_stdin(
    memory_repo: Path,
) -> None:
    """An agent may keep the hook's stdin open after writing its JSON: capture waited for an
    end of file that never came, until the agent killed the hook."""
    hook = subprocess.Popen(
        [sys.executable, "-m", "agent_memory", "session", "capture", "--hook", str(memory_repo)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert hook.stdin is not None
    hook.stdin.write(json.dumps({"transcript_path": str(TRANSCRIPTS["claude"])}) + "\n")
    hook.stdin.flush()
    try:
        hook.wait(timeout=10)
    finally:
        hook.kill()
        hook.stdin.close()
    assert hook.returncode == 0
    assert hook.stdout is not None and "captured claude session" in hook.stdout.read()


_DEEP = '{"transcript_path": ' + "[" * 5000 + "]" * 5000 + "}"


@pytest.mark.parametrize(
    ("stdin", "says"),
    [
        (_DEEP, "not a JSON object"),
        ('{"transcript_path": "/tmp/a\\u0000b.jsonl"}', "transcript_path holds U+0000"),
        ('{"transcript_path": "/tmp/\\ud800.jsonl"}', "transcript_path holds U+D800"),
        ('{"transcript_path": "/tmp/a\\nb.jsonl"}', "transcript_path holds U+000A"),
        ('{"transcript_path": "' + "a" * 5000 + '"}', "is over 4096 bytes"),
        ('{"transcript_path": "', "no whole JSON object arrived within"),
    ],
)
def test_a_hostile_hook_payload_is_one_line_exit_1(
    memory_repo: Path, tmp_path: Path, stdin: str, says: str
) -> None:
    before = tree(memory_repo)
    hook = subprocess.Popen(
        [sys.executable, "-m", "agent_memory", "session", "capture", "--hook", str(memory_repo)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert hook.stdin is not None and hook.stderr is not None
    hook.stdin.write(stdin)
    hook.stdin.flush()  # and kept open, as an agent may
    try:
        assert hook.wait(timeout=10) == 1
    finally:
        hook.kill()
        hook.stdin.close()
    err = hook.stderr.read()
    assert len(err.splitlines()) == 1 and says in err and "Traceback" not in err, err
    assert tree(memory_repo) == before


def test_a_transcript_line_nested_past_the_decoder_is_skipped_not_a_traceback(
    memory_repo: Path, tmp_path: Path
) -> None:
    transcript = _claude(tmp_path / "t.jsonl")
    deep = '{"type": "assistant", "message": {"content": ' + "[" * 100_000 + "]" * 100_000
    nested = '{"type": "tool_use", "name": "Bash", "input": {"a": ' + "[" * 900 + "]" * 900
    lines = transcript.read_text() + deep + "}}\n"
    lines += '{"type": "assistant", "message": {"content": [' + nested + "}}]}}\n"
    transcript.write_text(lines)
    done = run_console("session", "capture", memory_repo, "--transcript", transcript, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    text = (memory_repo / done.stdout.splitlines()[0]).read_text()
    assert "- unreadable lines skipped: 1 (not JSON" in text and "Bash 1" in text


def test_a_line_over_the_bound_is_skipped_unread_and_said(
    memory_repo: Path, tmp_path: Path
) -> None:
    """One 200 MB transcript line took 2.5 GB: a line is now read only up to 8 MiB; a longer
    one is skipped in small pieces, counted, and said in the log."""
    transcript = _claude(tmp_path / "t.jsonl")
    huge = {"type": "assistant", "message": {"content": "post-only-mutations " * (1 << 20)}}
    with transcript.open("a") as out:
        out.write(json.dumps(huge) + "\n")
    measure = (
        "import resource, subprocess, sys\n"
        "done = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024, done.returncode)\n"
        "print(done.stdout + done.stderr)\n"
    )
    command = [sys.executable, "-m", "agent_memory", "session", "capture", str(memory_repo)]
    done = subprocess.run(
        [sys.executable, "-c", measure, *command, "--transcript", str(transcript)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    peak, code = map(int, done.stdout.split()[:2])
    assert code == 0, done.stdout
    assert peak < 100, f"{peak} MB"  # the whole line in memory took 350 MB
    text = _one_log(memory_repo)
    assert "- long lines skipped: 1 (over 8 MiB each, not read;" in text


_ANY = st.text(st.characters(codec=None, exclude_categories=()), max_size=24)


@settings(max_examples=200, deadline=None)
@given(_ANY, _ANY, st.lists(_ANY, max_size=4), st.lists(_ANY, max_size=3))
def test_whatever_the_transcript_holds_the_log_reads_back_as_the_session(
    session_id: str, end: str, files: list[str], names: list[str]
) -> None:
    """render is the one place transcript strings reach a log: any strings give a log whose
    session line, covered lines and references are exactly what capture meant."""
    session = capturing.Session(
        session_id or "s", "2026-11-20T09:14:00Z", end, None, None, 3, 9,
        ("post-only-mutations",), tuple(files), 1, Counter(names), 0, False,
    )  # fmt: skip
    found = capturing.Changes(("new-fact",), ())
    log = capturing.render("claude", session, "2026-11-20-091400-claude-s.md", files, found)
    data = log.text.encode()
    assert [line for line in log.text.splitlines() if line.startswith("## ")] == [
        "## Session", "## Files Changed", "## Memory References"
    ]  # fmt: skip
    refs = read_refs(data)
    assert (refs.used, refs.created) == ({"post-only-mutations", "new-fact"}, {"new-fact"})
    name = "2026-11-20-091400-claude-s.md"
    [before] = parts.parts([(name, data)], session.session_id or "s")
    assert (before.name, before.first_line, before.last_line) == (name, 3, 9)
    assert before.created == {"new-fact"}
    assert parts.parts([(name, data)], (session.session_id or "s") + "x") == []
