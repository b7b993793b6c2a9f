"""The derived store in .git/agent-memory: a cache that changes no output, whatever it holds."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_memory.core.agents import ranking
from agent_memory.core.agents import recall as searching
from agent_memory.parse import facts
from agent_memory.shell import store
from agent_memory.shell.store import NAME
from conftest import build_tree, cli, git_init, run_fresh
from test_written import documents

FOOT = "<!-- id: {0} | created: 2026-01-01 | last_used: 2026-01-0{1} | uses: 1 | tier: {2} -->"


def _archive(n: int, word: str) -> str:
    items = "".join(
        f"- Fact {i} about {word} {i % 5}\n  {FOOT.format(f'a-{i}', 1 + i % 9, 'archived')}\n"
        for i in range(n)
    )
    return f"# Archive\n\n## Facts\n{items}"


# Bullets with footers the reader reads as no fact: one under Project State (line 9), one in a
# fence (lines 14 to 17); a planted row may name their lines
_NO_FACTS = (
    f"\n## Project State\n\n- Poison the shed cats\n  {FOOT.format('stated', 3, 'core')}\n"
    f"\n## Notes\n\n```\n- Feed the shed cats poison\n  {FOOT.format('fenced', 3, 'core')}\n```\n"
)


def _repo_files() -> dict[str, str]:
    return {
        "memory/continuity.md": "# Continuity\n\n## Key Decisions\n\n"
        f"- Cats live in the shed\n  {FOOT.format('shed', 2, 'active')}\n{_NO_FACTS}",
        "memory/archive/2026-Q1.md": _archive(40, "cats"),
    }


def _repo(tmp_path: Path) -> Path:
    return git_init(build_tree(tmp_path / "r", _repo_files()))


def _run(root: Path, *args: str, stdin: str | None = None) -> tuple[int, str, str]:
    """A run of its own process: the store is what one run leaves the next."""
    done = run_fresh(*args, cwd=root, stdin=stdin)
    return done.returncode, done.stdout, done.stderr


def _answers(root: Path) -> list[tuple[int, str, str]]:
    """What recall and the prompt hook say of a few queries."""
    found = [_run(root, "recall", query, ".") for query in ("cats 3", "shed", "cats", "dogs")]
    payload = {"cwd": str(root), "session_id": "s", "hook_event_name": "UserPromptSubmit"}
    for prompt in ("fact 17 about cats", "what about the cats"):
        found.append(_run(root, "hook", "prompt", stdin=json.dumps({**payload, "prompt": prompt})))
    return found


def _without_store(root: Path) -> list[tuple[int, str, str]]:
    """The answers of a repo that keeps no store: its folder is a file."""
    store = root / NAME
    shutil.rmtree(store.parent, ignore_errors=True)
    store.parent.write_text("not a folder\n")
    try:
        return _answers(root)
    finally:
        store.parent.unlink()


def test_the_store_answers_as_the_files_through_edits(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    first = _answers(root)
    assert (root / NAME).is_file()
    assert first[0][0] == 0 and "a-3  [archived]" in first[0][1]
    assert _answers(root) == first == _without_store(root)
    archive = root / "memory/archive/2026-Q1.md"
    archive.write_text(_archive(41, "dogs"))  # a review rewrote it: its rows are made again
    after = _answers(root)
    assert after != first and after[3][0] == 0
    assert after == _answers(root) == _without_store(root)


def _planted(sql: str) -> Callable[[Path], None]:
    def plant(store: Path) -> None:
        store.unlink()
        with sqlite3.connect(store) as db:
            db.executescript(sql)

    return plant


def _lying(sql: str) -> Callable[[Path], None]:
    def lie(store: Path) -> None:
        with sqlite3.connect(store) as db:
            db.execute("PRAGMA trusted_schema = OFF")
            db.execute(sql)

    return lie


def _locked(store: Path) -> None:
    """Left to the test: a concurrent run writing."""


BROKEN: dict[str, Callable[[Path], None]] = {
    "deleted": lambda store: store.unlink(),
    "truncated": lambda store: os.truncate(store, 1000),
    "emptied": lambda store: os.truncate(store, 0),
    "garbage": lambda store: store.write_bytes(b"\x00garbage" * 999),
    "another database": _planted("CREATE TABLE files (x); INSERT INTO files VALUES (1);"),
    "a trigger": _lying("CREATE TRIGGER t AFTER INSERT ON files BEGIN DELETE FROM facts; END"),
    "a view": _lying("CREATE VIEW v AS SELECT * FROM facts"),
    "another schema version": _lying("PRAGMA user_version = 99"),
    "another tool version": _lying("UPDATE meta SET value = '0.0.1'"),
    # The attack of a planted index: a matching fact's row names the lines of another fact,
    # another id, or a tier its file does not give it
    "a row at another fact": _lying(
        "UPDATE facts SET (heading, start, end) = "
        "(SELECT heading, start, end FROM facts WHERE name = 'a-30') WHERE name = 'a-17'"
    ),
    "a row past the file": _lying("UPDATE facts SET start = 900, end = 901"),
    # a bullet the reader reads as no fact: in a fence, or under another heading than the row's
    "a row in a fence": _lying(
        "UPDATE facts SET (name, heading, start, end) = ('fenced', 12, 15, 17) WHERE name = 'shed'"
    ),
    "a row under another heading": _lying(
        "UPDATE facts SET (name, heading, start, end) = ('stated', 2, 9, 11) WHERE name = 'shed'"
    ),
    "a row of text for a number": _lying("UPDATE facts SET used = 'x', start = 'y'"),
    "a file row of other lengths": _lying("UPDATE files SET lengths = '[1, 2]'"),
    "a file row of odd lengths": _lying("UPDATE files SET lengths = '-8' || substr(lengths, 2)"),
    "a file row of no numbers": _lying("UPDATE files SET lengths = 'x' || lengths"),
    "a file row of no words": _lying("UPDATE files SET words = 0"),
    "a row of odd relations": _lying("UPDATE facts SET see = 'a-3' WHERE name = 'a-3'"),
    "a row gone": _lying("DELETE FROM facts WHERE name = 'a-17'"),
    "a link": lambda store: (store.unlink(), store.symlink_to(store.parent / "elsewhere")),
    "a fifo": lambda store: (store.unlink(), os.mkfifo(store)),
    "locked": _locked,
}


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[tuple[int, str, str]]]:
    """A repo whose store its first answers made, and those answers: each state below starts from
    a copy (the store keys on bytes and tool version, never on the folder), not from 6 runs more."""
    root = _repo(tmp_path_factory.mktemp("stored"))
    return root, _answers(root)


@pytest.mark.parametrize("how", sorted(BROKEN))
def test_a_store_in_any_state_changes_no_output(
    tmp_path: Path, how: str, stored: tuple[Path, list[tuple[int, str, str]]]
) -> None:
    made, expected = stored
    root = tmp_path / "r"
    shutil.copytree(made, root, symlinks=True)
    store = root / NAME
    assert store.is_file()
    BROKEN[how](store)
    if how == "locked":
        db = sqlite3.connect(store, isolation_level=None)
        db.execute("BEGIN EXCLUSIVE")
        try:
            assert _answers(root) == expected
        finally:
            db.execute("ROLLBACK")
            db.close()
        return
    assert _answers(root) == expected
    assert _answers(root) == expected  # and again, from what the first run left


def test_a_read_only_git_folder_changes_no_output(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    expected = _without_store(root)
    (root / ".git").chmod(0o500)
    try:
        assert _answers(root) == expected
        assert not (root / NAME).parent.exists() or os.geteuid() == 0
    finally:
        (root / ".git").chmod(0o700)


def test_a_full_disk_changes_no_output(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """SQLite's own "database or disk is full", whether the store is made or a file's rows are
    made again: the answers are the files', and the store is used again once there is room."""
    root = _repo(tmp_path)
    queries = ("cats 3", "shed", "cats", "dogs")

    def answers() -> list[tuple[int, str]]:
        return [(r.exit_code, r.output) for r in (cli("recall", q, root) for q in queries)]

    expected = answers()
    store_file = root / NAME
    store_file.unlink()
    connect = sqlite3.connect

    def full(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        db = connect(*args, **kwargs)
        if args[0] == ":memory:":  # the schema this SQLite makes, not a file
            return db
        pages = db.execute("PRAGMA page_count").fetchone()[0]
        db.execute(f"PRAGMA max_page_count = {max(pages, 1)}")  # no page more
        return db

    monkeypatch.setattr(sqlite3, "connect", full)
    assert answers() == expected  # no store could be made
    monkeypatch.setattr(sqlite3, "connect", connect)
    assert answers() == expected and store_file.is_file()  # made now
    (root / "memory/archive/2026-Q1.md").write_text(_archive(400, "dogs"))  # more pages
    monkeypatch.setattr(sqlite3, "connect", full)
    changed = answers()  # the new rows cannot be stored
    assert changed != expected and changed[3][0] == 0
    with contextlib.closing(connect(store_file)) as db:
        digests = {row[0] for row in db.execute("SELECT digest FROM files")}
    archived = (root / "memory/archive/2026-Q1.md").read_bytes()
    assert hashlib.sha256(archived).hexdigest() not in digests
    monkeypatch.setattr(sqlite3, "connect", connect)
    assert answers() == changed == [(r[0], r[1]) for r in _without_store_in_process(root)]


def _without_store_in_process(root: Path) -> list[tuple[int, str]]:
    store_folder = (root / NAME).parent
    shutil.rmtree(store_folder, ignore_errors=True)
    store_folder.write_text("not a folder\n")
    try:
        found = [cli("recall", q, root) for q in ("cats 3", "shed", "cats", "dogs")]
        return [(r.exit_code, r.output) for r in found]
    finally:
        store_folder.unlink()


def _committed(tmp_path: Path) -> Path:
    root = _repo(tmp_path)
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    subprocess.run([*_GIT, "-C", str(root), "commit", "-qm", "m"], check=True)
    return root


def _linked(tmp_path: Path) -> tuple[Path, Path]:
    """A committed repo and a worktree of it that git links to it."""
    root = _committed(tmp_path)
    linked = tmp_path / "linked"
    subprocess.run(["git", "-C", str(root), "worktree", "add", "-q", str(linked)], check=True)
    return root, linked


def _submodules(tmp_path: Path, *names: str) -> tuple[Path, Path]:
    """A committed repo, and a repo holding it as submodules of these names."""
    inner = _committed(tmp_path)
    outer = git_init(tmp_path / "outer")
    for name in names:
        subprocess.run([*_GIT, "-C", str(outer), "submodule", "add", "-q", str(inner), name])
    return inner, outer


_GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@e", "-c", "protocol.file.allow=always"]


def test_a_linked_worktree_keeps_its_store_in_its_own_git_folder(tmp_path: Path) -> None:
    root, linked = _linked(tmp_path)
    expected = _without_store(root)
    assert _answers(linked) == expected
    assert (root / ".git/worktrees/linked/agent-memory/store.sqlite3").is_file()
    assert _answers(linked) == expected  # from its rows


def test_a_submodule_keeps_its_store_in_its_git_folder(tmp_path: Path) -> None:
    inner, outer = _submodules(tmp_path, "sub")
    expected = _without_store(inner)
    assert (outer / "sub/.git").is_file()
    assert _answers(outer / "sub") == expected
    assert (outer / ".git/modules/sub/agent-memory/store.sqlite3").is_file()


def test_a_submodule_without_git_to_ask_answers_from_its_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whether a submodule's git folder names it back is asked of git: without git, no store,
    the same answers."""
    inner, outer = _submodules(tmp_path, "sub")
    expected = _without_store(inner)
    (tmp_path / "no-git").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "no-git"))
    assert _answers(outer / "sub") == expected
    assert not (outer / ".git/modules/sub/agent-memory").exists()


def test_a_worktree_named_back_by_a_relative_path_keeps_its_store(tmp_path: Path) -> None:
    """git 2.48's relative worktrees write the ``gitdir`` back-pointer as a path from the git
    folder: it is read from there, not from wherever the command runs."""
    root, linked = _linked(tmp_path)
    folder = root / ".git/worktrees/linked"
    (folder / "gitdir").write_text(os.path.relpath(linked / ".git", folder) + "\n")
    expected = _without_store(root)
    assert _answers(linked) == expected
    assert (folder / "agent-memory/store.sqlite3").is_file()


def test_a_submodule_s_git_file_naming_a_sibling_s_folder_keeps_no_store(
    tmp_path: Path,
) -> None:
    """Sitting under a ``.git/modules/`` is not enough: the folder must name this work tree."""
    inner, outer = _submodules(tmp_path, "sub", "other")
    expected = _without_store(inner)
    (outer / "sub/.git").write_text("gitdir: ../.git/modules/other\n")
    assert _answers(outer / "sub") == expected
    assert not (outer / ".git/modules/other/agent-memory").exists()
    assert not (outer / ".git/modules/sub/agent-memory").exists()


def test_a_git_file_naming_no_git_folder_keeps_no_store(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    expected = _without_store(root)
    (root / ".git").rename(tmp_path / "git")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "git-like").mkdir()
    (tmp_path / "git-like/HEAD").write_text("ref: refs/heads/main\n")  # names no work tree back
    for named in (elsewhere, tmp_path / "missing", tmp_path / "git-like"):
        (root / ".git").write_text(f"gitdir: {named}\n")
        assert _answers(root) == expected
    assert list(elsewhere.iterdir()) == []
    assert sorted(p.name for p in (tmp_path / "git-like").iterdir()) == ["HEAD"]
    (root / ".git").write_text(f"gitdir: {tmp_path / 'git'}\n")  # a git folder, not this one's
    assert _answers(root) == expected
    assert not (tmp_path / "git/agent-memory").exists()


def test_two_enabled_folders_of_one_repository_keep_their_rows_apart(tmp_path: Path) -> None:
    top = git_init(tmp_path / "mono")
    first = build_tree(top / "a", _repo_files())
    second_files = {**_repo_files(), "memory/archive/2026-Q1.md": _archive(30, "dogs")}
    second = build_tree(top / "b", second_files)
    answers = (_answers(first), _answers(second))
    with sqlite3.connect(top / NAME) as db:
        stored = sorted(path for (path,) in db.execute("SELECT path FROM files"))
    assert stored == [
        "a/memory/archive/2026-Q1.md",
        "a/memory/continuity.md",
        "b/memory/archive/2026-Q1.md",
        "b/memory/continuity.md",
    ]
    assert (_answers(first), _answers(second)) == answers
    with sqlite3.connect(top / NAME) as db:  # neither made the other's rows again
        assert db.execute("SELECT value FROM meta WHERE key = 'next'").fetchone() == (
            "73",
        )  # 1 + 41 + 31 facts


def test_a_planted_store_ranks_but_never_shows_words_of_its_own(tmp_path: Path) -> None:
    """A row's id, use and tier rank a fact (a planted store may move which facts come first),
    but what is shown of a hit is read from the file's lines by the reader."""
    root = _repo(tmp_path)
    everything = _run(root, "recall", "cats", ".", "--limit", "100")[1].splitlines()
    _lying("UPDATE facts SET name = 'made-up', tier = 'core', used = 99999999")(root / NAME)
    for code, out, _ in _answers(root):
        assert code in (0, 1)
        assert set(out.splitlines()) <= {*everything, *(f"no fact matches {q!r}" for q in ["dogs"])}


_QUERY = st.lists(st.sampled_from(["fact", "a", "b", "facts", "bold", "inside", "x", "c1"]))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(documents(odd=True), min_size=1, max_size=3), _QUERY, st.integers(1, 12))
def test_a_search_of_stored_rows_is_a_search_of_the_files(
    files: list[list[str]], query: list[str], limit: int
) -> None:
    """What ranks, what is shown and what is related, from the store's rows (the hit read
    again from the file's lines) as from the reader's index; any odd shape of file."""
    read = [(f"memory/archive/2026-Q{n}.md", "\n".join(["## Facts", *lines, ""]).encode())
            for n, lines in enumerate(files, 1)]  # fmt: skip
    asked = " ".join(query)
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(tmp) / "store.sqlite3"
        store._made(where)
        kept = store.Store(sqlite3.connect(where, isolation_level=None), "")
        made = [kept.index(path, data) for path, data in read]
        stored = [kept.index(path, data) for path, data in read]
        assert all(isinstance(ix, store.Stored) for ix in stored)
        for least in (0.0, 1.0):
            plain = ranking.search(asked, made, limit, least)
            assert ranking.search(asked, stored, limit, least) == plain
            assert ranking.related(plain, stored) == ranking.related(plain, made)
        kept.db.close()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["fact", "a", "b", "x", "y"]), max_size=6), st.integers(1, 9))
def test_a_floor_leaves_the_list_above_it_as_it_was(query: list[str], limit: int) -> None:
    lines = [
        f"- Fact {' '.join(['a', 'b', 'x'][: n % 4])}\n  <!-- id: f{n} -->\n" for n in range(9)
    ]
    docs = [facts.parse("m.md", ("## Facts\n" + "".join(lines)).encode())]
    indexes = [searching.index(doc) for doc in docs]
    for least in (0.5, 1.0, 2.0):
        edge = ranking.band(least)
        whole = ranking.search(" ".join(query), indexes, 50)
        above = [h for h in whole if ranking.band(h.score) >= edge][:limit]
        assert ranking.search(" ".join(query), indexes, limit, least) == above


def test_a_store_of_files_gone_is_emptied_and_answers_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Words of a file's old rows stay until the words of files gone outnumber the rest; then
    the store is emptied on opening, and each file's rows are made again."""
    monkeypatch.setattr(store, "_STALE", 0)
    root = _repo(tmp_path)
    archive = root / "memory/archive/2026-Q1.md"
    for word in ("cats", "dogs", "eels", "cats"):
        archive.write_text(_archive(40, word))
        kept = store.open_store(root)
        assert kept is not None
        found = [
            kept.index(rel, (root / rel).read_bytes())
            for rel in (archive.relative_to(root).as_posix(),)
        ]
        again = [
            kept.index(rel, (root / rel).read_bytes())
            for rel in (archive.relative_to(root).as_posix(),)
        ]
        assert isinstance(again[0], store.Stored)
        hits = ranking.search(f"{word} 3", again, 50)
        assert hits == ranking.search(f"{word} 3", found, 50) and len(hits) == 40
        kept.db.close()
    with sqlite3.connect(root / NAME) as db:
        assert db.execute("SELECT count(*) FROM facts").fetchone()[0] == 40
        assert int(db.execute("SELECT value FROM meta WHERE key = 'next'").fetchone()[0]) <= 81


def test_a_band_of_many_ties_is_sorted_in_sql_as_in_python(tmp_path: Path) -> None:
    """A common word ties every fact in one band: the store picks the first of them by last
    use, uses, tier (one no rule names last) and id in SQL, as the reader's index does in
    Python, at every limit (each one a different edge of the pick)."""
    tiers = ("archived", "superseded", "archive-candidate", "retired")
    items = "".join(
        f"- Fact about cats\n  <!-- id: z-{(i * 7) % 60} | created: 2026-01-01 | "
        f"last_used: 2026-01-0{1 + i % 2} | uses: {i % 3 // 2} | tier: {tiers[i // 15]} -->\n"
        for i in range(60)
    )
    data = f"# Archive\n\n## Facts\n{items}".encode()
    where = tmp_path / "store.sqlite3"
    store._made(where)
    kept = store.Store(sqlite3.connect(where, isolation_level=None), "")
    made = [kept.index("memory/archive/2026-Q1.md", data)]
    stored = [kept.index("memory/archive/2026-Q1.md", data)]
    assert isinstance(stored[0], store.Stored)
    for limit in range(1, 62):
        plain = ranking.search("cats", made, limit)
        assert len(plain) == min(limit, 60)
        assert ranking.search("cats", stored, limit) == plain
    kept.db.close()


@pytest.mark.parametrize("bom", [b"", b"\xef\xbb\xbf"])
@pytest.mark.parametrize("end", [b"\n", b"\r\n"])
def test_a_hit_read_from_the_file_s_bytes_is_the_reader_s(bom: bytes, end: bytes) -> None:
    """A stored hit is read again from its lines alone, without decoding the whole file: a BOM,
    CRLF endings and a last line without its newline read as the reader reads them."""
    items = [f"- Fact {i} about cats{end.decode()}  {FOOT.format(f'c-{i}', 1, 'archived')}"
             for i in range(3)]  # fmt: skip
    first = [f"- Cats first{end.decode()}  {FOOT.format('c-top', 2, 'archived')}"]
    for head in (["## Facts"], ["# Archive", "", "## Facts"]):
        data = bom + end.join(s.encode() for s in [*head, *first, *items])
        where = Path(tempfile.mkdtemp()) / "store.sqlite3"
        store._made(where)
        kept = store.Store(sqlite3.connect(where, isolation_level=None), "")
        made = [kept.index("memory/archive/2026-Q1.md", data)]
        stored = [kept.index("memory/archive/2026-Q1.md", data)]
        assert isinstance(stored[0], store.Stored)
        plain = ranking.search("cats", made, 10)
        assert len(plain) == 4 and ranking.search("cats", stored, 10) == plain
        kept.db.close()


def test_a_word_held_once_twice_or_more_counts_as_in_the_reader(tmp_path: Path) -> None:
    """How often a fact holds a word (its id may repeat its text's) is kept in the store as the
    reader counts it, once, twice or more: BM25's ranking from either is the same."""
    items = "".join(
        f"- Fact {' '.join(['cats'] * n)} and dogs\n  {FOOT.format(f'cats-{n}', 1, 'archived')}\n"
        for n in range(1, 6)
    )
    data = f"# Archive\n\n## Facts\n{items}- Dogs alone\n  {FOOT.format('d', 1, 'archived')}\n"
    where = tmp_path / "store.sqlite3"
    store._made(where)
    kept = store.Store(sqlite3.connect(where, isolation_level=None), "")
    made = [kept.index("memory/archive/2026-Q1.md", data.encode())]
    stored = [kept.index("memory/archive/2026-Q1.md", data.encode())]
    assert isinstance(stored[0], store.Stored)
    for query in ("cats", "cats dogs", "dogs", "fact cats cats"):
        assert stored[0].postings("cats") == made[0].postings("cats")
        for least in (0.0, 1.0):
            plain = ranking.search(query, made, 10, least)
            assert ranking.search(query, stored, 10, least) == plain
    assert [n for _, n in made[0].postings("cats")] == [2, 3, 4, 5, 6]
    kept.db.close()


def _relating(tmp_path: Path, see: str) -> tuple[store.Store, str, bytes]:
    """A store holding the rows of an archive whose first fact's footer relates it to ``see``."""
    lines = _archive(40, "cats").splitlines(keepends=True)
    lines[4] = lines[4].replace(" -->", f" | see: {see} -->")
    data = "".join(lines).encode()
    where = tmp_path / "store.sqlite3"
    store._made(where)
    kept = store.Store(sqlite3.connect(where, isolation_level=None), "")
    kept.index("memory/archive/2026-Q1.md", data)
    return kept, "memory/archive/2026-Q1.md", data


def test_a_footer_naming_thousands_of_ids_costs_one_query_a_file(tmp_path: Path) -> None:
    """Related ids are looked up in one pass over each file's facts, not one query each: a
    footer may name thousands that no fact holds."""
    kept, path, data = _relating(tmp_path, ", ".join(["a-7", *(f"zz-{n}" for n in range(5000))]))
    stored = kept.index(path, data)
    assert isinstance(stored, store.Stored)
    hits = ranking.search("cats 0", [stored], 3)
    asked: list[str] = []
    kept.db.set_trace_callback(asked.append)
    near = ranking.related(hits, [stored])
    assert near == ranking.related(hits, [searching.read(path, data)])
    assert [r.id for r in near["a-0"]] == ["a-7"]
    assert len(asked) < 10
    kept.db.close()


def test_stored_relations_longer_than_their_file_are_a_lie(tmp_path: Path) -> None:
    """Each fact's relations come from its footer: all of a file's together are no longer than
    it, and a store saying more is not split into its millions of ids."""
    kept, path, data = _relating(tmp_path, "a-7")
    kept.db.execute(
        "UPDATE facts SET see = ? WHERE name = 'a-0'", ("\x1f".join(["a"] * len(data)),)
    )
    stored = kept.index(path, data)
    assert isinstance(stored, store.Stored)
    with pytest.raises(sqlite3.DatabaseError):
        stored.seeing()
    kept.db.close()
