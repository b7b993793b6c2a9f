"""DESIGN §13 through the real CLI: supersession, one-file open threads, vision.md."""

from __future__ import annotations

import shutil
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_memory.parse import facts
from conftest import build_tree, cli, tree


def foot(fact_id: str, day: str = "2026-01-05", extra: str = "", tier: str = "working") -> str:
    fields = f"created: {day} | last_used: {day} | uses: 1 | tier: {tier}{extra}"
    return f"<!-- id: {fact_id} | {fields} -->"


REFS = "## Memory References\n"
IDS = ["cache-1.0", "cache-2.0", "ot-export", "ot-next"]
CONTINUITY = (
    "# Continuity\n\n## Project State\n- last_review: (none yet)\n\n"
    "## Key Decisions\n"
    f"- Cache in process.\n  {foot('cache-1.0')}\n"
    f"- Cache in Redis.\n  {foot('cache-2.0')}\n\n"
    "## Open Threads\n"
)
VISION = (
    "# Vision\n\n> Parcels on time.\n>\n"
    f"> {foot('vision-parcels', tier='core')}\n\n## Criteria\n\n- Not a fact.\n"
)
THREAD = f"- [x] Ship the export.\n  {foot('ot-export')}\n"


def _repo(root: Path) -> Path:
    build_tree(
        root,
        {
            "memory/continuity.md": CONTINUITY,
            "memory/vision.md": VISION,
            "memory/open-threads/thread-ot-export.md": THREAD,
            "memory/open-threads/thread-ot-next.md": f"- [ ] Next.\n  {foot('ot-next')}\n",
            "memory/sessions/2026-01-06-100000.md": (
                "## Memory References\n- cache-2.0 — referenced (why)\n"
                "- Superseded: cache-1.0 → cache-2.0\n- vision-parcels — referenced\n"
            ),
        },
    )
    return root


def test_a_superseded_fact_goes_to_the_archive_and_never_comes_back(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "repo")
    assert cli("review", repo, "--today", "2026-01-07").exit_code == 0
    text = (repo / "memory/continuity.md").read_text()
    assert "cache-1.0" not in text.split("id: cache-2.0")[0]
    assert "| tier: active | supersedes: cache-1.0 -->" in text
    archive = (repo / "memory/archive/2026-Q1.md").read_text()
    assert "tier: superseded | superseded-by: cache-2.0 | from: Key Decisions" in archive
    build_tree(
        repo, {"memory/sessions/2026-01-08-100000.md": "## Memory References\n- Used: cache-1.0\n"}
    )
    result = cli("review", repo, "--today", "2026-01-09")
    assert "Reactivated: 0" in result.output
    assert "cache-1.0" in (repo / "memory/archive/2026-Q1.md").read_text()
    lint = cli("lint", repo)
    assert "references 'cache-1.0', superseded by cache-2.0" in lint.output


def test_vision_is_pinned_and_counted_where_it_is(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "repo")
    cli("review", repo, "--today", "2026-01-07")
    vision = (repo / "memory/vision.md").read_text()
    assert "> <!-- id: vision-parcels | created: 2026-01-05 | last_used: 2026-01-06 | uses: 2" in (
        vision
    )
    assert vision.replace("last_used: 2026-01-06 | uses: 2", "last_used: 2026-01-05 | uses: 1") == (
        VISION
    )


def test_a_swept_thread_file_goes_and_comes_back_as_a_file(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "repo")
    quiet = {
        f"memory/sessions/2026-02-{d:02d}-100000.md": REFS + "- Referenced: ot-next\n"
        for d in range(1, 25)
    }
    first = cli("review", repo, "--today", "2026-01-07")  # stamps done on the checked thread
    assert first.exit_code == 0
    build_tree(repo, quiet)
    result = cli("review", repo, "--today", "2026-03-01")
    assert "Swept threads: 1 (ot-export)" in result.output
    assert not (repo / "memory/open-threads/thread-ot-export.md").exists()
    archived = (repo / "memory/archive/2026-Q1.md").read_text()
    assert "from: open-threads/thread-ot-export.md" in archived
    assert "ot-export" not in (repo / "memory/continuity.md").read_text()
    build_tree(
        repo,
        {"memory/sessions/2026-03-02-100000.md": REFS + "- Reactivated: ot-export\n"},
    )
    back = cli("review", repo, "--today", "2026-03-03")
    assert "Reactivated: 1 (ot-export)" in back.output
    recreated = (repo / "memory/open-threads/thread-ot-export.md").read_text()
    assert recreated.startswith("- [x] Ship the export.\n  <!-- id: ot-export | ")
    assert (
        "from:" not in recreated and "ot-export" not in (repo / "memory/continuity.md").read_text()
    )


def test_an_open_thread_in_the_archive_is_not_pinned(tmp_path: Path) -> None:
    build_tree(
        tmp_path,
        {
            "memory/continuity.md": CONTINUITY,
            "memory/archive/2026-Q1.md": (
                "# Archive 2026-Q1\n\n## Facts\n\n"
                "- [ ] Rate couriers.\n"
                "  <!-- id: ot-rate | created: 2026-01-01 | last_used: 2026-01-01 | uses: 1 "
                "| tier: archived | from: Open Threads | archived: 2026-01-02 -->\n"
            ),
            **{
                f"memory/sessions/2026-01-{d:02d}-100000.md": "## Memory References\n- none\n"
                for d in range(2, 30)
            },
        },
    )
    result = cli("review", tmp_path, "--today", "2026-01-30")
    assert "Reactivated: 0" in result.output, result.output


def test_lint_checks_the_links(tmp_path: Path) -> None:
    build_tree(
        tmp_path,
        {
            "memory/continuity.md": CONTINUITY.replace(
                foot("cache-1.0"),
                foot("cache-1.0", tier="superseded", extra=" | superseded-by: cache-9"),
            )
        },
    )
    result = cli("lint", tmp_path)
    assert result.exit_code == 1
    assert "error [superseded-by-dangling] superseded-by: 'cache-9' names no fact" in result.output
    assert "warning [superseded] 'cache-1.0' is superseded by cache-9" in result.output


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(
        st.tuples(
            st.integers(0, 4),
            st.lists(
                st.sampled_from(["cache-1.0", "cache-2.0", "ot-export", "ot-next"]), max_size=3
            ),
            st.booleans(),
        ),
        max_size=12,
    )
)
def test_incremental_equals_full_and_nothing_is_lost(tmp_path_factory, steps) -> None:  # type: ignore[no-untyped-def]
    incremental = _repo(tmp_path_factory.mktemp("inc"))
    day = 10
    for index, (gap, used, supersedes) in enumerate(steps):
        day += gap
        body = f"## Memory References\n- Referenced: {', '.join(used) or 'none'}\n"
        if supersedes:
            body += "- Superseded: cache-1.0 -> cache-2.0\n"
        name = f"memory/sessions/2026-01-{min(day, 28):02d}-1{index:02d}000.md"
        build_tree(incremental, {name: body})
        if index % 3 == 0:
            assert cli("review", incremental, "--today", "2026-03-01").exit_code == 0
    assert cli("review", incremental, "--today", "2026-03-01").exit_code == 0
    full = tmp_path_factory.mktemp("full")
    shutil.rmtree(full)
    shutil.copytree(incremental, full)
    assert cli("review", full, "--today", "2026-03-01", "--full").exit_code == 0
    assert tree(full) == tree(incremental)
    ids = set()
    for rel, data in tree(full).items():
        if rel.endswith(".md") and not rel.startswith("memory/sessions/") and "INDEX" not in rel:
            ids |= {f.id for f in facts.parse(rel, data, "Open Threads").facts if f.id}
    assert {"cache-1.0", "cache-2.0", "ot-export", "ot-next"} <= ids


def test_decay_md_lists_the_tier_rules_in_the_code_s_order() -> None:
    """The numbered rules of DECAY.md § Tiers and the numbered comments of core/review/tiers.py
    agree: same numbers, same order, same tier."""
    import re

    from conftest import PROJECT

    decay = (PROJECT / "DECAY.md").read_text()
    tiers_section = decay.split("## Tiers", 1)[1].split("\n## ", 1)[0]
    doc = re.findall(r"^(\d)\. (?:(?!\n\d\.).)*?→ \*\*([a-z-]+)\*\*", tiers_section, re.M | re.S)
    lines = (PROJECT / "installer/agent_memory/core/review/tiers.py").read_text().splitlines()
    code = []
    for number in range(8):
        at = next(i for i, line in enumerate(lines) if f"# {number}." in line)
        body = lines[at] if "return" in lines[at] else lines[at + 1]
        value = re.search(r"return Decision\((\S+?),", body)
        assert value is not None, lines[at]
        code.append((str(number), value.group(1).strip('"').replace("SUPERSEDED", "superseded")))
    assert doc == code


EXAMPLE = f"```markdown\n> Parcels on time.\n> {foot('example-only', tier='core')}\n```\n"


def test_a_footer_in_vision_md_s_code_block_is_an_example_not_its_fact(tmp_path: Path) -> None:
    """A vision.md that shows a footer in a fence: explain and status find no fact there, and
    beside the real footer lint finds one footer, not two (DECAY.md § Where facts live)."""
    repo = _repo(tmp_path / "repo")
    build_tree(repo, {"memory/vision.md": f"# Vision\n\nHow a footer looks:\n\n{EXAMPLE}"})
    explained = cli("explain", "example-only", repo)
    assert explained.exit_code == 1 and "no fact in" in explained.output
    counted = cli("status", repo)
    assert counted.exit_code == 0
    build_tree(repo, {"memory/vision.md": "# Vision\n\nNo fact yet.\n"})
    assert cli("status", repo).output == counted.output  # counted as a vision without a fact
    build_tree(repo, {"memory/vision.md": VISION + f"\n## A footer, as shown\n\n{EXAMPLE}"})
    lint = cli("lint", repo)
    assert lint.exit_code == 0, lint.output
    assert "footer-multiple" not in lint.output
    assert cli("explain", "vision-parcels", repo).exit_code == 0
    build_tree(repo, {"memory/vision.md": f"---\ntitle: v\n> x {foot('in-front')}\n---\n{VISION}"})
    assert cli("lint", repo).exit_code == 0
    assert cli("explain", "in-front", repo).exit_code == 1
