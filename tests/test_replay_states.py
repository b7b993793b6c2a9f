"""The replay's states: the memory files as facts come and go, handed to ``context.view``, whose
view the replay reads as it is (no layout of its own), kept only while nothing changed."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_memory.core.agents.context import Entries, view
from agent_memory.core.agents.relevance import RECENT_SESSIONS
from agent_memory.core.replay.run import CUT, HIDDEN, LIVE, NAMED, SHOWN, steps
from agent_memory.core.replay.states import States
from agent_memory.parse import facts

IDS = ("outbox", "retry", "cache-key", "release-1.2.0", "é-note")
WORDS = ("outbox", "retry", "cache", "key", "release", "the", "w" * 30, "naïve", "日本語", "1")
TIERS = (None, "core", "active", "working", "archive-candidate")
SECTIONS = ("Key Decisions", "Architectural Invariants", "Open Threads", "Conventions")

FACT = st.tuples(
    st.sampled_from((*IDS, None)),
    st.sampled_from(TIERS),
    st.sampled_from(("", "[ ] ", "[x] ")),
    st.lists(st.sampled_from(WORDS), min_size=0, max_size=12),  # its first line
    st.integers(0, 3),  # lines after it
    st.integers(1, 28),  # last used, day of January
    st.integers(1, 12),  # uses
)


def _document(path: str, sections: list[tuple[int, list[tuple]]]) -> facts.Document:
    text = "# Continuity\n"
    for title, made in sections:
        text += f"\n## {SECTIONS[title]}\n\n"
        for fact_id, tier, box, words, more, day, uses in made:
            fields = [f"id: {fact_id}"] if fact_id else []
            fields += [f"created: 2026-01-01 | last_used: 2026-01-{day:02d} | uses: {uses}"]
            fields += [f"tier: {tier}"] if tier else []
            body = "".join(f"  and {' '.join(words[:n])} more\n" for n in range(more))
            text += f"- {box}{' '.join(words) or 'x'}\n{body}  <!-- {' | '.join(fields)} -->\n"
    return facts.parse(path, text.encode())


SECTION = st.tuples(st.integers(0, len(SECTIONS) - 1), st.lists(FACT, max_size=6))
MEMORY = st.lists(st.lists(SECTION, min_size=1, max_size=3), min_size=1, max_size=3)
TASK = st.lists(
    st.one_of(st.sampled_from(WORDS), st.sampled_from(IDS).map(lambda i: f"`{i}`,")), max_size=20
)
# what happens to a fact: shown with its own footer, with another, or hidden
MOVE = st.tuples(st.integers(0, 40), st.sampled_from(("own", "other", "hide")))


@settings(max_examples=200, deadline=None)
@given(MEMORY, TASK, st.integers(256, 3000), st.lists(MOVE, max_size=30), st.booleans())
def test_the_states_hand_context_the_memory_as_it_stands_and_read_its_view_as_it_is(
    memory: list[list[tuple[int, list[tuple]]]],
    task: list[str],
    max_bytes: int,
    moves: list[tuple[int, str]],
    look_between: bool,
) -> None:
    """Whatever came and went before, and whichever views were asked between, the memory
    handed to the view is the documents with exactly the facts held, each with its last footer,
    and the view is ``context.view``'s of them, byte for byte."""
    paths = ["memory/continuity.md"] + [f"memory/open-threads/t{n}.md" for n in range(3)]
    docs = [_document(paths[n], sections) for n, sections in enumerate(memory)]
    held = [(n, fact) for n, doc in enumerate(docs) for fact in doc.facts]
    states = States(docs, held)
    text = " ".join(task)
    expected: dict[int, facts.Fact] = {}  # the facts held, as the view is handed them
    for step, (index, move) in enumerate(moves):
        if not held:
            break
        k = index % len(held)
        fact = held[k][1]
        if move == "hide":
            states.hide(k)
            expected.pop(k, None)
        else:
            fields = dict(fact.fields) if move == "own" else {"last_used": "2026-02-01"}
            tier = fact.field("tier") if move == "own" else "core"
            states.show(k, tier, fact.task, fields)
            footer = {**fields, "tier": tier} if tier is not None else fields
            expected[k] = fact._replace(fields=tuple(footer.items()))
        if look_between and step % 3 == 0:
            states.seen(text, [max_bytes])
    shown = [
        doc._replace(facts=tuple(expected[k] for k in sorted(expected) if held[k][0] == n))
        for n, doc in enumerate(docs)
        if any(held[k][0] == n for k in expected)
    ]
    assert list(states.memory()) == shown
    budgets = [max_bytes, 2 * max_bytes, max_bytes // 2]  # laid out from one ranking
    at = states.seen(text, budgets)
    assert list(at) == [view(shown, text, None, b) for b in budgets]
    seen = at[0]
    (step,) = steps("log", [(fact_id, LIVE) for fact_id in IDS], [seen])
    assert step.context == len(seen.text.encode())
    for fact_id, got in step.uses:
        first = next(
            (
                o
                for o, ids in (
                    (SHOWN, seen.full),
                    (NAMED, seen.named),
                    (CUT, seen.cut),
                )
                if fact_id in ids
            ),
            HIDDEN,
        )
        assert got == first


def test_a_view_is_asked_again_only_when_the_memory_or_the_task_changed() -> None:
    doc = _document("memory/continuity.md", [(0, [("outbox", None, "", ["outbox"], 0, 3, 1)])])
    states = States([doc], [(0, doc.facts[0])])
    fact = doc.facts[0]
    states.show(0, None, None, dict(fact.fields))
    (first,) = states.seen("", [8192])
    assert states.seen("", [8192])[0] is first
    states.show(0, None, None, dict(fact.fields))  # the same footer: nothing changed
    assert states.seen("", [8192])[0] is first
    assert states.seen("outbox", [8192])[0] is not first
    states.show(0, "core", None, dict(fact.fields))
    assert states.seen("outbox", [8192])[0].text != first.text


@settings(max_examples=150, deadline=None)
@given(MEMORY, st.integers(256, 3000), st.lists(MOVE, max_size=40))
def test_entries_changed_one_fact_at_a_time_lay_out_what_entries_made_afresh_do(
    memory: list[list[tuple[int, list[tuple]]]], max_bytes: int, moves: list[tuple[int, str]]
) -> None:
    """``context.Entries`` told each fact that came, changed or went (``put``) lays out, at
    every step, what entries made from the memory as it then stands lay out."""
    paths = ["memory/continuity.md"] + [f"memory/open-threads/t{n}.md" for n in range(3)]
    docs = [_document(paths[n], sections) for n, sections in enumerate(memory)]
    held = [(n, place, fact) for n, doc in enumerate(docs) for place, fact in enumerate(doc.facts)]
    entries = Entries(docs)  # every fact in, then moved
    now: dict[int, facts.Fact] = {k: fact for k, (_, _, fact) in enumerate(held)}
    for index, move in moves:
        if not held:
            break
        k = index % len(held)
        number, place, fact = held[k]
        if move == "hide":
            now.pop(k, None)
        else:
            tier = fact.field("tier") if move == "own" else "core"
            fields = dict(fact.fields) if move == "own" else {"last_used": "2026-02-01"}
            footer = {**fields, "tier": tier} if tier is not None else fields
            now[k] = fact._replace(fields=tuple(footer.items()))
        entries.put(number, place, now.get(k))
        standing = [
            doc._replace(facts=tuple(now[k] for k in sorted(now) if held[k][0] == n))
            for n, doc in enumerate(docs)
        ]
        assert entries.views([max_bytes]) == Entries(standing).views([max_bytes])
        assert entries.views([max_bytes])[0] == view(standing, "", None, max_bytes)


# what the latest sessions used, step by step: a new session (the window slides by one) or a
# jump (another branch's sessions: the window starts again)
SESSIONS = st.lists(
    st.tuples(st.booleans(), st.frozensets(st.sampled_from(IDS), max_size=3)), max_size=40
)


@settings(max_examples=150, deadline=None)
@given(MEMORY, st.integers(256, 3000), SESSIONS, st.lists(MOVE, max_size=40))
def test_entries_told_each_new_session_lay_out_what_context_ranks_afresh(
    memory: list[list[tuple[int, list[tuple]]]],
    max_bytes: int,
    sessions: list[tuple[bool, frozenset[str]]],
    moves: list[tuple[int, str]],
) -> None:
    """Whatever the latest sessions used, slid on by one session or started again, and
    whichever facts changed between them, the kept entries lay out ``context.view``'s view of
    the memory and those sessions, byte for byte (their weights scaled, not ranked again)."""
    paths = ["memory/continuity.md"] + [f"memory/open-threads/t{n}.md" for n in range(3)]
    docs = [_document(paths[n], sections) for n, sections in enumerate(memory)]
    held = [(n, place, fact) for n, doc in enumerate(docs) for place, fact in enumerate(doc.facts)]
    entries = Entries([doc._replace(facts=()) for doc in docs])  # as the replay makes them
    for number, place, fact in held:
        entries.put(number, place, fact)
    now: dict[int, facts.Fact] = {k: fact for k, (_, _, fact) in enumerate(held)}
    window: list[frozenset[str]] = []
    for step, (slides, used) in enumerate(sessions):
        window = [used, *window][:RECENT_SESSIONS] if slides else [used]
        if held and moves:
            index, move = moves[step % len(moves)]
            k = index % len(held)
            number, place, fact = held[k]
            if move == "hide":
                now.pop(k, None)
            else:
                now[k] = fact._replace(fields=(*fact.fields, ("uses", str(step + 2))))
            entries.put(number, place, now.get(k))
        entries.reweigh(window)
        standing = [
            doc._replace(facts=tuple(now[k] for k in sorted(now) if held[k][0] == n))
            for n, doc in enumerate(docs)
        ]
        assert entries.views([max_bytes])[0] == view(standing, "", None, max_bytes, recent=window)


def test_a_thousand_sessions_in_turn_keep_the_view_context_ranks() -> None:
    """Past the most the weights are scaled by (a session doubles it), they are placed again
    from 1: before, at and after that step, and at the end, the view is ``context.view``'s."""
    made = [(i, None, "", [i, "the"], 1, 1 + n, 1) for n, i in enumerate(IDS)]
    doc = _document("memory/continuity.md", [(0, made)])
    entries = Entries([doc._replace(facts=())])
    for place, fact in enumerate(doc.facts):
        entries.put(0, place, fact)
    window: list[frozenset[str]] = []
    for step in range(1100):
        window = [frozenset({IDS[step % len(IDS)], IDS[step * 3 % len(IDS)]}), *window][:8]
        entries.reweigh(window)
        if step % 97 == 0 or 510 <= step <= 516 or step == 1099:
            expected = view([doc], "", None, 600, recent=window)
            assert entries.views([600])[0] == expected, step
