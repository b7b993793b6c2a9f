"""One test per row of HANDRUN.md's table, on the adopted and reviewed example, and a property
test of adoption over generated hand-run repos."""

from __future__ import annotations

import datetime as dt
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_memory.parse.sessions import read_refs
from conftest import PROJECT, build_tree, cli, stats, tree

EXAMPLE = PROJECT / "examples/handrun-4x-repo"
BEFORE = EXAMPLE / "before"
AFTER = EXAMPLE / "after"


def lines(path: str, root: Path = AFTER) -> list[str]:
    return (root / path).read_text().splitlines()


def footer_of(fact_id: str, root: Path = AFTER) -> str:
    for rel, data in tree(root).items():
        if rel.startswith("memory/") and not rel.startswith("memory/sessions/"):
            found = re.search(rf"<!-- id: {re.escape(fact_id)} \|[^\n]*-->", data.decode())
            if found and rel != "memory/archive/INDEX.md":
                return f"{rel}: {found.group()}"
    raise AssertionError(fact_id)


@pytest.fixture(scope="module")
def lint_output() -> str:
    return cli("lint", AFTER).output


def test_3_3_0_superseded_is_terminal_and_its_log_line_no_use() -> None:
    assert footer_of("eta-cache-caffeine").startswith("memory/archive/2026-Q3.md")
    assert "tier: superseded | superseded-by: eta-cache-redis" in footer_of("eta-cache-caffeine")
    assert "tier: superseded" in footer_of("retry-forever-backoff")
    log = (BEFORE / "memory/sessions/2026-07-01-110918.md").read_bytes()
    assert read_refs(log).superseded == (("retry-forever-backoff", "dead-letter-after-5"),)
    assert "retry-forever-backoff" not in read_refs(log).used


def test_3_4_0_invariant_check_and_its_policy_key_are_kept(lint_output: str) -> None:
    kept = [line for line in lines("memory/continuity.md", BEFORE) if "last_invariant" in line]
    assert kept and kept[0] in lines("memory/continuity.md")
    assert "verify_invariants_every" not in lint_output


def test_3_6_0_smoke_test_is_kept_and_not_read_as_facts() -> None:
    path = "memory/smoke-test.md"
    assert (AFTER / path).read_bytes() == (BEFORE / path).read_bytes()


def test_3_7_0_origin_stems_are_kept_verbatim() -> None:
    def origins(root: Path) -> set[str]:
        return {
            origin
            for rel, data in tree(root).items()
            if rel.startswith("memory/") and not rel.startswith("memory/sessions/")
            for origin in re.findall(r"\| origin: ([^ |]+)", data.decode())
        }

    assert origins(BEFORE) == origins(AFTER)


def test_4_0_0_vision_is_a_pinned_core_fact_that_stays_in_its_blockquote() -> None:
    found = footer_of("vision-harbor-dispatch")
    assert found.startswith("memory/vision.md") and "tier: core" in found
    assert "> <!-- id: vision-harbor-dispatch" in (AFTER / "memory/vision.md").read_text()


def test_4_7_0_lite_logs_are_no_use_and_no_warning(lint_output: str) -> None:
    for name in ("2026-07-16-102815.md", "2026-07-23-100021.md"):
        found = read_refs((BEFORE / "memory/sessions" / name).read_bytes())
        assert not found.used and not found.warnings
        assert name not in lint_output


def test_4_19_0_a_stub_filled_in_later_counts_its_appended_section() -> None:
    stub = read_refs((BEFORE / "memory/sessions/2026-08-12-163844.md").read_bytes())
    assert stub.used == {"conv-testcontainers", "eta-cache-caffeine"}
    assert "last_used: 2026-08-12 | uses: 5 | tier: active" in footer_of("conv-testcontainers")


def test_4_22_0_merge_md_is_kept() -> None:
    assert (AFTER / "memory/MERGE.md").read_bytes() == (BEFORE / "memory/MERGE.md").read_bytes()


def test_4_23_1_and_4_32_1_harvest_and_session_keys_are_kept() -> None:
    for key in ("last_harvest", "last_session"):
        line = next(line for line in lines("memory/continuity.md", BEFORE) if key in line)
        assert line in lines("memory/continuity.md")


def test_4_25_0_the_scripted_archive_is_converted_in_place_and_its_reasons_kept() -> None:
    archive = (AFTER / "memory/archive/2026-Q3.md").read_text()
    for heading in re.findall(r"^## .*$", (BEFORE / "memory/archive/2026-Q3.md").read_text(), re.M):
        assert heading in archive
    assert "archived: 2026-07-20 | archived-by: hand" in footer_of("eta-naive-haversine")
    index = (AFTER / "memory/archive/INDEX.md").read_text()
    assert (
        "- release-2.3.0-shipped — Release 2.3.0 shipped 2026-07-09 (tag v2.3.0); details in "
        "CHANGELOG — faded (Mara: the tag and CHANGELOG carry it) → 2026-Q3.md"
    ) in index


def test_4_37_0_protocol_md_and_the_one_line_agents_md_keep_working() -> None:
    protocol = "memory/PROTOCOL.md"
    assert (AFTER / protocol).read_bytes() == (BEFORE / protocol).read_bytes()
    # Its line is kept as written (our block goes at the top of AGENTS.md, above it).
    assert lines("AGENTS.md", BEFORE)[0] in lines("AGENTS.md")


def test_4_38_0_closed_stubs_get_done_from_last_used(lint_output: str) -> None:
    assert "done: 2026-08-10" in footer_of("ot-flyway-baseline")
    assert "closed_narrative_max_lines" not in lint_output


def test_4_39_0_one_file_threads_stay_files() -> None:
    threads = sorted(p.name for p in (AFTER / "memory/open-threads").iterdir())
    assert threads == sorted(p.name for p in (BEFORE / "memory/open-threads").iterdir())
    assert "ot-courier-batching" not in (AFTER / "memory/continuity.md").read_text()


def test_4_40_0_thread_stale_window_is_kept(lint_output: str) -> None:
    assert (AFTER / "memory/decay-policy.md").read_bytes() == (
        BEFORE / "memory/decay-policy.md"
    ).read_bytes()
    assert "thread_stale_window" not in lint_output


def test_ids_with_dots_are_kept_and_matched() -> None:
    assert "last_used: 2026-08-24 | uses: 6" in footer_of("release-2.4.1-shipped")
    assert (AFTER / "memory/open-threads/thread-ot-spring-boot-3.4-upgrade.md").exists()


def test_the_reference_forms_of_real_logs_are_read() -> None:
    wrapped = read_refs((BEFORE / "memory/sessions/2026-08-11-141122.md").read_bytes())
    assert "local-dev-docker-compose" in wrapped.used
    condensed = read_refs((BEFORE / "memory/sessions/2026-08-24-101500-upgrade.md").read_bytes())
    assert [w.message for w in condensed.warnings] == [
        "label 'Condensed' is not a use; ids under it do not count"
    ]


# -- adoption over generated hand-run repos ----------------------------------------------------

START = dt.date(2026, 7, 1)


@st.composite
def handrun_repos(draw: st.DrawFn) -> tuple[dict[str, str], dict[str, str], dict[str, list[str]]]:
    """A hand-run 4.x repo: live facts, a scripted archive, logs naming both. Also returns the
    archiving date of each archived id and the log dates naming each id."""
    live = [f"live-{i}" for i in range(draw(st.integers(1, 4)))]
    gone = [f"gone-{i}.{i}" for i in range(draw(st.integers(1, 4)))]
    archived_on = {fid: draw(st.integers(5, 20)) for fid in gone}
    day = lambda n: (START + dt.timedelta(days=n)).isoformat()  # noqa: E731
    foot = "<!-- id: {} | created: 2026-07-01 | last_used: 2026-07-02 | uses: 1 | tier: {} -->"
    continuity = (
        "# Continuity\n\n## Project State\n- **last_review:** 2026-07-02\n\n## Key Decisions\n"
    )
    continuity += "".join(f"- Fact {f}\n  {foot.format(f, 'working')}\n" for f in live)
    archive = "\n"
    for fid in gone:
        box = draw(st.sampled_from(["", "[x] ", "[ ] "]))
        tier = draw(st.sampled_from(["active", "working", "archive-candidate", "superseded"]))
        archive += f"## {day(archived_on[fid])} — archived via archive-fact (faded)\n\n"
        archive += f"### Faded facts\n\n- {box}Gone {fid}\n  {foot.format(fid, tier)}\n\n"
    logs: dict[str, str] = {}
    named: dict[str, list[str]] = {}
    for n in range(draw(st.integers(0, 30))):
        used = draw(st.lists(st.sampled_from(live + gone), max_size=3, unique=True))
        name = f"{day(n)}-1{n:02d}000.md"
        logs[f"memory/sessions/{name}"] = "## Memory References\n" + "".join(
            f"- {fid} — referenced (why)\n" for fid in used
        )
        for fid in used:
            named.setdefault(fid, []).append(day(n))
    files = {
        ".agent/version.md": "# agent-memory install manifest\n\n- **version:**  4.30.0\n",
        "memory/continuity.md": continuity,
        "memory/archive/2026-Q3.md": archive,
        **logs,
    }
    return files, {fid: day(n) for fid, n in archived_on.items()}, named


@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(handrun_repos())
def test_adoption_then_a_full_review_loses_nothing_and_reactivates_only_what_logs_call_back(
    tmp_path_factory: pytest.TempPathFactory,
    repo_and_facts: tuple[dict[str, str], dict[str, str], dict[str, list[str]]],
) -> None:
    files, archived_on, named = repo_and_facts
    repo = build_tree(tmp_path_factory.mktemp("handrun"), files)
    before = tree(repo)
    assert cli("enable", repo, "--today", "2026-09-01").exit_code == 0
    review = cli("review", repo, "--full", "--today", "2026-09-01")
    assert review.exit_code == 0, review.output
    after = tree(repo)
    assert all(after[p] == before[p] for p in before if p.startswith("memory/sessions/"))
    text = "".join(d.decode() for p, d in after.items() if p.startswith("memory/"))
    assert all(f"<!-- id: {fid} |" in text for fid in [*archived_on, *named])
    back = re.search(r"Reactivated: \d+(?: \(([^)]*)\))?", review.output)
    assert back is not None
    for fid in (back.group(1) or "").split(", ") if back.group(1) else []:
        assert any(d > archived_on[fid] for d in named.get(fid, [])), fid
    snapshot = stats(repo)
    assert "up to date" in cli("enable", repo, "--today", "2026-09-02").output
    assert stats(repo) == snapshot
    again = cli("review", repo, "--full", "--today", "2026-09-01")
    assert "nothing to change" in again.output and stats(repo) == snapshot
    shutil.rmtree(repo)
