"""The replay's sight of a view against ``context.view`` itself: the same facts in full, named
and cut, and the same bytes, for any memory, task and budget, as facts come and go."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_memory.core.agents.context import view
from agent_memory.core.replay.sight import CUT, NAMED, SHOWN, Sight
from agent_memory.parse import facts

IDS = ("outbox", "retry", "cache-key", "release-1.2.0", "é-note")
WORDS = ("outbox", "retry", "cache", "key", "release", "the", "w" * 30, "naïve", "日本語", "1")
TIERS = (None, "core", "active", "working", "archive-candidate", "archived", "superseded")
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


@settings(max_examples=300, deadline=None)
@given(MEMORY, TASK, st.integers(0, 3000), st.data())
def test_the_sight_answers_as_context_s_view_does(
    memory: list[list[tuple[int, list[tuple]]]],
    task: list[str],
    max_bytes: int,
    data: st.DataObject,
) -> None:
    paths = ["memory/continuity.md"] + [f"memory/open-threads/t{n}.md" for n in range(3)]
    docs = [_document(paths[n], sections) for n, sections in enumerate(memory)]
    held = [(n, fact) for n, doc in enumerate(docs) for fact in doc.facts]
    sight = Sight(docs, held, max_bytes)
    # facts come and go, and change their footer, before the look
    hidden = data.draw(st.sets(st.integers(0, max(len(held) - 1, 0))))
    for k, (_, fact) in enumerate(held):
        sight.show(k, "core", " ", {"last_used": "2026-02-01", "uses": "9"})
        if data.draw(st.booleans()):
            sight.look("outbox retry", IDS, list)  # the index is brought up to date, then changed
        sight.hide(k)
        if k not in hidden:
            sight.show(k, fact.field("tier"), fact.task, dict(fact.fields))
    text = " ".join(task)
    shown = [
        doc._replace(facts=tuple(f for f in doc.facts if (n, f) in kept))
        for n, doc in enumerate(docs)
        for kept in [{held[k] for k in range(len(held)) if k not in hidden}]
    ]
    expected = view(shown, text, None, max_bytes)
    assert view(sight.memory(), text, None, max_bytes) == expected
    where, size = sight.look(text, IDS, list)
    assert size == len(expected.text.encode())
    outcomes = {}
    for fact_id in IDS:
        for outcome, ids in ((SHOWN, expected.full), (NAMED, expected.named), (CUT, expected.cut)):
            if fact_id in ids:
                outcomes[fact_id] = outcome
                break
    assert where == outcomes
