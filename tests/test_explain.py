"""``agent-memory explain``: events, the rule that decided the tier, and when it moves next."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from agent_memory.core.review.tiers import RULES
from conftest import PROJECT, build_tree, cli, run_console, tree

EXAMPLE = PROJECT / "examples/evolving-memory-example/before"
DAY = "2026-05-08"
FOOT = "<!-- id: {} | created: 2026-01-05 | last_used: 2026-01-05 | uses: 1 | tier: {} -->"


def test_every_rule_explain_quotes_is_decay_md_word_for_word() -> None:
    decay = " ".join((PROJECT / "DECAY.md").read_text().split())
    for key, text in RULES.items():
        assert text in decay, key


def test_explain_lists_events_rule_and_next_move() -> None:
    out = cli("explain", "graphql-gateway", EXAMPLE, "--full", "--today", DAY).output
    assert out.splitlines()[0].startswith("graphql-gateway  [active]  memory/continuity.md:24")
    assert "  2026-04-03  memory/sessions/2026-04-03-160000.md (Created)\n" in out
    assert "  2026-05-05  memory/sessions/2026-05-05-100000.md (used)\n" in out
    assert "events (uses: 6, last 2026-05-05):" in out
    assert "tier active by rule 5: sessions_since(`last_used`) ≤ active_window → active." in out
    assert "next: archive-candidate (rule 6) after 4 more session logs" in out


def test_explain_says_pinned_and_archived_plainly() -> None:
    pinned = cli("explain", "post-only-mutations", EXAMPLE, "--today", DAY).output
    assert "by rule 1:" in pinned and "never moves on its own (pinned)" in pinned
    archived = cli("explain", "eslint-airbnb", EXAMPLE, "--today", DAY).output
    assert "[archived]" in archived and "comes back when a session log names it" in archived


def test_the_predicted_move_happens_on_exactly_that_log(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo)
    assert cli("review", repo, "--today", DAY).exit_code == 0
    out = cli("explain", "migration-names", repo, "--json", "--today", DAY).output
    move = json.loads(out)["summary"]["next"]
    assert move["tier"] == "archived" and move["sessions"] > 1
    for n in range(move["sessions"]):
        assert "migration-names" in (repo / "memory/continuity.md").read_text()
        (repo / f"memory/sessions/2026-06-{n + 1:02d}-100000.md").write_text("# S\n")
        cli("review", repo, "--today", f"2026-06-{n + 1:02d}")
    assert "migration-names" not in (repo / "memory/continuity.md").read_text()


def test_an_unknown_id_is_one_line_naming_the_nearest(tmp_path: Path) -> None:
    before = tree(EXAMPLE)
    result = cli("explain", "redis-sesions", EXAMPLE)
    assert result.exit_code == 1
    assert result.output.strip().endswith("did you mean 'redis-sessions'?")
    assert len(result.output.splitlines()) == 1 and tree(EXAMPLE) == before


def test_explain_outside_an_enabled_repo_refuses(tmp_path: Path) -> None:
    result = cli("explain", "anything", tmp_path)
    assert result.exit_code == 1 and "agent-memory enable" in result.output
    assert tree(tmp_path) == {}


def test_a_fact_never_used_does_not_read_as_promoted(tmp_path: Path) -> None:
    """The summary said 'working→active' for a fact nobody used after creating it."""
    foot = "<!-- id: {} | created: 2026-01-01 | last_used: 2026-01-01 | uses: 1 | tier: working -->"
    logs = {f"memory/sessions/2026-01-0{n}-100000.md": "# S\n" for n in range(2, 7)}
    logs["memory/sessions/2026-01-03-100000.md"] = "## Memory References\n- Referenced: used-one\n"
    build_tree(
        tmp_path,
        {
            "memory/continuity.md": (
                "# C\n\n## Project State\n- last_review: (none yet)\n\n## Key Decisions\n"
                f"- Idle\n  {foot.format('idle-one')}\n- Used\n  {foot.format('used-one')}\n"
            ),
            **logs,
        },
    )
    out = cli("review", tmp_path, "--today", "2026-01-07").output
    assert (
        "idle-one: working→active (working_window passed without a use), used-one: working→active)"
        in out
    )


def test_explain_finds_a_one_file_thread_and_the_vision() -> None:
    adopted = PROJECT / "examples/handrun-4x-repo/after"
    thread = cli("explain", "ot-console-csv-export", adopted, "--today", "2026-08-25").output
    assert thread.startswith(
        "ot-console-csv-export  [active]  memory/open-threads/thread-ot-console-csv-export.md:3"
    )
    vision = cli("explain", "vision-harbor-dispatch", adopted, "--today", "2026-08-25").output
    assert vision.startswith("vision-harbor-dispatch  [core]  memory/vision.md:7")
    assert "tier core by rule" in vision and "never moves on its own (pinned)" in vision


def test_a_fact_pinned_by_its_section_is_explained_by_that_rule(tmp_path: Path) -> None:
    """Explain re-derived the tier from the footer the review would write (tier: core), and so
    named rule 1, a human's decision, for a fact only its section pins."""
    foot = FOOT.format("no-raw-sql", "active")
    build_tree(
        tmp_path,
        {
            "memory/continuity.md": (
                "# C\n\n## Project State\n- last_review: (none yet)\n\n"
                f"## Architectural Invariants\n- No raw SQL\n  {foot}\n"
            ),
        },
    )
    out = cli("explain", "no-raw-sql", tmp_path, "--json", "--today", "2026-01-06").output
    summary = json.loads(out)["summary"]
    assert (summary["tier"], summary["rule"], summary["next"]) == ("core", "2", None)


def test_explain_reads_the_logs_the_review_reads(tmp_path: Path) -> None:
    """A log dated before a review that read none (its mark: ``through (none yet)``), as a merge
    brings one, is read by the next review; explain took it as read and counted one use less."""
    build_tree(
        tmp_path,
        {
            "memory/continuity.md": (
                "# C\n\n## Project State\n- last_review: (none yet)\n\n"
                f"## Key Decisions\n- Use Drizzle\n  {FOOT.format('drizzle', 'active')}\n"
            ),
        },
    )
    assert cli("review", tmp_path, "--today", "2026-02-14").exit_code == 0
    assert "through (none yet)" in (tmp_path / "memory/continuity.md").read_text()
    build_tree(
        tmp_path,
        {"memory/sessions/2026-01-05-000001.md": "## Memory References\n- Referenced: drizzle\n"},
    )
    out = cli("explain", "drizzle", tmp_path, "--json", "--today", "2026-03-26").output
    explained = json.loads(out)["summary"]["recomputed"]
    assert cli("review", tmp_path, "--today", "2026-03-26").exit_code == 0
    assert f"uses: {explained['uses']} |" in (tmp_path / "memory/continuity.md").read_text()
    assert explained["uses"] == "2"


def _git(root: Path, *args: str, **env: str) -> None:
    import os
    import subprocess

    subprocess.run(
        ["git", *args], cwd=root, check=True, capture_output=True, env={**os.environ, **env}
    )


def _enabled_in_git(top: Path, root: Path, author: str) -> None:
    """``root`` enabled on 2026-01-01 in the git work tree ``top``, committed by ``author``."""
    _git(top, "init", "-q")
    _git(top, "config", "user.email", "ann@example.com")
    _git(top, "config", "user.name", author)
    assert cli("enable", root, "--today", "2026-01-01", "--vendor", "none").exit_code == 0
    _git(top, "add", "-A")
    _git(top, "commit", "-qm", "enable")


def test_explain_names_the_origin_and_the_commit_that_introduced_the_footer(
    tmp_path: Path,
) -> None:
    """The oldest commit that wrote the footer, even after the fact moved to the archive; a
    similar id (a prefix, a dot read as any character) is not taken for it."""
    top = tmp_path / "work"  # the enabled repo is a folder of a bigger work tree
    root = top / "service"
    root.mkdir(parents=True)
    _enabled_in_git(top, root, "Ann Author")
    for text, fact_id in (("Releases are cut on Fridays", "ship.v1"), ("Other", "shipxv1-2")):
        cli("fact", "add", text, root, "--id", fact_id, "--today", "2026-01-02")
        when = "2026-01-02T10:00:00+00:00" if fact_id == "ship.v1" else "2026-01-03T10:00:00+00:00"
        _git(top, "add", "-A")
        _git(top, "commit", "-qm", f"Add {fact_id}\n\nwith a body", GIT_AUTHOR_DATE=when)
    cli(
        "fact",
        "add",
        "Shipping uses the blue pipeline",
        root,
        "--id",
        "shipxv1",
        "--today",
        "2026-01-03",
    )
    _git(top, "commit", "-qam", "third", GIT_AUTHOR_DATE="2026-01-04T10:00:00+00:00")
    assert cli("fact", "archive", "ship.v1", root, "--today", "2026-01-04").exit_code == 0
    assert cli("review", root, "--today", "2026-01-04").exit_code == 0
    _git(top, "commit", "-qam", "archive it")
    out = cli("explain", "ship.v1", root, "--today", "2026-01-05", "--json").stdout
    found = json.loads(out)["summary"]
    assert found["path"].startswith("memory/archive/")
    assert found["introduced"]["author"] == "Ann Author"
    assert found["introduced"]["date"] == "2026-01-02T10:00:00+00:00"
    assert found["introduced"]["subject"] == "Add ship.v1"
    assert found["origin"] is None
    other = cli("explain", "shipxv1", root, "--today", "2026-01-05").stdout
    assert other.splitlines()[-1].endswith("2026-01-04T10:00:00+00:00 Ann Author: third")


def test_explain_shows_origin_and_no_commit_outside_git(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    assert cli("enable", root, "--today", "2026-01-01", "--vendor", "none").exit_code == 0
    footer = FOOT.format("imported", "working").replace(" -->", " | origin: CLAUDE.md -->")
    text = (root / "memory/continuity.md").read_text()
    build_tree(
        root,
        {
            "memory/continuity.md": text.replace(
                "## Key Decisions\n", f"## Key Decisions\n- Imported fact\n  {footer}\n"
            )
        },
    )
    out = cli("explain", "imported", root, "--today", DAY).stdout
    assert "origin: CLAUDE.md\n" in out and "introduced:" not in out
    assert (
        json.loads(cli("explain", "imported", root, "--json").stdout)["summary"]["introduced"]
        is None
    )


def test_a_commit_subject_is_shown_on_one_line(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    _git(root, "init", "-q")
    assert cli("enable", root, "--today", "2026-01-01", "--vendor", "none").exit_code == 0
    cli("fact", "add", "A fact", root, "--id", "a-fact", "--today", "2026-01-02")
    _git(root, "add", "-A")
    subject = "evil \x1b[31mred\u2028line"
    _git(root, "-c", "user.name=Bob\u0085Two", "-c", "user.email=b@e.c", "commit", "-qm", subject)
    out = cli("explain", "a-fact", root, "--today", "2026-01-02").stdout
    last = out.splitlines()[-1]
    assert last.startswith("introduced: ") and "\x1b" not in last and "\\x1b[31mred" in last
    assert out.count("\n") == len(out.splitlines())


def _pickaxe_in(root: Path, fact_id: str, locale: str) -> str | None:
    """What the pickaxe ``introduced`` asks gives in ``locale`` (the command line of 5.1.0): the
    oldest commit, or None."""
    import os
    import subprocess

    pattern = "id:[[:space:]]*" + fact_id.replace(".", "[.]") + "([^a-z0-9.-]|$)"
    done = subprocess.run(
        ["git", "--literal-pathspecs", "log", "--no-ext-diff", "--no-textconv", "--no-color",
         "--pickaxe-regex", f"-S{pattern}", "--format=%H", "--", "memory/continuity.md",
         "memory/archive", "memory/open-threads", "memory/vision.md"],
        cwd=root, capture_output=True, check=True, env={**os.environ, "LC_ALL": locale},
    )  # fmt: skip
    return done.stdout.split()[-1].decode() if done.stdout.split() else None


def test_the_commit_that_introduced_a_footer_is_the_same_in_every_locale(tmp_path: Path) -> None:
    """A real history (facts added, archived, restored, edited, with non-ASCII text and ids
    that are prefixes of others): the commit ``explain`` names for each fact is the one git's
    pickaxe finds in a UTF-8 locale; and a footer whose "id:" is followed by a space outside
    ASCII (which glibc's UTF-8 locales count as one, the C locale not) does not make the answer
    depend on the user's locale: the expression is read byte by byte."""
    from agent_memory.shell.git import introduced

    root = tmp_path / "repo"
    root.mkdir()
    _enabled_in_git(root, root, "Ann Ångström")
    steps = [
        ("fact", "add", "Déploiement le vendredi, naïvement", "--id", "ship"),
        ("fact", "add", "Ship via the blue pipeline", "--id", "ship-2"),
        ("fact", "add", "Dots are ids too", "--id", "ship.v1"),
        ("fact", "archive", "ship"),
        ("fact", "add", "Another about shipping — ünïcödé", "--id", "shipx"),
        ("fact", "restore", "ship"),
        ("fact", "edit", "ship-2", "Ship via the green pipeline"),
        ("fact", "archive", "ship.v1"),
    ]
    for day, step in enumerate(steps, 2):
        assert cli(*step, root, "--today", f"2026-01-{day:02d}").exit_code == 0, step
        _git(root, "add", "-A")
        _git(root, "commit", "-qm", f"step {day}", GIT_AUTHOR_DATE=f"2026-01-{day:02d}T10:00:00")
    continuity = root / "memory/continuity.md"
    text = continuity.read_text()
    odd = FOOT.format("spaced", "working").replace("id: ", "id:\u2003")
    continuity.write_text(text.replace("## Key Decisions\n", f"## Key Decisions\n- Odd\n  {odd}\n"))
    _git(root, "commit", "-qam", "an odd footer")
    paths = ("memory/continuity.md", "memory/archive", "memory/open-threads", "memory/vision.md")
    for fact_id in ("ship", "ship-2", "ship.v1", "shipx", "ship-3"):
        found = introduced(root, fact_id, paths)
        assert (found.commit if found else None) == _pickaxe_in(root, fact_id, "C.UTF-8"), fact_id
    assert introduced(root, "ship", paths) is not None
    assert _pickaxe_in(root, "spaced", "C") is None
    assert introduced(root, "spaced", paths) is None
    shown = {
        locale: run_console("explain", "spaced", root, "--today", "2026-02-01", cwd=root,
                            LC_ALL=locale).stdout
        for locale in ("C", "C.UTF-8")
    }  # fmt: skip
    assert shown["C"] == shown["C.UTF-8"] and "spaced" in shown["C"]
