"""Repos enabled by hand (HANDRUN.md): their shapes are read as they are, never renamed."""

from __future__ import annotations

from agent_memory.parse import facts, footer, policy
from agent_memory.parse.continuity import last_review


def test_dotted_ids_and_the_superseded_tier_are_read() -> None:
    doc = facts.parse(
        "memory/continuity.md",
        b"## Key Decisions\n- Old cache.\n"
        b"  <!-- id: eta-cache-1.0 | created: 2026-07-01 | last_used: 2026-07-06 | uses: 4"
        b" | tier: superseded | superseded-by: eta-cache-2.0 -->\n"
        b"- New cache.\n"
        b"  <!-- id: eta-cache-2.0 | created: 2026-07-06 | last_used: 2026-07-06 | uses: 1"
        b" | tier: working | supersedes: eta-cache-1.0 -->\n",
    )
    assert doc.problems == ()
    assert [f.id for f in doc.facts] == ["eta-cache-1.0", "eta-cache-2.0"]
    assert doc.facts[0].field("superseded-by") == "eta-cache-2.0"
    assert not footer.ID.match("a..b") and not footer.ID.match("a.") and not footer.ID.match(".a")
    assert footer.slug("Release 2.4.1 shipped") == "release-2-4-1-shipped"  # derived: kebab


def test_the_parenthesised_through_is_read() -> None:
    doc = facts.parse(
        "memory/continuity.md",
        b"## Project State\n- **last_review:** 2026-08-13 (through 2026-08-13-110215-review.md)\n",
    )
    found = last_review(doc)
    assert (found.date, found.through) == ("2026-08-13", "2026-08-13-110215-review")


def test_hand_run_policy_keys_are_kept_without_a_warning() -> None:
    data = (
        b"- closed_narrative_max_lines: 150\n- thread_stale_window: 40\n"
        b"- verify_invariants_every: 40\n- distill_every: 5\n"
    )
    _, problems = policy.parse(data)
    assert [p.message.split()[0] for p in problems] == ["'distill_every'"]
