"""Branches and merges with real git (DESIGN §14): generated histories of two to four branches.

Each branch adds logs, facts and reviews, and edits a fact's text now and then; branches merge in
any order. After every merge with the driver: a conflict only around a fact whose text the two
sides wrote differently, every fact once, and a review equal to a full rebuild. Without the driver
git's own merge must still leave a state the tool reads or refuses in one clear line.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from agent_memory.core.review.edits import append_to_section
from agent_memory.parse import facts
from agent_memory.parse.text import decode
from conftest import PROJECT, cli, tree

DRIVER = f"{sys.executable} -m agent_memory merge-file %O %A %B %P"
ENV = {
    **os.environ,
    "PYTHONPATH": os.pathsep.join([str(PROJECT / "installer"), os.environ.get("PYTHONPATH", "")]),
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@e",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@e",
}
CONFLICT = re.compile(r"^<<<<<<< ours\n(.*?)^=======\n(.*?)^>>>>>>> theirs\n", re.M | re.S)
ID = re.compile(r"id: ([a-z0-9.-]+)")


def git(repo: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        ["git", *args], cwd=repo, env=ENV, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0 or not check, done.stdout + done.stderr
    return done


def day(step: int) -> str:
    return f"2026-01-{1 + step:02d}"  # one quarter: every archived fact lands in 2026-Q1.md


class History:
    """A repo and what each branch is known to hold."""

    def __init__(self, root: Path, branches: int, driver: bool) -> None:
        self.root = root
        self.names = [f"b{i}" for i in range(branches)]
        self.ids: dict[str, set[str]] = {}
        self.step = 0
        git(root, "init", "-q", "-b", "b0")
        assert cli("enable", root, "--vendor", "none", "--today", day(0)).exit_code == 0
        policy = root / "memory/decay-policy.md"
        text = policy.read_text()
        for key, value in (("working_window", 1), ("active_window", 2), ("archive_window", 3)):
            text = re.sub(rf"({key}:\s+)\d+", rf"\g<1>{value}", text)
        policy.write_text(text)
        if driver:
            git(root, "config", "merge.agent-memory.driver", DRIVER)
        else:  # no driver section at all: git merges these files as text
            git(root, "config", "--remove-section", "merge.agent-memory")
        self.ids["b0"] = set()
        self.add_fact("b0")
        self.commit("start")
        for name in self.names[1:]:
            git(root, "branch", name)
            self.ids[name] = set(self.ids["b0"])

    def commit(self, message: str) -> None:
        git(self.root, "add", "-A")
        git(self.root, "commit", "-qm", message, "--allow-empty")

    def on(self, branch: str) -> None:
        git(self.root, "checkout", "-q", branch)
        self.step += 1

    def log(self, branch: str, refs: str) -> None:
        name = f"{day(self.step)}-{self.step % 24:02d}0000-{branch}.md"
        path = self.root / "memory/sessions" / name
        path.write_text(f"# Session\n\n## Memory References\n{refs}\n")

    def add_fact(self, branch: str) -> None:
        fid = f"f-{branch}-{self.step}"
        path = self.root / "memory/continuity.md"
        text = decode("c", path.read_bytes())
        footer = f"created: {day(self.step)} | last_used: {day(self.step)} | uses: 1"
        lines = [f"- Fact {fid}\n", f"  <!-- id: {fid} | {footer} | tier: working -->\n"]
        path.write_bytes(append_to_section("c", text, "Key Decisions", lines).encode())
        self.log(branch, f"- Created: {fid}")
        self.ids[branch].add(fid)

    def edit(self, branch: str, pick: int) -> None:
        path = self.root / "memory/continuity.md"
        text = path.read_text()
        bullets = sorted(re.findall(r"^- Fact (f-[a-z0-9-]+)", text, re.M))
        if bullets:
            fid = bullets[pick % len(bullets)]
            text = re.sub(rf"^- Fact {fid}.*$", f"- Fact {fid} per {branch}", text, flags=re.M)
            path.write_text(text)


def fact_ids(root: Path) -> Counter[str]:
    found: Counter[str] = Counter()
    for rel, data in tree(root).items():
        if rel == "memory/continuity.md" or re.match(r"memory/archive/\d{4}-Q\d\.md$", rel):
            found.update(f.id for f in facts.parse(rel, data).facts if f.id)
    return found


def review_equals_full(root: Path, today: str, scratch: Path) -> str:
    """On a copy: the review (incremental, or the full rebuild it decides on) equals --full.
    Returns which of the two the review was."""
    shutil.rmtree(scratch, ignore_errors=True)
    shutil.copytree(root, scratch, ignore=shutil.ignore_patterns(".git"))
    result = cli("review", scratch, "--today", today)
    assert result.exit_code == 0, result.output
    full = cli("review", scratch, "--full", "--check", "--today", today)
    assert full.exit_code == 0, full.output + cli("review", scratch, "--full", "--dry-run").output
    return "full rebuild" if "Full rebuild" in result.output else "incremental review"


def resolve(root: Path, paths: list[str]) -> None:
    """Check each marked region is one fact written two ways; keep ours, or the removal (the
    side that removed it archived it: its text is in the archive already)."""

    def kept(match: re.Match[str]) -> str:
        ours, theirs = match.group(1), match.group(2)
        return "" if not (ours and theirs) else ours

    for rel in paths:
        text = (root / rel).read_text()
        for ours, theirs in CONFLICT.findall(text):
            assert ours != theirs
            ids = set(ID.findall(ours)) | set(ID.findall(theirs))
            assert len(ids) == 1, (ours, theirs)
        (root / rel).write_text(CONFLICT.sub(kept, text))


OPS = st.tuples(
    st.sampled_from(["log", "fact", "review", "merge", "merge", "edit"]),
    st.integers(0, 3),
    st.integers(0, 3),
)


@settings(
    max_examples=10,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(branches=st.integers(2, 4), ops=st.lists(OPS, min_size=6, max_size=14), data=st.data())
def test_generated_histories_merge_with_the_driver(tmp_path_factory, branches, ops, data) -> None:
    root = tmp_path_factory.mktemp("repo")
    history = History(root, branches, driver=True)
    for kind, a, b in ops:
        branch, other = history.names[a % branches], history.names[b % branches]
        history.on(branch)
        if kind == "log":
            known = sorted(history.ids[branch])
            refs = data.draw(st.lists(st.sampled_from(known), max_size=3, unique=True))
            history.log(branch, f"- Referenced: {', '.join(refs) or 'none'}")
        elif kind == "fact":
            history.add_fact(branch)
        elif kind == "review":
            assert cli("review", root, "--today", day(history.step)).exit_code == 0
        elif kind == "edit":
            history.edit(branch, b)
        elif other != branch:
            merged = git(root, "merge", "-q", "--no-edit", other, check=False)
            conflicted = git(root, "diff", "--name-only", "--diff-filter=U").stdout.split()
            assert merged.returncode == 0 or conflicted, merged.stdout + merged.stderr
            assert all(path.startswith("memory/") for path in conflicted), conflicted
            event("merge with conflicts" if conflicted else "clean merge")
            resolve(root, conflicted)
            history.ids[branch] |= history.ids[other]
            counts = fact_ids(root)
            assert set(counts) == history.ids[branch] and max(counts.values()) == 1, counts
            event(review_equals_full(root, day(history.step), tmp_path_factory.mktemp("copy")))
        history.commit(f"{kind} on {branch}")


def test_a_fact_reworded_on_both_branches_takes_the_counts_of_the_mark_kept(tmp_path: Path) -> None:
    """The history hypothesis found: b0 reads a log that uses f-b0-0 and reviews, both branches
    reword f-b0-0, and b1 (never reviewed) merges b0, taking b0's mark. Whichever text is kept
    must carry b0's counts (MERGE.md rule 2), or the next review differs from a full one."""
    root = tmp_path / "repo"
    root.mkdir()
    history = History(root, 2, driver=True)
    for branch, kind in (("b0", "log"), ("b0", "fact"), ("b0", "review"), ("b0", "edit")):
        history.on(branch)
        if kind == "log":
            history.log(branch, "- Referenced: f-b0-0")
        elif kind == "fact":
            history.add_fact(branch)
        elif kind == "review":
            assert cli("review", root, "--today", day(history.step)).exit_code == 0
        else:
            history.edit(branch, 0)
        history.commit(f"{kind} on {branch}")
    reviewed = git(root, "show", "b0:memory/continuity.md").stdout
    footer = re.search(r"^ *<!-- id: f-b0-0 .*\n", reviewed, re.M)
    assert footer is not None and "uses: 2" in footer.group()
    history.on("b1")
    history.edit("b1", 0)
    history.commit("edit on b1")
    history.on("b1")
    assert git(root, "merge", "-q", "--no-edit", "b0", check=False).returncode == 1
    text = (root / "memory/continuity.md").read_text()
    [block] = CONFLICT.finditer(text)
    ours, theirs = block.groups()
    assert ours == f"- Fact f-b0-0 per b1\n{footer.group()}"
    assert theirs == f"- Fact f-b0-0 per b0\n{footer.group()}"
    before, after = text[: block.start()], text[block.end() :]
    for kept in (ours, theirs):
        (root / "memory/continuity.md").write_text(before + kept + after)
        review_equals_full(root, day(history.step), tmp_path / "copy")


def test_without_the_driver_git_leaves_a_state_the_tool_reads_or_refuses(tmp_path: Path) -> None:
    history = History(tmp_path, 2, driver=False)
    for branch in ("b0", "b1"):
        history.on(branch)
        history.add_fact(branch)
        history.log(branch, "- Referenced: f-b0-0")
        assert cli("review", tmp_path, "--today", day(history.step)).exit_code == 0
        history.commit(f"work on {branch}")
    history.on("b0")
    merged = git(tmp_path, "merge", "-q", "--no-edit", "b1", check=False)
    assert merged.returncode != 0  # both reviews rewrote last_review: git's text merge conflicts
    lint = cli("lint", tmp_path)
    assert lint.exit_code == 1 and "[conflict-marker]" in lint.output
    before = tree(tmp_path)
    review = cli("review", tmp_path, "--today", day(history.step))
    assert review.exit_code == 1 and "conflict" in review.output
    assert "Traceback" not in review.output and tree(tmp_path) == before
    # The same merge with the driver is clean, and the next review is a full rebuild.
    git(tmp_path, "merge", "--abort")
    git(tmp_path, "config", "merge.agent-memory.driver", DRIVER)
    git(tmp_path, "merge", "-q", "--no-edit", "b1")
    assert "| merged\n" in (tmp_path / "memory/continuity.md").read_text()
    result = cli("review", tmp_path, "--today", day(history.step))
    assert "- Full rebuild: last_review says merged" in result.output
    assert cli("review", tmp_path, "--full", "--check", "--today", day(history.step)).exit_code == 0


def test_a_driver_stopped_while_it_writes_leaves_ours_whole(tmp_path: Path) -> None:
    """git takes whatever the driver left in %A as the merge. A driver that truncated OURS and
    then could not write it all (here the file-size limit; a full disk or a kill alike) left
    continuity.md cut in the work tree; now OURS is replaced whole or not at all."""
    history = History(tmp_path, 2, driver=True)
    history.on("b0")
    for _ in range(200):  # continuity.md of about 20 KB
        history.add_fact("b0")
        history.step += 1
    history.commit("many facts on b0")
    ours = (tmp_path / "memory/continuity.md").read_bytes()
    history.on("b1")
    history.add_fact("b1")
    history.commit("one fact on b1")
    history.on("b0")
    git(tmp_path, "config", "merge.agent-memory.driver", f"ulimit -f 8; {DRIVER}")  # 4 KB
    merged = git(tmp_path, "merge", "-q", "--no-edit", "b1", check=False)
    assert (tmp_path / "memory/continuity.md").read_bytes() == ours
    assert merged.returncode != 0 and "Traceback" not in merged.stderr, merged.stderr
    assert "nothing merged: OURS is left as it was" in merged.stderr
    assert (
        git(tmp_path, "diff", "--name-only", "--diff-filter=U").stdout == "memory/continuity.md\n"
    )
    assert not list(tmp_path.glob("*.agent-memory-tmp"))


def _conflicting_branches(root: Path) -> None:
    """Two branches that changed one fact's text differently (a conflict by any merge)."""
    git(root, "init", "-q", "-b", "main")
    assert cli("enable", root, "--vendor", "none", "--today", day(0)).exit_code == 0
    history = History.__new__(History)
    history.root, history.step, history.ids = root, 0, {"main": set()}
    history.add_fact("main")
    history.commit("start")
    git(root, "branch", "other")
    history.edit("main", 0)
    history.commit("ours")
    git(root, "checkout", "-q", "other")
    history.ids["other"] = set()
    history.add_fact("other")
    history.edit("other", 0)
    history.commit("theirs")
    git(root, "checkout", "-q", "main")


def test_the_driver_enable_sets_works_without_the_tool_on_path(tmp_path: Path) -> None:
    """enable names the tool that set it: a merge run where agent-memory is not on PATH (no
    venv activated, a GUI client) still merges by fact id."""
    root = tmp_path / "repo"
    root.mkdir()
    _conflicting_branches(root)
    driver = git(root, "config", "merge.agent-memory.driver").stdout
    assert "-m agent_memory --version" in driver or "/agent-memory --version" in driver
    bare = {**ENV, "PATH": str(Path(shutil.which("git") or "/usr/bin/git").parent)}
    done = subprocess.run(
        ["git", "merge", "-q", "other"], cwd=root, env=bare, capture_output=True, text=True
    )
    text = (root / "memory/continuity.md").read_text()
    assert done.returncode == 1 and len(CONFLICT.findall(text)) == 1  # only the edited fact
    assert "f-other-" in text  # the other branch's new fact merged in by id


def test_with_no_tool_at_all_git_leaves_conflict_markers(tmp_path: Path) -> None:
    """The tool that set the driver is gone and none is on PATH: git's own text merge, with
    its markers, never a silently kept "ours" that a `git add` would commit."""
    root = tmp_path / "repo"
    root.mkdir()
    _conflicting_branches(root)
    from agent_memory.shell.merge_driver import merge_driver

    git(root, "config", "merge.agent-memory.driver", merge_driver("/nonexistent/agent-memory"))
    bare = {**ENV, "PATH": str(Path(shutil.which("git") or "/usr/bin/git").parent)}
    done = subprocess.run(
        ["git", "merge", "-q", "other"], cwd=root, env=bare, capture_output=True, text=True
    )
    text = (root / "memory/continuity.md").read_text()
    assert done.returncode == 1
    assert "<<<<<<< ours" in text and ">>>>>>> theirs" in text, text
    status = git(root, "status", "--porcelain").stdout
    assert "UU memory/continuity.md" in status
