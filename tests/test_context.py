"""``context`` and the quick ``review --if-due``: the session start, through the real CLI."""

from __future__ import annotations

import datetime as dt
import json
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from agent_memory.commands.due import not_due
from agent_memory.commands.review import ReviewOptions, review
from agent_memory.commands.settle import Options
from agent_memory.core.agents.context import View, view
from agent_memory.errors import AgentMemoryError
from agent_memory.parse.facts import parse
from agent_memory.shell.load import extras, load_live
from agent_memory.shell.repo import Repo
from conftest import PROJECT, build_tree, cli, run_console, tree

EXAMPLE = PROJECT / "examples/evolving-memory-example/after"
FOOT = "<!-- id: {} | created: 2026-01-01 | last_used: 2026-01-01 | uses: {} | tier: {} -->"


def _continuity(facts: int) -> str:
    body = "".join(
        f"- Fact number {i} with some words\n  {FOOT.format(f'fact-{i}', 1, 'working')}\n"
        for i in range(facts)
    )
    return (
        "# Continuity\n\n## Project State\n- last_review: (none yet)\n\n"
        "## Architectural Invariants\n- Writes go through the outbox\n"
        f"  {FOOT.format('outbox-writes', 3, 'core')}\n\n"
        f"## Key Decisions\n{body}- A fact added by hand\n\n"
        "## Open Threads\n"
        f"- [ ] Rate limit the API\n  {FOOT.format('rate-limit', 1, 'active')}\n"
        f"- [x] Old thread\n  {FOOT.format('old-thread', 1, 'active')}\n"
    )


def test_context_orders_core_threads_then_facts_and_hides_footers() -> None:
    result = cli("context", EXAMPLE)
    assert result.exit_code == 0
    out = result.output
    order = ["## Review", "## Core and invariants", "## Open threads", "## Facts"]
    assert [out.index(h) for h in order] == sorted(out.index(h) for h in order)
    assert "`outbox-writes`" in out and "<!--" not in out
    assert "redis-sessions" not in out  # archived: recall finds it
    assert cli("context", EXAMPLE).output == out  # deterministic
    doc = json.loads(cli("context", EXAMPLE, "--json").output)
    assert doc["summary"]["markdown"].rstrip("\n") == out.rstrip("\n")


def test_context_is_bounded_and_names_every_fact_it_cannot_show(tmp_path: Path) -> None:
    build_tree(tmp_path, {"memory/continuity.md": _continuity(150)})
    full = cli("context", tmp_path, "--max-bytes", "1000000").output
    assert "not named" not in full and "`fact-149`" in full and "one line each" not in full
    small = cli("context", tmp_path, "--max-bytes", "4096").output
    assert len(small.encode()) <= 4096  # as printed, its last line break included
    assert "`outbox-writes`" in small and "`rate-limit`" in small  # binding first
    ids = set(re.findall(r"`(fact-\d+|old-thread)`", small))
    hidden = re.search(r"\n_(\d+) of 154 facts not named \(over --max-bytes\)", small)
    hand = "- A fact added by hand\n" in small  # it has no id: shown, or counted
    assert hidden and len(ids) + int(hidden.group(1)) + hand == 152  # named or counted
    # an index line carries the fact's first words, never a bare id
    index = small.split("## Also in memory (one line each)\n\n", 1)[1].split("\n\n", 1)[0]
    assert index and all(
        re.fullmatch(r"- `fact-\d+` — Fact number \d+ with some words", line)
        for line in index.splitlines()
    )
    assert "## Recently closed threads\n\n- [x] Old thread `old-thread`" in full
    assert "- A fact added by hand\n" in full  # no footer yet: shown with the other facts
    tiny = cli("context", tmp_path, "--max-bytes", "1024").output
    assert "facts not named (over --max-bytes); `agent-memory recall QUERY`" in tiny
    assert cli("context", tmp_path, "--max-bytes", "10").exit_code == 2


def _counted(view: View, text: str) -> int:
    hidden = re.search(r"\n_(\d+) of \d+ facts not named", text)
    return len(view.full) + len(view.named) + (int(hidden.group(1)) if hidden else 0)


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=0, max_value=60), st.integers(min_value=256, max_value=6000))
def test_render_stays_in_budget_and_accounts_for_every_fact(facts: int, budget: int) -> None:
    doc = parse("memory/continuity.md", _continuity(facts).encode())
    due = ["12 session logs since the last review (review_every: 10)"]
    seen = view([doc], "", None, budget, due)
    assert len(seen.text.encode()) <= budget
    assert not set(seen.full) & set(seen.named)
    if budget >= 2048:
        # every fact is shown or counted (the hand-added one has no id: shown, or counted)
        hand = "- A fact added by hand\n" in seen.text
        assert _counted(seen, seen.text) + hand == facts + 4
        for fact_id in seen.full:
            assert re.search(rf"^- .*`{fact_id}`$", seen.text, re.MULTILINE)
        for fact_id in seen.named:
            assert f"\n- `{fact_id}`" in seen.text
    assert view([doc], "", None, budget, due).text == seen.text


def test_context_says_when_a_review_is_due(tmp_path: Path) -> None:
    logs = {f"memory/sessions/2026-01-{d:02d}-100000.md": "# S\n" for d in range(1, 13)}
    build_tree(tmp_path, {"memory/continuity.md": _continuity(2), **logs})
    out = cli("context", tmp_path).output
    assert "- due: 12 session logs since the last review" in out


def test_context_without_memory_is_one_line_and_exit_1(tmp_path: Path) -> None:
    result = cli("context", tmp_path)
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        f"agent-memory: {tmp_path}: not an agent-memory repo (looked for memory/continuity.md "
        "or .agent/version.md here and in every folder above up to / (the file system's "
        "root)); run agent-memory enable first"
    ]


def test_quick_if_due_agrees_with_the_review_and_writes_nothing(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo)
    before = tree(repo)
    assert not_due(Repo(repo)) is not None
    quick = run_console("review", repo, "--if-due", cwd=tmp_path)
    assert (quick.returncode, quick.stdout, quick.stderr) == (0, "", "")
    full = json.loads(cli("review", repo, "--if-due", "--json").output)
    assert full["outcome"] == "not due"
    assert tree(repo) == before
    for day in range(1, 13):
        (repo / f"memory/sessions/2027-01-{day:02d}-100000.md").write_text("# S\n")
    assert not_due(Repo(repo)) is None
    due = cli("review", repo, "--if-due", "--json", "--today", "2027-02-01").output
    assert "due" in json.loads(due)["summary"]
    assert not_due(Repo(tmp_path)) is None


_QUICK_CASES = {
    "nothing due": {},
    "a log names an archived fact": {
        "memory/sessions/2026-05-09-100000.md": (
            "# S\n\n## Memory References\n- Reactivated: redis-sessions\n"
        )
    },
    "a log names a live fact only": {
        "memory/sessions/2026-05-09-100000.md": (
            "# S\n\n## Memory References\n- Used: outbox-writes\n"
        )
    },
    "a hand-run stamp": {".agent/version.md": "# Agent memory\n\n- **version:** 4.38.0\n"},
    "a policy error": {"memory/decay-policy.md": "# Memory Policy\n\n- review_every: often\n"},
    "an interrupted plan": {".agent-memory.journal/journal": "agent-memory journal 1 sha256:00\n"},
}


@pytest.mark.parametrize("case", _QUICK_CASES)
def test_the_quick_answer_is_not_due_only_when_the_review_is(tmp_path: Path, case: str) -> None:
    """The session-start answer never hides what the full ``review --if-due`` would do: a
    pending reactivation, an adoption to ask for, a bad policy, a journal."""
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo)
    build_tree(repo, _QUICK_CASES[case])
    before = tree(repo)
    quick = not_due(Repo(repo))
    assert (quick is not None) == (case in ("nothing due", "a log names a live fact only"))
    try:
        options = Options(today=dt.date(2026, 5, 9))
        opened = Repo(repo)
        with opened.locked():
            full = review(opened, ReviewOptions(if_due=True), options).report.to_json()
    except AgentMemoryError:
        full = "refused"
    if quick is not None:
        assert quick.report.to_json() == full
        assert run_console("review", repo, "--if-due", "--json", cwd=tmp_path).stdout == full + "\n"
        assert tree(repo) == before
    else:
        assert full == "refused" or json.loads(full)["outcome"] != "not due"


def test_one_file_threads_and_the_vision_are_in_the_view() -> None:
    """DESIGN §13: an open thread living in memory/open-threads/ is shown like one of
    continuity.md, and vision.md's fact is core."""
    out = cli("context", PROJECT / "examples/handrun-4x-repo/after").output
    threads = out.split("## Open threads\n", 1)[1].split("\n## ", 1)[0]
    assert "`ot-courier-batching`" in threads and "`ot-spring-boot-3.4-upgrade`" in threads
    core = out.split("## Core and invariants\n", 1)[1].split("\n## ", 1)[0]
    assert "`vision-harbor-dispatch`" in core


def _vision(words: int) -> str:
    prose = "\n".join(
        f"Line {n} of where the product goes, said in plain words." for n in range(words)
    )
    return (
        "# Vision — harbor\n\n> The north star.\n>\n"
        "> <!-- id: vision-harbor | created: 2026-01-01 | last_used: 2026-01-09 | uses: 3 | tier: core -->\n\n"  # noqa: E501
        f"## Elevator statement\n\nShip parcels the same day.\n\n## More\n\n{prose}\n"
    )


def test_a_fact_is_in_full_only_when_its_text_is_shown(tmp_path: Path) -> None:
    """vision.md in full is its text, not its footer's line; a fact too large for its share
    is shown by its first paragraph and the command that prints the rest, and counts as named;
    a binding fact's share holds its text."""
    big = "\n".join(
        f"  Step {n}: " + "and then the relay retries the delivery " * 3 for n in range(40)
    )
    build_tree(
        tmp_path,
        {
            "memory/continuity.md": _continuity(3).replace(
                "## Open Threads\n",
                "## Open Threads\n- [ ] Rework the relay\n"
                f"{big}\n  {FOOT.format('big-one', 1, 'active')}\n",
            ),
            "memory/vision.md": _vision(120),
        },
    )
    docs = [load_live(Repo(tmp_path)).continuity, *extras(Repo(tmp_path))]
    small = view(docs, "", None, 8192)
    assert "vision-harbor" in small.named and "vision-harbor" not in small.full
    assert "- **Vision:** Vision — harbor `vision-harbor`\n  > The north star.\n" in small.text
    assert "_(first paragraph; the rest: read memory/vision.md)_" in small.text
    assert "Line 119 of where" not in small.text
    assert "big-one" in small.named and "Step 39" not in small.text
    assert "- [ ] Rework the relay\n  Step 0: and then" in small.text
    assert "_(first paragraph; the rest: `agent-memory fact show big-one` prints it)_" in small.text
    assert "outbox-writes" in small.full  # binding, in full first
    assert "- Writes go through the outbox `outbox-writes`\n" in small.text
    large = view(docs, "", None, 60000)
    assert {"vision-harbor", "big-one"} <= set(large.full) and not large.named
    assert "  Line 119 of where the product goes, said in plain words.\n" in large.text
    assert "  ## Elevator statement\n  Ship parcels the same day.\n" in large.text
    assert "Step 39" in large.text and "first paragraph" not in large.text
    assert cli("context", tmp_path).output.rstrip("\n") == small.text.rstrip("\n")


def test_a_fact_s_id_closes_its_text_never_inside_a_sentence_list_or_code(tmp_path: Path) -> None:
    """A one-line fact has its id at the line's end; a longer one has it on a line of its own
    after its last line, so that no sentence, list item or fence of the fact takes it in (a
    closing fence followed by words would no longer close the block)."""
    body = (
        "- Routes are coupled only by name strings and\n"
        "  `EventEnvelope`; flows live in YAML.\n"
        "  - first step\n"
        "  ```sh\n"
        "  make test\n"
        "  ```\n"
        f"  {FOOT.format('routes-by-name', 2, 'active')}\n"
        f"- One line only {FOOT.format('one-line', 1, 'active')}\n"
    )
    build_tree(tmp_path, {"memory/continuity.md": f"# C\n\n## Key Decisions\n{body}"})
    shown = cli("context", tmp_path).output
    assert (
        "- Routes are coupled only by name strings and\n  `EventEnvelope`; flows live in YAML.\n"
        "  - first step\n  ```sh\n  make test\n  ```\n  `routes-by-name`\n"
    ) in shown
    assert "- One line only `one-line`\n" in shown
    assert "and `routes-by-name`" not in shown


_BLOCK_LINES = (
    "plain words here", "```sh", "```", "~~~", "````", "```python title", "    ```",
    "<details>", "</details>", "<!-- note", "-->", "<!-- -->", "<div>", "</div>", "<pre>", "</pre>",
    "<script>", "</script>", "<?php", "?>", "<![CDATA[", "]]>", "<span>x</span>", "| a | b |",
    "- nested item", "* star", "1. numbered", "> quoted", "    indented code", "# heading",
    "***", "---", "===", "\t tabbed",
)  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from(_BLOCK_LINES), min_size=1, max_size=5), max_size=3),
    st.booleans(),
)
def test_every_fact_in_full_renders_its_id_as_code(bodies: list[list[str]], first: bool) -> None:
    """Whatever blocks a fact's lines open, close or leave open (fences, HTML, lists, quotes,
    headings; its footer on its first line or under the text), its id in the view is a code
    span of its own when the view is rendered as CommonMark: no block of the fact takes it."""
    text = "# C\n\n## Key Decisions\n"
    for n, body in enumerate(bodies):
        foot = FOOT.format(f"fact-{n}", 1, "active")
        lines = "".join(f"  {line}\n" for line in body)
        text += f"- Fact {n} {foot}\n{lines}" if first else f"- Fact {n}\n{lines}  {foot}\n"
    seen = view([parse("memory/continuity.md", text.encode())], "", None, 20000)
    rendered = MarkdownIt("commonmark").render(seen.text)
    for fact_id in seen.full:
        assert f"<code>{fact_id}</code>" in rendered


def test_a_fact_ending_inside_a_block_has_its_id_after_its_first_line(tmp_path: Path) -> None:
    """A fence the fact never closes, or an HTML block (its blank line, which would end it, is
    not in the view), would take a line after the text in: the id goes after the first line,
    where no block of the fact can hold it. Rendered, it is the first line's code span."""
    body = (  # each footer on the bullet's line: one under the text would be the block's
        f"- Run the smoke tests first {FOOT.format('unclosed-fence', 2, 'active')}\n"
        "  ```sh\n  make smoke\n"
        f"- Release notes live in the details {FOOT.format('html-details', 2, 'active')}\n"
        "  <details>\n  <summary>notes</summary>\n  </details>\n"
    )
    build_tree(tmp_path, {"memory/continuity.md": f"# C\n\n## Key Decisions\n{body}"})
    shown = cli("context", tmp_path).output
    assert "- Run the smoke tests first `unclosed-fence`\n  ```sh\n  make smoke\n" in shown
    assert "- Release notes live in the details `html-details`\n  <details>\n" in shown
    rendered = MarkdownIt("commonmark").render(shown)
    for fact_id in ("unclosed-fence", "html-details", "routes-by-name"):
        assert f"<code>{fact_id}</code>" in rendered or fact_id not in shown


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(min_value=0, max_value=4000), min_size=1, max_size=25),
    st.integers(min_value=256, max_value=9000),
)
def test_facts_of_any_size_stay_in_budget_each_shown_once(sizes: list[int], budget: int) -> None:
    """Large facts go by excerpt, small ones in full or by a line with words; every id is in
    exactly one of full, named and cut, and the view never passes the budget."""
    body = "".join(
        f"- Fact {i} about the relay\n  {'word ' * (size // 5)}\n  "
        f"{FOOT.format(f'fact-{i}', i, 'core' if i % 4 == 0 else 'working')}\n"
        for i, size in enumerate(sizes)
    )
    doc = parse("memory/continuity.md", f"# C\n\n## Key Decisions\n{body}".encode())
    seen = view([doc], "", None, budget)
    assert len(seen.text.encode()) <= budget
    every = [*seen.full, *seen.named, *seen.cut]
    assert sorted(every) == sorted(f"fact-{i}" for i in range(len(sizes)))
    for fact_id in seen.full:  # its whole text
        i = int(fact_id.split("-")[1])
        words = ("  " + "word " * (sizes[i] // 5)).rstrip()
        if words:  # a fact of more than one line has its id on a line of its own, at its end
            assert f"- Fact {i} about the relay\n{words}\n  `{fact_id}`\n" in seen.text
        else:
            assert f"- Fact {i} about the relay `{fact_id}`\n" in seen.text
    for fact_id in seen.named:  # by excerpt or by its one line: never its id alone
        assert not re.search(rf"^- `{fact_id}`$", seen.text, re.MULTILINE)
    assert view([doc], "", None, budget) == seen


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 9), st.sampled_from(["working", "core", "active"])), max_size=8
    ),
    st.integers(min_value=300, max_value=4000),
)
def test_a_view_after_others_of_the_same_text_is_the_view_of_that_memory_afresh(
    changes: list[tuple[int, str]], budget: int
) -> None:
    """What a fact shows is kept by its document's text (a replay's states share it): a view
    asked after views of other footers and marks on the same text is the view of that memory
    parsed afresh, byte for byte."""
    sizes = [40, 900, 10, 2000, 60, 300, 5, 700, 80, 1200]
    lines = [
        f"- Fact {i} about the relay\n  {'word ' * (size // 5)}\n  "
        f"{FOOT.format(f'fact-{i}', i, 'working')}\n"
        for i, size in enumerate(sizes)
    ]
    first = parse("memory/continuity.md", f"# C\n\n## Key Decisions\n{''.join(lines)}".encode())
    view([first], "", None, budget, marks={"fact-1": "cites a.py, gone"})
    for i, tier in changes:
        lines[i] = (
            lines[i]
            .replace("tier: working", f"tier: {tier}")
            .replace(f"uses: {i} ", f"uses: {i + 7} ")
        )
        now = f"# C\n\n## Key Decisions\n{''.join(lines)}".encode()
        fresh = parse("memory/continuity.md", now)
        kept = first._replace(facts=fresh.facts)  # the first text, today's footers
        assert view([kept], "", None, budget) == view([fresh], "", None, budget)
        assert view([kept], "", None, budget, marks={"fact-3": "stale"}) == view(
            [fresh], "", None, budget, marks={"fact-3": "stale"}
        )


def test_hooks_md_by_hand_skips_what_the_view_leaves_out_and_nothing_else(tmp_path: Path) -> None:
    """HOOKS.md § Session start, by hand: the view leaves out archived and superseded facts
    only; an archive candidate and a checked thread not yet swept are shown. The page said to
    skip both, so a session reading by hand missed facts its start view shows."""
    doc = " ".join((PROJECT / "HOOKS.md").read_text().split())
    assert "skipping only facts whose footer says `archived` or `superseded`" in doc
    foot = "<!-- id: {} | created: 2026-01-01 | last_used: 2026-01-01 | uses: 1 | tier: {} -->"
    cont = "# Continuity\n\n## Key Decisions\n" + "".join(
        f"- Fact {i}\n  {foot.format(i, tier)}\n"
        for i, tier in (("fading", "archive-candidate"), ("gone", "superseded"))
    )
    cont += f"\n## Open Threads\n- [x] Done thing\n  {foot.format('done-thing', 'active')}\n"
    build_tree(tmp_path, {"memory/continuity.md": cont})
    shown = cli("context", tmp_path).output
    assert "`fading`" in shown and "`done-thing`" in shown and "`gone`" not in shown
