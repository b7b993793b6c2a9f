"""Many facts added at once (``import``) give what adding them one by one gave, with
continuity.md parsed a bounded number of times however many there are."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pytest import MonkeyPatch

from agent_memory.core.facts.add import NewFact, add_fact
from agent_memory.core.facts.bulk import Wanted, add_all
from agent_memory.core.facts.elsewhere import Elsewhere
from agent_memory.core.review import moves
from agent_memory.errors import DuplicateError
from agent_memory.layout import CONTINUITY
from agent_memory.parse import facts
from agent_memory.parse.facts import Document
from agent_memory.parse.text import Text

DAY = dt.date(2026, 6, 2)
BASE = (
    "# Continuity\n\n## Project State\nA service.\n\n## Key Decisions\n"
    "- Use the outbox for webhooks\n  <!-- id: outbox | tier: working | created: 2026-01-01 "
    "| last_used: 2026-01-01 | uses: 1 -->\n\n## Conventions\n\n## Open Threads\n"
)
ARCHIVE = (
    "# Archive 2025-Q4\n\n## Facts\n- Deploy from CI only\n  <!-- id: ci-deploy | tier: "
    "archived | created: 2025-01-01 | last_used: 2025-01-01 | uses: 1 | from: Key Decisions "
    "| archived: 2025-12-01 -->\n"
)
_WORDS = ["use", "the", "outbox", "deploy", "from", "ci", "only", "cache", "auth", "tokens"]


def _one_by_one(
    doc: Document, others: Elsewhere, wanted: Sequence[Wanted]
) -> tuple[Document, list[tuple[int, NewFact]], list[tuple[int, str]]]:
    """How 5.1.0 imported: each entry added to the file as the one before left it, parsed."""
    added: list[tuple[int, NewFact]] = []
    skipped: list[tuple[int, str]] = []
    for index, one in enumerate(wanted):
        wanted_id = one.wanted_id
        if wanted_id and (others.place(wanted_id) or any(f.id == wanted_id for f in doc.facts)):
            wanted_id = None
        try:
            new = add_fact(
                doc, others, one.text, one.section, wanted_id, one.thread, DAY, True,
                imported=one.fields, checked=one.checked,
            )  # fmt: skip
        except DuplicateError as exc:
            skipped.append((index, exc.existing))
            continue
        doc = facts.parse(CONTINUITY, new.after)
        added.append((index, new))
    return doc, added, skipped


_ONE = st.builds(
    Wanted,
    st.lists(st.sampled_from(_WORDS), min_size=1, max_size=5).map(" ".join).map(str.capitalize),
    st.sampled_from(["Key Decisions", "key decisions", "Conventions", "Gotchas", "gotchas"]),
    st.sampled_from([None, None, "outbox", "ci-deploy", "mine", "use"]),
    st.booleans(),
    st.booleans(),
    st.just({"origin": "claude:x.md"}),
    st.just("claude:x.md:1"),
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_ONE, max_size=8))
def test_adding_all_at_once_gives_what_one_by_one_gave(wanted: list[Wanted]) -> None:
    doc = facts.parse(CONTINUITY, BASE.encode())
    others = Elsewhere([("memory/archive/2025-Q4.md", ARCHIVE.encode())])
    expected, added, skipped = _one_by_one(doc, others, wanted)
    after, found, passed = add_all(doc, others, wanted, DAY, "x")
    assert after.render() == expected.render()
    assert [(i, _now(n, after)) for i, n in found] == [(i, _now(n, after)) for i, n in added]
    assert passed == skipped


def _now(new: NewFact, after: Document) -> NewFact:
    """``new`` as the report shows it: the facts of continuity.md it is like at their lines
    once all are added (one by one gave the line before the later ones, a line since moved)."""
    lines = {f.id: f.line for f in after.facts}
    similar = [m._replace(line=lines[m.id]) if m.path == CONTINUITY else m for m in new.similar]
    return new._replace(after=b"", similar=tuple(similar))


def test_the_memory_is_parsed_once_however_many_entries(monkeypatch: MonkeyPatch) -> None:
    doc = facts.parse(CONTINUITY, BASE.encode())
    fields = {"origin": "claude:x.md"}
    text = "Entry {} says {} {}"
    wanted = [
        Wanted(text.format(n, _WORDS[n % 10], n * 7), "Conventions", None, False, False, fields, "")
        for n in range(300)
    ]
    parsed: list[Text] = []
    real = moves.parse_text
    monkeypatch.setattr(moves, "parse_text", lambda *a: parsed.append(a[1]) or real(*a))
    after, found, _ = add_all(doc, Elsewhere([]), wanted, DAY, "x")
    assert len(found) == 300 and len(after.facts) == 301
    assert len(parsed) == 1  # once, at the end; one by one parsed it 300 times
