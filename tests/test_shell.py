"""The shell: all-or-nothing plans, rollback after a crash, the lock, path safety, reading logs."""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from agent_memory.core.plan import FileEdit, Outcome, Plan
from agent_memory.errors import AgentMemoryError, LockedError, RefusedError
from agent_memory.layout import JOURNAL_DIR, LOCK_FILE
from agent_memory.parse import transcripts
from agent_memory.shell.files import read_regular
from agent_memory.shell.repo import Repo
from agent_memory.shell.stream import lines
from conftest import PROJECT, build_tree, cli, run_console, tree


def _plan(*edits: tuple[str, bytes | None, bytes | None]) -> Plan:
    return Plan.of(FileEdit(p, b, a, Outcome.UPDATED, "test") for p, b, a in edits)


@pytest.mark.parametrize("kill_after", [1, 2, 6, 9, 12])
def test_enable_killed_between_writes_is_rolled_back_then_completes(
    repo: Path, kill_after: int
) -> None:
    build_tree(repo, {"AGENTS.md": "# Mine\n", "CLAUDE.md": "Be terse.\n"})
    before = tree(repo)
    crashed = run_console(
        "enable",
        repo,
        "--today",
        "2026-06-13",
        cwd=repo,
        AGENT_MEMORY_FAULT_AT_STEP=str(kill_after),
    )
    assert crashed.returncode == -9
    assert (repo / JOURNAL_DIR).exists()
    # A read-only command writes nothing, so it refuses; recover rolls the plan back.
    interrupted = tree(repo)
    refused = cli("enable", repo, "--check")
    assert refused.exit_code == 1 and "agent-memory recover" in refused.output
    assert tree(repo) == interrupted
    assert cli("recover", repo).exit_code == 0
    assert tree(repo) == before
    done = cli("enable", repo, "--today", "2026-06-13")
    assert done.exit_code == 0
    fresh = tree(repo)
    assert not any(".agent-memory" in path for path in fresh)
    assert fresh["AGENTS.md"].startswith(b"# Mine\n")


def test_rollback_restores_originals_and_removes_created_files(tmp_path: Path) -> None:
    build_tree(tmp_path, {"a.md": "old a\n", "b.md": "old b\n"})
    repo = Repo(tmp_path)
    plan = _plan(
        ("a.md", b"old a\n", b"new a\n"),
        ("b.md", b"old b\n", None),
        ("new/dir/c.md", None, b"c\n"),
    )
    os.environ["AGENT_MEMORY_FAULT_AT_STEP"] = "5"  # after a.md is written, before b.md goes
    try:
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child is killed mid-plan
            repo.apply(plan)
            os._exit(0)
        _, status = os.waitpid(pid, 0)
    finally:
        del os.environ["AGENT_MEMORY_FAULT_AT_STEP"]
    assert os.WIFSIGNALED(status)
    assert (tmp_path / "a.md").read_bytes() == b"new a\n"
    Repo(tmp_path).recover()
    assert tree(tmp_path) == {"a.md": b"old a\n", "b.md": b"old b\n"}
    assert not (tmp_path / "new").exists()
    Repo(tmp_path).apply(plan)
    assert tree(tmp_path) == {"a.md": b"new a\n", "new/dir/c.md": b"c\n"}


def test_a_plan_built_on_stale_reads_is_refused(tmp_path: Path) -> None:
    build_tree(tmp_path, {"a.md": "changed meanwhile\n"})
    with pytest.raises(Exception, match="changed while this run was planning"):
        Repo(tmp_path).apply(_plan(("a.md", b"old\n", b"new\n")))
    assert tree(tmp_path) == {"a.md": b"changed meanwhile\n"}


def test_live_lock_is_respected_and_dead_lock_is_cleared(tmp_path: Path) -> None:
    import fcntl

    lock = tmp_path / LOCK_FILE
    fd = os.open(lock, os.O_CREAT | os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX)  # a live holder: the kernel lock is what counts
    os.write(fd, b"pid 4242 on elsewhere\n")
    try:
        with pytest.raises(LockedError, match="pid 4242 on elsewhere"):
            Repo(tmp_path).apply(_plan(("a.md", None, b"a\n")))
    finally:
        os.close(fd)  # the holder dies: its kernel lock goes, its file stays
    assert not (tmp_path / "a.md").exists() and lock.exists()
    Repo(tmp_path).apply(_plan(("a.md", None, b"a\n")))
    assert tree(tmp_path) == {"a.md": b"a\n"}
    lock.write_text("")  # killed between creating the file and writing its name
    Repo(tmp_path).recover()
    assert tree(tmp_path) == {"a.md": b"a\n"}


def test_read_only_file_in_the_way_is_refused_untouched(tmp_path: Path) -> None:
    build_tree(tmp_path, {"a.md": "old\n", "b.md": "b\n"})
    (tmp_path / "b.md").chmod(0o444)
    with pytest.raises(RefusedError, match="read-only"):
        Repo(tmp_path).apply(_plan(("a.md", b"old\n", b"new\n"), ("b.md", b"b\n", b"B\n")))
    assert tree(tmp_path) == {"a.md": b"old\n", "b.md": b"b\n"}


def test_symlinks_leading_outside_are_refused_for_reading_and_writing(tmp_path: Path) -> None:
    root, outside = tmp_path / "repo", tmp_path / "outside"
    root.mkdir()
    build_tree(outside, {"secret": "x\n"})
    (root / "log.md").symlink_to(outside / "secret")
    (root / "memory").symlink_to(outside, target_is_directory=True)
    repo = Repo(root)
    with pytest.raises(RefusedError, match="outside the repo"):
        repo.read("log.md")
    with pytest.raises(RefusedError, match="outside the repo"):
        repo.apply(_plan(("memory/continuity.md", None, b"x\n")))
    assert tree(outside) == {"secret": b"x\n"}


@pytest.mark.parametrize(
    "path", [".git/config", ".git/hooks/pre-commit", "sub/.GIT/x", LOCK_FILE, "store/config"]
)
def test_no_plan_writes_into_git_or_onto_the_lock(tmp_path: Path, path: str) -> None:
    """Whatever a plan names, git's files (in any ``.git`` folder, or the folder a ``.git`` file
    names) and the tool's lock are never among its targets; nothing of the plan is written."""
    root = tmp_path / "repo"
    separate = ["--separate-git-dir", root / "store"] if path.startswith("store/") else []
    subprocess.run(["git", "init", "-q", *separate, root], check=True)
    build_tree(root, {"sub/.GIT/x": "x\n"})
    before = tree(tmp_path)
    old = (root / path).read_bytes() if (root / path).is_file() else None
    plan = _plan(("a.md", None, b"a\n"), (path, old, b"ours\n"))
    for check in (Repo(root).check_writes, Repo(root).apply):
        with pytest.raises(RefusedError, match=f"{path}: is in git's folder"):
            check(plan)
    assert tree(tmp_path) == before


def _logs(tmp_path: Path, count: int) -> tuple[Repo, list[str]]:
    folder = tmp_path / "logs"
    folder.mkdir()
    names = [f"{n:05d}.md" for n in range(count)]
    for n, name in enumerate(names):
        (folder / name).write_bytes(b"x" * (n % 7) + name.encode())
    return Repo(tmp_path), names


def test_read_each_reads_every_file_in_the_order_asked(tmp_path: Path) -> None:
    repo, names = _logs(tmp_path, 301)
    wanted = [*reversed(names[:150]), *names[150:]]
    read = list(repo.read_each("logs", wanted))
    assert [name for name, _ in read] == wanted
    assert all(data == (tmp_path / "logs" / name).read_bytes() for name, data in read)


def test_an_unreadable_file_among_many_is_one_line_naming_it(tmp_path: Path) -> None:
    repo, names = _logs(tmp_path, 40)
    (tmp_path / "logs" / names[-3]).unlink()
    (tmp_path / "logs" / names[-3]).mkdir()  # a directory where a log should be
    with pytest.raises(AgentMemoryError) as error:
        list(repo.read_each("logs", names))
    assert str(error.value) == f"logs/{names[-3]}: is a directory where a file is expected"


def test_a_transcript_line_over_the_bound_is_given_as_none_and_the_next_is_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"a" * 7 + b"\n" + b"b" * 8 + b"\n" + b"c" * 9 + b"\n" + b"d" * 40 + b"\nend")
    assert list(lines(path, 8)) == [b"a" * 7 + b"\n", b"b" * 8 + b"\n", None, None, b"end"]
    path.write_bytes(b"x" * 9)  # a last line over the bound, without its newline
    assert list(lines(path, 8)) == [None]
    legacy = b'{\n  "sessionId": "s",\n  "messages": []\n}\n'  # Gemini's old one-object file
    for longest, read in ((len(legacy), [(1, {"sessionId": "s", "messages": []})]), (5, None)):
        monkeypatch.setattr(transcripts, "LINE_MAX", longest)
        parsed = list(transcripts._objects(legacy.splitlines(keepends=True)))
        assert parsed == (read or [transcripts.Bad(1, False, long=True)])


def _immutable(path: Path, how: str, monkeypatch: pytest.MonkeyPatch) -> Callable[[], None]:
    """Make writing ``path`` fail with EPERM, as an immutable file does even for root; the
    undo. ``chattr +i`` where the file system and privileges allow it, else a rename refused at
    the os level (the same errno from the same call)."""
    if how == "chattr +i":
        done = subprocess.run(["chattr", "+i", str(path)], capture_output=True, check=False)
        if done.returncode != 0:
            pytest.skip(f"chattr +i is not available here: {done.stderr!r}")
        return lambda: subprocess.run(["chattr", "-i", str(path)], check=True)
    replace = Path.replace

    def refused(self: Path, target: str | os.PathLike[str]) -> Path:
        if Path(target) == path:
            raise PermissionError(
                errno.EPERM, os.strerror(errno.EPERM), str(self), None, str(target)
            )
        return replace(self, target)

    monkeypatch.setattr(Path, "replace", refused)
    return monkeypatch.undo


@pytest.mark.parametrize("how", ["chattr +i", "rename refused"])
def test_a_write_that_fails_cleanly_leaves_no_journal_behind(
    tmp_path: Path, how: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The review failed on an immutable continuity.md and said "nothing was changed", but its
    rollback tried to restore that same untouched file, failed again, and left the journal: every
    read-only command then refused until recover."""
    repo = tmp_path / "repo"
    shutil.copytree(PROJECT / "examples/evolving-memory-example/before", repo)
    before = tree(repo)
    undo = _immutable(repo / "memory/continuity.md", how, monkeypatch)
    try:
        result = cli("review", repo, "--today", "2026-05-08")
    finally:
        undo()
    assert result.exit_code == 1
    assert tree(repo) == before and not (repo / JOURNAL_DIR).exists()
    assert result.output == (
        "agent-memory: memory/continuity.md: Operation not permitted; nothing was changed — fix "
        "that and run again\n"
    )
    assert cli("status", repo).exit_code == 0


def test_a_file_whose_name_leaves_no_room_for_a_temp_name_is_still_written(
    tmp_path: Path,
) -> None:
    """A temp file is named .<name>.<8 random>.agent-memory-tmp: for a thread file named with
    229 bytes or more that is past the 255 a name may have, and every review failed (leaving its
    journal behind). The temp name now cuts <name>."""
    repo = tmp_path / "repo"
    shutil.copytree(PROJECT / "examples/evolving-memory-example/before", repo)
    for name in ("t" * 251, "t" + "é" * 125):  # 254 bytes with .md; cut inside a character
        build_tree(
            repo,
            {
                f"memory/open-threads/{name}.md": "- [ ] A thread named at length\n  <!-- id: "
                f"long-{len(name)} | created: 2026-05-01 | last_used: 2026-05-01 | uses: 1 -->\n"
            },
        )
    result = cli("review", repo, "--today", "2026-05-08")
    assert result.exit_code == 0, result.output
    threads = tree(repo / "memory/open-threads")
    assert len(threads) == 2 and all(b"| tier: active -->" in data for data in threads.values())
    assert not (repo / JOURNAL_DIR).exists()


def test_a_rollback_that_fails_too_says_so_and_keeps_the_journal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """a.md is written, b.md cannot be, and a.md cannot be put back either: the originals stay
    in the journal, the line says so (never "nothing was changed"), and recover ends it."""
    build_tree(tmp_path, {"a.md": "old a\n", "b.md": "old b\n"})
    replace, calls = Path.replace, []

    def refused(self: Path, target: str | os.PathLike[str]) -> Path:
        calls.append(Path(target).name)
        if Path(target).name == "b.md" or calls.count("a.md") > 1:
            raise PermissionError(
                errno.EPERM, os.strerror(errno.EPERM), str(self), None, str(target)
            )
        return replace(self, target)

    monkeypatch.setattr(Path, "replace", refused)
    plan = _plan(("a.md", b"old a\n", b"new a\n"), ("b.md", b"old b\n", b"new b\n"))
    with pytest.raises(AgentMemoryError) as raised:
        Repo(tmp_path).apply(plan)
    monkeypatch.undo()
    assert str(raised.value) == (
        "b.md: Operation not permitted; rolling back failed too (Operation not permitted: a.md): "
        f"the originals stay in {JOURNAL_DIR} — fix that, then run agent-memory recover"
    )
    assert (tmp_path / JOURNAL_DIR).exists() and (tmp_path / "a.md").read_text() == "new a\n"
    assert cli("recover", tmp_path).exit_code == 0
    assert tree(tmp_path) == {"a.md": b"old a\n", "b.md": b"old b\n"}


@pytest.mark.parametrize("size", [0, 1, (1 << 16) - 1, 1 << 16, (1 << 16) + 1, 3 << 20])
def test_a_file_of_any_size_reads_as_its_bytes(tmp_path: Path, size: int) -> None:
    """One read returns a small file; a larger one is read again from its start, whole."""
    data = bytes(i * 7 % 251 for i in range(size))
    (tmp_path / "f.md").write_bytes(data)
    assert read_regular(tmp_path / "f.md", "f.md") == data
    if size > 1:
        with pytest.raises(RefusedError, match="larger than"):
            read_regular(tmp_path / "f.md", "f.md", limit=size - 1)
