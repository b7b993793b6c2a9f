"""``context``'s budget and forms through the real CLI: what is printed never passes
``--max-bytes``, and every line that names a fact carries words."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import build_tree, cli

FOOT = "<!-- id: {} | created: 2026-01-01 | last_used: 2026-01-{:02d} | uses: 1 | tier: {} -->"
# What a hand-written fact may hold: words, CJK, a long unbroken run, markup, control characters.
PIECES = ("cache", "keys", "支払い照合", "a" * 90, "**", "<details>", "`x`", "\x1b[31m", "\x07", "")


def _memory(facts: list[tuple[list[str], int, str]]) -> str:
    body = "".join(
        f"- {' '.join(words)}\n  {' '.join(reversed(words))}\n  {FOOT.format(f'f{i}', day, tier)}\n"
        for i, (words, day, tier) in enumerate(facts)
    )
    return f"# Continuity\n\n## Key Decisions\n{body}"


def _hook_context(root: Path, budget: int) -> str:
    out = cli("context", root, "--hook", "--max-bytes", str(budget)).output
    return str(json.loads(out)["hookSpecificOutput"]["additionalContext"])


@settings(max_examples=60, deadline=None)
@given(
    st.integers(min_value=256, max_value=1500),
    st.lists(
        st.tuples(
            st.lists(st.sampled_from(PIECES), max_size=8),
            st.integers(1, 28),
            st.sampled_from(("working", "core", "active")),
        ),
        max_size=20,
    ),
)
def test_what_context_prints_never_passes_the_budget(
    budget: int, facts: list[tuple[list[str], int, str]]
) -> None:
    """Counted as printed: the line break the command line ends with, and each control
    character a terminal would obey written as its escape; the hook's context alike."""
    with tempfile.TemporaryDirectory() as where:
        root = build_tree(Path(where), {"memory/continuity.md": _memory(facts)})
        printed = cli("context", root, "--max-bytes", str(budget)).stdout_bytes
        assert len(printed) <= budget, printed
        assert printed.endswith(b"\n") and not printed.endswith(b"\n\n")
        assert len(_hook_context(root, budget).encode()) <= budget


def test_a_budget_smaller_than_the_view_s_head_keeps_whole_lines(tmp_path: Path) -> None:
    build_tree(tmp_path, {"memory/continuity.md": _memory([(["x", "fact"], 1, "working")])})
    for budget in (256, 300, 333, 340):
        printed = cli("context", tmp_path, "--max-bytes", str(budget)).stdout_bytes
        assert len(printed) <= budget
        assert printed.rstrip(b"\n").endswith(b"- not due")  # no line cut short


def test_control_characters_count_as_the_escapes_printed(tmp_path: Path) -> None:
    """A hand-written fact may hold them (``fact add`` refuses them); a terminal is shown
    ``\\x1b``, four bytes, and the budget counts those four."""
    facts = [(["bell\x07", "and", f"esc\x1b[31m{i}"], i + 1, "working") for i in range(20)]
    build_tree(tmp_path, {"memory/continuity.md": _memory(facts)})
    for budget in range(844, 1000, 7):
        printed = cli("context", tmp_path, "--max-bytes", str(budget)).stdout_bytes
        assert len(printed) <= budget
        assert b"\\x1b" in printed
