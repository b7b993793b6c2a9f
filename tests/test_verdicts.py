"""The review's verdicts (``core/review/verdicts.py``) over generated histories on real directories:
an incremental run's verdicts are a full rebuild's, the review writes them, and ``explain``
answers each fact with the review's verdict."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_memory.commands.review_inputs import read_logs, review_inputs
from agent_memory.core.review.verdicts import Verdict, Verdicts, verdicts
from agent_memory.parse import facts
from agent_memory.parse.sidefiles import parse_thread
from agent_memory.shell.load import load
from agent_memory.shell.repo import Repo
from conftest import PROJECT, build_tree, cli, tree

START = dt.date(2026, 1, 5)
SECTIONS = ["Key Decisions", "Conventions", "Open Threads", "Architectural Invariants"]
THREAD_FILE = "memory/open-threads/"
FOOT = "<!-- id: {} | created: 2026-01-05 | last_used: 2026-01-05 | uses: 1 | tier: {} -->"


def _fact(draw: st.DrawFn, fact_id: str) -> tuple[str, str]:
    """Where one fact lives (a section of continuity.md, or a one-file thread) and its lines."""
    where = draw(st.sampled_from([*SECTIONS, THREAD_FILE]))
    boxes = {"Open Threads": ["[ ] ", "[x] ", ""], THREAD_FILE: ["[ ] ", "[x] "]}
    box = draw(st.sampled_from(boxes.get(where, [""])))
    tier = draw(st.sampled_from(["working", "working", "working", "core"]))
    return where, f"- {box}Fact {fact_id} text\n  {FOOT.format(fact_id, tier)}\n"


@st.composite
def histories(draw: st.DrawFn) -> tuple[dict[str, str], list[list[dict[str, str]]]]:
    """A memory with facts in continuity.md and in one-file threads, and batches of logs that
    use them, list them under Created and supersede one by another, under a tight policy with
    auto-core on or off."""
    ids = [f"fact-{i}" for i in range(draw(st.integers(1, 8)))]
    files: dict[str, str] = {}
    by_section: dict[str, list[str]] = {s: [] for s in SECTIONS}
    for fact_id in ids:
        where, lines = _fact(draw, fact_id)
        if where == THREAD_FILE:
            files[f"memory/open-threads/thread-{fact_id}.md"] = lines
        else:
            by_section[where].append(lines)
    files["memory/continuity.md"] = (
        "# Continuity\n\n## Project State\n- last_review: (none yet)\n\n"
        + "".join(f"## {s}\n{''.join(lines)}\n" for s, lines in by_section.items())
    )
    batches, day, written = [], 0, 0
    for _ in range(draw(st.integers(1, 4))):
        batch = []
        for _ in range(draw(st.integers(0, 10))):
            day += draw(st.integers(0, 3))
            used = draw(st.lists(st.sampled_from(ids), max_size=3, unique=True))
            label = draw(st.sampled_from(["Referenced", "Referenced", "Referenced", "Created"]))
            refs = f"- {label}: {', '.join(used) or 'none'}\n"
            if len(ids) > 1 and draw(st.integers(0, 9)) == 0:
                old, new = draw(st.lists(st.sampled_from(ids), min_size=2, max_size=2, unique=True))
                refs += f"- Superseded: {old} → {new}\n"
            written += 1  # in the name, so that no log is ever written twice
            name = f"{(START + dt.timedelta(days=day)).isoformat()}-{written:06d}.md"
            batch.append({f"memory/sessions/{name}": f"# S\n\n## Memory References\n{refs}"})
        batches.append(batch)
    policy = (PROJECT / "templates/memory/decay-policy.md").read_text()
    policy = policy.replace("active_window:    8", "active_window:    4")
    policy = policy.replace("archive_window:   20", "archive_window:   7")
    if draw(st.booleans()):
        policy = policy.replace("enabled:          false", "enabled:          true")
        policy = policy.replace("core_min_uses:    12", "core_min_uses:    2")
        policy = policy.replace("core_min_reviews: 5", "core_min_reviews: 2")
        policy = policy.replace("review_every:         10", "review_every:         2")
    return {**files, "memory/decay-policy.md": policy}, batches


def _run(root: Path, full: bool, day: dt.date) -> Verdicts:
    """The verdicts of the review ``agent-memory review [--full]`` would run now."""
    repo = Repo(root)
    memory = load(repo)
    assert memory.continuity is not None
    logs = read_logs(repo, memory, memory.continuity, full, {})
    return verdicts(review_inputs(repo, memory, memory.continuity, logs, day))


def _explained(root: Path, verdict: Verdict, full: bool, day: str) -> dict[str, object]:
    args = ["explain", verdict.id, root, "--json", "--today", day, *(["--full"] if full else [])]
    result = cli(*args)
    assert result.exit_code == 0, result.output
    summary: dict[str, object] = json.loads(result.output)["summary"]
    return summary


def _expected(run: Verdicts, verdict: Verdict) -> dict[str, object]:
    move = run.next_move(verdict)
    return {
        "path": verdict.path,
        "section": verdict.section,
        "tier": verdict.tier,
        "rule": verdict.rule,
        "recomputed": dict(verdict.fields),
        "sessions_since_last_use": verdict.idle,
        "next": move._asdict() if move else None,
    }


def _logs_listed(told: dict[str, object]) -> list[str]:
    events = told["events"]
    assert isinstance(events, list)
    return [e["what"].split()[0] for e in events if e["what"].startswith("memory/sessions/")]


def _logs_naming(root: Path, fact_id: str) -> list[str]:
    """The logs on disk whose references name ``fact_id``, as a person would find them."""
    return [
        rel
        for rel, data in sorted(tree(root).items())
        if rel.startswith("memory/sessions/")
        and fact_id in data.decode().split("- Superseded:")[0].replace(",", " ").split()
    ]


def _footers(root: Path) -> dict[str, dict[str, str]]:
    """Every fact's footer, wherever it now lives."""
    found = {}
    for rel, data in tree(root).items():
        if rel.startswith("memory/open-threads/"):
            doc = parse_thread(rel, data)
        elif rel == "memory/continuity.md" or (
            rel.startswith("memory/archive/") and rel != "memory/archive/INDEX.md"
        ):
            doc = facts.parse(rel, data)
        else:
            continue
        found.update((fact.id or "", dict(fact.fields)) for fact in doc.facts)
    return found


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(histories(), st.booleans())
def test_incremental_verdicts_are_full_ones_and_explain_answers_with_them(
    tmp_path_factory, history, explain_full
) -> None:
    files, batches = history
    root = tmp_path_factory.mktemp("repo")
    build_tree(root, files)
    for index, batch in enumerate(batches):
        for log in batch:
            build_tree(root, log)
        day = START + dt.timedelta(days=40 * (index + 1))
        run = _run(root, False, day)
        judged = run.every()
        assert judged == _run(root, True, day).every()
        for verdict in judged:
            told = _explained(root, verdict, explain_full, day.isoformat())
            assert {key: told[key] for key in _expected(run, verdict)} == _expected(run, verdict)
            if explain_full:
                assert _logs_listed(told) == _logs_naming(root, verdict.id)
        assert cli("review", root, "--today", day.isoformat()).exit_code == 0
        assert _footers(root) == {v.id: dict(v.fields) for v in judged}
