"""``context --task`` and ``--paths``, scopes, and the budget shared between binding facts and the
rest: shaped like the real memories where the old view showed under half of what sessions used."""

from __future__ import annotations

import json
import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_memory.cli.mcp.tools import McpSession, call
from agent_memory.core.agents import context as viewing
from agent_memory.core.agents import relevance
from agent_memory.core.agents.relevance import uses_paths
from agent_memory.errors import AgentMemoryError
from agent_memory.parse import facts
from conftest import PROJECT, build_tree, cli, run_console
from test_written import documents

FOOT = "<!-- id: {} | created: 2026-01-01 | last_used: 2026-01-{:02d} | uses: 1 | tier: {}{} -->"
PROSE = " ".join(["the", "service", "keeps", "its", "state", "in", "one", "place"] * 9)


def _fact(fact_id: str, words: str, tier: str, day: int = 1, more: str = "") -> str:
    body = f"- {words}: {PROSE}\n  {PROSE}\n  {PROSE}\n"
    return f"{body}  {FOOT.format(fact_id, day, tier, more)}\n"


def _memory(extra: str = "") -> str:
    """Twelve long core facts (7 KB: the whole budget), ten long active facts, a checked
    thread: the shape of the real memories whose core facts ate the view."""
    core = "".join(_fact(f"rule-{i}", f"Rule {i} of the house", "core") for i in range(12))
    topics = ["billing", "webhook retries", "search", "auth tokens", "exports"]
    active = "".join(
        _fact(f"note-{i}", f"Note on {topics[i % 5]} number {i}", "active", day=1 + i)
        for i in range(10)
    )
    return (
        "# Continuity\n\n## Project State\n- last_review: (none yet)\n\n"
        f"## Key Decisions\n{core}\n## Conventions\n{active}{extra}\n"
        "## Open Threads\n"
        f"- [x] Ship the exporter\n  {FOOT.format('ship-exporter', 9, 'active', '')}\n"
    )


def _sections(out: str) -> dict[str, str]:
    return dict(re.findall(r"^## ([^\n]+)\n\n(.*?)(?=^## |\Z)", out, re.MULTILINE | re.DOTALL))


def test_binding_facts_take_a_share_and_every_fact_is_named_with_words(tmp_path: Path) -> None:
    build_tree(tmp_path, {"memory/continuity.md": _memory()})
    out = cli("context", tmp_path).output
    assert len(out.encode()) <= 8192
    # by its text, its one line, or its excerpt's command
    named = set(re.findall(r"(?:`|fact show )((?:rule|note)-\d+|ship-exporter)`", out))
    hidden = re.search(r"\n_(\d+) of 23 facts not named \(over --max-bytes\)", out)
    assert len(named) + (int(hidden.group(1)) if hidden else 0) == 23
    assert not re.search(r"^- `[^`]+`$", out, re.MULTILINE)  # never an id alone
    parts = _sections(out)
    core = parts["Core and invariants"]
    assert core.count(PROSE) > 0 and len(core.encode()) < 8192 // 2  # bounded: a share
    assert re.search(r"^- `rule-\d+` — Rule \d+ of the house", core, re.MULTILINE)  # one line
    # Without a task, the rest comes by last use: note-9 was used last.
    assert "Note on exports number 9: " in parts["Facts"]


def test_a_task_brings_only_what_it_matches_strongly(tmp_path: Path) -> None:
    build_tree(tmp_path, {"memory/continuity.md": _memory()})
    strong = "Fix the webhook retries: the webhook retries fail on each webhook delivery"
    out = cli("context", tmp_path, "--task", strong).output
    facts = _sections(out)["Facts"]
    assert "Note on webhook retries number 1: " in facts
    assert "Note on webhook retries number 6: " in facts
    assert "Note on exports number 9: " in facts  # the recency order goes on after them
    # Two words that two facts of 23 hold score under the floor: the recency order stands.
    weak = cli("context", tmp_path, "--task", "Fix the webhook retries when a delivery fails")
    assert weak.output == cli("context", tmp_path).output
    named = cli("context", tmp_path, "--task", "continue ship-exporter").output
    assert "- [x] Ship the exporter `ship-exporter`" in _sections(named)["Recently closed threads"]
    assert cli("context", tmp_path, "--task", strong).output == out


def test_a_task_lifts_its_best_matches_alone() -> None:
    """Every fact sharing the task's words may clear the floor; only the best ``TASK_LIFTS``
    (then by last use) move ahead, and the others keep their place in the recency order."""
    hooks = "".join(
        _fact(f"hook-{i}", f"Webhook retries note {i}", "active", 1 + i) for i in range(5)
    )
    bills = "".join(_fact(f"bill-{i}", f"Billing note {i}", "active", 20) for i in range(20))
    doc = facts.parse("memory/continuity.md", f"# C\n\n## Conventions\n{hooks}{bills}".encode())
    ranked = [
        o.fact.id for o in relevance.rank([doc], "webhook retries webhook retries", None).offers
    ]
    assert relevance.TASK_LIFTS == 2 and ranked[:2] == ["hook-4", "hook-3"]
    assert ranked[2:4] == ["bill-0", "bill-1"] and ranked[-3:] == ["hook-2", "hook-1", "hook-0"]
    weak = [o.fact.id for o in relevance.rank([doc], "billing", None).offers]
    assert weak == [o.fact.id for o in relevance.rank([doc], "", None).offers]  # under the floor


def test_paths_bring_citing_facts_first_and_scopes_hide_the_others(tmp_path: Path) -> None:
    cited = FOOT.format("api-table", 1, "working", " | cites: src/api/routes.py@0123456789ab")
    scoped = FOOT.format("web-react", 1, "working", " | paths: web/**")
    extra = (
        f"- The API routes live in one table\n  {cited}\n- React 19 in the web app\n  {scoped}\n"
    )
    build_tree(tmp_path, {"memory/continuity.md": _memory(extra)})
    api = cli("context", tmp_path, "--paths", "src/api/routes.py", "--paths", "README.md").output
    assert "- The API routes live in one table `api-table` _(stale:" in _sections(api)["Facts"]
    assert _sections(api)["Facts"].index("`api-table`") == _sections(api)["Facts"].index("`")
    assert "web-react" not in api
    assert "_1 fact scoped to paths this session does not touch._" in api
    web = cli("context", tmp_path, "--paths", "web/src/App.tsx").output
    assert "- React 19 in the web app `web-react`\n" in web
    every = cli("context", tmp_path, "--max-bytes", "20000").output
    assert "`web-react`" in every  # nothing known about paths
    folder = cli("context", tmp_path, "--paths", "src/api").output
    assert "- The API routes live in one table `api-table` _(stale:" in folder


def test_a_section_scope_covers_its_facts_and_lint_checks_every_glob(tmp_path: Path) -> None:
    section = (
        "\n## Frontend\n<!-- paths: web/**, *.css -->\n"
        f"- Tailwind only\n  {FOOT.format('tailwind', 1, 'working', '')}\n"
    )
    build_tree(tmp_path, {"memory/continuity.md": _memory() + section})
    assert "`tailwind`" not in cli("context", tmp_path, "--paths", "src/a.py").output
    assert "`tailwind`" in cli("context", tmp_path, "--paths", "site.css").output
    assert cli("lint", tmp_path).exit_code == 0
    text = (tmp_path / "memory/continuity.md").read_text()
    (tmp_path / "memory/continuity.md").write_text(text.replace("*.css", "/abs/*.css"))
    result = cli("lint", tmp_path)
    assert result.exit_code == 1
    assert "error [footer-value] paths: '/abs/*.css' is absolute" in result.output


def test_fact_add_paths_writes_the_scope_and_refuses_a_glob_outside(tmp_path: Path) -> None:
    build_tree(tmp_path, {"memory/continuity.md": _memory()})
    before = (tmp_path / "memory/continuity.md").read_bytes()
    bad = cli(
        "fact", "add", "Docs build", tmp_path, "--paths", "docs/../..", "--today", "2026-02-01"
    )
    assert bad.exit_code == 1 and "--paths: 'docs/../..' is not a plain path" in bad.output
    assert (tmp_path / "memory/continuity.md").read_bytes() == before
    args = ["--paths", "docs/**", "--paths", "mkdocs.yml", "--today", "2026-02-01"]
    assert cli("fact", "add", "Docs build with mkdocs", tmp_path, *args).exit_code == 0
    assert "| paths: docs/**, mkdocs.yml -->" in (tmp_path / "memory/continuity.md").read_text()
    assert cli("lint", tmp_path).exit_code == 0
    assert "mkdocs" not in cli("context", tmp_path, "--paths", "src/x.py").output
    assert "mkdocs" in cli("context", tmp_path, "--paths", "docs/index.md").output


def test_the_mcp_tool_takes_the_same_task_and_paths(tmp_path: Path) -> None:
    build_tree(tmp_path, {"memory/continuity.md": _memory()})
    args = {"task": "webhook retries", "paths": ["src/hooks.py"]}
    done = call(McpSession(tmp_path), "memory_context", args)
    assert done.result is not None, done.err
    printed = run_console(
        "context", tmp_path, "--task", "webhook retries", "--paths", "src/hooks.py", "--json",
        cwd=tmp_path,
    )  # fmt: skip
    assert done.result.report.summary["text"] == json.loads(printed.stdout)["summary"]["markdown"]
    refused = call(McpSession(tmp_path), "memory_context", {"paths": "src"})
    assert refused.result is None


@settings(max_examples=300, deadline=None)
@given(
    st.lists(documents(odd=True), min_size=1, max_size=2),
    st.lists(st.sampled_from(["src/app.py", "docs/a.md", "README.md", "memory"]), max_size=3),
)
def test_the_paths_change_the_view_only_through_a_scope_or_a_citation(
    files: list[list[str]], paths: list[str]
) -> None:
    """What lets a prompt's check of the start context leave git unasked."""
    try:
        docs = [facts.parse(f"m{n}.md", "\n".join(f).encode()) for n, f in enumerate(files)]
    except AgentMemoryError:
        return
    if not uses_paths(docs):
        assert viewing.view(docs, "", tuple(paths)) == viewing.view(docs, "", None)


def _log(used: str) -> str:
    return f"# Session\n\nWork.\n\n## Memory References\n- Referenced: {used}\n"


def test_what_the_latest_sessions_used_comes_first_by_weight_per_byte(tmp_path: Path) -> None:
    """A date is shared by many sessions; the logs say which facts the last ones used. Those
    lead the order by their weight (halving each ``HALF_LIFE`` sessions back) per byte, ahead
    of a fact with a later ``last_used``; a log of another fact moves the order with it."""
    build_tree(tmp_path, {"memory/continuity.md": _memory()})
    before = _sections(cli("context", tmp_path).output)["Facts"]
    assert "Note on billing number 0: " not in before  # used on the first day: last
    logs = {
        "memory/sessions/2026-01-20-090000.md": _log("`note-1`"),
        "memory/sessions/2026-01-20-100000.md": _log("`note-0`, `note-5`"),
    }
    build_tree(tmp_path, logs)
    out = cli("context", tmp_path).output
    shown = _sections(out)["Facts"]
    assert shown.index("Note on billing number 0: ") < shown.index("Note on exports number 9: ")
    assert "Note on webhook retries number 1: " in shown  # the session before: half the weight
    assert cli("context", tmp_path).output == out
    docs = [facts.parse("memory/continuity.md", (tmp_path / "memory/continuity.md").read_bytes())]
    ranked = [o.fact.id for o in relevance.rank(docs, "", None, [{"note-0"}, {"note-1"}]).offers]
    assert ranked[12:14] == ["note-0", "note-1"]  # after the twelve binding facts
    assert relevance.recent_weights([{"a"}, {"a", "b"}]) == {
        "a": 1 + 0.5 ** (1 / relevance.HALF_LIFE),
        "b": 0.5 ** (1 / relevance.HALF_LIFE),
    }


def test_hooks_md_names_the_recent_use_constants_as_the_code_has_them() -> None:
    doc = " ".join((PROJECT / "HOOKS.md").read_text().split())
    assert f"the newest {relevance.RECENT_SESSIONS} session logs (`RECENT_SESSIONS`" in doc
    assert f"(`HALF_LIFE`, {relevance.HALF_LIFE} session)" in doc


def test_hooks_md_names_the_views_shares_and_floors_as_the_code_has_them() -> None:
    """Each number HOOKS.md gives for the view and the prompt hook is the code's: a change to
    one without the other fails here."""
    from agent_memory.core.agents import forms, prompt_recall

    doc = " ".join((PROJECT / "HOOKS.md").read_text().split())
    fractions = {0.2: "a fifth", 0.25: "a fourth", 0.4: "two fifths", 0.05: "a twentieth"}
    share = fractions[viewing.BINDING_SHARE]
    assert f"at most {share} of `--max-bytes` (`BINDING_SHARE`; every share here is of" in doc
    together, personal = viewing.BINDING_SHARE + viewing.PERSONAL_SHARE, viewing.PERSONAL_SHARE
    assert f"at most {fractions[together]} (`PERSONAL_SHARE`, {fractions[personal]} more)" in doc
    assert f"of the others at most {fractions[viewing.INDEX_SHARE]} (`INDEX_SHARE`)" in doc
    assert f"larger than {fractions[viewing.FACT_SHARE]} (`FACT_SHARE`)" in doc
    assert f"at most {fractions[viewing.THREAD_SHARE]} (`THREAD_SHARE`)" in doc
    assert f"longer than {forms.EXCERPT_BYTES} bytes" in doc
    assert f"at most {forms.EXCERPT_BYTES} bytes" in doc
    widths = ", ".join(map(str, forms.FIRST_LINE[:-1])) + f" or {forms.FIRST_LINE[-1]}"
    assert f"the longest of {widths} characters" in doc
    assert f"at least **{relevance.TASK_FLOOR}** (`TASK_FLOOR`" in doc
    assert f"the **{relevance.TASK_LIFTS}** best (`TASK_LIFTS`" in doc
    assert f"score at least **{prompt_recall.FLOOR}** (BM25" in doc
    assert f"the prompt's first {prompt_recall.QUERY_WORDS} distinct words" in doc
    kib = prompt_recall.BYTES // 1024
    assert f"at most **{prompt_recall.MOST}** hits and **{kib} KiB** (`MOST`, `BYTES`" in doc
