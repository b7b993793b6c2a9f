"""DECAY.md § Tiers, rule by rule, from the document: a table of facts and the tier it gives.

Each row is written from DECAY.md's text, not from the code: who reads the rule and the row
side by side can check the expected tier by hand. ``since`` counts the logs after a day; the
table gives it as the number of sessions since each of the fact's dates.
"""

from __future__ import annotations

import inspect

import pytest

from agent_memory.core.review.tiers import at_birth, by_hand, decide
from agent_memory.parse.policy import Policy
from conftest import PROJECT

POLICY = Policy(working_window=3, active_window=8, archive_window=20)
KEY_DECISIONS, INVARIANTS, THREADS = "Key Decisions", "Architectural Invariants", "Open Threads"

# (rule, footer tier, section, task, sessions since created, since last_used, since done, uses,
#  expected tier)
TABLE = [
    ("1. tier: core in the footer stays core", "core", KEY_DECISIONS, None, 90, 90, 0, 1, "core"),
    ("1. ...even as a checked thread", "core", THREADS, "x", 90, 90, 90, 1, "core"),
    ("2. Architectural Invariants are pinned", "active", INVARIANTS, None, 90, 90, 0, 1, "core"),
    ("3. an open thread is pinned active", "working", THREADS, " ", 90, 90, 0, 1, "active"),
    ("4. new and used once", "working", KEY_DECISIONS, None, 3, 3, 0, 1, "working"),
    ("4. new, never used", "working", KEY_DECISIONS, None, 0, 0, 0, 0, "working"),
    ("4 → 5. new but used twice", "working", KEY_DECISIONS, None, 2, 0, 0, 2, "active"),
    (
        "4 → 5. used once, older than the window",
        "working",
        KEY_DECISIONS,
        None,
        4,
        4,
        0,
        1,
        "active",
    ),
    ("5. used within the active window", "active", KEY_DECISIONS, None, 40, 8, 0, 5, "active"),
    (
        "6. idle past active, within archive",
        "active",
        KEY_DECISIONS,
        None,
        40,
        9,
        0,
        5,
        "archive-candidate",
    ),
    (
        "6. at the archive window's edge",
        "active",
        KEY_DECISIONS,
        None,
        40,
        20,
        0,
        5,
        "archive-candidate",
    ),
    ("7. idle past the archive window", "active", KEY_DECISIONS, None, 40, 21, 0, 5, "archived"),
    ("checked thread: swept past the window", "active", THREADS, "x", 40, 21, 21, 3, "archived"),
    (
        "checked thread: done recently, rules 4-6 apply",
        "active",
        THREADS,
        "x",
        40,
        21,
        5,
        3,
        "archive-candidate",
    ),
    ("checked thread: rule 5 still applies", "active", THREADS, "x", 40, 2, 2, 3, "active"),
    ("checked thread: rule 4 still applies", "working", THREADS, "x", 1, 1, 0, 1, "working"),
]


@pytest.mark.parametrize(
    ("footer_tier", "section", "task", "created", "last", "done", "uses", "expected"),
    [row[1:] for row in TABLE],
    ids=[row[0] for row in TABLE],
)
def test_each_rule_of_decay_md(
    footer_tier: str,
    section: str,
    task: str | None,
    created: int,
    last: int,
    done: int,
    uses: int,
    expected: str,
) -> None:
    # done is dated after last_used, so max(done, last_used) is done: the rows keep done <= last
    days = {"created": "2026-01-01", "last_used": "2026-01-02", "done": "2026-01-03"}
    counts = {days["created"]: created, days["last_used"]: last, days["done"]: done}

    def since(day: str) -> int:
        return counts[day]

    fields = {**days, "uses": str(uses), "tier": footer_tier}
    if task != "x":
        del fields["done"]
    assert decide(fields, section, task, since, POLICY).tier == expected


@pytest.mark.parametrize(
    ("section", "task", "uses", "expected"),
    [
        (INVARIANTS, None, "1", "core"),
        (THREADS, " ", "1", "active"),
        (THREADS, "x", "1", "working"),
        (KEY_DECISIONS, None, "1", "working"),
        (KEY_DECISIONS, None, "4", "active"),
    ],
)
def test_a_fact_no_log_has_followed_gets_the_tier_a_review_would_give(
    section: str, task: str | None, uses: str, expected: str
) -> None:
    fields = {"created": "2026-01-01", "last_used": "2026-01-01", "uses": uses}
    assert at_birth(fields, section, task) == expected


def test_decay_md_lists_the_rules_in_the_order_the_code_tries_them() -> None:
    """The numbered rules of DECAY.md and the rules ``decide`` returns come in the same order."""
    doc = (PROJECT / "DECAY.md").read_text()
    rules = doc.split("## Tiers", 1)[1].split("**Checked threads.**", 1)[0]
    numbers = [
        line.split(".", 1)[0] for line in rules.splitlines() if line[:2].strip(".").isdigit()
    ]
    assert numbers == ["0", "1", "2", "3", "4", "5", "6", "7"]
    code = inspect.getsource(by_hand) + inspect.getsource(decide)  # decide asks by_hand first
    assert "first = by_hand(" in inspect.getsource(decide).split("pinned =")[0]
    positions = [code.index(f', "{n}")') for n in numbers]
    assert positions == sorted(positions), "decide() tries DECAY.md's rules in its order"
