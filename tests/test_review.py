"""The review's properties over generated histories, through the real CLI on real directories."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from click.testing import Result
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_memory.parse import facts
from agent_memory.parse.continuity import last_review
from conftest import PROJECT, build_tree, cli, tree

START = dt.date(2026, 1, 5)
SECTIONS = ["Key Decisions", "Conventions", "Open Threads", "Architectural Invariants"]


def footer(fact_id: str, created: str) -> str:
    fields = f"created: {created} | last_used: {created} | uses: 1 | tier: working"
    return f"<!-- id: {fact_id} | {fields} -->"


@st.composite
def histories(draw: st.DrawFn) -> tuple[dict[str, str], list[list[dict[str, str]]]]:
    """A continuity.md with facts, and batches of new session logs referencing them."""
    count = draw(st.integers(1, 8))
    ids = [f"fact-{i}" for i in range(count)]
    by_section: dict[str, list[str]] = {s: [] for s in SECTIONS}
    for fact_id in ids:
        section = draw(st.sampled_from(SECTIONS))
        box = draw(st.sampled_from(["[ ] ", "[x] ", ""])) if section == "Open Threads" else ""
        core = draw(st.sampled_from(["", "", "", " | tier: core"]))
        foot = footer(fact_id, START.isoformat())
        if core:
            foot = foot.replace(" | tier: working", core)
        # DECAY.md § Expiry and § Relations: a date somewhere in the history, a related fact.
        until = draw(st.sampled_from([None, None, *range(0, 160, 20)]))
        if until is not None:
            day_until = (START + dt.timedelta(days=until)).isoformat()
            foot = foot.replace(" -->", f" | valid-until: {day_until} -->")
        if draw(st.booleans()):
            foot = foot.replace(" -->", " | see: fact-0 -->")
        by_section[section].append(f"- {box}Fact {fact_id} text\n  {foot}\n")
    body = "# Continuity\n\n## Project State\n- last_review: (none yet)\n\n" + "".join(
        f"## {s}\n{''.join(lines)}\n" for s, lines in by_section.items()
    )
    batches = []
    day = 0
    for _ in range(draw(st.integers(1, 4))):
        batch = []
        for _ in range(draw(st.integers(0, 12))):
            day += draw(st.integers(0, 3))
            used = draw(st.lists(st.sampled_from(ids), max_size=3, unique=True))
            name = (
                f"{(START + dt.timedelta(days=day)).isoformat()}-{len(batch):02d}{day % 10}000.md"
            )
            # Created on a fact that exists already (DECAY.md § Events) now and then.
            label = draw(st.sampled_from(["Referenced", "Referenced", "Referenced", "Created"]))
            refs = f"- {label}: {', '.join(used) or 'none'}\n"
            batch.append({name: f"# S\n\n## Memory References\n{refs}"})
        batches.append(batch)
    policy = (PROJECT / "templates/memory/decay-policy.md").read_text()
    policy = policy.replace("active_window:    8", "active_window:    4")
    policy = policy.replace("archive_window:   20", "archive_window:   7")
    return {"memory/continuity.md": body, "memory/decay-policy.md": policy}, batches


def fact_texts(root: Path) -> Counter[str]:
    """Every fact's text without its footer, across continuity.md and the archive."""
    found: Counter[str] = Counter()
    for rel, data in tree(root).items():
        if rel == "memory/continuity.md" or (
            rel.startswith("memory/archive/") and rel != "memory/archive/INDEX.md"
        ):
            doc = facts.parse(rel, data)
            for fact in doc.facts:
                found[fact.first_line] += 1
    return found


def expected_usage(root: Path) -> dict[str, tuple[str, str]]:
    """DECAY.md § Events computed directly from the logs on disk, as a person would count them:
    one event per log that names the id, plus the birth event (no log here says Created)."""
    counted: Counter[str] = Counter()
    latest: dict[str, str] = {}
    for rel, data in sorted(tree(root).items()):
        if not rel.startswith("memory/sessions/2"):
            continue
        line = data.decode().split("- Referenced: ", 1)[1].strip()
        for fact_id in {i.strip() for i in line.split(",")} - {"none"}:
            counted[fact_id] += 1
            latest[fact_id] = rel.rsplit("/", 1)[-1][:10]
    return {
        f"fact-{i}": (str(counted[f"fact-{i}"] + 1), latest.get(f"fact-{i}", START.isoformat()))
        for i in range(8)
    }


def footers(root: Path) -> dict[str, tuple[str, str]]:
    """(uses, last_used) of every fact in continuity.md and the archive."""
    found = {}
    for rel, data in tree(root).items():
        if rel == "memory/continuity.md" or (
            rel.startswith("memory/archive/") and rel != "memory/archive/INDEX.md"
        ):
            for fact in facts.parse(rel, data).facts:
                assert fact.id is not None
                found[fact.id] = (fact.field("uses") or "", fact.field("last_used") or "")
    return found


def expired_outside_the_archive(root: Path, today: str) -> list[str]:
    """The facts whose valid-until is before the review date and that a review left live."""
    doc = facts.parse("memory/continuity.md", (root / "memory/continuity.md").read_bytes())
    return [f.id or "" for f in doc.facts if (f.field("valid-until") or "9999") < today]


def today_after(batch_index: int) -> str:
    return (START + dt.timedelta(days=40 * (batch_index + 1))).isoformat()


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(histories())
def test_incremental_equals_full_idempotent_and_nothing_lost(tmp_path_factory, history) -> None:
    files, batches = history
    root = tmp_path_factory.mktemp("repo")
    build_tree(root, files)
    texts = fact_texts(root)
    for index, batch in enumerate(batches):
        for log in batch:
            build_tree(root, log)
        logs_before = {k: v for k, v in tree(root).items() if k.startswith("memory/sessions/")}
        assert cli("review", root, "--today", today_after(index)).exit_code == 0
        assert {
            k: v for k, v in tree(root).items() if k.startswith("memory/sessions/")
        } == logs_before
        assert fact_texts(root) == texts
        assert not expired_outside_the_archive(root, today_after(index))
        expected = expected_usage(root)
        assert footers(root) == {i: expected[i] for i in footers(root)}
        after = tree(root)
        again = cli("review", root, "--today", today_after(index))
        assert again.exit_code == 0 and tree(root) == after, "second review changed something"
        full = cli("review", root, "--full", "--today", today_after(index), "--check")
        assert full.exit_code == 0, (
            full.output
            + cli("review", root, "--full", "--dry-run", "--today", today_after(index)).output
        )


def _scenario(root: Path) -> None:
    cont = (
        "# Continuity\n\n## Project State\n- last_review: (none yet)\n\n## Key Decisions\n"
        f"- Use Drizzle\n  {footer('drizzle', '2026-01-05')}\n"
    )
    build_tree(root, {"memory/continuity.md": cont})
    for day in range(6, 30):
        build_tree(root, {f"memory/sessions/2026-01-{day:02d}-100000.md": "# S\n"})


def test_two_way_archive_and_reactivation(tmp_path: Path) -> None:
    _scenario(tmp_path)
    assert cli("review", tmp_path, "--today", "2026-02-01").exit_code == 0
    assert "drizzle" not in (tmp_path / "memory/continuity.md").read_text()
    assert (
        "- drizzle — Use Drizzle → 2026-Q1.md" in (tmp_path / "memory/archive/INDEX.md").read_text()
    )
    build_tree(
        tmp_path,
        {"memory/sessions/2026-02-02-100000.md": "## Memory References\n- Reactivated: drizzle\n"},
    )
    result = cli("review", tmp_path, "--today", "2026-02-03")
    assert "Reactivated: 1 (drizzle)" in result.output
    text = (tmp_path / "memory/continuity.md").read_text()
    assert (
        "- Use Drizzle\n  <!-- id: drizzle | created: 2026-01-05 | last_used: 2026-02-02 | "
        "uses: 2 | tier: active -->" in text
    )
    assert "drizzle" not in (tmp_path / "memory/archive/2026-Q1.md").read_text()


def test_widening_the_archive_window_brings_facts_back(tmp_path: Path) -> None:
    _scenario(tmp_path)
    cli("review", tmp_path, "--today", "2026-02-01")
    policy = (PROJECT / "templates/memory/decay-policy.md").read_text()
    build_tree(
        tmp_path,
        {"memory/decay-policy.md": policy.replace("archive_window:   20", "archive_window:   40")},
    )
    result = cli("review", tmp_path, "--today", "2026-02-02")
    assert "Reactivated: 1 (drizzle)" in result.output
    assert "tier: archive-candidate" in (tmp_path / "memory/continuity.md").read_text()


def test_review_refuses_duplicate_ids_and_writes_nothing(tmp_path: Path) -> None:
    _scenario(tmp_path)
    build_tree(
        tmp_path,
        {
            "memory/archive/2026-Q1.md": "# Archive\n\n## Facts\n- Old\n  "
            + footer("drizzle", "2026-01-01")
            + "\n"
        },
    )
    before = tree(tmp_path)
    result = cli("review", tmp_path)
    assert result.exit_code == 1
    assert (
        "memory/archive/2026-Q1.md:5: id 'drizzle' is also at memory/continuity.md:8"
        in result.output
    )
    assert tree(tmp_path) == before


def test_same_bytes_whatever_the_creation_order_and_hash_seed(tmp_path: Path) -> None:
    outputs = []
    for seed, order in (("0", 1), ("12345", -1)):
        root = tmp_path / f"r{seed}"
        root.mkdir()
        _scenario(root)
        logs = sorted((root / "memory/sessions").iterdir())
        contents = {p: p.read_bytes() for p in logs}
        shutil.rmtree(root / "memory/sessions")
        (root / "memory/sessions").mkdir()
        for path in logs[::order]:
            path.write_bytes(contents[path])
        subprocess.run(
            [sys.executable, "-m", "agent_memory", "review", str(root), "--today", "2026-02-01"],
            check=True,
            capture_output=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        )
        outputs.append(tree(root))
    assert outputs[0] == outputs[1]


def test_session_summary_is_appended_once_to_the_newest_log(tmp_path: Path) -> None:
    _scenario(tmp_path)
    newest = tmp_path / "memory/sessions/2026-01-29-100000.md"
    older = tmp_path / "memory/sessions/2026-01-28-100000.md"
    assert cli("review", tmp_path, "--session", older).exit_code == 1
    assert cli("review", tmp_path, "--session", newest, "--today", "2026-02-01").exit_code == 0
    assert newest.read_text().startswith("# S\n\n## Memory Review (2026-02-01)\n- Reactivated: 0\n")
    once = newest.read_bytes()
    cli("review", tmp_path, "--session", newest, "--today", "2026-02-01")
    assert newest.read_bytes() == once


def test_if_due_is_quiet_when_not_due(tmp_path: Path) -> None:
    build_tree(
        tmp_path,
        {"memory/continuity.md": "# Continuity\n\n## Project State\n- last_review: (none yet)\n"},
    )
    result = cli("review", tmp_path, "--if-due")
    assert result.exit_code == 0 and result.output == ""
    assert "last_review: (none yet)" in (tmp_path / "memory/continuity.md").read_text()


def test_status_reports_tiers_and_the_trigger(tmp_path: Path) -> None:
    import json

    _scenario(tmp_path)
    doc = json.loads(cli("status", tmp_path, "--json").output)
    assert doc["command"] == "status" and doc["outcome"] == "due"
    summary = doc["summary"]
    assert summary["tiers"] == {"working": 1}
    assert summary["sessions_since_review"] == 24
    # No stamp, facts with footers: what enable would adopt (UPGRADE.md § What a repo is on).
    assert summary["installed"].startswith("an unstamped layer enabled by hand")
    assert "24 session logs since the last review" in summary["due"][0]
    text = cli("status", tmp_path).output
    assert "review: due" in text and "facts: 1 (1 working)" in text


def test_window_follows_file_name_order_with_slugged_logs(tmp_path: Path) -> None:
    # By file name, "…-101500-b.md" sorts before "…-101500.md": the window must agree with that.
    cont = (
        "# Continuity\n\n## Project State\n"
        "- last_review: 2026-01-05 | through 2026-01-05-101500-b\n"
        f"\n## Key Decisions\n- Use Drizzle\n  {footer('drizzle', '2026-01-05')}\n"
    )
    build_tree(
        tmp_path,
        {
            "memory/continuity.md": cont,
            "memory/sessions/2026-01-05-101500-b.md": "# S\n",
            "memory/sessions/2026-01-05-101500.md": "## Memory References\n- Referenced: drizzle\n",
        },
    )
    assert cli("review", tmp_path, "--today", "2026-01-06").exit_code == 0
    assert "uses: 2" in (tmp_path / "memory/continuity.md").read_text()
    assert cli("review", tmp_path, "--full", "--check", "--today", "2026-01-06").exit_code == 0


def test_session_must_be_the_repos_own_newest_log(tmp_path: Path) -> None:
    _scenario(tmp_path)
    impostor = tmp_path / "elsewhere/2026-01-29-100000.md"
    build_tree(tmp_path, {"elsewhere/2026-01-29-100000.md": "# not the log\n"})
    result = cli("review", tmp_path, "--session", impostor, "--today", "2026-02-01")
    assert result.exit_code == 1 and "newest session log" in result.output
    assert impostor.read_text() == "# not the log\n"


HAND_RUN = (PROJECT / "tests/fixtures/hand-run-continuity.md").read_text()
USES_IDLE = "## Memory References\n- Referenced: idle-timeout\n"


def test_a_hand_run_repo_is_read_leniently_and_its_notes_kept(tmp_path: Path) -> None:
    """Bold keys, a ``.md`` after the stem, a note wrapped onto the next line: all kept."""
    build_tree(
        tmp_path,
        {
            "memory/continuity.md": HAND_RUN,
            "memory/sessions/2026-06-10-090000.md": USES_IDLE,
            "memory/sessions/2026-06-12-100000.md": USES_IDLE,
        },
    )
    assert facts.parse("c.md", HAND_RUN.encode()).render() == HAND_RUN.encode()
    status = cli("status", tmp_path, "--json")
    assert '"through": "2026-06-10-090000"' in status.output
    assert '"sessions_since_review": 1' in status.output
    result = cli("review", tmp_path, "--today", "2026-06-14")
    assert result.exit_code == 0
    # The hand-run mark says no log count, so this first review reads every log, and says so.
    assert "- Full rebuild: last_review did not say how many logs it had read" in result.output
    text = (tmp_path / "memory/continuity.md").read_text()
    assert (
        "- **last_review:** 2026-06-14 | through 2026-06-12-100000.md | 2 logs (SIZE — 31 "
        "decaying facts against a\n  cap of 30; archived 1, swept 2, tier changes 4)\n"
    ) in text
    # Both logs counted, plus the birth event (no log lists idle-timeout under Created).
    assert "id: idle-timeout | created: 2026-06-02 | last_used: 2026-06-12 | uses: 3" in text
    assert "[[relay-design]]" in text and "origin: 2026-06-01-120000" in text
    again = tree(tmp_path)
    assert cli("review", tmp_path, "--today", "2026-06-14").exit_code == 0
    assert tree(tmp_path) == again


def test_a_date_only_last_review_read_every_log_up_to_that_date(tmp_path: Path) -> None:
    build_tree(
        tmp_path,
        {
            "memory/continuity.md": HAND_RUN.replace(
                "2026-06-10 | through 2026-06-10-090000.md (SIZE", "2026-06-11 (SIZE"
            ),
            "memory/sessions/2026-06-10-090000.md": "# s\n",
            "memory/sessions/2026-06-12-100000.md": "# s\n",
        },
    )
    status = cli("status", tmp_path, "--json")
    assert '"through": "2026-06-10-090000"' in status.output


def _auto_core_policy(min_uses: int) -> str:
    """The template's policy with auto-core on: a block of 2 logs, 2 blocks, ``min_uses`` uses."""
    policy = (PROJECT / "templates/memory/decay-policy.md").read_text()
    for old, new in (
        ("enabled:          false", "enabled:          true"),
        ("core_min_uses:    12", f"core_min_uses:    {min_uses}"),
        ("core_min_reviews: 5", "core_min_reviews: 2"),
        ("review_every:         10", "review_every:         2"),
    ):
        policy = policy.replace(old, new)
    return policy


def test_auto_core_promotes_what_every_recent_block_used_and_says_so(tmp_path: Path) -> None:
    policy = _auto_core_policy(3)
    cont = (
        "# Continuity\n\n## Project State\n- last_review: (none yet)\n\n## Key Decisions\n"
        f"- Steady\n  {footer('steady', '2026-01-05')}\n"
        f"- Early only\n  {footer('early-only', '2026-01-05')}\n"
    )
    logs = {
        f"memory/sessions/2026-01-{day:02d}-100000.md": "## Memory References\n- Referenced: "
        + ("steady, early-only" if day < 8 else "steady")
        + "\n"
        for day in range(6, 10)
    }
    build_tree(tmp_path, {"memory/continuity.md": cont, "memory/decay-policy.md": policy, **logs})
    result = cli("review", tmp_path, "--today", "2026-01-10")
    assert result.exit_code == 0, result.output
    assert "Promoted to core: 1 (steady)" in result.output
    text = (tmp_path / "memory/continuity.md").read_text()
    assert "id: steady | created: 2026-01-05 | last_used: 2026-01-09 | uses: 5 | tier: core" in text
    assert "id: early-only" in text and "| tier: core" not in text.split("id: early-only")[1]
    # Incremental equals full here too, and a second run changes nothing.
    assert cli("review", tmp_path, "--full", "--check", "--today", "2026-01-10").exit_code == 0
    before = tree(tmp_path)
    assert cli("review", tmp_path, "--today", "2026-01-10").exit_code == 0
    assert tree(tmp_path) == before


def test_a_pending_reactivation_makes_the_review_due(tmp_path: Path) -> None:
    """A log naming an archived fact left it archived while status said "not due"."""
    foot = (
        "<!-- id: redis-cache | created: 2026-01-01 | last_used: 2026-01-01 | uses: 1 | "
        "tier: archived | from: Key Decisions | archived: 2026-03-01 -->"
    )
    build_tree(
        tmp_path,
        {
            "memory/continuity.md": (
                "# C\n\n## Project State\n- last_review: 2026-03-01 | through 2026-03-01-100000\n"
                "\n## Key Decisions\n"
            ),
            "memory/archive/2026-Q1.md": f"# Archive\n\n## Facts\n- Redis cache\n  {foot}\n",
            "memory/sessions/2026-03-01-100000.md": "# S\n",
            "memory/sessions/2026-03-02-100000.md": (
                "# S\n\n## Memory References\n- Reactivated: redis-cache\n"
            ),
        },
    )
    status = cli("status", tmp_path)
    assert "review: due — 1 archived fact named by unread session logs waits" in status.output
    assert "(redis-cache)" in status.output
    assert "[review-due]" in cli("lint", tmp_path).output
    result = cli("review", tmp_path, "--if-due", "--today", "2026-03-02")
    assert result.exit_code == 0 and "Reactivated: 1 (redis-cache)" in result.output
    assert "Redis cache" in (tmp_path / "memory/continuity.md").read_text()
    assert "review: not due" in cli("status", tmp_path).output


def _logs(*names_and_ids: tuple[str, str]) -> dict[str, str]:
    return {
        f"memory/sessions/{name}.md": f"## Memory References\n- {label}\n"
        for name, label in names_and_ids
    }


def test_a_log_merged_before_the_mark_makes_a_full_rebuild_that_says_why(tmp_path: Path) -> None:
    cont = (
        "# Continuity\n\n## Project State\n- last_review: (none yet)\n\n## Key Decisions\n"
        f"- Use Drizzle\n  {footer('drizzle', '2026-01-05')}\n"
    )
    build_tree(tmp_path, {"memory/continuity.md": cont})
    build_tree(tmp_path, _logs(("2026-01-07-100000", "Referenced: drizzle")))
    assert cli("review", tmp_path, "--today", "2026-01-08").exit_code == 0
    text = (tmp_path / "memory/continuity.md").read_text()
    assert "- last_review: 2026-01-08 | through 2026-01-07-100000 | 1 logs\n" in text
    # The other branch's log, named before the mark, arrives with a merge.
    build_tree(tmp_path, _logs(("2026-01-06-120000-other", "Referenced: drizzle")))
    status = cli("status", tmp_path, "--json")
    assert '"sessions_since_review": 1' in status.output
    result = cli("review", tmp_path, "--today", "2026-01-08")
    assert result.exit_code == 0
    assert (
        "- Full rebuild: 2 logs sort at or before 2026-01-07-100000, where the last review "
        "read 1 (a merge brought older logs), so every log was read again"
    ) in result.output
    text = (tmp_path / "memory/continuity.md").read_text()
    assert "last_used: 2026-01-07 | uses: 3 | tier: working" not in text
    assert "| uses: 3 |" in text and "| 2 logs\n" in text
    assert cli("review", tmp_path, "--full", "--check", "--today", "2026-01-08").exit_code == 0
    again = cli("review", tmp_path, "--today", "2026-01-08")
    assert "Full rebuild" not in again.output and "nothing to change" in again.output


def test_a_merged_mark_forces_one_full_rebuild(tmp_path: Path) -> None:
    cont = (
        "# Continuity\n\n## Project State\n"
        "- **last_review:** 2026-01-08 | through 2026-01-07-100000 | merged\n\n## Key Decisions\n"
        f"- Use Drizzle\n  {footer('drizzle', '2026-01-05')}\n"
    )
    build_tree(tmp_path, {"memory/continuity.md": cont})
    build_tree(tmp_path, _logs(("2026-01-06-100000", "Referenced: drizzle")))
    build_tree(tmp_path, _logs(("2026-01-07-100000", "Referenced: drizzle")))
    result = cli("review", tmp_path, "--today", "2026-01-09")
    assert "- Full rebuild: last_review says merged" in result.output
    text = (tmp_path / "memory/continuity.md").read_text()
    assert "- **last_review:** 2026-01-09 | through 2026-01-07-100000 | 2 logs\n" in text
    assert "| uses: 3 |" in text


def test_created_on_an_existing_id_counts_the_same_incrementally_and_in_full(
    tmp_path: Path,
) -> None:
    """DECAY.md § Events: a second Created is one more event; the birth was gone already."""
    cont = (
        "# Continuity\n\n## Project State\n- last_review: (none yet)\n\n## Key Decisions\n"
        f"- Use Drizzle\n  {footer('drizzle', '2026-01-05')}\n"
    )
    build_tree(tmp_path, {"memory/continuity.md": cont})
    build_tree(tmp_path, _logs(("2026-01-05-100000", "Created: drizzle")))
    build_tree(tmp_path, _logs(("2026-01-06-100000", "Referenced: drizzle")))
    assert cli("review", tmp_path, "--today", "2026-01-06").exit_code == 0
    assert "| uses: 2 |" in (tmp_path / "memory/continuity.md").read_text()
    build_tree(tmp_path, _logs(("2026-01-07-100000", "Created: drizzle")))
    result = cli("review", tmp_path, "--today", "2026-01-08")
    assert "existed at the last review" in result.output
    assert "| uses: 3 |" in (tmp_path / "memory/continuity.md").read_text()
    assert cli("review", tmp_path, "--full", "--check", "--today", "2026-01-08").exit_code == 0


def test_created_again_on_a_one_file_thread_counts_the_same_incrementally_and_in_full(
    tmp_path: Path,
) -> None:
    """The window's Created check looked at continuity.md and the archive only: a thread in its
    own file (DESIGN §13) kept a birth event a full rebuild does not give it."""
    cont = "# Continuity\n\n## Project State\n- last_review: (none yet)\n\n## Open Threads\n"
    thread = f"- [ ] Ship the outbox\n  {footer('ship-outbox', '2026-01-05')}\n"
    build_tree(tmp_path, {"memory/continuity.md": cont, "memory/open-threads/ship.md": thread})
    build_tree(tmp_path, _logs(("2026-01-05-100000", "Created: ship-outbox")))
    assert cli("review", tmp_path, "--today", "2026-01-06").exit_code == 0
    build_tree(tmp_path, _logs(("2026-01-07-100000", "Created: ship-outbox")))
    result = cli("review", tmp_path, "--today", "2026-01-08")
    assert "existed at the last review" in result.output
    assert "| uses: 2 |" in (tmp_path / "memory/open-threads/ship.md").read_text()
    assert cli("review", tmp_path, "--full", "--check", "--today", "2026-01-08").exit_code == 0


def test_a_date_only_last_review_keeps_its_note_when_the_review_stamps_it(tmp_path: Path) -> None:
    """REVIEW.md: a review rewrites only the date, the name and the count, and keeps the rest
    of the line. A hand-run mark with a date alone and a note lost the note."""
    doc = " ".join((PROJECT / "REVIEW.md").read_text().split())
    assert "and ` | through <name> | <N> logs` right after a date alone) and keeps the rest" in doc
    mark = "- **last_review:** 2026-06-11 (SIZE"
    build_tree(
        tmp_path,
        {
            "memory/continuity.md": HAND_RUN.replace(
                "- **last_review:** 2026-06-10 | through 2026-06-10-090000.md (SIZE", mark
            ),
            "memory/sessions/2026-06-10-090000.md": "# s\n",
            "memory/sessions/2026-06-12-100000.md": "# s\n",
        },
    )
    assert mark in (tmp_path / "memory/continuity.md").read_text()
    assert cli("review", tmp_path, "--today", "2026-06-14").exit_code == 0
    assert (
        "- **last_review:** 2026-06-14 | through 2026-06-12-100000 | 2 logs (SIZE — 31 "
        "decaying facts against a\n  cap of 30; archived 1, swept 2, tier changes 4)\n"
    ) in (tmp_path / "memory/continuity.md").read_text()
    again = tree(tmp_path)
    assert cli("review", tmp_path, "--today", "2026-06-14").exit_code == 0
    assert tree(tmp_path) == again


def test_a_fact_created_after_the_last_review_stays_incremental(tmp_path: Path) -> None:
    cont = (
        "# Continuity\n\n## Project State\n"
        "- last_review: 2026-01-06 | through 2026-01-06-100000 | 1 logs\n\n## Key Decisions\n"
        f"- Use Drizzle\n  {footer('drizzle', '2026-01-07')}\n"
    )
    build_tree(tmp_path, {"memory/continuity.md": cont})
    build_tree(tmp_path, _logs(("2026-01-06-100000", "Referenced: nothing-here")))
    build_tree(tmp_path, _logs(("2026-01-07-100000", "Created: drizzle")))
    result = cli("review", tmp_path, "--today", "2026-01-08")
    assert result.exit_code == 0 and "Full rebuild" not in result.output
    assert "| uses: 1 |" in (tmp_path / "memory/continuity.md").read_text()
    assert cli("review", tmp_path, "--full", "--check", "--today", "2026-01-08").exit_code == 0


def test_the_mark_is_read_leniently() -> None:
    def mark(value: str) -> tuple[str | None, str | None, int | None, bool]:
        doc = facts.parse("c.md", f"# C\n\n## Project State\n- last_review: {value}\n".encode())
        found = last_review(doc)
        return found.date, found.through, found.read, found.merged

    assert mark("2026-01-08 | through 2026-01-07-100000 | 12 logs") == (
        "2026-01-08",
        "2026-01-07-100000",
        12,
        False,
    )
    assert mark("2026-01-08 | through 2026-01-07-100000.md|1 log (note)")[2] == 1
    assert mark("2026-01-08 | through 2026-01-07-100000 | merged")[2:] == (None, True)
    assert mark("2026-01-08 | through 2026-01-07-100000")[2:] == (None, False)
    assert mark("2026-01-08 | through 2026-01-07-100000 | ١٢ logs")[2:] == (None, False)


def test_a_by_hand_review_following_review_md_writes_the_same_archive_and_index(
    tmp_path: Path,
) -> None:
    """REVIEW.md steps 3, 6 and 8 as a person reads them — the new quarter file's lines, the
    INDEX line's form, what counts as a tier change — give what the tool writes."""
    import re
    import textwrap

    doc = (PROJECT / "REVIEW.md").read_text()
    block = re.search(r"starts as exactly these lines.*?```markdown\n(.*?)\n *```", doc, re.S)
    assert block is not None
    heading = textwrap.dedent(block.group(1)).replace("2026-Q2", "2026-Q1") + "\n"
    long = "Use Drizzle for every table, with the migrations kept beside the schema " * 2
    old = footer("drizzle", "2026-01-05")
    gone = old.replace("drizzle", "yarn-v1").replace("working", "superseded | superseded-by: pnpm")
    cont = (
        "# Continuity\n\n## Project State\n- last_review: (none yet)\n\n## Key Decisions\n"
        f"- {long.strip()}\n  {old}\n- Yarn v1 workspaces\n  {gone}\n"
        f"- pnpm workspaces\n  {footer('pnpm', '2026-01-28')}\n"
        f"\n## Open Threads\n- [x] **Move CI** to Actions\n  "
        f"{old.replace('drizzle', 'migrate-ci').replace(' -->', ' | done: 2026-01-05 -->')}\n"
    )
    build_tree(tmp_path, {"memory/continuity.md": cont})
    for day in range(6, 30):
        build_tree(tmp_path, {f"memory/sessions/2026-01-{day:02d}-100000.md": "# S\n"})
    result = cli("review", tmp_path, "--today", "2026-02-01")
    assert result.exit_code == 0, result.output
    quarter = (tmp_path / "memory/archive/2026-Q1.md").read_text()
    # Step 3: the file's own lines are those, each moved fact right after its section's last
    # non-blank line (here the heading), no blank line added.
    assert [line for line in quarter.splitlines() if not line.startswith(("- ", "  "))] == (
        heading.splitlines()
    )
    assert "\n## Facts\n- Use Drizzle" in quarter and "\n## Completed Threads\n- [x] " in quarter
    # Step 6, by hand: summary = the bullet's text after "- " and a task box, cut at 100.
    by_hand = []
    for fact_id, first, reason in (
        ("drizzle", long.strip(), ""),
        ("migrate-ci", "**Move CI** to Actions", ""),
        ("yarn-v1", "Yarn v1 workspaces", " — superseded by pnpm"),
    ):
        summary = first if len(first) <= 100 else first[:99] + "…"
        by_hand.append(f"- {fact_id} — {summary}{reason} → 2026-Q1.md")
    index = (tmp_path / "memory/archive/INDEX.md").read_text().splitlines()
    assert [line for line in index if line.startswith("- ")] == by_hand
    # Step 8: archived and swept facts are tier changes, sorted by id; the superseded one kept
    # its tier.
    # Both left working with one use: REVIEW.md's note says why, not a promotion.
    note = " (working_window passed without a use)"
    changes = f"drizzle: working→archived{note}, migrate-ci: working→archived{note}"
    assert f"- Tier changes: 2 ({changes})\n" in result.output


def _first_review(root: Path, live: int, archived: int) -> tuple[float, Result]:
    """A repo adopted with ``live`` facts, half of them unused since, ``archived`` facts that the
    last of 25 logs names, and the CPU seconds of its first review."""
    root.mkdir()
    assert cli("enable", root, "--vendor", "none", "--today", "2020-01-01").exit_code == 0
    facts = "".join(
        f"- Fact {i}\n  <!-- id: fact-{i} | created: 2020-01-01 | "
        f"last_used: 2020-01-{1 + 14 * (i % 2):02d} | uses: {1 + i % 2} | tier: working -->\n"
        for i in range(live)
    )
    continuity = root / "memory/continuity.md"
    continuity.write_text(
        continuity.read_text().replace("## Key Decisions\n", f"## Key Decisions\n{facts}")
    )
    old = "".join(
        f"- Old fact {i}\n  <!-- id: old-{i} | created: 2019-12-01 | last_used: 2019-12-01 | "
        f"uses: 1 | tier: archived | from: Topic {i} | archived: 2019-12-02 -->\n"
        for i in range(archived)
    )
    used = ", ".join(f"old-{i}" for i in range(archived))
    build_tree(
        root,
        {
            "memory/archive/2019-Q4.md": f"# Archive 2019-Q4\n\n## Facts\n{old}",
            **{
                f"memory/sessions/2020-01-{2 + k:02d}-000000.md": "## Memory References\n"
                f"- Referenced: {used if k == 24 else 'none'}\n"
                for k in range(25)
            },
        },
    )
    started = time.process_time()
    result = cli("review", root, "--today", "2020-02-01", "--json")
    return time.process_time() - started, result


def test_a_first_review_in_which_20000_facts_change_tier_is_linear(tmp_path: Path) -> None:
    """Right after adoption every fact changes tier at once: a membership test in a tuple per
    change took 8 s for 20,000 facts, and 1,000 facts reactivated into sections of their own
    read continuity.md again for each section. Held as a ratio to a tenth of the work in the
    same process, not to a time: linear is 6-9x here, the quadratic review 30x and more."""
    _first_review(tmp_path / "warm", 10, 1)  # the review's modules loaded before either is timed
    tenth, _ = _first_review(tmp_path / "tenth", 2_000, 100)
    spent, result = _first_review(tmp_path / "whole", 20_000, 1_000)
    assert spent < 20 * tenth, (spent, tenth)
    changes = json.loads(result.stdout)["summary"]["tier_changes"]
    assert len(changes) == 21_000 and {(a, b) for _, a, b in changes} == {
        ("working", "archived"),
        ("working", "archive-candidate"),
        ("archived", "active"),
    }
    continuity = tmp_path / "whole/memory/continuity.md"
    assert continuity.read_text().count("\n## Topic ") == 1_000


def _archived_by_review(root: Path) -> str:
    """A repo whose one fact a review archived from Key Decisions; the quarter file's path."""
    assert cli("enable", root, "--vendor", "none", "--today", "2026-01-01").exit_code == 0
    added = cli("fact", "add", "Old fact about the build cache", root, "--today", "2026-01-01")
    assert added.exit_code == 0
    empty = "## Memory References\n- Referenced: (none)\n"
    build_tree(root, {f"memory/sessions/2026-02-{d:02}-100000.md": empty for d in range(1, 26)})
    assert "Archived: 1" in cli("review", root, "--today", "2026-03-01").output
    named = "## Memory References\n- Referenced: old-fact-about-the-build-cache\n"
    build_tree(root, {"memory/sessions/2026-03-05-100000.md": named})
    return "memory/archive/2026-Q1.md"


@pytest.mark.parametrize(
    "back", [["review"], ["fact", "restore", "old-fact-about-the-build-cache"]]
)
def test_a_fact_from_project_state_comes_back_to_key_decisions(
    tmp_path: Path, back: list[str]
) -> None:
    """Project State holds no facts: a fact reactivated there was a footer-orphan no command
    could find."""
    quarter = tmp_path / _archived_by_review(tmp_path)
    quarter.write_text(quarter.read_text().replace("from: Key Decisions", "from: project  state"))
    done = cli(*back, tmp_path, "--today", "2026-03-10")
    assert done.exit_code == 0, done.output
    memory = facts.parse("memory/continuity.md", (tmp_path / "memory/continuity.md").read_bytes())
    assert [(f.id, f.section) for f in memory.facts] == [
        ("old-fact-about-the-build-cache", "Key Decisions")
    ]
    assert cli("lint", tmp_path).output.endswith("0 errors, 0 warnings, 0 advisories\n")
    assert cli("fact", "show", "old-fact-about-the-build-cache", tmp_path).exit_code == 0


def test_a_reactivation_a_section_would_swallow_is_refused(tmp_path: Path) -> None:
    _archived_by_review(tmp_path)
    path = tmp_path / "memory/continuity.md"
    path.write_text(path.read_text().replace("## Key Decisions\n", "## Key Decisions\n<div>\n"))
    before = tree(tmp_path)
    done = cli("review", tmp_path, "--today", "2026-03-10")
    assert done.exit_code == 1 and len(done.output.splitlines()) == 1
    assert done.output.startswith(
        "agent-memory: memory/continuity.md:11: section 'Key Decisions' ends inside the HTML block"
    )
    assert tree(tmp_path) == before


def test_review_md_says_where_a_fact_leaves_and_where_it_comes_back(tmp_path: Path) -> None:
    """REVIEW.md steps 3 and 5 as a person reads them: a fact cut from between two blank lines
    takes one with it; facts come back after the last non-blank line of their section, case
    aside, or to a section made at the end, in the archive files' order, without
    ``archived-by``."""
    doc = " ".join((PROJECT / "REVIEW.md").read_text().split())
    assert "and with them the blank line after them when the line before them is blank too" in doc
    assert "facts returning to it in the order the archive files hold them" in doc
    gone = footer("old-b", "2025-06-01").replace("working", "superseded")  # leaves, rule 0
    cont = (
        "# Continuity\n\n## Project State\n- last_review: (none yet)\n\n## Key Decisions\n"
        f"- Keep A\n  {footer('keep-a', '2026-01-05')}\n\n- Old B\n  {gone}\n\nProse.\n\n"
    )

    def archived(fact_id: str, section: str, by_hand: str = "") -> str:
        tail = f" | from: {section} | archived: 2025-12-01{by_hand} -->"
        return f"- Back {fact_id}\n  {footer(fact_id, '2025-06-01').replace(' -->', tail)}\n"

    quarter = "# Archive {0}\n\n## Facts\n{1}\n## Completed Threads\n"
    build_tree(
        tmp_path,
        {
            "memory/continuity.md": cont,
            "memory/archive/2025-Q4.md": quarter.format(
                "2025-Q4", archived("z-late", "Testing") + archived("y-kd", "key decisions")
            ),
            "memory/archive/2026-Q1.md": quarter.format(
                "2026-Q1", archived("a-early", "Testing", " | archived-by: hand")
            ),
            "memory/sessions/2026-01-05-100000.md": (
                "# S\n\n## Memory References\n- Referenced: z-late, y-kd, a-early\n"
            ),
        },
    )
    result = cli("review", tmp_path, "--today", "2026-01-06")
    assert result.exit_code == 0, result.output
    back = "created: 2025-06-01 | last_used: 2026-01-05 | uses: 2 | tier: active -->"
    assert (tmp_path / "memory/continuity.md").read_text() == (
        "# Continuity\n\n## Project State\n"
        "- last_review: 2026-01-06 | through 2026-01-05-100000 | 1 logs\n\n## Key Decisions\n"
        f"- Keep A\n  {footer('keep-a', '2026-01-05')}\n\nProse.\n"  # its last non-blank line
        f"- Back y-kd\n  <!-- id: y-kd | {back}\n\n"
        f"## Testing\n- Back z-late\n  <!-- id: z-late | {back}\n"
        f"- Back a-early\n  <!-- id: a-early | {back}\n"
    )


def test_auto_core_as_decay_md_tells_it_whole_blocks_threads_and_facts_brought_back(
    tmp_path: Path,
) -> None:
    """DECAY.md § Auto-core as a person applies it: fewer logs than review_every
    times core_min_reviews promote nothing; then an open thread and an archived fact the logs bring
    back are promoted like any fact, and the summary says so on the line REVIEW.md shows."""
    decay = " ".join((PROJECT / "DECAY.md").read_text().split())
    assert "with fewer than `review_every` \u00d7 `core_min_reviews` logs, nothing is" in decay
    review = " ".join((PROJECT / "REVIEW.md").read_text().split())
    assert "is listed after Archive candidates, `- Promoted to core: 1 (" in review
    policy = _auto_core_policy(2)
    away = footer("away", "2025-06-01").replace(
        "tier: working", "tier: archived | from: Key Decisions | archived: 2025-12-01"
    )
    cont = (
        "# Continuity\n\n## Project State\n- last_review: (none yet)\n\n## Open Threads\n"
        f"- [ ] Ship it\n  {footer('ship', '2026-01-05')}\n"
    )
    quarter = f"# Archive 2025-Q4\n\n## Facts\n- Away\n  {away}\n\n## Completed Threads\n"
    used = "## Memory References\n- Referenced: ship, away\n"
    build_tree(
        tmp_path,
        {
            "memory/continuity.md": cont,
            "memory/decay-policy.md": policy,
            "memory/archive/2025-Q4.md": quarter,
            **{f"memory/sessions/2026-01-0{day}-100000.md": used for day in (6, 7, 8)},
        },
    )
    result = cli("review", tmp_path, "--today", "2026-01-09", "--full")
    assert result.exit_code == 0 and "Promoted" not in result.output, result.output
    build_tree(tmp_path, {"memory/sessions/2026-01-09-100000.md": used})
    result = cli("review", tmp_path, "--today", "2026-01-10", "--full")
    assert result.output.endswith(
        "- Tier changes: 2 (away: active→core, ship: active→core)\n"
        "- Archive candidates: 0\n- Promoted to core: 2 (away, ship)\n"
    )
    text = (tmp_path / "memory/continuity.md").read_text()
    assert "## Key Decisions\n- Away\n  <!-- id: away | created: 2025-06-01 | " in text
    for fact_id in ("away", "ship"):
        assert text.split(f"id: {fact_id} |")[1].split("\n")[0].endswith("| tier: core -->")


def test_review_md_gives_the_bytes_of_the_session_append_and_of_a_mark_with_no_log(
    tmp_path: Path,
) -> None:
    """REVIEW.md steps 7 and 8 as a person follows them: the summary after a line break and a
    blank line, in a CRLF log's own endings; with no log, a mark without a count."""
    doc = " ".join((PROJECT / "REVIEW.md").read_text().split())
    assert "the mark is `- last_review: <review date> | through (none yet)`, with no count" in doc
    assert "after a blank line (and first a line break, when the log's last line has none)" in doc
    fact = footer("kept", "2026-01-05").replace("working", "core")
    cont = "# Continuity\n\n## Project State\n- last_review: (none yet)\n\n## Key Decisions\n"
    gone = footer("gone", "2026-01-05").replace("working", "superseded")
    build_tree(tmp_path, {"memory/continuity.md": f"{cont}- Kept\n  {fact}\n- Gone\n  {gone}\n"})
    assert cli("review", tmp_path, "--today", "2026-01-06").exit_code == 0
    text = (tmp_path / "memory/continuity.md").read_text()
    assert "\n- last_review: 2026-01-06 | through (none yet)\n" in text
    log = tmp_path / "memory/sessions/2026-01-07-100000.md"
    build_tree(tmp_path, {"memory/sessions/2026-01-07-100000.md": ""})
    log.write_bytes(b"# S\r\n\r\n## Memory References\r\n- Referenced: kept")
    result = cli("review", tmp_path, "--session", log, "--today", "2026-01-08")
    assert result.exit_code == 0, result.output
    assert log.read_bytes().startswith(
        b"# S\r\n\r\n## Memory References\r\n- Referenced: kept"
        b"\r\n\r\n## Memory Review (2026-01-08)\r\n"
    )


def test_decay_md_says_which_id_first_items_and_list_lines_name_a_use(tmp_path: Path) -> None:
    """DECAY.md § Events as a person reads a log: an id, a dash or a parenthesis, a use word is
    a use; ``id: referenced`` is a label and a numbered line prose, as the page now says."""
    doc = " ".join((PROJECT / "DECAY.md").read_text().split())
    assert "a numbered line there is prose, and `- some-id: referenced` is an item" in doc
    ids = ["dash", "en-dash", "hyphen", "paren", "bold", "colon", "numbered"]
    facts = "".join(f"- Fact {i}\n  {footer(i, '2026-01-05')}\n" for i in ids)
    cont = "# Continuity\n\n## Project State\n- last_review: (none yet)\n\n## Key Decisions\n"
    log = (
        "# S\n\n## Memory References\n- dash — referenced (why)\n- en-dash \u2013 used\n"
        "* hyphen - updated\n- paren (touched, twice)\n+ **bold** -- referenced\n"
        "- colon: referenced\n1. Referenced: numbered\n"
    )
    build_tree(
        tmp_path,
        {"memory/continuity.md": cont + facts, "memory/sessions/2026-01-06-100000.md": log},
    )
    assert cli("review", tmp_path, "--today", "2026-01-07").exit_code == 0
    text = (tmp_path / "memory/continuity.md").read_text()
    used = {i for i in ids if f"id: {i} | created: 2026-01-05 | last_used: 2026-01-06" in text}
    assert used == {"dash", "en-dash", "hyphen", "paren", "bold"}
