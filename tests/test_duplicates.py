"""Duplicates (DECAY.md § Duplicates): the same text refused with the id to reference, similar
ones listed, the archive read only where a fact may be similar, lint's near-duplicate pairs."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_memory.cli.mcp.tools import McpSession, call
from agent_memory.core.facts.duplicates import compare, normal, pairs
from agent_memory.core.facts.elsewhere import Elsewhere, duplicates
from agent_memory.parse import facts
from conftest import build_tree, cli, tree

DAY = "2026-03-02"
FOOT = "<!-- id: {} | created: 2026-01-01 | last_used: 2026-01-01 | uses: 1 | tier: {} -->"
ARCHIVED = (
    "<!-- id: {} | created: 2025-01-01 | last_used: 2025-01-01 | uses: 1 | tier: archived | "
    "from: Key Decisions | archived: 2025-06-01 -->"
)


@pytest.fixture
def enabled(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    assert cli("enable", root, "--today", "2026-03-01").exit_code == 0
    live = (
        f"- Use pnpm, not npm, for every package\n  {FOOT.format('use-pnpm', 'working')}\n"
        f"- The API speaks JSON over HTTP/2 only\n  {FOOT.format('api-json', 'active')}\n"
    )
    text = (root / "memory/continuity.md").read_text()
    archive = (
        "# Archive 2025-Q2\n\n## Facts\n"
        f"- Deploys go through the **staging** cluster first\n  {ARCHIVED.format('staging')}\n"
        f"- Logs are shipped to Loki with a 14 day retention\n  {ARCHIVED.format('loki-logs')}\n"
    )
    return build_tree(
        root,
        {
            "memory/continuity.md": text.replace("## Key Decisions\n", f"## Key Decisions\n{live}"),
            "memory/archive/2025-Q2.md": archive,
        },
    )


@pytest.mark.parametrize(
    ("text", "existing", "words"),
    [
        ("use PNPM not npm for every package!", "use-pnpm", "reference use-pnpm instead"),
        ("Use pnpm,  not `npm`,\nfor every package", "use-pnpm", "reference use-pnpm instead"),
        ("deploys go through the staging cluster first", "staging", "fact restore staging"),
    ],
)
def test_the_same_text_is_refused_naming_the_fact_to_reference(
    enabled: Path, text: str, existing: str, words: str
) -> None:
    before = tree(enabled)
    done = cli("fact", "add", text, enabled, "--today", DAY)
    assert done.exit_code == 1
    assert done.output.count("\n") == 1 and existing in done.output and words in done.output
    assert tree(enabled) == before
    as_json = json.loads(cli("fact", "add", text, enabled, "--today", DAY, "--json").stdout)
    assert as_json["findings"][0]["check"] == "duplicate"


def test_similar_facts_are_listed_live_and_archived_but_the_fact_is_added(enabled: Path) -> None:
    text = "Deploys go through the staging cluster first, always"
    done = cli("fact", "add", text, enabled, "--today", DAY, "--json")
    assert done.exit_code == 0
    similar = json.loads(done.stdout)["summary"]["similar"]
    assert similar == [
        {
            "id": "staging",
            "path": "memory/archive/2025-Q2.md",
            "line": 5,
            "similarity": 0.88,
            "archived": True,
            "first_line": "Deploys go through the **staging** cluster first",
        }
    ]
    plain = cli("fact", "add", "Use pnpm not npm for every package in CI", enabled, "--today", DAY)
    assert plain.stdout == "use-pnpm-not-npm-for-every\n"  # stdout: the id alone
    assert plain.stderr == (
        "similar: use-pnpm (memory/continuity.md:12, 0.78): Use pnpm, not npm, for every package\n"
    )
    restore = cli(
        "fact", "add", "Deploys go via the staging cluster first", enabled, "--today", DAY
    )
    assert "archived; agent-memory fact restore staging brings it back" in restore.stderr


def test_every_writer_refuses_the_same_text(enabled: Path) -> None:
    """MCP and supersede --text write through the same function as fact add."""
    done = call(McpSession(enabled), "memory_fact_add", {"text": "The API speaks JSON over HTTP/2"})
    assert done.result is not None
    assert done.result.report.summary["similar"][0]["id"] == "api-json"
    again = call(
        McpSession(enabled), "memory_fact_add", {"text": "the api speaks json over http 2"}
    )
    assert again.result is None and "already the-api-speaks-json-over" in again.err
    before = tree(enabled)
    text = "--text", "Use pnpm, not npm, for every package."
    superseded = cli("fact", "supersede", "api-json", *text, enabled, "--today", DAY)
    assert superseded.exit_code == 1 and "already use-pnpm" in superseded.output
    assert tree(enabled) == before


def test_lint_lists_near_duplicate_live_pairs_once(enabled: Path) -> None:
    assert cli("fact", "add", "Use pnpm not npm for every package in CI", enabled, "--today", DAY)
    found = cli("lint", enabled, "--only", "duplicate").stdout.splitlines()
    assert found[:-1] == [
        "memory/continuity.md:16: advisory [duplicate] use-pnpm-not-npm-for-every says much the "
        "same (0.78) as use-pnpm (memory/continuity.md:12); keep one (agent-memory fact "
        "supersede OLD NEW) or relate them (agent-memory fact relate)"
    ]


def test_the_check_is_the_same_under_any_hash_seed(enabled: Path) -> None:
    words = ["Deploys go through the staging cluster first, always", str(enabled), "--dry-run"]
    outputs = set()
    for seed in ("0", "1", "4242"):
        done = subprocess.run(
            [sys.executable, "-m", "agent_memory", "fact", "add", *words, "--json"],
            capture_output=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
            check=True,
        )
        outputs.add(done.stdout)
    assert len(outputs) == 1


VOCABULARY = ["cache", "redis", "tokens", "deploy", "staging", "pnpm", "npm", "the", "a", "é", "ß"]
_texts = st.lists(st.sampled_from(VOCABULARY), min_size=1, max_size=7).map(" ".join)


def _archive(texts: list[str], marker: str) -> bytes:
    body = "".join(
        f"{marker} {text}\n  {ARCHIVED.format(f'a-{n}')}\n" for n, text in enumerate(texts)
    )
    return f"# Archive 2025-Q2\n\n## Facts\n{body}\n## Completed Threads\n".encode()


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    new=_texts,
    live=st.lists(_texts, max_size=5),
    archived=st.lists(st.lists(_texts, max_size=6), max_size=3),
    marker=st.sampled_from(["-", "*", "- [x]"]),
)
def test_reading_only_what_may_hold_a_duplicate_answers_as_parsing_everything(
    new: str, live: list[str], archived: list[list[str]], marker: str
) -> None:
    cont = "# Continuity\n\n## Key Decisions\n" + "".join(
        f"- {text}\n  {FOOT.format(f'l-{n}', 'working')}\n" for n, text in enumerate(live)
    )
    continuity = facts.parse("memory/continuity.md", cont.encode())
    files = [(f"memory/archive/202{n}-Q1.md", _archive(t, marker)) for n, t in enumerate(archived)]
    every = [continuity, *(facts.parse(path, data) for path, data in files)]
    assert duplicates(new, continuity, Elsewhere(files)) == compare(new, every)


@given(
    text=st.text(st.sampled_from("ab-<!:| \n>id"), max_size=60),
    wanted=st.sampled_from(["a", "ab", "a-b", "b"]),
)
def test_an_id_is_found_where_reading_every_footer_finds_it(text: str, wanted: str) -> None:
    assert Elsewhere([("f.md", text.encode())]).place(wanted) == _ids_in("f.md", text).get(wanted)


def _ids_in(path: str, text: str) -> dict[str, str]:
    """Every id a footer-like comment of ``text`` names, at its first ``path:line``: what
    ``place`` finds by reading only the lines that hold the id, found by reading them all."""
    found: dict[str, str] = {}
    for number, line in enumerate(text.split("\n"), 1):
        for match in re.finditer(r"<!--[^\n]*?\bid[ \t]*:[ \t]*([^\s|>]+)", line):
            found.setdefault(match.group(1).rstrip("-"), f"{path}:{number}")
    return found


def test_the_same_text_is_case_spacing_and_punctuation_aside() -> None:
    assert normal("Use **pnpm**,\n  not NPM!") == normal("use pnpm not npm") == "use pnpm not npm"
    assert normal("Straße") == normal("STRASSE")
    assert normal("snake_case") == "snake case"
    assert normal("—") == ""


def test_pairs_are_found_without_comparing_every_pair() -> None:
    text = "# Continuity\n\n## Key Decisions\n" + "".join(
        f"- {words}\n  {FOOT.format(f'f-{n}', 'working')}\n"
        for n, words in enumerate(["a b c d e", "a b c d f", "x y z", "a b c d e", "q"])
    )
    found = pairs([facts.parse("memory/continuity.md", text.encode())])
    assert [(p.line, p.message.split(";")[0]) for p in found] == [
        (
            5,
            "f-0 and 2 other facts say much the same: f-1 (memory/continuity.md:7), "
            "f-3 (memory/continuity.md:11)",
        )
    ]


def test_a_word_on_every_line_of_a_huge_archive_is_read_in_linear_time() -> None:
    """Each stretch is searched once per probe word: 100,000 bullets holding the probe and
    no other bullet marker do not make the check quadratic."""
    import time

    from agent_memory.core.facts.duplicates import may_hold, probes, words

    text = "# Archive\n\n## Facts\n" + "- the widget\n" * 100_000
    wanted = words("the gadget sprocket flange")
    started = time.perf_counter()
    assert not may_hold(text, wanted, [*probes(wanted), "the"])
    assert time.perf_counter() - started < 10


def test_lint_pairs_stay_bounded_on_a_file_of_one_fact_repeated() -> None:
    """2,000 copies of one fact: each is paired with at most 20 earlier ones, not 2,000."""
    import time

    from agent_memory.core.facts.duplicates import PAIRS

    text = "# Continuity\n\n## Key Decisions\n" + "".join(
        f"- Use pnpm for installs\n  {FOOT.format(f'f-{n}', 'working')}\n" for n in range(2000)
    )
    doc = facts.parse("memory/continuity.md", text.encode())
    started = time.perf_counter()
    found = pairs([doc])
    assert time.perf_counter() - started < 10
    assert PAIRS < 2000 and len(found) == 1  # one group, its first five named
    assert found[0].message.count("memory/continuity.md:") == 5 and "1994 more" in found[0].message


def test_lint_never_reports_a_pair_linked_by_supersede_or_relate(enabled: Path) -> None:
    """The report's case: a fact superseded by a better-worded one, both still live until the
    next review; lint advised superseding the pair just superseded."""
    words = "Use pnpm not npm for every package in CI"
    assert cli("fact", "add", words, enabled, "--today", DAY).exit_code == 0
    found = cli("lint", enabled, "--only", "duplicate").stdout
    assert "use-pnpm-not-npm-for-every says much the same (0.78) as use-pnpm" in found
    done = cli(
        "fact", "supersede", "use-pnpm", "use-pnpm-not-npm-for-every", enabled, "--today", DAY
    )
    assert done.exit_code == 0, done.output
    assert "[duplicate]" not in cli("lint", enabled, "--only", "duplicate").stdout
    related = "Feature flags are cleaned up within two sprints of launch"
    assert cli("fact", "add", related, enabled, "--today", DAY).exit_code == 0
    assert cli(
        "fact", "add", "Feature flags are cleaned up within two sprints", enabled, "--today", DAY
    )
    assert "[duplicate]" in cli("lint", enabled, "--only", "duplicate").stdout
    ids = [
        line.split("id: ")[1].split(" ")[0]
        for line in (enabled / "memory/continuity.md").read_text().splitlines()
        if "id: feature-flags" in line
    ]
    assert cli("fact", "relate", ids[0], ids[1], enabled, "--today", DAY).exit_code == 0
    assert "[duplicate]" not in cli("lint", enabled, "--only", "duplicate").stdout


def test_five_similar_facts_are_one_advisory_not_ten(enabled: Path) -> None:
    for n, tail in enumerate(["", " now", " today", " always", " here"]):
        text = f"The release checklist lives in docs/release.md{tail}"
        assert cli("fact", "add", text, enabled, "--id", f"checklist-{n}", "--today", DAY)
    found = [
        line
        for line in cli("lint", enabled, "--only", "duplicate").stdout.splitlines()
        if "[duplicate]" in line
    ]
    assert len(found) == 1, found
    assert "1 advisory\n" in cli("lint", enabled, "--only", "duplicate").stdout
    assert (
        "checklist-0 and 4 other facts say much the same: checklist-1 (memory/continuity.md:"
        in found[0]
    )
    assert all(f"checklist-{n} (" in found[0] for n in range(1, 5))
