"""The repo is hostile input (DESIGN §15): linear matchers, a journal that is checked before it is
trusted, no option injection into git, usage errors for bad times, and a fuzz of every command."""

from __future__ import annotations

import errno
import json
import os
import re
import subprocess
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_memory.cli.app import main
from agent_memory.core.agents.recall import recall
from agent_memory.parse import facts, footer, refitems
from agent_memory.parse import sessions as log
from agent_memory.shell import files
from agent_memory.shell import journal_format as fmt
from agent_memory.shell.files import atomic_write
from agent_memory.shell.repo import Repo
from agent_memory.shell.walk import matching
from conftest import build_tree, cli, git_init, run_console, stats, tree

_LABEL_TEXT = st.lists(st.sampled_from([*"ab :*_`\t", "Referenced", "**"]), max_size=16).map(
    "".join
)
_GROUP_TEXT = st.text(st.sampled_from([*"ab ,;()[]{}"]), max_size=24)
_HEADING_TEXT = st.text(st.sampled_from([*"ab #\t*"]), max_size=16)
_FOOTER_TEXT = st.sampled_from(["<!--", "-->", "id:", "id", " ", "a", "|", "-", ">"])


@given(_LABEL_TEXT)
def test_label_of_agrees_with_the_regular_expression_it_replaces(item: str) -> None:
    match = refitems._LABEL.match(item)
    expected = (match.group("label").strip(), match.group("rest")) if match else None
    assert refitems.label_of(item) == expected


@given(_GROUP_TEXT)
def test_flattening_groups_agrees_with_the_innermost_first_loop(rest: str) -> None:
    reference = rest
    while (flattened := refitems._GROUP.sub(" ", reference)) != reference:
        reference = flattened
    assert refitems.flatten_groups(rest) == reference


@given(_HEADING_TEXT)
def test_heading_title_agrees_with_the_regular_expression_it_replaces(line: str) -> None:
    match = log._HEADING.match(line)
    assert refitems.heading_title(line) == ((match.group(2) or "") if match else None)


@given(st.lists(_FOOTER_TEXT, max_size=12).map("".join))
def test_footer_search_and_removal_agree_with_the_regular_expression(line: str) -> None:
    match = footer.FOOTER.search(line)
    found = footer.find(line)
    expected = (match.start(), match.end()) if match else None
    assert ((found.start, found.end) if found else None) == expected
    assert footer.without_footers(line) == footer.FOOTER.sub(" ", line)


ADVERSARIAL = [
    ("100 KB of spaces in a label", "- Referenced" + " " * 100_000 + "x"),
    ("100 KB of spaces after a star run", "- " + "*" * 50_000 + "a" + " " * 50_000),
    ("40,000 nested parentheses", "- Referenced: " + "(" * 40_000 + "a" + ")" * 40_000),
    ("40,000 open parentheses", "- Referenced: a " + "(" * 40_000),
    ("40,000 open wiki links", "- Referenced: " + "[[" * 40_000),
]


@pytest.mark.parametrize(("name", "line"), ADVERSARIAL, ids=[n for n, _ in ADVERSARIAL])
def test_log_lines_of_adversarial_size_parse_in_linear_time(name: str, line: str) -> None:
    for prefix in ("", "```\nx\n```\n"):  # the fast path and the fenced one
        started = time.process_time()
        log.read_refs(f"{prefix}## Memory References\n{line}\n".encode())
        assert time.process_time() - started < 2.0, name  # quadratic took 20 to 40 s


def test_a_heading_of_100_kb_of_blanks_in_a_fenced_log_is_linear() -> None:
    data = ("```\nx\n```\n# a" + " \t" * 50_000 + "#x\n## Memory References\n- Used: a\n").encode()
    started = time.process_time()
    assert log.read_refs(data).used == frozenset({"a"})
    assert time.process_time() - started < 2.0


@pytest.mark.parametrize("block", ["```\nx\n```\n", "<div>\n\n"])
def test_20000_code_or_html_blocks_between_headings_are_linear(block: str) -> None:
    """Each heading asked against every block before it took 27 s."""
    data = ("# S\n" + f"{block}## h\n" * 20_000 + "## Memory References\n- Used: a\n").encode()
    started = time.process_time()
    assert log.read_refs(data).used == frozenset({"a"})
    assert time.process_time() - started < 2.0


def test_a_line_of_20000_unclosed_comments_is_linear_to_parse_and_to_recall() -> None:
    line = "- fact " + "<!-- id" * 20_000 + "\n  <!-- id: a | tier: active -->\n"
    started = time.process_time()
    doc = facts.parse("c.md", ("# C\n\n## Key Decisions\n" + line).encode())
    recall("fact", [doc], 5)
    assert time.process_time() - started < 3.0


def _with_fact_line(repo: Path, line: str) -> Path:
    """``repo`` enabled, with a fact whose first line is ``line`` in Key Decisions."""
    assert cli("enable", repo, "--vendor", "none", "--today", "2026-01-01").exit_code == 0
    path = repo / "memory/continuity.md"
    fact = f"- {line}\n  <!-- id: hostile | created: 2026-01-01 | tier: working -->\n"
    path.write_text(path.read_text().replace("## Key Decisions\n", f"## Key Decisions\n{fact}"))
    return repo


def test_a_fact_line_of_20000_unclosed_comments_is_linear_to_start_a_session(repo: Path) -> None:
    """A session start's view read a fact's markup from each ``<!--`` to the line's end again:
    45 s for this one committed line, at every session start (the hook's budget is 30 s)."""
    _with_fact_line(repo, "deploys " + "<!-- " * 20_000)
    started = time.process_time()
    done = cli("context", repo)
    assert time.process_time() - started < 3.0
    assert done.exit_code == 0 and "`hostile`" in done.output


@pytest.mark.parametrize("run", ["a-" * 20_000, "_" * 40_000, "~" * 40_000])
def test_a_fact_line_of_one_long_run_with_no_slash_is_linear_to_lint_and_to_add_to(
    repo: Path, run: str
) -> None:
    """Reading a fact for contradictions tried a path from each character of a run that no "/"
    follows, to the run's end: minutes of lint, and of every `fact add`, for this one line."""
    _with_fact_line(repo, f"deploys {run}")
    started = time.process_time()
    assert "0 errors" in cli("lint", repo).output
    assert cli("fact", "add", "deploys go through staging", repo, "--dry-run").exit_code == 0
    assert time.process_time() - started < 3.0


@pytest.mark.parametrize("brackets", ["[" * 40_000, "![" * 20_000])
def test_a_fact_line_of_unclosed_links_is_linear_to_lint(repo: Path, brackets: str) -> None:
    """The id a fact's words give reduced each link to its text, reading from each "[" to the
    line's end when no "](" closed it: minutes of lint for this one line."""
    _with_fact_line(repo, f"deploys {brackets}")
    started = time.process_time()
    assert "0 errors" in cli("lint", repo).output
    assert time.process_time() - started < 3.0


def test_an_archived_line_of_20000_comment_openings_is_linear_to_fact_add(repo: Path) -> None:
    """Whether an id is taken elsewhere was asked of each line holding it with a pattern tried
    from each ``<!--`` to the line's end: 8 s of `fact add` for 8,000 in one archived line."""
    _with_fact_line(repo, "deploys")
    archive = "# Archive 2026-Q1\n\n## Facts\n- deploys-x " + "<!-- " * 20_000 + "-->\n"
    (repo / "memory/archive/2026-Q1.md").write_text(archive)
    started = time.process_time()
    args = ("fact", "add", "Rollbacks need a ticket", "--id", "deploys-x", repo, "--dry-run")
    assert cli(*args).exit_code == 0
    assert time.process_time() - started < 3.0


@given(st.lists(st.sampled_from(["<!--", "-->", " id: a", "id:a-", " id: b", "x", "\n", "|"])))
def test_an_id_is_placed_where_a_comment_names_it_as_the_one_pattern_placed_it(
    pieces: list[str],
) -> None:
    text = "".join(pieces)
    pattern = re.compile(r"<!--[^\n]*?\bid[ \t]*:[ \t]*([^\s|>]+)")  # 5.1.0's, quadratic
    for fact_id in ("a", "b"):
        expected = None
        at = text.find(fact_id)
        while at != -1 and expected is None:
            start, end = text.rfind("\n", 0, at) + 1, text.find("\n", at)
            end = len(text) if end == -1 else end
            if any(m.group(1).rstrip("-") == fact_id for m in pattern.finditer(text, start, end)):
                expected = f"f.md:{text.count(chr(10), 0, start) + 1}"
            at = text.find(fact_id, end)
        assert footer.place_of("f.md", text, fact_id) == expected


def test_git_never_reads_a_committed_bare_repository_in_an_enabled_folder(
    repo: Path, tmp_path: Path
) -> None:
    """A folder holding HEAD, config, objects/ and refs/ is a repository to git: started in
    an enabled folder committed so, git ran the program its config names (core.fsmonitor)."""
    ran, program = tmp_path / "ran", tmp_path / "program"
    program.write_text(f"#!/bin/sh\ntouch {ran}\n")
    program.chmod(0o755)
    sub = repo / "sub"
    sub.mkdir()
    assert cli("enable", sub, "--vendor", "none", "--today", "2026-01-01").exit_code == 0
    config = "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n"
    config += f"\tfsmonitor = {program}\n"
    build_tree(sub, {"HEAD": "ref: refs/heads/main\n", "config": config})
    build_tree(sub, {"objects/info/packs": "", "refs/heads/.keep": ""})
    assert cli("doctor", sub).exit_code in (0, 1)
    payload = json.dumps({"session_id": "a1", "cwd": str(sub), "hook_event_name": "SessionStart"})
    CliRunner().invoke(main, ["hook", "session-start"], input=payload, catch_exceptions=False)
    assert not ran.exists()


@settings(max_examples=60)
@given(
    st.lists(st.sampled_from(["memory/continuity.md", "AGENTS.md", "a/b/c.md"]), unique=True),
    st.binary(max_size=40),
    st.data(),
)
def test_a_journal_reads_back_and_any_changed_byte_is_refused(
    paths: list[str], originals: bytes, data: st.DataObject
) -> None:
    sizes = [len(originals)] + [0] * (len(paths) - 1) if paths else []
    entries = [fmt.Entry(p, True, [], size) for p, size in zip(paths, sizes, strict=True)]
    if not paths:
        originals = b""
    dumped = fmt.dump(entries, originals)
    assert fmt.load(dumped) == (entries, originals)
    at = data.draw(st.integers(0, len(dumped) - 1))
    flipped = dumped[:at] + bytes([dumped[at] ^ 0x20]) + dumped[at + 1 :]
    with pytest.raises(ValueError):
        fmt.load(flipped)


_ANY_TEXT = st.text(st.characters(exclude_categories=()))  # lone surrogates too


@settings(max_examples=200)
@given(
    st.lists(
        st.builds(
            fmt.Entry,
            _ANY_TEXT,
            st.booleans(),
            st.lists(_ANY_TEXT, max_size=3),
            st.integers(0, 2**40),
        ),
        max_size=4,
    )
)
def test_the_journal_header_is_what_json_writes(entries: list[fmt.Entry]) -> None:
    """The header is written without json (its import is a fifth of fact add's budget), so it
    must be json's bytes for any path: quotes, controls, DEL, non-ASCII, astral, lone
    surrogates."""
    expected = json.dumps([e._asdict() for e in entries], separators=(",", ":")).encode()
    assert fmt.header(entries) == expected


@pytest.mark.parametrize(
    "path",
    [
        "",
        "/etc/passwd",
        "../x",
        "a/../../x",
        "./a",
        "a//b",
        "a/",
        ".git/config",
        "A/.Git/x",
        ".agent-memory.journal/entries",
        ".agent-memory.lock",
        "a\x00b",
    ],
)
def test_unsafe_journal_paths_are_refused(path: str) -> None:
    assert not fmt.safe_path(path)
    with pytest.raises(ValueError, match="names a path outside"):
        fmt.load(fmt.dump([fmt.Entry(path, False, [], 0)], b""))


def test_temp_files_have_unpredictable_names_and_never_follow_a_link(tmp_path: Path) -> None:
    repo, outside = tmp_path / "repo", tmp_path / "outside"
    repo.mkdir()
    outside.mkdir()
    (outside / "sentinel").write_text("keep\n")
    target = repo / "memory.md"
    target.write_text("old\n")
    # The name 3.0.0 used: a link there once made the write land outside.
    (repo / "memory.md.agent-memory-tmp").symlink_to(outside / "sentinel")
    atomic_write(target, b"new\n")
    assert target.read_bytes() == b"new\n" and not target.is_symlink()
    assert (outside / "sentinel").read_text() == "keep\n"
    assert sorted(p.name for p in repo.iterdir()) == ["memory.md", "memory.md.agent-memory-tmp"]


def test_check_logs_never_passes_a_base_to_git_as_an_option(repo: Path, tmp_path: Path) -> None:
    cli("enable", repo, "--vendor", "none", "--today", "2026-06-01")
    subprocess.run(["git", "-C", repo, "add", "-A"], check=True)
    subprocess.run(
        ["git", "-C", repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x"],
        check=True,
    )
    elsewhere = tmp_path / "elsewhere"
    done = run_console("check-logs", repo, f"--base=--output={elsewhere}", cwd=tmp_path)
    assert done.returncode == 1, done
    assert "Traceback" not in done.stderr and len(done.stderr.splitlines()) == 1
    assert not elsewhere.exists()


@pytest.mark.parametrize(
    ("args", "pattern"),
    [
        (["--slug", "x" * 300], r"--slug.*longer than 80 bytes"),
        (["--now", "9999-12-31T23:59:59-14:00"], r"is not a time"),
        (["--now", "\u0662\u0660\u0662\u0666-06-10T10:00:00"], r"is not a time"),
    ],
)
def test_session_new_refuses_bad_times_and_slugs_as_usage_errors(
    repo: Path, args: list[str], pattern: str
) -> None:
    cli("enable", repo, "--vendor", "none", "--today", "2026-06-01")
    before = tree(repo)
    result = cli("session", "new", repo, *args)
    assert result.exit_code == 2 and re.search(pattern, result.output), result.output
    assert tree(repo) == before


def test_hostile_imported_ids_and_counts_become_footers_that_lint_accepts(repo: Path) -> None:
    (repo / "CONTEXT.yaml").write_text(
        "core:\n"
        '  - id: "evil|tier: core"\n    content: Use the outbox\n'
        "    use_count: 100000000000000000000\n"
        '  - id: "x-->y"\n    content: Second\n    use_count: 3\n'
        '  - id: "a\\nb"\n    content: Third\n    use_count: 1.0e20\n'
    )
    assert cli("enable", repo, "--today", "2026-06-20").exit_code == 0
    linted = cli("lint", repo)
    assert linted.exit_code == 0 and "0 errors" in linted.output, linted.output
    text = (repo / "memory/continuity.md").read_text()
    assert "origin: CONTEXT.yaml#evil_tier: core -->" in text  # sanitised, and said so in MIGRATE


def _review_ready(repo: Path) -> None:
    cli("enable", repo, "--vendor", "none", "--today", "2026-06-01")
    log_file = repo / "memory/sessions/2026-06-10-100000.md"
    log_file.write_text("# Session\n\n## Memory References\n- Referenced: none\n")


@pytest.mark.parametrize(
    ("where", "code"), [("journal", errno.EROFS), ("file", errno.ENOSPC), ("file", errno.EACCES)]
)
def test_a_file_system_error_is_one_line_and_the_tree_is_rolled_back(
    repo: Path, monkeypatch: pytest.MonkeyPatch, where: str, code: int
) -> None:
    _review_ready(repo)
    before = tree(repo)
    if where == "journal":  # a read-only mount: the journal cannot even be made
        real_mkdir = Path.mkdir

        def mkdir(self: Path, *args: object, **kwargs: object) -> None:
            if self.name == ".agent-memory.journal":
                raise OSError(code, os.strerror(code), str(self))
            real_mkdir(self, *args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(Path, "mkdir", mkdir)
    else:  # the disk fills up (or a file is immutable) after the journal is written
        real_write = files.write_synced
        calls = []

        def write(fd: int, data: bytes) -> None:
            calls.append(fd)
            if len(calls) == 1:
                raise OSError(code, os.strerror(code))
            real_write(fd, data)

        monkeypatch.setattr(files, "write_synced", write)
    result = cli("review", repo, "--today", "2026-06-20")
    assert result.exit_code == 1
    lines = [line for line in result.output.splitlines() if line.startswith("agent-memory:")]
    assert len(lines) == 1 and os.strerror(code) in lines[0], result.output
    assert lines[0].startswith(("agent-memory: .agent-memory.journal", "agent-memory: memory/"))
    assert "Traceback" not in result.output
    assert tree(repo) == before


# -- the fuzz: random bytes and random symlinks into every command -----------------------------

_TARGETS = [
    "memory/continuity.md",
    "memory/decay-policy.md",
    ".agent/version.md",
    "memory/archive/2026-Q2.md",
    "memory/archive/INDEX.md",
    "memory/sessions/2026-06-10-100000.md",
    "AGENTS.md",
    "CLAUDE.md",
    ".agent-memory.lock",
    ".agent-memory.journal",
    ".agent-memory.journal/entries",
]
_COMMANDS = [
    ["lint"],
    ["status"],
    ["recall", "fact"],
    ["review", "--today", "2026-06-20"],
    ["review", "--full", "--check", "--today", "2026-06-20"],
    ["enable", "--today", "2026-06-20"],
    ["recover"],
]
_CHANGE = st.one_of(
    st.tuples(st.just("bytes"), st.binary(max_size=200)),
    st.tuples(
        st.just("text"),
        st.lists(st.sampled_from([*"-#<>!|:\r\n [](x)`*", "id: a", "## K"])).map("".join),
    ),
    st.tuples(
        st.just("link"),
        st.sampled_from(
            [
                ".",
                "..",
                "../outside/sentinel",
                "/",
                "nowhere",
                "memory",
                "memory/sessions/2026-06-10-100000.md",
            ]
        ),
    ),
    st.tuples(st.just("fifo"), st.none()),
)
_ENABLED: dict[str, dict[str, bytes]] = {}


def _enabled_tree(tmp_path: Path) -> dict[str, bytes]:
    if not _ENABLED:
        seed = git_init(tmp_path / "seed")
        cli("enable", seed, "--vendor", "none", "--today", "2026-06-01")
        _ENABLED.update(tree(seed))
    return _ENABLED


def _put(repo: Path, rel: str, kind: str, value: object) -> None:
    path = repo / rel
    if (path.is_dir() and not path.is_symlink()) or not path.parent.is_dir():
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    if os.path.lexists(path):
        path.unlink()
    if kind == "bytes":
        path.write_bytes(value)  # type: ignore[arg-type]
    elif kind == "text":
        path.write_bytes(str(value).encode())
    elif kind == "link":
        path.symlink_to(str(value))
    else:
        os.mkfifo(path)


@settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    st.lists(st.tuples(st.sampled_from(_TARGETS), _CHANGE), min_size=1, max_size=4),
    st.sampled_from(_COMMANDS),
)
def test_fuzz_every_command_is_one_line_and_never_writes_outside(
    tmp_path_factory: pytest.TempPathFactory,
    changes: list[tuple[str, tuple[str, object]]],
    command: list[str],
) -> None:
    base = tmp_path_factory.mktemp("fuzz")
    repo, outside = base / "repo", base / "outside"
    outside.mkdir()
    (outside / "sentinel").write_text("outside the repo\n")
    for rel, data in _enabled_tree(base).items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_bytes(data)
    for rel, (kind, value) in changes:
        _put(repo, rel, kind, value)
    before = stats(outside)
    result = cli(command[0], *command[1:], repo)
    assert result.exit_code in (0, 1), result.output
    assert "Traceback" not in result.output
    assert len([x for x in result.output.splitlines() if x.startswith("agent-memory:")]) <= 1
    assert stats(outside) == before


def test_the_vendor_walk_never_enters_a_symlinked_folder(tmp_path: Path) -> None:
    root, outside = tmp_path / "repo", tmp_path / "outside"
    (root / ".cursor/rules/team").mkdir(parents=True)
    (outside / "rules").mkdir(parents=True)
    (outside / "rules/stolen.mdc").write_text("---\nalwaysApply: true\n---\nx\n")
    (root / ".cursor/rules/team/style.mdc").write_text("---\nalwaysApply: true\n---\ny\n")
    (root / ".cursor/rules/sub").symlink_to(".", target_is_directory=True)  # a loop
    (root / ".cursor/rules/ext").symlink_to(outside / "rules", target_is_directory=True)
    started = time.perf_counter()
    found = matching(Repo(root), [".cursor/rules/**/*.mdc"])
    assert found == [".cursor/rules/team/style.mdc"]
    assert time.perf_counter() - started < 2.0


def test_a_stamp_naming_a_vendor_we_do_not_know_is_one_line_never_a_traceback(
    repo: Path,
) -> None:
    assert cli("enable", repo, "--today", "2026-01-01").exit_code == 0
    stamp = repo / ".agent/version.md"
    stamp.write_text(stamp.read_text().replace("claude, gemini", "claude, ../evil"))
    before = tree(repo)
    runs = [
        ("enable", repo, "--today", "2026-01-02"),
        ("enable", repo, "--check", "--today", "2026-01-02"),
        ("lint", repo),
    ]
    for args in runs:
        result = cli(*args)
        assert result.exit_code == 1 and "Traceback" not in result.output, (args, result.output)
        assert ".agent/version.md" in result.output and "../evil" in result.output
    assert tree(repo) == before
