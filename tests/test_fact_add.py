"""``agent-memory fact add``: a fact the review tracks, written through the plan, or one line."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_memory import resources
from agent_memory.core.facts.add import add_fact, schema_sections
from agent_memory.core.facts.elsewhere import Elsewhere
from agent_memory.errors import AgentMemoryError
from agent_memory.layout import CONTINUITY, USER_DATA
from agent_memory.parse import facts
from agent_memory.parse.facts import PROJECT_STATE
from conftest import PROJECT, build_tree, cli, run_console, tree

DAY = "2026-03-02"
FOOT = "<!-- id: {} | created: 2026-01-01 | last_used: 2026-01-01 | uses: 1 | tier: {} -->"


@pytest.fixture
def enabled(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    assert cli("enable", root, "--today", "2026-03-01").exit_code == 0
    return root


def continuity(root: Path) -> str:
    return (root / "memory/continuity.md").read_text()


def test_fact_add_writes_a_tracked_working_fact_and_prints_its_id(enabled: Path) -> None:
    result = cli("fact", "add", "Use pnpm, not npm, for every package", enabled, "--today", DAY)
    assert result.exit_code == 0, result.output
    assert result.output == "use-pnpm-not-npm-for-every\n"
    text = continuity(enabled)
    assert (
        "## Key Decisions\n- Use pnpm, not npm, for every package\n  <!-- id: use-pnpm-not-npm-"
        f"for-every | created: {DAY} | last_used: {DAY} | uses: 1 | tier: working -->\n"
    ) in text
    assert "fact-no-id" not in cli("lint", enabled).output
    before = tree(enabled)
    review = cli("review", enabled, "--today", DAY)
    assert review.exit_code == 0 and "Tier changes: 0" in review.output
    assert tree(enabled) == before  # born with the tier the rules give it: nothing to fix


def test_a_derived_id_ends_on_a_whole_word(enabled: Path) -> None:
    """A listing showed ``integration-environments-require-provisioning-th``: 48 characters,
    the last word cut. UPGRADE.md, which derives ids by the same rule, said only "48
    characters", and a person cut the word."""
    upgrade = " ".join((PROJECT / "UPGRADE.md").read_text().split())
    assert "only the whole words that fit in 48 characters (the first word alone cut" in upgrade
    text = "Integration environments require provisioning through Terraform workspaces only"
    done = cli("fact", "add", text, enabled, "--today", DAY)
    assert done.output == "integration-environments-require-provisioning\n"
    long = "Supercalifragilisticexpialidocious-antidisestablishmentarianism-words"
    assert cli("fact", "add", long, enabled, "--today", DAY).output == (
        "supercalifragilisticexpialidocious\n"  # the next word would not fit whole
    )


def test_the_same_first_words_twice_get_a_numbered_id(enabled: Path) -> None:
    first = cli("fact", "add", "Cache tokens in Redis for clients", enabled, "--today", DAY)
    text = "Cache tokens in Redis for clients; evict hourly"
    second = cli("fact", "add", text, enabled, "--today", DAY)
    assert first.output == "cache-tokens-in-redis-for-clients\n"
    assert second.stdout == "cache-tokens-in-redis-for-clients-2\n"
    assert second.stderr.startswith("similar: cache-tokens-in-redis-for-clients (")


def test_thread_section_and_pinned_tiers(enabled: Path) -> None:
    thread = cli("fact", "add", "Rate-limit the public API", enabled, "--thread", "--today", DAY)
    pinned = cli(
        "fact", "add", "Writes go through the outbox", enabled,
        "--section", "architectural invariants", "--id", "outbox-writes", "--today", DAY,
    )  # fmt: skip
    assert (thread.exit_code, pinned.exit_code) == (0, 0)
    text = continuity(enabled)
    assert "## Open Threads\n- [ ] Rate-limit the public API\n" in text
    assert "rate-limit-the-public-api | created" in text and "tier: active -->" in text
    assert "## Architectural Invariants\n- Writes go through the outbox\n" in text
    assert "id: outbox-writes |" in text and "uses: 1 | tier: core -->" in text


def test_a_new_section_is_made_at_the_end(enabled: Path) -> None:
    cli(
        "fact", "add", "Deploys on Fridays are fine", enabled,
        "--section", "Ops", "--new-section", "--today", DAY,
    )  # fmt: skip
    assert continuity(enabled).endswith(
        "## Ops\n- Deploys on Fridays are fine\n  <!-- id: deploys-on-fridays-are-fine | "
        f"created: {DAY} | last_used: {DAY} | uses: 1 | tier: working -->\n"
    )


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("--id", "redis-sessions"), "is taken (at memory/archive/2026-Q1.md:"),
        (("--id", "live-fact"), "is taken (at memory/continuity.md:"),
        (("--id", "flaky-ci"), "is taken (at memory/open-threads/flaky-ci.md:"),
        (("--id", "north-star"), "is taken (at memory/vision.md:"),
        (("--id", "Bad_Id"), "is not an id (lowercase letters and digits"),
        (("--id", "two  words"), "is not an id (lowercase letters and digits"),
        (("--section", "Project State"), "cannot hold facts"),
    ],
)
def test_refusals_are_one_line_and_write_nothing(
    tmp_path: Path, args: tuple[str, ...], says: str
) -> None:
    build_tree(
        tmp_path,
        {
            "memory/continuity.md": (
                f"# C\n\n## Project State\n- last_review: (none yet)\n\n## Key Decisions\n"
                f"- A live fact\n  {FOOT.format('live-fact', 'working')}\n"
            ),
            "memory/archive/2026-Q1.md": (
                "# Archive\n\n## Facts\n- Redis sessions\n  "
                + FOOT.format("redis-sessions", "archived")
                + "\n"
            ),
            # A one-file thread and the vision hold ids too (DESIGN §13).
            "memory/open-threads/flaky-ci.md": (
                f"# Flaky CI\n\n- [ ] Fix the flaky CI job\n  {FOOT.format('flaky-ci', 'active')}\n"
            ),
            "memory/vision.md": f"# Vision\n\nShip it.\n{FOOT.format('north-star', 'core')}\n",
        },
    )
    before = tree(tmp_path)
    result = cli("fact", "add", "Some fact", tmp_path, *args)
    assert result.exit_code == 1
    assert says in result.output and len(result.output.splitlines()) == 1
    assert "Traceback" not in result.output
    assert tree(tmp_path) == before


@pytest.mark.parametrize("text", ["", "   ", "x <!-- id: sneaky --> y", "[ ] box", "```"])
def test_text_that_cannot_be_a_fact_is_refused(enabled: Path, text: str) -> None:
    before = tree(enabled)
    result = cli("fact", "add", text, enabled)
    assert result.exit_code == 1 and len(result.output.splitlines()) == 1
    assert tree(enabled) == before


def test_outside_an_enabled_repo_nothing_is_written(tmp_path: Path) -> None:
    result = cli("fact", "add", "Anything", tmp_path)
    assert result.exit_code == 1 and "agent-memory enable" in result.output
    assert tree(tmp_path) == {}


def test_dry_run_and_check_write_nothing(enabled: Path) -> None:
    before = tree(enabled)
    dry = cli("fact", "add", "Cache tokens", enabled, "--dry-run", "--today", DAY)
    assert dry.exit_code == 0 and "+- Cache tokens\n" in dry.output
    check = cli("fact", "add", "Cache tokens", enabled, "--check")
    assert check.exit_code == 1
    assert tree(enabled) == before


def test_json_reports_the_plan_and_the_id(enabled: Path) -> None:
    doc = json.loads(cli("fact", "add", "Cache tokens", enabled, "--json", "--today", DAY).output)
    assert doc["outcome"] == "changed" and doc["summary"]["id"] == "cache-tokens"
    assert [e["path"] for e in doc["plan"]] == ["memory/continuity.md"]


def test_the_console_script_adds_a_fact(enabled: Path) -> None:
    done = run_console("fact", "add", "Pin Node 20", ".", "--today", DAY, cwd=enabled)
    assert done.returncode == 0 and done.stdout == "pin-node-20\n", done.stderr


BASE = (
    "# Continuity\r\n\r\n## Project State\r\n- last_review: (none yet)\r\n\r\n"
    "## Key Decisions\r\n- Old fact\r\n  " + FOOT.format("old-fact", "working") + "\r\n"
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    text=st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40),
    section=st.sampled_from([None, "Key Decisions", "key decisions", "Conventions", "New One"]),
    thread=st.booleans(),
)
def test_any_text_gives_one_tracked_fact_or_a_refusal(
    text: str, section: str | None, thread: bool
) -> None:
    doc = facts.parse("memory/continuity.md", BASE.encode())
    try:
        new = add_fact(doc, Elsewhere([]), text, section, None, thread, dt.date(2026, 3, 2))
    except AgentMemoryError as exc:
        assert "\n" not in str(exc)
        return
    after = facts.parse("memory/continuity.md", new.after)
    assert not [p for p in after.problems if p.severity == "error"]
    assert [f.id for f in after.facts] == ["old-fact", new.id] or new.id in {
        f.id for f in after.facts
    }
    added = next(f for f in after.facts if f.id == new.id)
    assert added.task == (" " if thread else None)
    assert new.after.startswith(BASE.encode())  # every byte before it is kept
    assert b"\r\n" in new.after and b"\n" not in new.after.replace(b"\r\n", b"")


LONG = "# Continuity\n\n## Key Decisions\n- Old fact\n  " + FOOT.format("old-fact", "working")
LONG += "".join(f"\n- Fact {n}\n  " + FOOT.format(f"f.{n}", "working") for n in range(200)) + "\n"
# LONG: BASE's fact and 200 more whose ids no slug takes, in the review's shape and past
# PLAIN_FROM lines, so that the new fact's own check reads it that way too


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    text=st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40),
    thread=st.booleans(),
)
def test_a_long_file_in_the_reviews_shape_takes_the_same_texts(text: str, thread: bool) -> None:
    """The new fact is read back by the fast path when continuity.md was: the same verdict."""
    verdicts = []
    for base in (BASE, LONG):
        doc = facts.parse("memory/continuity.md", base.encode())
        try:
            new = add_fact(doc, Elsewhere([]), text, None, None, thread, dt.date(2026, 3, 2))
        except AgentMemoryError as exc:
            verdicts.append(str(exc))
        else:
            verdicts.append((new.id, new.tier, new.section))
    assert verdicts[0] == verdicts[1]


def test_the_schema_sections_are_the_templates_sections() -> None:
    template = facts.parse("memory/continuity.md", resources.data(USER_DATA[CONTINUITY]))
    titles = [s.title for s in template.sections if s.title.lower() != PROJECT_STATE]
    assert list(schema_sections()) == titles and len(titles) >= 3


@pytest.mark.parametrize(
    ("names", "newest"),
    [
        (["2026-05-01-100000.md", "2026-04-01-100000-fix.md"], "2026-05-01-100000.md"),
        (["2026-05-01-100000.md", "notes.md", "zz-draft.md"], "2026-05-01-100000.md"),
        (["notes.md", "2026-05-0-bad.md"], None),
    ],
)
def test_the_date_is_checked_against_the_newest_log_whatever_else_is_in_the_folder(
    enabled: Path, names: list[str], newest: str | None
) -> None:
    """fact add takes the newest log without sorting every name: a stray that sorts last
    (notes.md) must not hide it."""
    for name in names:
        (enabled / "memory/sessions" / name).write_text("# S\n")
    before = tree(enabled)
    result = cli("fact", "add", "Cache tokens", enabled, "--today", "2026-04-15")
    if newest is None:
        assert result.exit_code == 0, result.output
    else:
        assert result.exit_code == 1 and f"memory/sessions/{newest}: is dated" in result.output
        assert tree(enabled) == before


# Every character that cannot stand inside one line of a Markdown file: C0 controls, DEL, C1
# controls, lone surrogates (unencodable), and the line and paragraph separators.
_UNSAFE = ["\x00", "\x01", "\x1b", "\x7f", "\x80", "\x9b", "\ud800", "\udfff"]


@pytest.mark.parametrize("char", _UNSAFE, ids=[f"U+{ord(c):04X}" for c in _UNSAFE])
@pytest.mark.parametrize("field", ["section", "text"])
def test_a_control_character_or_surrogate_is_refused_by_every_writer(
    enabled: Path, char: str, field: str
) -> None:
    """MCP's memory_fact_add once wrote ``## Notes\\0x`` into continuity.md, after which every
    command refused the file; the CLI's --section took ESC, DEL and C1 controls. Both writers go
    through one check: one line, nothing written."""
    from agent_memory.cli.mcp.tools import McpSession, call

    before = tree(enabled)
    args = {"text": "A fact", "section": "Key Decisions", field: f"Notes{char}x"}
    done = call(McpSession(enabled), "memory_fact_add", args)
    line = done.err.rstrip("\n")
    assert done.result is None and isinstance(done.error, AgentMemoryError)
    assert "control character" in line and "\n" not in line
    line.encode()  # printable: the character is named, not echoed
    if char not in "\x00\ud800\udfff":  # what an argv can carry
        words = ["--section", f"Notes{char}x"] if field == "section" else []
        text = f"Notes{char}x" if field == "text" else "A fact"
        result = cli("fact", "add", text, enabled, *words, "--today", DAY)
        assert result.exit_code == 1 and len(result.output.splitlines()) == 1, result.output
        assert "control character" in result.output
    assert tree(enabled) == before
    assert cli("status", enabled).exit_code == 0


def test_an_unknown_section_is_refused_with_the_nearest_one(enabled: Path) -> None:
    before = tree(enabled)
    typo = cli("fact", "add", "Use pnpm", enabled, "--section", "Key Decsions", "--today", DAY)
    assert typo.exit_code == 1 and len(typo.output.splitlines()) == 1
    assert "did you mean 'Key Decisions'?" in typo.output and "--new-section" in typo.output
    far = cli("fact", "add", "Use pnpm", enabled, "--section", "Zzz", "--today", DAY)
    assert far.exit_code == 1 and "Stack & Tools, Architectural Invariants" in far.output
    assert tree(enabled) == before
    made = cli("fact", "add", "Use pnpm", enabled, "--section", "Zzz", "--new-section")
    assert made.exit_code == 0 and "\n## Zzz\n- Use pnpm\n" in continuity(enabled)
    again = cli("fact", "add", "Use yarn", enabled, "--section", "zzz", "--today", DAY)
    assert again.exit_code == 0, again.output  # a section the file has is known


def test_a_schema_section_missing_from_the_file_is_made_without_asking(tmp_path: Path) -> None:
    build_tree(tmp_path, {"memory/continuity.md": BASE.replace("\r\n", "\n")})
    result = cli("fact", "add", "Tabs, not spaces", tmp_path, "--section", "conventions")
    assert result.exit_code == 0, result.output
    assert "\n## Conventions\n- Tabs, not spaces\n" in continuity(tmp_path)


def test_a_fact_of_several_paragraphs_keeps_one_blank_line_between_them(enabled: Path) -> None:
    text = "Release steps\n\n\n   First tag the commit.\nThen push.  \n\n"
    done = cli("fact", "add", text, enabled, "--today", "2026-03-02")
    assert done.exit_code == 0, done.output
    continuity = (enabled / "memory/continuity.md").read_text()
    assert "- Release steps\n\n  First tag the commit.\n  Then push.\n  <!-- id: release-steps" in (
        continuity
    )
    edited = cli("fact", "edit", "release-steps", "Steps\n\nTag\n\nPush", enabled)
    assert edited.exit_code == 0, edited.output
    continuity = (enabled / "memory/continuity.md").read_text()
    assert "- Steps\n\n  Tag\n\n  Push\n  <!-- id: release-steps" in continuity
    shown = cli("fact", "show", "release-steps", enabled).output
    assert "Tag" in shown and "Push" in shown
    assert cli("lint", enabled).exit_code == 0


@pytest.mark.parametrize(
    ("tail", "said"),
    [
        ("<details>\n<summary>older notes</summary>\n", ":17: section 'User Preferences' ends "),
        ("Some code:\n\n```sh\nmake\n", ":19: the code fence opened here is never closed"),
    ],
)
def test_a_fact_a_section_end_would_swallow_is_refused(enabled: Path, tail: str, said: str) -> None:
    """A fact appended after an HTML block or into a fence never closed is read as part of it:
    ``fact add`` said its id and wrote a fact that did not exist."""
    with (enabled / "memory/continuity.md").open("a") as memory:
        memory.write(tail)
    before = tree(enabled)
    section = ["--section", "User Preferences"]
    done = cli("fact", "add", "Prefer tabs", enabled, *section, "--today", DAY)
    assert done.exit_code == 1
    assert done.output.startswith("agent-memory: memory/continuity.md" + said)
    assert len(done.output.splitlines()) == 1 and "then try again" in done.output
    assert tree(enabled) == before
