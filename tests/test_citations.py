"""Facts kept true (DECAY.md § Citations, § Relations, § Expiry): lint's stale check against the
work tree and a git revision, hostile cited paths, the marks of context, explain and status,
related facts, and expiry through the review."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_memory.commands import context as context_command
from agent_memory.core.checks import citations as checks
from agent_memory.parse import cites, facts
from agent_memory.shell.repo import Repo
from conftest import build_tree, git_init, tree

DAY = "2026-04-01"
FOOT = "<!-- id: {} | created: 2026-03-01 | last_used: 2026-03-01 | uses: 1 | tier: {} -->"
USED_CONFIG = "## Memory References\n- Referenced: config\n"
SOURCE = "import os\n\n\ndef load(path):\n    with open(path) as f:\n        return f.read()\n"


def am(root: Path, *args: str) -> tuple[int, str, str]:
    done = subprocess.run(
        [sys.executable, "-m", "agent_memory", *args],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    return done.returncode, done.stdout, done.stderr


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = git_init(tmp_path / "repo")
    assert am(root, "enable", "--today", "2026-03-01")[0] == 0
    build_tree(root, {"src/load.py": SOURCE})
    text = (root / "memory/continuity.md").read_text()
    facts_ = (
        f"- Files are read whole by `src/load.py`\n  {FOOT.format('read-whole', 'working')}\n"
        f"- Config lives in `src/config.toml`\n  {FOOT.format('config', 'working')}\n"
    )
    (root / "memory/continuity.md").write_text(
        text.replace("## Key Decisions\n", "## Key Decisions\n" + facts_)
    )
    code, _, err = am(root, "fact", "cite", "read-whole", "src/load.py:4-6", "--today", DAY)
    assert code == 0, err
    return root


def stale(root: Path, *more: str) -> list[str]:
    _, out, _ = am(root, "lint", "--only", "stale", "--only", "cites-unreadable", *more)
    return [line for line in out.splitlines() if "[stale]" in line or "[cites-unreadable]" in line]


def test_a_path_from_a_subdirectory_is_refused_with_the_git_command_that_names_it(
    repo: Path,
) -> None:
    """From `src/`, `load.py` names no file at the top; the refusal names the git command whose
    output, run where the user stands, is the path to cite (plain `git ls-files` prints
    `load.py` there)."""
    here = repo / "src"
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    code, _, err = am(here, "fact", "cite", "config", "load.py", "--today", DAY)
    assert code == 1 and len(err.splitlines()) == 1
    command = err.split("`")[1]
    assert command.startswith("git ls-files")
    shown = subprocess.run(
        [*command.split(), "--", "load.py"], cwd=here, capture_output=True, text=True, check=True
    ).stdout.split()
    assert am(here, "fact", "cite", "config", *shown, "--today", DAY)[0] == 0


def test_a_current_citation_is_quiet_and_each_stale_state_is_one_warning(repo: Path) -> None:
    assert stale(repo) == []
    src = repo / "src/load.py"
    src.write_text("# a header\n" + SOURCE)  # the block moved one line down
    [moved] = stale(repo)
    assert "whose lines moved to 5-7; agent-memory fact recite read-whole updates it" in moved
    assert "'read-whole' is stale" not in moved and moved.startswith("memory/continuity.md:")
    src.write_text(SOURCE.replace("f.read()", "f.read().strip()"))
    [changed] = stale(repo)
    assert "whose lines changed; check the fact still holds" in changed
    src.write_text("import os\n")
    [beyond] = stale(repo)
    assert "beyond the file's 1 lines" in beyond
    src.unlink()
    [gone] = stale(repo)
    assert "cites src/load.py:4-6, which no longer exists" in gone
    code, out, _ = am(repo, "lint")
    assert code == 0, out  # stale is a warning: nothing archives, nothing fails
    assert "missing-path" in out and "`src/load.py`, which does not exist" in out
    assert "`src/config.toml`, which does not exist" in out


def test_reindenting_or_crlf_is_not_a_change(repo: Path) -> None:
    src = repo / "src/load.py"
    src.write_bytes(SOURCE.replace("    ", "\t").replace("\n", "\r\n").encode())
    assert stale(repo) == []


def test_recite_follows_a_moved_block_and_refuses_a_changed_one(repo: Path) -> None:
    src = repo / "src/load.py"
    src.write_text("# a header\n# and another\n" + SOURCE)
    code, _, err = am(repo, "fact", "recite", "read-whole", "--today", DAY)
    assert code == 0, err
    assert "src/load.py:6-8@" in (repo / "memory/continuity.md").read_text()
    assert stale(repo) == []
    src.write_text(SOURCE.replace("f.read()", "f.read(10)"))
    before = tree(repo)
    code, _, err = am(repo, "fact", "recite", "read-whole", "--today", DAY)
    assert code == 1 and "recite only follows moved lines" in err and len(err.splitlines()) == 1
    assert tree(repo) == before
    code, _, err = am(repo, "fact", "cite", "read-whole", "src/load.py:4-6", "--today", DAY)
    assert code == 0 and stale(repo) == []  # cited anew, in place
    assert (repo / "memory/continuity.md").read_text().count("src/load.py:") == 1


def test_rev_checks_against_a_git_revision(repo: Path) -> None:
    git = ["git", "-C", str(repo), "-c", "user.name=a", "-c", "user.email=a@b"]
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "cited"], check=True)
    (repo / "src/load.py").write_text("changed in the work tree only\n")
    assert stale(repo, "--rev", "HEAD") == []
    assert len(stale(repo)) == 1
    subprocess.run([*git, "rm", "-qf", "src/load.py"], check=True)
    subprocess.run([*git, "commit", "-qm", "gone"], check=True)
    [gone] = stale(repo, "--rev", "HEAD")
    assert "which no longer exists at HEAD" in gone
    assert stale(repo, "--rev", "HEAD~1") == []
    code, _, err = am(repo, "lint", "--rev", "--upload-pack=touch /tmp/x")
    assert code == 1 and len(err.splitlines()) == 1 and "git ls-tree" in err


def _cite_raw(root: Path, value: str) -> None:
    """A footer written by hand (or by an attacker) that cites ``value``."""
    path = root / "memory/continuity.md"
    text = path.read_text()
    foot = FOOT.format("config", "working")
    path.write_text(text.replace(foot, foot.replace(" -->", f" | cites: {value} -->")))


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (lambda root, out: (root / "src/link.py").symlink_to(out / "secret.py"), "leads outside"),
        (lambda root, out: os.mkfifo(root / "src/link.py"), "is a FIFO"),
        (lambda root, out: (root / "src/link.py").mkdir(), "is a directory"),
        # sparse, twice the bound: the test's own snapshot of the tree reads it (a gigabyte took
        # 12 s of the suite), the commands never do
        (lambda root, out: _sparse(root / "src/link.py", 1 << 24), "is larger than 8 MiB"),
    ],
    ids=["symlink-out", "fifo", "directory", "sixteen-mebibytes"],
)
def test_a_hostile_cited_path_is_skipped_in_one_line_and_never_read(
    repo: Path, tmp_path: Path, make: object, said: str
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("SECRET = 1\n")
    make(repo, outside)  # type: ignore[operator]
    _cite_raw(repo, "src/link.py@0123456789ab")
    before = tree(repo)
    found = stale(repo)
    assert len(found) == 1 and "[cites-unreadable]" in found[0] and said in found[0], found
    assert "SECRET" not in found[0]
    code, _, err = am(repo, "fact", "cite", "config", "src/link.py", "--today", DAY)
    assert code == 1 and said in err and len(err.splitlines()) == 1
    for command in (["context"], ["status"], ["explain", "config"], ["fact", "show", "config"]):
        code, out, err = am(repo, *command)
        assert code == 0 and "SECRET" not in out, (command, err)
    assert tree(repo) == before


def _sparse(path: Path, size: int) -> None:
    with path.open("wb") as handle:
        handle.truncate(size)


@pytest.mark.parametrize("value", ["/etc/passwd@0123456789ab", "../outside.py@0123456789ab"])
def test_a_path_out_of_the_repo_is_a_footer_error_the_review_refuses(
    repo: Path, value: str
) -> None:
    _cite_raw(repo, value)
    code, out, _ = am(repo, "lint")
    assert code == 1 and "error [footer-value] cites:" in out
    before = tree(repo)
    code, _, err = am(repo, "review", "--today", DAY)
    assert code == 1 and len(err.splitlines()) == 1 and tree(repo) == before


def test_context_explain_and_status_mark_a_stale_fact(repo: Path) -> None:
    (repo / "src/load.py").write_text("# moved\n" + SOURCE)
    _, out, _ = am(repo, "context")
    assert "`read-whole` _(stale: src/load.py:4-6 moved to lines 5-7)_" in out
    _, out, _ = am(repo, "explain", "read-whole", "--json")
    doc = json.loads(out)["summary"]
    assert doc["stale"] == "stale: src/load.py:4-6 moved to lines 5-7"
    assert doc["cites"][0]["state"] == "moved"
    _, out, _ = am(repo, "status")
    assert "stale: 1 fact cites code that changed since" in out
    assert json.loads(am(repo, "status", "--json")[1])["summary"]["stale"] == 1


def test_relations_are_shown_both_ways_and_checked(repo: Path) -> None:
    assert am(repo, "fact", "relate", "config", "read-whole", "--today", DAY)[0] == 0
    _, out, _ = am(repo, "recall", "files read whole")
    assert "  related: config  [working]" in out
    _, out, _ = am(repo, "explain", "config")
    assert "related: read-whole  [working]" in out
    before = {
        f.id: (f.field("uses"), f.field("last_used"))
        for f in facts.parse("c", (repo / "memory/continuity.md").read_bytes()).facts
    }
    build_tree(repo, {"memory/sessions/2026-04-02-100000.md": "## Memory References\n- x\n"})
    assert am(repo, "review", "--today", "2026-04-02")[0] == 0
    after = facts.parse("c", (repo / "memory/continuity.md").read_bytes()).facts
    assert {f.id: (f.field("uses"), f.field("last_used")) for f in after} == before  # not a use
    code, _, _ = am(repo, "fact", "supersede", "read-whole", "--text", "Files stream", "--today",
                    "2026-04-02")  # fmt: skip
    assert code == 0
    code, out, _ = am(repo, "lint")
    assert "[see-superseded] see: 'read-whole' was superseded by 'files-stream'" in out
    _cite_see(repo, "no-such-fact")
    code, out, _ = am(repo, "lint")
    assert code == 1 and "error [see-dangling] see: 'no-such-fact' names no fact" in out


def _cite_see(root: Path, value: str) -> None:
    path = root / "memory/continuity.md"
    path.write_text(path.read_text().replace("see: read-whole", f"see: {value}"))


def test_an_expired_fact_is_archived_whatever_its_tier_and_only_a_new_date_brings_it_back(
    repo: Path,
) -> None:
    assert am(repo, "fact", "pin", "config", "--today", DAY)[0] == 0
    assert am(repo, "fact", "expire", "config", "2026-04-10", "--today", DAY)[0] == 0
    code, out, _ = am(repo, "review", "--today", "2026-04-10")
    assert code == 0 and "Expired" not in out  # valid through its date
    code, out, _ = am(repo, "review", "--today", "2026-04-11")
    assert code == 0 and "- Expired: 1 (config) → memory/archive/2026-Q2.md" in out
    assert "- Archived: 0" in out
    build_tree(repo, {"memory/sessions/2026-04-12-100000.md": USED_CONFIG})
    code, out, _ = am(repo, "review", "--today", "2026-04-12")
    assert code == 0 and "Reactivated: 0" in out  # a use does not bring it back
    assert am(repo, "fact", "expire", "config", "2026-12-31", "--today", "2026-04-12")[0] == 0
    code, out, _ = am(repo, "review", "--today", "2026-04-12")
    assert code == 0 and "Reactivated: 1 (config)" in out
    code, full, _ = am(repo, "review", "--full", "--check", "--today", "2026-04-12")
    assert code == 0, full


def test_a_retracted_fact_is_accepted_and_a_later_log_naming_it_warned(repo: Path) -> None:
    code, _, _ = am(repo, "fact", "retract", "config", "--reason", "moved to env", "--today", DAY)
    assert code == 0
    code, out, _ = am(repo, "lint")
    assert code == 0 and "'config' is retracted (moved to env)" in out
    assert am(repo, "review", "--today", DAY)[0] == 0
    index = (repo / "memory/archive/INDEX.md").read_text()
    assert "- config — Config lives in `src/config.toml` — moved to env →" in index
    build_tree(repo, {"memory/sessions/2026-04-03-100000.md": USED_CONFIG})
    code, out, _ = am(repo, "lint")
    assert "references 'config', retracted" in out
    code, out, _ = am(repo, "review", "--today", "2026-04-03")
    assert code == 0 and "Reactivated: 0" in out


@pytest.mark.parametrize("rev", [None, "HEAD"])
def test_what_one_run_reads_of_cited_files_is_bounded(
    repo: Path, rev: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent_memory.shell import cited
    from agent_memory.shell.repo import Repo

    build_tree(repo, {"src/a.py": "a" * 60, "src/b.py": "b" * 60})
    git = ["git", "-C", str(repo), "-c", "user.name=a", "-c", "user.email=a@b"]
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "files"], check=True)
    monkeypatch.setattr(cited, "BUDGET", 100)
    found = cited.sources(Repo(repo), iter(["src/b.py", "src/a.py", "src/gone.py"]), rev)
    assert found["src/a.py"] == b"a" * 60
    assert isinstance(found["src/b.py"], cited.Skipped) and "MiB" in found["src/b.py"].reason
    assert found["src/gone.py"] is None


def test_an_archived_fact_relating_to_a_live_one_is_shown_beside_it(repo: Path) -> None:
    # explain and fact show parse only the archive files that name the fact as a whole id.
    archived = (
        "# Archive 2026-Q1\n\n## Facts\n"
        "- The old loader read in chunks.\n"
        "  <!-- id: chunked-read | created: 2026-01-01 | last_used: 2026-01-02 | uses: 1"
        " | tier: archived | see: read-whole | from: Key Decisions | archived: 2026-03-01 -->\n"
        "- A near id, related to nothing.\n"
        "  <!-- id: read-whole-2 | created: 2026-01-01 | last_used: 2026-01-02 | uses: 1"
        " | tier: archived | see: read-whole.v2 | from: Key Decisions | archived: 2026-03-01 -->\n"
    )
    build_tree(repo, {"memory/archive/2026-Q1.md": archived})
    for command in (["explain", "read-whole"], ["fact", "show", "read-whole"]):
        code, out, _ = am(repo, *command)
        assert code == 0
        assert "related: chunked-read  [archived]  memory/archive/2026-Q1.md:5" in out
        assert "read-whole-2" not in out


def test_an_expired_working_fact_is_not_said_to_be_unused(repo: Path) -> None:
    assert am(repo, "fact", "expire", "config", "2026-04-10", "--today", DAY)[0] == 0
    code, out, _ = am(repo, "review", "--today", "2026-04-11", "--dry-run")
    assert code == 0 and "- Expired: 1 (config)" in out
    assert "config: working→archived, " in out or "config: working→archived)" in out
    code, out, _ = am(repo, "review", "--today", "2026-04-11", "--json")
    summary = json.loads(out)["summary"]
    assert summary["expired"] == ["config"] and "config" not in summary["unused"]


def _nearest(lines: list[bytes], citation: cites.Citation) -> int | None:
    """Where a moved block is now, searched on its own: every window of the file hashed, the
    nearest to the old place, the earlier of two as near; None when nowhere or too costly."""
    assert citation.start is not None and citation.end is not None
    length = citation.end - citation.start + 1
    if length > len(lines) or len(lines) * length > cites.MAX_SEARCH:
        return None
    found = [
        first + 1
        for first in range(len(lines) - length + 1)
        if cites.block_hash(lines[first : first + length]) == citation.hash
    ]
    old = citation.start
    return min(found, key=lambda at: (abs(at - old), at), default=None)


def _one_at_a_time(citation: cites.Citation, source: cites.Source) -> checks.Status:
    """How 5.1.0 checked a citation: on its own, splitting and searching its file each time."""
    if source is None:
        return checks.Status(citation, "gone")
    if isinstance(source, cites.Skipped):
        return checks.Status(citation, "skipped", reason=source.reason)
    lines = cites.lines_of(source)
    if citation.start is None or citation.end is None:
        same = cites.block_hash(lines) == citation.hash
        return checks.Status(citation, "current" if same else "changed")
    if citation.end > len(lines):
        return checks.Status(citation, "beyond", lines=len(lines))
    if cites.block_hash(lines[citation.start - 1 : citation.end]) == citation.hash:
        return checks.Status(citation, "current")
    moved = _nearest(lines, citation)
    return checks.Status(citation, "changed" if moved is None else "moved", moved_to=moved)


_LINES = st.lists(st.sampled_from([b"a", b"b", b" a", b"c\r", b""]), max_size=12)


@settings(max_examples=300, deadline=None)
@given(_LINES, _LINES, st.lists(st.tuples(st.integers(1, 12), st.integers(0, 4)), max_size=6))
def test_checking_a_files_citations_together_agrees_with_one_at_a_time(
    before: list[bytes], after: list[bytes], ranges: list[tuple[int, int]]
) -> None:
    old, new = b"\n".join(before) + b"\n", b"\n".join(after) + b"\n"
    made = [cites.cite("f.py", None, None, old)]
    for start, extra in ranges:
        try:
            made.append(cites.cite("f.py", start, start + extra, old))
        except ValueError:
            continue  # beyond the old file: no one could have cited it
    gone = cites.Citation("g.py", 1, 2, "0" * 12)
    sources: dict[str, cites.Source] = {"f.py": new, "g.py": None}
    found = checks.checked([*made, gone], sources)
    assert found == {c: _one_at_a_time(c, sources.get(c.path)) for c in [*made, gone]}


def test_citations_past_the_runs_hashing_budget_are_skipped_and_say_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(checks, "HASHED", 10)
    data = {name: b"x = 1\n" * 6 for name in ("a.py", "b.py")}
    made = [cites.cite(name, 1, 2, data[name]) for name in data]
    found = checks.checked(made, data)
    assert found[made[0]].state == "current"  # a.py's 6 lines fit in 10
    assert found[made[1]].state == "skipped"
    assert found[made[1]].reason == "is past the 10 lines of cited files one run hashes"


def test_a_stale_fact_in_a_held_view_counts_as_shown_in_full(repo: Path) -> None:
    """The prompt hook reads what a held view showed in full up to each fact's id: a stale
    citation's mark after the id (which only git tells) does not hide it."""
    (repo / "src/load.py").write_text("# moved\n" + SOURCE)
    _, view, _ = am(repo, "context")
    assert "`read-whole` _(stale:" in view
    held = context_command.listed_at_start(Repo(repo), held=lambda _head: [view])
    assert "read-whole" in held
    assert "read-whole" not in context_command.listed_at_start(Repo(repo), held=lambda _h: ["x"])
