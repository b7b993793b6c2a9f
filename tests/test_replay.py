"""replay: the projection run forward; its outcomes against context's view, its tiers against a
review's."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_memory import resources
from agent_memory.core.agents.context import view
from agent_memory.core.agents.relevance import RECENT_SESSIONS
from agent_memory.core.replay.run import GONE, replay, subjects
from agent_memory.core.review.inputs import Inputs
from agent_memory.core.review.verdicts import verdicts
from agent_memory.parse import facts
from agent_memory.parse.facts import Document
from agent_memory.parse.policy import Policy
from agent_memory.parse.sessions import SessionRefs, read_refs
from conftest import build_tree, cli, git_init, run_console, tree
from test_json import violations

REPLAY_SCHEMA = json.loads(resources.data("schema/replay.schema.json"))


def _log(day: int, n: int) -> str:
    return (dt.date(2026, 1, 1) + dt.timedelta(days=day)).isoformat() + f"-{n:06d}.md"


HISTORY = st.tuples(
    st.lists(st.tuples(st.integers(0, 30), st.sampled_from((None, "x"))), min_size=1, max_size=6),
    st.lists(
        st.tuples(st.integers(1, 40), st.sets(st.integers(0, 5)), st.sets(st.integers(0, 5))),
        min_size=1,
        max_size=25,
    ),
)


def _full_review(
    doc: Document, logs: list[str], refs: list[SessionRefs], end: int, policy: Policy, day: str
) -> Inputs:
    """What a full review on ``day`` reads: ``doc`` and the first ``end`` logs."""
    history = dict(zip(logs, refs, strict=True))
    today = dt.date.fromisoformat(day)
    return Inputs(doc, (), None, b"", policy, tuple(logs[:end]), history, True, today)


@settings(max_examples=120, deadline=None)
@given(HISTORY)
def test_after_every_log_the_replay_judges_as_a_full_review_would(
    history: tuple[list[tuple[int, str | None]], list[tuple[int, set[int], set[int]]]],
) -> None:
    """The one-pass replay (a fact judged again only when a count or a date crosses a line)
    against the review's projection over the same logs, after each log."""
    made, raw_logs = history
    lines = []
    for n, (created, task) in enumerate(made):
        day = (dt.date(2026, 1, 1) + dt.timedelta(days=created)).isoformat()
        box = "[x] " if task else ""
        done = " | done: 2025-12-31" if task else ""
        lines.append(f"- {box}Fact {n}\n  <!-- id: f{n} | created: {day}{done} -->\n")
    doc = facts.parse("memory/continuity.md", ("## Key Decisions\n\n" + "".join(lines)).encode())
    logs, refs = [], []
    for n, (day, used, created) in enumerate(sorted(raw_logs)):
        names = sorted({f"f{i}" for i in used | created if i < len(made)})
        made_here = sorted({f"f{i}" for i in created if i < len(made)})
        text = f"## Memory References\n- Referenced: {', '.join(names) or '(none)'}\n"
        text += f"- Created: {', '.join(made_here)}\n" if made_here else ""
        logs.append(_log(day, n))
        refs.append(read_refs(text.encode()))
    policy = Policy(working_window=1, active_window=2, archive_window=4)
    found = subjects((doc,), 0)
    tasks = [""] * len(logs)
    for end in range(1, len(logs) + 1):
        run = replay((doc,), found, logs[:end], refs[:end], tasks[:end], policy, (8192,))[0]
        inputs = _full_review(doc, logs, refs, end, policy, logs[end - 1][:10])
        expected = {v.id: v.tier for v in verdicts(inputs).every()}
        born = {i: t for i, t in expected.items() if i in run.final}
        assert run.final == born


POLICY = "## Windows\n- working_window: 1\n- active_window: 2\n- archive_window: 3\n"


def _history(root: Path) -> Path:
    """A fact archived by the windows and then used again (a miss), a pinned fact (shown), an
    unknown id and a fact a session creates."""
    git_init(root)
    assert cli("enable", root, "--today", "2026-01-01").exit_code == 0
    (root / "memory/decay-policy.md").write_text(POLICY)
    for text, fact_id in (("Old decision", "old"), ("Busy decision", "busy")):
        added = cli("fact", "add", text, root, "--id", fact_id, "--today", "2026-01-01")
        assert added.exit_code == 0
    busy = "- Referenced: busy\n"
    logs = {f"memory/sessions/2026-01-0{d}-100000.md": busy for d in (2, 3, 4, 5, 6)}
    logs["memory/sessions/2026-01-07-100000.md"] = "- Referenced: old, busy, ghost\n"
    logs["memory/sessions/2026-01-08-100000.md"] = "- Created: fresh\n"
    build_tree(root, {k: "## Memory References\n" + v for k, v in logs.items()})
    cont = root / "memory/continuity.md"
    cont.write_text(
        cont.read_text()
        + "- Fresh one\n  <!-- id: fresh | created: 2026-01-08 | last_used: 2026-01-08 | "
        "uses: 1 | tier: working -->\n"
    )
    return root


def test_a_fact_the_windows_archived_is_a_miss_when_a_session_needs_it(tmp_path: Path) -> None:
    root = _history(tmp_path / "repo")
    before = tree(root)
    result = cli("replay", root, "--json")
    assert result.exit_code == 0, result.output
    totals = json.loads(result.output)["summary"]["totals"]
    # busy is shown six times; old is archived by the 7th log (5 logs since its birth > 3)
    assert (totals["shown"], totals["archived"], totals["unknown"], totals["new"]) == (6, 1, 1, 1)
    missed = json.loads(result.output)["summary"]["most_missed"]
    assert missed == [{"id": "old", "missed": 1, "named": 0, "archived": 1}]
    assert tree(root) == before


def test_a_wider_window_is_compared_and_would_have_kept_the_fact(tmp_path: Path) -> None:
    root = _history(tmp_path / "repo")
    result = cli("replay", root, "--json", "--policy", "archive_window=9")
    rows = json.loads(result.output)["summary"]["comparison"]
    assert [r["policy"] for r in rows] == ["the repo's policy", "archive_window: 9"]
    assert [r["archived"] for r in rows] == [1, 0]


def test_a_small_budget_names_the_facts_it_cannot_show_and_cuts_what_it_cannot_name(
    tmp_path: Path,
) -> None:
    root = _history(tmp_path / "repo")
    cont = root / "memory/continuity.md"
    text = cont.read_text().replace("Busy decision", "Busy decision " + "x" * 400)
    cont.write_text(text.replace("Old decision", "Old decision " + "y" * 400))
    found = {}
    for budget in ("800", "256"):
        result = cli("replay", root, "--json", "--max-bytes", budget)
        totals = json.loads(result.output)["summary"]["totals"]
        found[budget] = (totals["shown"], totals["named"], totals["cut"], totals["named_rate"])
    assert found == {"800": (0, 6, 0, 0.8571), "256": (0, 0, 6, 0.0)}


def test_a_bad_policy_item_is_one_line_and_writes_nothing(tmp_path: Path) -> None:
    root = _history(tmp_path / "repo")
    before = tree(root)
    for item in ("active_window=0", "nope=3", "active_window=99", "active_window=\n3"):
        done = run_console("replay", root, "--policy", item, cwd=tmp_path)
        assert done.returncode == 1 and done.stdout == ""
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert tree(root) == before


def test_replay_is_the_same_under_any_hash_seed(tmp_path: Path) -> None:
    root = _history(tmp_path / "repo")
    outputs = {
        run_console("replay", root, "--json", cwd=tmp_path, PYTHONHASHSEED=seed).stdout
        for seed in ("0", "1", "4242")
    }
    assert len(outputs) == 1


def _expected_outcomes(
    doc: facts.Document,
    logs: list[str],
    refs: list,
    texts: list[str],
    policy: Policy,
    max_bytes: int,
) -> list[tuple[tuple[tuple[str, str], ...], int]]:
    """Each log's outcomes and its view's bytes the slow way: a full review over the logs
    before it, and context's own view of the facts it leaves live, with the footers it writes,
    for the log's text, ranked by what the latest logs before it used."""
    found = []
    created = {f.id: f.field("created") or "" for f in doc.facts}
    first: dict[str, int] = {}  # the first log naming each id
    for n, r in enumerate(refs):
        for i in r.used:
            first.setdefault(i, n)

    def existed(fact_id: str, end: int, day: str) -> bool:
        """Whether the fact was there at log ``end``'s start: after the log that made it where
        the first log naming it says so, else from its created day."""
        n = first.get(fact_id)
        if n is not None and fact_id in refs[n].created:
            return end > n
        return created[fact_id] <= day

    for end, name in enumerate(logs):
        day = name[:10]
        judged = {
            v.id: v for v in verdicts(_full_review(doc, logs, refs, end, policy, day)).every()
        }
        live = tuple(
            f._replace(fields=tuple(judged[f.id].fields.items()))
            for f in doc.facts
            if judged[f.id].tier not in GONE and existed(f.id, end, day)
        )
        latest = [r.used for r in reversed(refs[max(0, end - RECENT_SESSIONS) : end])]
        seen = view((doc._replace(facts=live),), texts[end], None, max_bytes, recent=latest)
        outcomes = []
        for fact_id in sorted(refs[end].used):
            if fact_id not in judged:
                outcomes.append((fact_id, "unknown"))
            elif not existed(fact_id, end, day):
                outcomes.append((fact_id, "new"))
            elif judged[fact_id].tier in GONE:
                outcomes.append((fact_id, "archived"))
            elif fact_id in seen.full:
                outcomes.append((fact_id, "shown"))
            else:  # every live fact is in the view when no paths are known: named or counted
                outcomes.append((fact_id, "named" if f"`{fact_id}`" in seen.text else "cut"))
        found.append((tuple(outcomes), len(seen.text.encode())))
    return found


WORDS = st.lists(st.sampled_from(("outbox", "retry", "fact", "cache", "w" * 40)), max_size=4)


@settings(max_examples=120, deadline=None)
@given(HISTORY, st.integers(300, 900), st.lists(WORDS, max_size=25))
def test_each_session_s_outcomes_are_a_full_review_and_context_s_view_before_it(
    history: tuple[list[tuple[int, str | None]], list[tuple[int, set[int], set[int]]]],
    max_bytes: int,
    words: list[list[str]],
) -> None:
    """Each log's text is its view's task: the ids it names, and words of the facts' texts."""
    _replayed_as_the_slow_way(
        [(c, t, False) for c, t in history[0]], history[1], max_bytes, words, 4
    )


SPARSE = st.tuples(
    st.lists(
        st.tuples(st.integers(0, 30), st.sampled_from((None, "x")), st.booleans()),
        min_size=1,
        max_size=6,
    ),
    st.lists(
        st.tuples(
            st.integers(1, 60), st.sets(st.integers(0, 5), max_size=2), st.sets(st.integers(0, 5))
        ),
        min_size=1,
        max_size=40,
    ),
)


@settings(max_examples=150, deadline=None)
@given(SPARSE, st.integers(300, 5000), st.lists(WORDS, max_size=40), st.integers(1, 5))
def test_facts_archived_and_named_again_come_back_as_the_slow_way_has_them(
    history: tuple[list[tuple[int, str | None, bool]], list[tuple[int, set[int], set[int]]]],
    max_bytes: int,
    words: list[list[str]],
    archive_window: int,
) -> None:
    """Few uses a log, so that facts idle into the archive and come back; pinned facts among
    them: the view's bytes count each fact in its group's part."""
    _replayed_as_the_slow_way(history[0], history[1], max_bytes, words, archive_window)


def test_a_fact_back_from_the_archive_takes_its_bytes_in_its_own_part_of_the_view() -> None:
    """f0 idles into the archive while f1 is used, is named again, and the next view (all of it
    fits) counts it among the facts, where it was, not under the pinned ones."""
    made = [(0, None, False), (0, None, True)]
    logs = [(1, {0}, set()), *((day, {1}, set()) for day in range(2, 9))]
    logs += [(9, {0}, set()), (10, {1}, set()), (11, {0, 1}, set())]
    _replayed_as_the_slow_way(made, logs, 8192, [], 2)


def _replayed_as_the_slow_way(
    made: list[tuple[int, str | None, bool]],
    raw_logs: list[tuple[int, set[int], set[int]]],
    max_bytes: int,
    words: list[list[str]],
    archive_window: int,
) -> None:
    lines = []
    topics = ("outbox", "retry", "cache")
    for n, (created, task, pinned) in enumerate(made):
        day = (dt.date(2026, 1, 1) + dt.timedelta(days=created)).isoformat()
        box = "[x] " if task else ""
        done = " | done: 2025-12-31" if task else ""
        done += " | tier: core" if pinned else ""
        lines.append(
            f"- {box}Fact {n} {topics[n % 3]} {'w' * (n * 40)}\n"
            f"  <!-- id: f{n} | created: {day}{done} -->\n"
        )
    doc = facts.parse("memory/continuity.md", ("## Key Decisions\n\n" + "".join(lines)).encode())
    logs, refs, texts = [], [], []
    for n, (day, used, created) in enumerate(sorted(raw_logs)):
        names = sorted({f"f{i}" for i in used | created if i < len(made) + 1})
        made_here = sorted({f"f{i}" for i in created if i < len(made)})
        text = " ".join(words[n]) if n < len(words) else ""
        text += f"\n## Memory References\n- Referenced: {', '.join(names) or '(none)'}\n"
        text += f"- Created: {', '.join(made_here)}\n" if made_here else ""
        logs.append(_log(day, n))
        refs.append(read_refs(text.encode()))
        texts.append(text)
    active = min(2, archive_window)
    policy = Policy(working_window=1, active_window=active, archive_window=archive_window)
    run = replay((doc,), subjects((doc,), 0), logs, refs, texts, policy, (max_bytes,))[0]
    expected = _expected_outcomes(doc, logs, refs, texts, policy, max_bytes)
    assert [(s.uses, s.context) for s in run.steps] == expected


def test_a_thread_closed_without_a_done_date_is_closed_from_its_last_use(
    tmp_path: Path,
) -> None:
    """A hand-closed `[x]` thread has no `done:` until a review stamps it: it was open until its
    last use, then closed, and the windows archive it from then, whether or not a log names it
    (an open thread would have stayed, and been shown)."""
    root = git_init(tmp_path / "repo")
    assert cli("enable", root, "--today", "2026-01-01").exit_code == 0
    (root / "memory/decay-policy.md").write_text(POLICY)
    cont = root / "memory/continuity.md"
    cont.write_text(
        cont.read_text()
        + "\n## Open Threads\n\n- [x] Ship the proxy\n  <!-- id: ship | created: 2026-01-01 | "
        "last_used: 2026-01-03 | uses: 2 | tier: active -->\n"
    )
    logs = {f"memory/sessions/2026-01-0{d}-100000.md": "other" for d in range(2, 9)}
    logs["memory/sessions/2026-01-02-100000.md"] = "ship"
    logs["memory/sessions/2026-01-09-100000.md"] = "ship"
    build_tree(root, {k: f"## Memory References\n- Referenced: {v}\n" for k, v in logs.items()})
    result = cli("replay", root, "--json")
    totals = json.loads(result.output)["summary"]["totals"]
    assert (totals["shown"], totals["archived"]) == (1, 1)


def test_facts_no_review_tracks_still_take_their_bytes_in_the_view(tmp_path: Path) -> None:
    """A hand-written invariant without a footer is in context's view like any other (binding,
    so first), and the budget it takes is not there for the facts after it."""
    root = git_init(tmp_path / "repo")
    assert cli("enable", root, "--today", "2026-01-01").exit_code == 0
    build_tree(
        root,
        {"memory/sessions/2026-01-02-100000.md": "## Memory References\n- Referenced: outbox\n"},
    )
    cont = root / "memory/continuity.md"
    before = cont.read_text()
    outbox = (
        "\n- Outbox writes " + "o" * 200 + "\n  <!-- id: outbox | created: 2026-01-01 | "
        "last_used: 2026-01-01 | uses: 1 | tier: working -->\n"
    )
    found = []
    for note in ("", "\n- Never write twice " + "z" * 20 + "\n"):
        text = before.replace("## Key Decisions\n", "## Key Decisions\n" + outbox)
        cont.write_text(
            text.replace("## Architectural Invariants\n", "## Architectural Invariants\n" + note)
        )
        result = cli("replay", root, "--json", "--max-bytes", "740")
        totals = json.loads(result.output)["summary"]["totals"]
        found.append((totals["shown"], totals["named"]))
    assert found == [(1, 0), (0, 1)]


def test_the_task_is_the_first_prompt_a_log_records_and_never_the_log_s_own_text(
    tmp_path: Path,
) -> None:
    """beta was used last, so with no task it leads the view and alpha, which the second
    session used, is only named. A first prompt naming alpha brings it in full; the log's own
    text does only with ``--task-from log``, an upper bound said to be one; ``none`` ignores
    the prompt."""
    root = git_init(tmp_path / "repo")
    assert cli("enable", root, "--today", "2026-01-01").exit_code == 0
    cont = root / "memory/continuity.md"
    made = "".join(
        f"\n- {name.title()} decision {'q' * 300}\n  <!-- id: {name} | created: 2026-01-01 | "
        "last_used: 2026-01-01 | uses: 1 | tier: working -->\n"
        for name in ("alpha", "beta")
    )
    cont.write_text(cont.read_text().replace("## Key Decisions\n", "## Key Decisions\n" + made))
    logs = root / "memory/sessions"
    (logs / "2026-01-02-100000.md").write_text("## Memory References\n- Referenced: beta\n")
    second = logs / "2026-01-03-100000.md"
    found = []
    for prompt, source in (("", "prompt"), ("Fix `alpha` now", "prompt"), ("", "log")):
        recorded = f"## First Prompt\n\n{prompt}\n\n" if prompt else ""
        second.write_text(
            f"# Session\n\n{recorded}Notes on `alpha`\n\n## Memory References\n"
            "- Referenced: alpha\n"
        )
        result = cli("replay", root, "--json", "--max-bytes", "900", "--task-from", source)
        summary = json.loads(result.output)["summary"]
        found.append((summary["totals"]["shown"], summary["totals"]["named"]))
        assert summary["upper_bound"] == (source == "log")
    result = cli("replay", root, "--json", "--max-bytes", "900", "--task-from", "none")
    totals = json.loads(result.output)["summary"]["totals"]
    found.append((totals["shown"], totals["named"]))
    # A First Prompt shown inside the log's code block, or its front matter, is no prompt.
    for example in ("```\n## First Prompt\n\nFix `alpha` now\n```\n", "<div>\n## First Prompt\n"
                    "Fix `alpha` now\n</div>\n"):  # fmt: skip
        second.write_text(f"# Session\n\n## Memory References\n- Referenced: alpha\n\n{example}")
        result = cli("replay", root, "--json", "--max-bytes", "900")
        totals = json.loads(result.output)["summary"]["totals"]
        found.append((totals["shown"], totals["named"]))
    second.write_text(
        "---\n## First Prompt\nFix `alpha` now\n---\n## Memory References\n- Referenced: alpha\n"
    )
    totals = json.loads(cli("replay", root, "--json", "--max-bytes", "900").output)["summary"][
        "totals"
    ]
    found.append((totals["shown"], totals["named"]))
    assert found == [
        (0, 2),
        (1, 1),
        (2, 0),
        (0, 2),
        (0, 2),
        (0, 2),
        (0, 2),
    ]  # the log names its own ids
    said = cli("replay", root, "--max-bytes", "900", "--task-from", "log").output
    assert "each view's task: an upper bound" in said
    assert "(an upper bound, not a figure: --task-from log)" in said.splitlines()[0]


def test_a_memory_without_a_session_log_yet_replays_nothing_and_reports(tmp_path: Path) -> None:
    """A repo just enabled, a fact added and no log written: nothing to replay, the fact as it
    was born."""
    root = git_init(tmp_path / "repo")
    assert cli("enable", root, "--today", "2026-01-01").exit_code == 0
    assert (
        cli("fact", "add", "A decision", root, "--id", "dec", "--today", "2026-01-01").exit_code
        == 0
    )
    result = cli("replay", root, "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["summary"]["totals"]["logs"] == 0
    page = tmp_path / "report.html"
    result = cli("report", root, "--html", page, "--today", "2026-01-02")
    assert result.exit_code == 0, result.output
    assert page.stat().st_size > 0


def test_the_replay_s_summary_follows_its_schema_and_compares_budgets(tmp_path: Path) -> None:
    root = _history(tmp_path / "repo")
    result = cli(
        "replay", root, "--json", "--max-bytes", "8192,300, 8192", "--policy", "archive_window=9"
    )
    summary = json.loads(result.output)["summary"]
    assert violations(summary, REPLAY_SCHEMA) == []
    assert [b["max_bytes"] for b in summary["budgets"]] == [8192, 300]
    assert summary["max_bytes"] == 8192 and summary["totals"]["shown"] == 6
    assert summary["budgets"][1]["shown"] < summary["budgets"][0]["shown"]
    said = cli("replay", root, "--max-bytes", "8192,300").output
    assert "by budget:" in said and "in full at session start" in said.splitlines()[1]
    for bad in ("100", "8192,x", "", "1,2,3,4,5,6,7,8,9", "٨١٩٢"):
        done = run_console("replay", root, "--max-bytes", bad, cwd=tmp_path)
        assert done.returncode == 1 and done.stdout == "", (bad, done.stdout)
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_a_fact_is_born_with_the_log_that_made_it_and_not_before_its_day() -> None:
    """``late`` is dated the day before the log that lists it under Created (a writer's local
    date, a log named in UTC): the session before that log, the same day, did not have it, and
    the log that made it counts it as new. ``dangling`` was named before any file held it: it
    is new until its created day, and out of every view before it. ``taken`` came from a
    proposal of the second log: it was there from the log after it."""
    doc = facts.parse(
        "memory/continuity.md",
        b"## Key Decisions\n\n"
        b"- Late fact\n  <!-- id: late | created: 2026-01-01 -->\n"
        b"- Old fact\n  <!-- id: old | created: 2025-12-01 -->\n"
        b"- Dangling fact\n  <!-- id: dangling | created: 2026-01-05 -->\n"
        b"- Accepted fact\n"
        b"  <!-- id: taken | created: 2026-01-01 | origin: 2026-01-02-040000#1 -->\n",
    )
    logs = [
        ("2026-01-02-010000.md", "- Referenced: old, dangling\n"),
        ("2026-01-02-040000.md", "- Referenced: old\n- Created: late\n"),
        ("2026-01-03-100000.md", "- Referenced: late, dangling\n"),
        ("2026-01-06-100000.md", "- Referenced: dangling\n"),
    ]
    refs = [read_refs(f"## Memory References\n{text}".encode()) for _, text in logs]
    views: dict[int, str] = {}
    run = replay(
        (doc,),
        subjects((doc,), 0),
        [name for name, _ in logs],
        refs,
        [""] * len(logs),
        Policy(),
        (8192,),
        watch=lambda i, seen: views.update({i: seen[0].text}),
    )[0]
    assert [s.uses for s in run.steps] == [
        (("dangling", "new"), ("old", "shown")),
        (("late", "new"), ("old", "shown")),
        (("dangling", "new"), ("late", "shown")),
        (("dangling", "shown"),),
    ]
    assert "Late fact" not in views[0] + views[1] and "Late fact" in views[2]
    assert "Dangling fact" not in views[2] and "Dangling fact" in views[3]
    assert "Accepted fact" not in views[1] and "Accepted fact" in views[2]
