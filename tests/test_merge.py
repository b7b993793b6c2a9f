"""The merge driver (core/merge/facts.py, MERGE.md): facts merge by id; only true conflicts
are marked."""

from __future__ import annotations

import os
import re
import resource
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_memory.core.merge.facts import merge_file
from agent_memory.parse import facts
from agent_memory.parse.continuity import last_review
from agent_memory.shell.files import MAX_FILE_BYTES
from conftest import PROJECT, build_tree, cli

HEAD = "# Continuity\n\n## Project State\n- last_review: {mark}\n\n## Key Decisions\n"


def fact(
    fid: str, text: str = "", uses: int = 1, last: str = "2026-01-05", tier: str = "working"
) -> str:
    body = text or f"Fact {fid}"
    return (
        f"- {body}\n  <!-- id: {fid} | created: 2026-01-05 | last_used: {last} | "
        f"uses: {uses} | tier: {tier} -->\n"
    )


def doc(mark: str, *facts: str, threads: str = "") -> bytes:
    text = HEAD.format(mark=mark) + "".join(facts)
    if threads:
        text += "\n## Open Threads\n" + threads
    return text.encode()


BASE_MARK = "2026-01-08 | through 2026-01-07-100000 | 3 logs"


def test_both_sides_add_and_review_without_a_conflict() -> None:
    base = doc(BASE_MARK, fact("a"), fact("b"))
    ours = doc(
        "2026-01-10 | through 2026-01-09-100000 | 5 logs",
        fact("a", uses=2, last="2026-01-09"),
        fact("b"),
        fact("ours-new"),
    )
    theirs = doc(
        "2026-01-09 | through 2026-01-08-120000-b | 4 logs",
        fact("a", uses=3, last="2026-01-08", tier="active"),
        fact("theirs-new"),
    )
    merged = merge_file("memory/continuity.md", base, ours, theirs)
    assert merged.conflicts == 0
    assert merged.data == doc(
        # The earlier mark, and "merged": the next review reads every log.
        "2026-01-09 | through 2026-01-08-120000-b | merged",
        # Computed fields both sides changed: the larger count, the later date, the more active.
        fact("a", uses=3, last="2026-01-09", tier="active"),
        # b: removed by theirs, untouched by ours → removed. New facts: ours, then theirs.
        fact("ours-new"),
        fact("theirs-new"),
    )


def test_a_fact_archived_on_one_side_and_reviewed_on_the_other_is_archived() -> None:
    base = doc(BASE_MARK, fact("a"), fact("b"))
    ours = doc(BASE_MARK, fact("a"))
    theirs = doc(BASE_MARK, fact("a"), fact("b", uses=4, last="2026-01-09"))
    merged = merge_file("memory/continuity.md", base, ours, theirs)
    assert (merged.data, merged.conflicts) == (ours, 0)


def test_a_retraction_or_supersession_survives_a_review_on_the_other_side() -> None:
    """``superseded`` is a decision (``fact retract``, ``fact supersede``, a log line), not a
    count: the next review never recomputes it, so a merge never trades it for a livelier tier."""
    base = doc(BASE_MARK, fact("a"), fact("b"))
    retracted = fact("a", tier="superseded").replace(" -->", " | reason: wrong -->")
    ours = doc(
        BASE_MARK,
        retracted,
        fact("b", tier="superseded").replace(" -->", " | superseded-by: a -->"),
    )
    theirs = doc(BASE_MARK, fact("a", tier="active"), fact("b", tier="core"))
    for first, second in ((ours, theirs), (theirs, ours)):
        merged = merge_file("memory/continuity.md", base, first, second)
        read = facts.parse("m", merged.data).facts
        assert merged.conflicts == 0
        assert [f.field("tier") for f in read] == ["superseded", "superseded"]


def test_only_the_fact_both_sides_rewrote_is_marked() -> None:
    base = doc(BASE_MARK, fact("a"), fact("b"))
    ours = doc(BASE_MARK, fact("a", "Use Drizzle for the ORM"), fact("b", uses=2))
    theirs = doc(BASE_MARK, fact("a", "Use Prisma for the ORM"), fact("b", "Fact b, reworded"))
    merged = merge_file("memory/continuity.md", base, ours, theirs)
    assert merged.conflicts == 1
    assert merged.data == doc(
        BASE_MARK,
        "<<<<<<< ours\n",
        fact("a", "Use Drizzle for the ORM"),
        "=======\n",
        fact("a", "Use Prisma for the ORM"),
        ">>>>>>> theirs\n",
        fact("b", "Fact b, reworded", uses=2),
    )


def test_both_texts_of_a_conflict_carry_the_merged_computed_fields() -> None:
    """Rule 2 holds inside a conflict: whichever text a person keeps, its counts are the ones the
    merged mark accounts for, never the stale counts of the side that did not review."""
    base = doc("(none yet)", fact("a"))
    ours = doc("(none yet)", fact("a", "Use Drizzle"))
    theirs = doc(BASE_MARK, fact("a", "Use Prisma", uses=2, last="2026-01-07", tier="active"))
    merged = merge_file("memory/continuity.md", base, ours, theirs)
    reviewed = {"uses": 2, "last": "2026-01-07", "tier": "active"}
    assert merged.data == doc(
        BASE_MARK,
        "<<<<<<< ours\n",
        fact("a", "Use Drizzle", **reviewed),
        "=======\n",
        fact("a", "Use Prisma", **reviewed),
        ">>>>>>> theirs\n",
    )
    # Both reviewed: the larger count, the later date, the more active tier, in both texts.
    ours = doc("2026-01-07 | through 2026-01-06-100000 | 2 logs", fact("a", "Use Drizzle", uses=3))
    text = (merge_file("memory/continuity.md", base, ours, theirs).data or b"").decode()
    footer = fact("a", uses=3, last="2026-01-07", tier="active").splitlines()[1]
    assert re.findall(r"^ *<!--.*", text, re.M) == [footer, footer]


def test_one_id_given_two_texts_is_a_conflict() -> None:
    base = doc(BASE_MARK)
    merged = merge_file(
        "memory/continuity.md", base, doc(BASE_MARK, fact("x", "One")), doc(BASE_MARK, fact("x"))
    )
    assert merged.conflicts == 1 and b"<<<<<<< ours\n- One\n" in (merged.data or b"")
    same = merge_file(
        "memory/continuity.md", base, doc(BASE_MARK, fact("x")), doc(BASE_MARK, fact("x"))
    )
    assert (same.data, same.conflicts) == (doc(BASE_MARK, fact("x")), 0)


def test_removed_on_one_side_and_rewritten_on_the_other_keeps_the_text_as_a_conflict() -> None:
    base = doc(BASE_MARK, fact("a"))
    merged = merge_file(
        "memory/continuity.md", base, doc(BASE_MARK), doc(BASE_MARK, fact("a", "Reworded"))
    )
    assert merged.conflicts == 1 and b"- Reworded\n" in (merged.data or b"")


def test_prose_changed_on_one_side_is_kept_and_on_both_falls_back() -> None:
    base = doc(BASE_MARK, fact("a"))
    ours = doc(BASE_MARK, "Decisions we keep.\n\n", fact("a"), fact("n"))
    theirs = doc(BASE_MARK, fact("a", uses=2)).replace(b"# Continuity\n", b"# Continuity - api\n")
    merged = merge_file("memory/continuity.md", base, ours, theirs)
    assert merged.conflicts == 0
    assert merged.data == doc(
        BASE_MARK, "Decisions we keep.\n\n", fact("a", uses=2), fact("n")
    ).replace(b"# Continuity\n", b"# Continuity - api\n")
    both = doc(BASE_MARK, "Other words.\n\n", fact("a"))
    assert merge_file("memory/continuity.md", base, ours, both).data is None


def test_unreadable_or_unknown_input_is_left_to_git() -> None:
    base = doc(BASE_MARK, fact("a"))
    marked = base + b"<<<<<<< HEAD\n"
    assert merge_file("memory/continuity.md", base, marked, base).data is None
    assert merge_file("memory/continuity.md", base, b"\xff\xfe", base).data is None
    assert merge_file("memory/decay-policy.md", base, base, base).data is None


def test_one_file_threads_and_archive_quarters_merge_by_id() -> None:
    thread = (
        "- [ ] Add rate limiting\n  <!-- id: rate-limit | created: 2026-01-05 | last_used: {d} | "
        "uses: {u} | tier: active -->\n"
    )
    base = thread.format(d="2026-01-05", u=1).encode()
    ours = thread.format(d="2026-01-09", u=2).encode()
    theirs = thread.format(d="2026-01-08", u=3).replace("- [ ]", "- [x]").encode()
    merged = merge_file("memory/open-threads/rate-limit.md", base, ours, theirs)
    assert merged.data == thread.format(d="2026-01-09", u=3).replace("- [ ]", "- [x]").encode()
    quarter = "# Archive 2026-Q1\n\n## Facts\n{f}\n## Completed Threads\n"
    merged = merge_file(
        "memory/archive/2026-Q1.md",
        b"",
        quarter.format(f=fact("a")).encode(),
        quarter.format(f=fact("b")).encode(),
    )
    assert (merged.data, merged.conflicts) == (quarter.format(f=fact("a") + fact("b")).encode(), 0)


def test_index_lines_merge_by_id_sorted() -> None:
    head = "# Archive index\n\nOne line per archived fact.\n\n"
    base = (head + "- b — B → 2026-Q1.md\n").encode()
    ours = (head + "- a — A → 2026-Q1.md\n- b — B → 2026-Q1.md\n").encode()
    theirs = (head + "- c — C → 2026-Q2.md\n").encode()
    merged = merge_file("memory/archive/INDEX.md", base, ours, theirs)
    assert (merged.data, merged.conflicts) == (
        (head + "- a — A → 2026-Q1.md\n- c — C → 2026-Q2.md\n").encode(),
        0,
    )
    clash = merge_file(
        "memory/archive/INDEX.md", base, ours, (head + "- a — A → 2026-Q2.md\n").encode()
    )
    assert clash.conflicts == 1


def test_the_command_writes_ours_and_falls_back_to_git(tmp_path: Path) -> None:
    base, ours, theirs = (
        doc(BASE_MARK, fact("a")),
        doc(BASE_MARK, fact("a"), fact("o")),
        doc(BASE_MARK, fact("a"), fact("t")),
    )
    build_tree(tmp_path, {"o": base, "a": ours, "b": theirs})
    result = cli(
        "merge-file", tmp_path / "o", tmp_path / "a", tmp_path / "b", "memory/continuity.md"
    )
    assert result.exit_code == 0 and "merged by fact id" in result.output
    assert (tmp_path / "a").read_bytes() == doc(BASE_MARK, fact("a"), fact("o"), fact("t"))
    build_tree(tmp_path, {"o": b"x\n", "a": b"ours\n", "b": b"theirs\n"})
    result = cli("merge-file", tmp_path / "o", tmp_path / "a", tmp_path / "b", "notes/plain.md")
    assert result.exit_code == 1 and "git's text merge" in result.output
    assert (tmp_path / "a").read_bytes() == b"<<<<<<< ours\nours\n=======\ntheirs\n>>>>>>> theirs\n"


def test_the_driver_is_the_same_under_any_hash_seed(tmp_path: Path) -> None:
    base = doc(BASE_MARK, *(fact(f"f-{i}") for i in range(30)))
    ours = doc(
        "2026-01-10 | through 2026-01-09-100000 | 5 logs",
        *(fact(f"f-{i}", uses=i) for i in range(0, 30, 2)),
        fact("o"),
    )
    theirs = doc(
        "2026-01-09 | through 2026-01-09-000000 | 5 logs",
        *(fact(f"f-{i}", uses=30 - i) for i in range(30) if i % 3),
        fact("t"),
    )
    outputs = set()
    for seed in ("0", "1", "12345"):
        build_tree(tmp_path, {"o": base, "a": ours, "b": theirs})
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(PROJECT / "installer")}
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "agent_memory",
                "merge-file",
                "o",
                "a",
                "b",
                "memory/continuity.md",
            ],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        outputs.add((tmp_path / "a").read_bytes())
    assert len(outputs) == 1


def test_a_merge_by_fact_id_loads_no_process_machinery(tmp_path: Path) -> None:
    """subprocess costs a twentieth of the start-up: only git's text merge (the fallback) needs
    it, so a merge by fact id must not import it (``-X importtime`` lists every import)."""
    base = doc(BASE_MARK, fact("a"))
    build_tree(tmp_path, {"o": base, "a": doc(BASE_MARK, fact("a"), fact("o")), "b": base})
    env = {**os.environ, "PYTHONPATH": str(PROJECT / "installer")}
    command = ["merge-file", "o", "a", "b", "memory/continuity.md"]
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "agent_memory", *command],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    imported = {
        line.rsplit("|", 1)[-1].strip()
        for line in done.stderr.splitlines()
        if line.startswith("import time:")
    }
    assert "agent_memory.core.merge.facts" in imported
    assert "subprocess" not in imported


@st.composite
def three_versions(draw: st.DrawFn) -> tuple[list[str], dict[str, dict[str, str]], dict[str, str]]:
    """Base facts, and what each side did to each: keep, review (footer), reword, remove; plus
    facts each side added."""
    ids = [f"f-{i}" for i in range(draw(st.integers(0, 8)))]
    acts = {
        side: {fid: draw(st.sampled_from(["keep", "review", "reword", "remove"])) for fid in ids}
        for side in ("ours", "theirs")
    }
    added = {side: f"{side}-{draw(st.integers(0, 2))}" for side in ("ours", "theirs")}
    return ids, acts, added


def _version(side: str, ids: list[str], acts: dict[str, str], added: str | None) -> bytes:
    parts = []
    for i, fid in enumerate(ids):
        act = acts.get(fid, "keep")
        if act == "remove":
            continue
        text = f"Fact {fid} as {side} says" if act == "reword" else ""
        parts.append(fact(fid, text, uses=1 + (i if act == "review" else 0)))
    if added:
        parts.append(fact(added))
    return doc(BASE_MARK, *parts)


@settings(max_examples=200, deadline=None)
@given(three_versions())
def test_merge_keeps_every_change_and_marks_only_two_rewordings(versions) -> None:
    ids, acts, added = versions
    base = _version("base", ids, {}, None)
    ours = _version("ours", ids, acts["ours"], added["ours"])
    theirs = _version("theirs", ids, acts["theirs"], added["theirs"])
    merged = merge_file("memory/continuity.md", base, ours, theirs)
    assert merged == merge_file("memory/continuity.md", base, ours, theirs)
    text = (merged.data or b"").decode()
    expected_conflicts = 0
    for fid in ids:
        o, t = acts["ours"][fid], acts["theirs"][fid]
        if o == "reword" and t == "reword":
            expected_conflicts += 1  # two rewordings: both texts marked, nothing lost
            assert f"- Fact {fid} as ours says" in text and f"- Fact {fid} as theirs says" in text
        elif "reword" in (o, t) and "remove" in (o, t):
            expected_conflicts += 1
            assert f"- Fact {fid} as" in text
        elif "remove" in (o, t):
            assert f"id: {fid} |" not in text  # removed, the other side only reviewed or kept
        else:
            assert text.count(f"id: {fid} |") == 1
            for side in ("ours", "theirs"):
                if acts[side][fid] == "reword":
                    assert f"- Fact {fid} as {side} says\n" in text
    for fid in set(added.values()):
        assert text.count(f"id: {fid} |") == 1
    assert merged.conflicts == expected_conflicts
    if not expected_conflicts:
        assert not facts.parse("memory/continuity.md", merged.data or b"").problems


def test_marks_without_a_log_name_are_merged_too() -> None:
    base = doc("2026-01-01 | through (none yet)", fact("a"))
    ours = doc("2026-01-03 | through (none yet)", fact("a"))
    theirs = doc("2026-01-04 | through 2026-01-02-100000 | 1 logs", fact("a"))
    merged = merge_file("memory/continuity.md", base, ours, theirs).data or b""
    assert b"- last_review: 2026-01-03 | merged | through (none yet)\n" in merged
    assert last_review(facts.parse("c.md", merged)).merged


def test_merge_md_agrees_with_the_code() -> None:
    """MERGE.md names the computed fields, the attributes and the driver the code uses."""
    from agent_memory.core.merge.facts import COMPUTED
    from agent_memory.layout import MERGE_DRIVER

    text = (PROJECT / "MERGE.md").read_text()
    start = text.index("2. **Computed footer fields**")
    named = set(re.findall(r"`([a-z_]+)`", text[start : text.index(") never", start)]))
    assert named == COMPUTED
    assert f'git config merge.agent-memory.driver "{MERGE_DRIVER}"' in text
    template = (PROJECT / "templates/.gitattributes").read_text().splitlines()
    for line in template:
        if not line.startswith("# ") or "agent-memory:" in line:
            assert line in text.splitlines(), line
    review = (PROJECT / "REVIEW.md").read_text()
    assert "`- Full rebuild: <reason>`" in review


def _special(folder: Path, kind: str) -> Path:
    """A path that is not a regular file, of the ``kind`` asked for."""
    path = folder / kind
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "socket":
        listener = socket.socket(socket.AF_UNIX)
        listener.bind(str(path))  # left open: the test's process ends it
        SOCKETS.append(listener)
    elif kind == "folder":
        path.mkdir()
    elif kind == "symlink":
        path.symlink_to(folder / "o")
    else:
        return Path("/dev/zero")
    return path


SOCKETS: list[socket.socket] = []


@pytest.mark.parametrize("side", [0, 1, 2], ids=["base", "ours", "theirs"])
@pytest.mark.parametrize("kind", ["fifo", "socket", "folder", "device", "symlink"])
def test_a_version_that_is_not_a_regular_file_is_one_line_never_a_hang(
    tmp_path: Path, kind: str, side: int
) -> None:
    """git passes regular temp files; a person (or a hostile wrapper) may pass anything. A FIFO
    was opened for reading and waited for a writer forever."""
    base = doc(BASE_MARK, fact("a"))
    build_tree(tmp_path, {"o": base, "a": base, "b": doc(BASE_MARK, fact("a"), fact("t"))})
    sides = [tmp_path / "o", tmp_path / "a", tmp_path / "b"]
    sides[side] = _special(tmp_path, kind)
    before = {p: p.read_bytes() for p in (tmp_path / "o", tmp_path / "a", tmp_path / "b")}
    done = subprocess.run(
        [sys.executable, "-m", "agent_memory", "merge-file", *map(str, sides), "memory/x.md"],
        env={**os.environ, "PYTHONPATH": str(PROJECT / "installer")},
        capture_output=True,
        text=True,
        timeout=20,
        check=False,
    )
    assert done.returncode == 1 and done.stdout == "", done
    assert re.fullmatch(
        rf"agent-memory: {re.escape(str(sides[side]))}: is (a|an) .*; nothing merged: OURS is "
        r"left as it was, and git reports a conflict\n",
        done.stderr,
    ), done.stderr
    assert {p: p.read_bytes() for p in before} == before


def test_a_version_over_the_size_bound_is_refused_without_reading_it(tmp_path: Path) -> None:
    """The other readers stop at 512 MiB; the driver read a 3 GB BASE whole (5.4 GB of memory).
    Here the driver runs with 300 MB of address space: reading it would fail."""
    base = doc(BASE_MARK, fact("a"))
    build_tree(tmp_path, {"a": base, "b": base})
    with (tmp_path / "o").open("wb") as sparse:
        sparse.truncate(MAX_FILE_BYTES + 1)  # sparse: no disk used
    done = subprocess.run(
        [sys.executable, "-m", "agent_memory", "merge-file", "o", "a", "b", "memory/x.md"],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(PROJECT / "installer")},
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (300 << 20, 300 << 20)),
        check=False,
    )
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr == (
        "agent-memory: o: is larger than 512 MiB; refusing to read it; nothing merged: OURS is "
        "left as it was, and git reports a conflict\n"
    )
    assert (tmp_path / "a").read_bytes() == base


def test_the_result_replaces_ours_and_keeps_its_mode(tmp_path: Path) -> None:
    """A new file renamed over OURS (a kill leaves OURS whole): the mode stays, the path stays
    a regular file, and no temp file is left."""
    base = doc(BASE_MARK, fact("a"))
    build_tree(tmp_path, {"o": base, "a": base, "b": doc(BASE_MARK, fact("a"), fact("t"))})
    (tmp_path / "a").chmod(0o640)
    inode = (tmp_path / "a").stat().st_ino
    result = cli("merge-file", tmp_path / "o", tmp_path / "a", tmp_path / "b", "memory/x.md")
    assert result.exit_code == 0, result.output
    merged = tmp_path / "a"
    assert merged.read_bytes() == doc(BASE_MARK, fact("a"), fact("t"))
    assert stat.S_IMODE(merged.stat().st_mode) == 0o640 and merged.stat().st_ino != inode
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "b", "o"]
