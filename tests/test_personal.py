"""Personal facts (DECAY.md § Personal facts): one person's own facts in the git-ignored
memory/personal.md, shown at session start, curated by id, shared on purpose — and never named
in a file the team shares, checked with real git after every command."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from agent_memory.cli.app import main
from agent_memory.cli.mcp.tools import McpSession, call
from agent_memory.core.facts.personal import leak
from agent_memory.core.plan import FileEdit, Outcome
from agent_memory.parse import facts
from conftest import build_tree, cli, git_init, tree
from test_gate import propose
from test_import import CLAUDE

DAY = ("--today", "2026-03-02")
MINE = "I like short commit messages in the imperative mood"
MINE_ID = "i-like-short-commit-messages-in"
TEAM = "Builds pin Node 20 via nvmrc"


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True)
    return done.stdout


def commit_all(root: Path, message: str) -> None:
    """What a user does after every command: take everything git does not ignore."""
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty",
        "-m", message)  # fmt: skip


@pytest.fixture
def enabled(tmp_path: Path) -> Path:
    root = git_init(tmp_path / "repo")
    assert cli("enable", root, "--today", "2026-03-01").exit_code == 0
    assert cli("fact", "add", TEAM, "--id", "node", root, *DAY).exit_code == 0
    commit_all(root, "enable")
    return root


def add_mine(root: Path, text: str = MINE, *more: str) -> str:
    done = cli("fact", "add", "--personal", text, root, *more, *DAY)
    assert done.exit_code == 0, done.output
    return done.output.strip()


def test_enable_makes_git_ignore_the_personal_file_and_says_so(tmp_path: Path) -> None:
    root = git_init(tmp_path / "repo")
    done = cli("enable", root, "--today", "2026-03-01")
    assert "personal facts" in done.output
    assert "/memory/personal.md\n" in (root / ".gitignore").read_text()
    (root / "memory/personal.md").write_text("# Personal\n")
    assert git(root, "check-ignore", "memory/personal.md").strip() == "memory/personal.md"


def test_nothing_personal_reaches_a_commit(enabled: Path) -> None:
    """Every command a user runs with a personal fact, each followed by `git add -A && git
    commit`: no commit holds the fact's id, its text or its count."""
    root = enabled
    fact_id = add_mine(root)
    build_tree(root, {"memory/sessions/2026-03-02-120000.md": (
        "# Session\n\n## Memory References\n- Referenced: node\n"
    )})  # fmt: skip
    commit_all(root, "add")
    steps = [
        ("context", root),
        ("fact", "pin", fact_id, root, *DAY),
        ("fact", "unpin", fact_id, root, *DAY),
        ("fact", "edit", fact_id, MINE + " always", root, *DAY),
        ("fact", "relate", fact_id, "node", root, *DAY),
        ("fact", "show", fact_id, root),
        ("lint", root),
        ("review", root, *DAY),
        ("status", root),
        ("fact", "archive", fact_id, root, *DAY),
        ("fact", "restore", fact_id, root, *DAY),
        ("review", root, "--full", *DAY),
    ]
    for step in steps:
        done = cli(*step)
        assert done.exit_code == 0, (step, done.output)
        commit_all(root, " ".join(map(str, step[:2])))
    session = McpSession(root)
    used = call(session, "memory_reference", {"ids": [fact_id, "node"]})
    assert used.result is not None, used.err
    commit_all(root, "reference")
    history = git(root, "log", "-p", "--all", "--format=%H %s")
    assert "node" in history and "Node 20" in history  # the team's fact is there
    for secret in (fact_id, "short commit messages", "imperative"):
        assert secret not in history, secret
    mine = (root / "memory/personal.md").read_text()
    assert "uses: 2" in mine  # the use counted where it stays: the fact's own footer
    assert "see: node" in mine
    assert git(root, "status", "--porcelain") == ""  # nothing left over, and nothing tracked


def test_a_shared_file_never_names_a_personal_id_and_the_refusal_writes_nothing(
    enabled: Path,
) -> None:
    root = enabled
    fact_id = add_mine(root)
    before = tree(root)
    for step in (
        ("fact", "relate", "node", fact_id, root, *DAY),
        ("fact", "supersede", "node", fact_id, root, *DAY),
        ("fact", "supersede", fact_id, "--text", "Long commit messages now", root, *DAY),
    ):
        done = cli(*step)
        assert done.exit_code == 1, step
        assert f"would name your personal fact {fact_id!r}" in done.output
        assert tree(root) == before


def test_the_view_shows_personal_facts_after_the_binding_ones_marked_as_yours(
    enabled: Path,
) -> None:
    root = enabled
    assert cli("fact", "add", "Never force-push main", "--section", "Architectural Invariants",
               root, *DAY).exit_code == 0  # fmt: skip
    add_mine(root)
    text = cli("context", root).output
    core = text.index("## Core and invariants")
    mine = text.index(
        "## Personal (yours only: memory/personal.md; never shared, never named in a log)"
    )
    facts = text.index("## Facts")
    assert core < mine < facts
    assert MINE in text[mine:facts] and TEAM in text[facts:]
    view = json.loads(cli("context", root, "--json").output)["summary"]["markdown"]
    assert MINE in view


def test_share_moves_a_personal_fact_into_the_team_memory_through_the_plan(
    enabled: Path,
) -> None:
    root = enabled
    fact_id = add_mine(root, MINE, "--until", "2027-01-01")
    dry = cli("fact", "share", fact_id, root, "--dry-run", *DAY)
    assert dry.exit_code == 0 and "+- " + MINE in dry.output
    assert MINE not in (root / "memory/continuity.md").read_text()
    done = cli("fact", "share", fact_id, root, *DAY)
    assert done.exit_code == 0, done.output
    team = (root / "memory/continuity.md").read_text()
    assert f"- {MINE}\n  <!-- id: {fact_id} | created: 2026-03-02" in team
    assert "valid-until: 2027-01-01" in team
    assert team.index("## User Preferences") < team.index(MINE)
    assert fact_id not in (root / "memory/personal.md").read_text()
    commit_all(root, "share")  # shared on purpose: now it is the team's
    assert fact_id in git(root, "show", "HEAD:memory/continuity.md")


def test_duplicates_across_the_two_memories_are_refused_with_the_other_id(
    enabled: Path,
) -> None:
    root = enabled
    before = tree(root)
    done = cli("fact", "add", "--personal", TEAM, root, *DAY)
    assert done.exit_code == 1 and "already node" in done.output
    assert tree(root) == before
    fact_id = add_mine(root)
    done = cli("fact", "add", MINE, root, *DAY)
    assert done.exit_code == 1
    assert f"your personal {fact_id}" in done.output and f"fact share {fact_id}" in done.output
    taken = cli("fact", "add", "Other words", "--id", fact_id, root, *DAY)
    assert taken.exit_code == 1 and "is taken (at memory/personal.md:" in taken.output


def test_an_edit_or_a_successor_that_says_a_personal_fact_is_refused(enabled: Path) -> None:
    """The words of a personal fact reach no shared file by ``fact edit`` or ``fact supersede
    --text`` either, over the CLI or MCP: the refusal is ``fact add``'s, and writes nothing."""
    root = enabled
    fact_id = add_mine(root)
    before = tree(root)
    shouted = MINE.upper() + "."
    for args in (
        ("fact", "supersede", "node", "--text", MINE, "--id", "other-id"),
        ("fact", "edit", "node", shouted),
    ):
        done = cli(*args, root, *DAY)
        assert done.exit_code == 1, done.output
        assert done.output == (
            f"agent-memory: the same fact is your personal {fact_id} (memory/personal.md:8); "
            f"agent-memory fact share {fact_id} makes it the team's\n"
        )
        assert tree(root) == before
    for tool, args in (
        ("memory_fact_edit", {"id": "node", "text": shouted}),
        ("memory_fact_supersede", {"id": "node", "text": MINE}),
    ):
        answer = call(McpSession(root), tool, args)
        assert answer.err is not None and f"your personal {fact_id}" in answer.err
        assert tree(root) == before
    assert cli("fact", "edit", fact_id, MINE + " always", root, *DAY).exit_code == 0


@pytest.mark.parametrize("how", ["tracked", "not ignored"])
def test_a_personal_file_git_would_take_is_refused(enabled: Path, how: str) -> None:
    root = enabled
    if how == "tracked":
        build_tree(root, {"memory/personal.md": "# Personal\n\n## User Preferences\n"})
        git(root, "add", "-f", "memory/personal.md")
    else:
        ignore = root / ".gitignore"
        ignore.write_text(ignore.read_text().replace("/memory/personal.md\n", ""))
    before = tree(root)
    done = cli("fact", "add", "--personal", MINE, root, *DAY)
    assert done.exit_code == 1
    assert done.output.startswith("agent-memory: memory/personal.md: git ")
    assert "Traceback" not in done.output
    assert tree(root) == before


def test_import_personal_lands_in_the_personal_file_only(enabled: Path, tmp_path: Path) -> None:
    root = enabled
    source = build_tree(tmp_path / "claude", CLAUDE)
    team = (root / "memory/continuity.md").read_bytes()
    done = cli("import", "claude", root, "--from", source, "--personal", *DAY)
    assert done.exit_code == 0, done.output
    assert (root / "memory/continuity.md").read_bytes() == team
    assert "Integration tests must hit a real database" in (root / "memory/personal.md").read_text()
    commit_all(root, "import")
    assert "real database" not in git(root, "log", "-p", "--all")


def test_mcp_adds_a_personal_fact_directly_even_behind_the_gate(enabled: Path) -> None:
    """The gate holds the team's memory for review; the user's own file is not the team's."""
    root = enabled
    propose(root)
    team = (root / "memory/continuity.md").read_bytes()
    done = call(McpSession(root), "memory_fact_add", {"text": MINE, "personal": True})
    assert done.result is not None, done.err
    summary = done.result.report.summary
    assert summary["path"] == "memory/personal.md" and summary["tier"] == "working"
    assert (root / "memory/continuity.md").read_bytes() == team
    assert not list((root / "memory/sessions").glob("*.md"))  # no proposal in a log
    assert call(McpSession(root), "memory_fact_share", {"id": summary["id"]}).result is None


def test_lint_checks_the_personal_file(enabled: Path) -> None:
    root = enabled
    build_tree(root, {"memory/personal.md": (
        "# Personal\n\n## User Preferences\n- Mine\n  <!-- id: node | created: 2026-03-02 | "
        "last_used: 2026-03-02 | uses: 1 | tier: working -->\n"
    )})  # fmt: skip
    done = cli("lint", root)
    assert done.exit_code == 1
    assert "memory/personal.md:5" in done.output and "node" in done.output


@pytest.mark.parametrize("remove", [False, True])
def test_disable_refuses_while_a_personal_file_would_lose_its_ignore_rule(
    enabled: Path, remove: bool
) -> None:
    add_mine(enabled)
    before = tree(enabled)
    done = cli("disable", enabled, *(["--remove-memory"] if remove else []), "--today", DAY[1])
    assert done.exit_code == 1
    assert done.output.startswith("agent-memory: memory/personal.md: one person's own facts")
    assert tree(enabled) == before


def test_a_personal_id_of_one_word_blocks_only_where_it_names_the_fact(enabled: Path) -> None:
    """`--id tabs` is a word too: a team fact about tabs is not a leak; naming it is."""
    root = enabled
    add_mine(root, "Tabs in my scratch scripts", "--id", "tabs")
    done = cli("fact", "add", "Use tabs, not spaces, in Makefiles", root, *DAY)
    assert done.exit_code == 0, done.output
    relate = cli("fact", "relate", "node", "tabs", root, *DAY)
    assert relate.exit_code == 1 and "would name your personal fact 'tabs'" in relate.output


@settings(max_examples=200, deadline=None)
@given(
    fact_id=st.from_regex(r"\A[a-z0-9]{1,8}([.-][a-z0-9]{1,8}){0,3}\Z"),
    prose=st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=60),
)
def test_leak_finds_a_personal_id_newly_named_and_nothing_already_there(
    fact_id: str, prose: str
) -> None:
    assume(fact_id not in prose)
    footer = f"<!-- id: {fact_id} | tier: working -->"
    mine = facts.parse(
        "memory/personal.md", f"# P\n\n## User Preferences\n- x\n  {footer}\n".encode()
    )
    before = f"# Continuity\n\n{prose}\n".encode()
    named = before + f"- y\n  <!-- id: other | see: {fact_id} -->\n".encode()
    edit = FileEdit("memory/continuity.md", before, named, Outcome.UPDATED, "")
    assert leak([edit], mine) == ("memory/continuity.md", fact_id)
    same = FileEdit("memory/continuity.md", named, named + b"\n", Outcome.UPDATED, "")
    assert leak([same], mine) is None  # already there: not new
    moved = FileEdit("memory/personal.md", b"", b"# Personal\n", Outcome.UPDATED, "")
    assert leak([edit, moved], mine) is None  # shared in the same plan: no longer personal


def test_recall_and_the_prompt_hook_find_personal_facts(enabled: Path) -> None:
    root = enabled
    fact_id = add_mine(root)
    found = json.loads(cli("recall", "imperative commit messages", root, "--json").output)
    hits = found["summary"]["hits"]
    assert hits and hits[0]["id"] == fact_id and hits[0]["path"] == "memory/personal.md"
    payload = {"cwd": str(root), "session_id": "s", "hook_event_name": "UserPromptSubmit"}
    payload["prompt"] = "write the commit messages in the imperative mood please"
    done = CliRunner().invoke(main, ["hook", "prompt"], input=json.dumps(payload))
    assert done.exit_code == 0
    assert fact_id not in done.output  # shown in full at the start already: not again


def test_a_long_personal_file_never_pushes_the_team_s_facts_out_of_the_view(
    enabled: Path,
) -> None:
    root = enabled
    notes = "".join(
        f"- My note number {n} about the way I like to work on things\n  <!-- id: note-{n} | "
        "created: 2026-03-02 | last_used: 2026-03-02 | uses: 9 | tier: working -->\n"
        for n in range(130)
    )
    build_tree(root, {"memory/personal.md": f"# Personal\n\n## User Preferences\n{notes}"})
    for size in ("3000", "8192"):
        view = json.loads(cli("context", root, "--json", "--max-bytes", size).output)
        text = view["summary"]["markdown"]
        assert TEAM in text, size  # the team's fact is in full or named
        assert len(text.encode()) <= int(size)
        full = text.split("## Personal")[1].split("\n## ")[0].count("<!--")  # none: no footer
        assert not full and text.count("`note-") >= 1  # personal ones named with what is left


def test_lint_reads_what_a_personal_fact_cites(enabled: Path) -> None:
    root = enabled
    build_tree(root, {"README.md": "# r\n"})
    fact_id = add_mine(root)
    assert cli("fact", "cite", fact_id, "README.md", root, *DAY).exit_code == 0
    done = cli("lint", root)
    assert "no longer exists" not in done.output and done.exit_code == 0, done.output


def test_a_proposal_that_says_a_personal_fact_is_never_written_or_accepted(enabled: Path) -> None:
    root = enabled
    fact_id = add_mine(root)
    build_tree(root, {"memory/sessions/2026-03-02-120000.md": (
        f"# Session\n\n## Proposed Facts\n\n1. remember: {MINE}\n"
    )})  # fmt: skip
    commit_all(root, "a log that proposes it")
    team = (root / "memory/continuity.md").read_bytes()
    done = cli("fact", "accept", "2026-03-02-120000#1", root, *DAY)
    assert done.exit_code == 1 and f"your personal {fact_id}" in done.output
    assert (root / "memory/continuity.md").read_bytes() == team
    propose(root)
    held = call(McpSession(root), "memory_fact_add", {"text": MINE})
    assert held.result is None and f"your personal {fact_id}" in held.err


def test_prose_that_holds_a_personal_id_is_no_leak_and_a_team_id_of_the_same_name_is_the_team_s(
    enabled: Path,
) -> None:
    root = enabled
    add_mine(root, "I like my editor dark", "--id", "dark-mode")
    assert cli("fact", "add", "We enable dark-mode by default", root, *DAY).exit_code == 0
    assert cli("fact", "add", "Styles", root, "--paths", "src/dark-mode/**", *DAY).exit_code == 0
    add_mine(root, "My shared-x preference", "--id", "shared-x")
    continuity = root / "memory/continuity.md"  # a pull brings a team fact of the same id
    continuity.write_text(continuity.read_text().replace(
        "## Conventions\n",
        "## Conventions\n- Team x\n  <!-- id: shared-x | created: 2026-03-02 | last_used: "
        "2026-03-02 | uses: 1 | tier: working -->\n",
    ))  # fmt: skip
    used = call(McpSession(root), "memory_reference", {"ids": ["shared-x"]})
    assert used.result is not None, used.err


def test_every_write_of_the_personal_file_needs_git_to_ignore_it(enabled: Path) -> None:
    root = enabled
    fact_id = add_mine(root)
    ignore = root / ".gitignore"
    ignore.write_text(ignore.read_text() + "!memory/personal.md\n")
    before = tree(root)
    for step in (("fact", "pin", fact_id), ("fact", "edit", fact_id, "Other words entirely")):
        done = cli(*step, root, *DAY)
        assert done.exit_code == 1 and "git does not ignore it" in done.output, step
    assert call(McpSession(root), "memory_reference", {"ids": [fact_id]}).result is None
    assert tree(root) == before


def test_lint_says_when_git_would_take_the_personal_file(enabled: Path) -> None:
    """A teammate force-added theirs, or the ignore rule went: an error naming the way back."""
    root = enabled
    add_mine(root)
    assert "personal-shared" not in cli("lint", root).output
    git(root, "add", "-f", "memory/personal.md")
    done = cli("lint", root)
    assert done.exit_code == 1
    assert "memory/personal.md: error [personal-shared] git tracks it" in done.output


def test_an_empty_personal_file_is_added_to_not_replaced_by_the_template(enabled: Path) -> None:
    root = enabled
    build_tree(root, {"memory/personal.md": ""})
    fact_id = add_mine(root)
    written = (root / "memory/personal.md").read_text()
    assert fact_id in written and "Your own facts" not in written


def test_curation_of_a_personal_fact_says_it_stays_in_its_file(enabled: Path) -> None:
    """No review reads the personal file: its curation says where the fact stays, not that a
    review will move it; the team's says the review moves it."""
    mine = add_mine(enabled)
    archived = cli("fact", "archive", mine, enabled, *DAY)
    assert archived.exit_code == 0, archived.output
    assert f"{mine} archived by hand: it stays in memory/personal.md, out of the view" in (
        archived.output
    )
    other = add_mine(enabled, "I read diffs with word colouring on")
    retracted = cli("fact", "retract", other, "--reason", "no longer", enabled, *DAY)
    assert "it stays in memory/personal.md" in retracted.output
    team = cli("fact", "retract", "node", "--reason", "moved to Node 22", enabled, *DAY)
    assert "node retracted: the next review moves it to the archive" in team.output
    past = ("--until", "2026-01-01")
    added = cli("fact", "add", "--personal", "I keep a scratch branch", enabled, *past, *DAY)
    assert added.exit_code == 0, added.output
    assert "so nothing archives" in added.output and "next review" not in added.output
