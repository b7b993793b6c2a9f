"""Contradictions (DECAY.md § Contradictions): two live facts about the same thing that differ in
polarity, a number, a version or a named value; never a linked pair; lint's ``conflict`` advisory
and ``fact add``'s list."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_memory.cli.mcp.tools import McpSession, call
from agent_memory.core.facts.conflicts import (
    CANDIDATES,
    PAIRS,
    against,
    alike,
    conflicts,
    differ,
    linked,
    live,
    read,
    reading,
)
from agent_memory.parse import facts
from agent_memory.parse.footer import slug
from conftest import cli, tree

DAY = "2026-03-02"
FOOT = "<!-- id: {} | created: 2026-01-01 | last_used: 2026-01-01 | uses: 1 | tier: working{} -->"


def verdict(one: str, two: str) -> tuple[str, str] | None:
    mine, theirs = read(one), read(two)
    return differ(mine, theirs) if alike(mine, theirs) is not None else None


@pytest.mark.parametrize(
    ("one", "two", "kind", "detail"),
    [
        ("Always run the tests with pytest -x", "Never run the tests with pytest -x", "polarity",
         "run tests / not run tests"),
        ("Use pnpm for installs", "Do not use pnpm for installs", "polarity",
         "use pnpm / not use pnpm"),
        ("You must not push to main directly", "Push to main directly", "polarity",
         "not push main / push main"),
        ("Don't mock the database in tests", "Mock the database in integration tests",
         "polarity", "not mock database / mock database"),
        ("Enable strict mode in mypy", "Disable strict mode in mypy", "polarity",
         "enable strict / not enable strict"),
        ("The CI must run on Python 3.11", "The CI must run on Python 3.12", "version",
         "python: 3.11 / 3.12"),
        ("Builds use Node 18", "Builds use Node 20", "number", "node: 18 / 20"),
        ("The request timeout is 30 seconds", "The request timeout is 60 seconds", "number",
         "timeout: 30 / 60"),
        ("The default branch is `main`", "The default branch is `trunk`", "value",
         "branch: main / trunk"),
        ("Run the tests with `pytest -x`", "Run the tests with `pytest -n 4`", "value",
         "tests: pytest -x / pytest -n 4"),
    ],
)  # fmt: skip
def test_contradictions_are_found(one: str, two: str, kind: str, detail: str) -> None:
    assert verdict(one, two) == (kind, detail)


@pytest.mark.parametrize(
    ("one", "two"),
    [
        ("Don't use npm, use pnpm", "Use pnpm"),  # agree
        ("Python 3.11 and 3.12 are supported", "Python 3.12 is supported"),  # a list
        ("Release v1.2 shipped on 2026-01-02", "Release v1.2 shipped on 2026-02-03"),  # dates
        ("Use tabs for indentation in Go files", "Use spaces for indentation in Python files"),
        ("Fixed in PR #206 after review", "Fixed in PR #207 after review"),  # references
        ("Cut at `40f99dc8` on the release branch", "Cut at `5b659e50` on the release branch"),
        ('The header said "Current State (v3.7.0)"', 'The header said "Current State (v4.1.1)"'),
        ("See https://github.com/o/r/pull/281 now", "See https://github.com/o/r/pull/279 now"),
        ("The cache holds 500 entries", "Logs are kept for 14 days"),  # not the same thing
    ],
)  # fmt: skip
def test_what_is_not_a_contradiction(one: str, two: str) -> None:
    assert verdict(one, two) is None


def doc(*lines: str) -> facts.Document:
    return facts.parse("memory/continuity.md", ("## Key Decisions\n" + "".join(lines)).encode())


def fact(text: str, fact_id: str, extra: str = "") -> str:
    return f"- {text}\n  {FOOT.format(fact_id, extra)}\n"


@pytest.mark.parametrize(
    "extra",
    [
        (" | see: ci-new", ""),
        ("", " | see: ci-old"),
        ("", " | supersedes: ci-old"),
        (" | superseded-by: ci-new", ""),
    ],
)
def test_a_linked_pair_is_never_a_conflict(extra: tuple[str, str]) -> None:
    one = fact("The CI must run on Python 3.11", "ci-old", extra[0])
    two = fact("The CI must run on Python 3.12", "ci-new", extra[1])
    assert conflicts([doc(one, two)]) == []
    unlinked = (
        fact("The CI must run on Python 3.11", "ci-old"),
        fact("The CI must run on Python 3.12", "ci-new"),
    )
    assert [c.one.id for c in conflicts([doc(*unlinked)])] == ["ci-new"]


def test_a_retracted_fact_and_a_value_its_id_names_are_not_live_claims() -> None:
    retracted = FOOT.format("ci-old", "").replace("working", "superseded | reason: moved on")
    two = fact("The CI must run on Python 3.12", "ci-new")
    assert conflicts([doc(f"- The CI must run on Python 3.11\n  {retracted}\n", two)]) == []
    eight = fact("Release v4.11.8 shipped, cut by Ann", "release-4-11-8")
    nine = fact("Release v4.11.9 shipped, cut by Ann", "release-4-11-9")
    assert conflicts([doc(eight, nine)]) == []
    unnamed = (
        fact("Release v4.11.8 shipped, cut by Ann", "eight"),
        nine.replace("release-4-11-9", "nine"),
    )
    assert len(conflicts([doc(*unnamed)])) == 1


def test_a_hostile_file_is_bounded() -> None:
    """Three hundred copies of one claim with different numbers: each fact is paired with at most
    PAIRS earlier ones, among at most CANDIDATES."""
    letters = [chr(97 + n // 26) + chr(97 + n % 26) for n in range(300)]
    many = [fact(f"The pool size is {n}", f"pool-{letters[n]}") for n in range(300)]
    found = conflicts([doc(*many)])
    assert 0 < len(found) <= 300 * PAIRS
    assert CANDIDATES >= PAIRS
    per = {c.one.id for c in found}
    assert max(sum(c.one.id == i for c in found) for i in per) == PAIRS


@given(st.text())
def test_any_text_reads(text: str) -> None:
    found = read(text)
    assert all(len(phrase) in (1, 2) for phrase in found.negated | found.plain)


_VOCAB = ["never", "not", "use", "pnpm", "node", "18", "20", "3.11", "3.12", "`main`", "`dev`",
          "the", "branch", "is", "disable", "enable", "don't", "2026-01-02", "#4"]  # fmt: skip


@pytest.mark.parametrize(
    ("old", "new", "detail"),
    [
        ("Python 3.11 is required", "Python 3.12 is required", "version python: 3.12 / 3.11"),
        ("The request timeout is 30 seconds", "The request timeout is 60 seconds",
         "number timeout: 60 / 30"),
        ("Use port 8080 for the API", "Use port 8081 for the API", "number port: 8081 / 8080"),
        ("Release v4.8.6 shipped", "Release v4.8.7 shipped", "version release: v4.8.7 / v4.8.6"),
    ],
)  # fmt: skip
def test_an_id_derived_from_the_text_hides_none_of_its_values(
    enabled: Path, old: str, new: str, detail: str
) -> None:
    """``fact add``'s own id (the text's first words) holds the text's numbers: they are still
    what the fact says, so two facts with derived ids contradict as they would with any other."""
    assert cli("fact", "add", old, enabled, "--today", DAY).exit_code == 0
    added = cli("fact", "add", new, enabled, "--today", DAY)
    assert f"conflict: {slug(old)} (memory/continuity.md:14, {detail}): {old}" in added.stderr
    found = cli("lint", enabled, "--only", "conflict").stdout
    assert f"[conflict] {slug(new)} may contradict {slug(old)} " in found
    again = fact(old, f"{slug(old)}-2") + fact(new, slug(new))  # a derived id made unique
    assert len(conflicts([doc(again)])) == 1


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from(_VOCAB), min_size=1, max_size=6), min_size=2, max_size=7),
    st.randoms(use_true_random=False),
)
def test_file_order_does_not_change_which_pairs(texts: list[list[str]], rnd: object) -> None:
    """The pairs found do not depend on the facts' order in the file."""
    lines = [fact(" ".join(t), f"f-{chr(97 + n)}") for n, t in enumerate(texts)]
    pairs = {frozenset((c.one.id, c.other.id)) for c in conflicts([doc(*lines)])}
    shuffled = list(lines)
    rnd.shuffle(shuffled)  # type: ignore[attr-defined]
    assert {frozenset((c.one.id, c.other.id)) for c in conflicts([doc(*shuffled)])} == pairs


def every_pair(document: facts.Document) -> list[tuple[str, str, str, str, float]]:
    """The rule itself, on every pair of live facts, later fact first: what ``conflicts`` finds
    when its bounds do not bite."""
    held = [(f, reading(d, f)) for d, f in live([document])]
    found = []
    for n, (one, mine) in enumerate(held):
        for other, theirs in held[:n]:
            score, what = alike(mine, theirs), differ(mine, theirs)
            if score is not None and what is not None and not linked(one, other):
                found.append((one.id or "", other.id or "", *what, round(score, 2)))
    return sorted(found)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.lists(st.sampled_from(_VOCAB), min_size=1, max_size=6),
            st.sampled_from(["", " | see: f-a", " | supersedes: f-b", " | superseded-by: f-c"]),
        ),
        min_size=2,
        max_size=PAIRS,
    )
)
def test_the_candidates_miss_no_pair_of_the_rule(texts: list[tuple[list[str], str]]) -> None:
    """Below its bounds (fewer facts than PAIRS), ``conflicts`` finds exactly the pairs the rule
    finds comparing every pair: the shared-word index loses none."""
    lines = [fact(" ".join(t), f"f-{chr(97 + n)}", extra) for n, (t, extra) in enumerate(texts)]
    document = doc(*lines)
    found = [(c.one.id, c.other.id, c.kind, c.detail, c.similarity) for c in conflicts([document])]
    assert sorted(found) == every_pair(document)


@pytest.fixture
def enabled(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    assert cli("enable", root, "--today", "2026-03-01").exit_code == 0
    assert cli("fact", "add", "Never commit generated files", "--id", "no-gen", root).exit_code == 0
    return root


def test_fact_add_lists_what_it_may_contradict_and_still_adds(enabled: Path) -> None:
    added = cli("fact", "add", "Commit generated files", enabled, "--today", DAY)
    assert added.exit_code == 0 and added.stdout == "commit-generated-files\n"
    assert (
        "conflict: no-gen (memory/continuity.md:12, polarity commit generated / not commit "
        "generated): Never commit generated files" in added.stderr
    )
    again = cli("fact", "add", "Do commit the generated files, always", enabled, "--json")
    assert json.loads(again.stdout)["summary"]["conflicts"][0]["id"] == "no-gen"
    over_mcp = call(McpSession(enabled), "memory_fact_add", {"text": "Generated files: commit"})
    assert over_mcp.result is not None
    assert over_mcp.result.report.summary["conflicts"] == []  # other order: not the same phrase


def test_lint_reports_a_conflict_until_the_pair_is_related(enabled: Path) -> None:
    assert cli("fact", "add", "Commit generated files", "--id", "gen", enabled).exit_code == 0
    found = cli("lint", enabled, "--only", "conflict")
    assert found.exit_code == 0
    assert found.stdout.splitlines()[0] == (
        "memory/continuity.md:14: advisory [conflict] gen may contradict no-gen "
        "(memory/continuity.md:12): polarity commit generated / not commit generated; keep the "
        "true one (agent-memory fact supersede OLD NEW, or fact retract ID) or, when both hold, "
        "relate them (agent-memory fact relate)"
    )
    before = tree(enabled)
    assert cli("fact", "relate", "gen", "no-gen", enabled, "--dry-run").exit_code == 0
    assert tree(enabled) == before
    assert cli("fact", "relate", "gen", "no-gen", enabled).exit_code == 0
    assert "[conflict]" not in cli("lint", enabled).stdout
    assert cli("fact", "add", "Python 3.11 runs CI", "--id", "py", enabled).exit_code == 0
    assert cli("fact", "add", "Python 3.12 runs CI", "--id", "py2", enabled).exit_code == 0
    assert "[conflict] py2 may contradict py " in cli("lint", enabled).stdout
    assert cli("fact", "retract", "py", "--reason", "moved on", enabled).exit_code == 0
    assert "[conflict]" not in cli("lint", enabled).stdout


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from(_VOCAB), min_size=1, max_size=6), min_size=1, max_size=7),
    st.lists(st.sampled_from(_VOCAB), min_size=1, max_size=6),
)
def test_fact_add_finds_what_comparing_every_fact_finds(
    texts: list[list[str]], new: list[str]
) -> None:
    """``against`` reads only the facts that hold a probe, and misses none."""
    document = doc(*(fact(" ".join(t), f"f-{chr(97 + n)}") for n, t in enumerate(texts)))
    mine = read(" ".join(new))
    every = set()
    for each in document.facts:
        theirs = reading(document, each)
        if alike(mine, theirs) is not None and differ(mine, theirs) is not None:
            every.add(each.id)
    assert {c.other.id for c in against(" ".join(new), [document])} == every
