"""The memory page (facts by file, section and tier; search; filters) and a fact's own page (its
text, footer, ``explain``, relations and the changes it may take)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

from ...core.facts.conflicts import Conflict, Side, against, conflicts, linked, live
from ...core.facts.duplicates import fact_text
from ...core.facts.relations import related
from ...errors import AgentMemoryError
from ...layout import PERSONAL
from ...parse.facts import Document, Fact
from ...parse.footer import TIERS
from ...shell.cited import stale_marks
from ...shell.load import load, with_related
from ...shell.repo import Repo
from .actions import ACTIONS, FACT_ACTIONS, Setting, run
from .html import e, form, link, pre, text_field

FILTERS = {
    "stale": "stale citations",
    "expiring": "with a valid-until date",
    "conflicting": "that may contradict another",
    "pinned": "pinned (tier: core)",
    "personal": "personal (yours only)",
    "archived": "archived",
}
ARCHIVED_SHOWN = 500  # an archive of 10,000 facts is searched, not read down
NOTED = 5  # the facts a card's note names that it may contradict; its page lists every one
Body = list[str]


def opened(root: Path) -> Repo:
    """The repo, refused while a journal waits to be rolled back (as every reading command)."""
    repo = Repo(root)
    repo.refuse_if_interrupted()
    return repo


def memory_page(root: Path, query: str, chosen: str) -> Body:
    repo = opened(root)
    links = [f'<a href="{link("/", {"filter": k})}">{e(v)}</a>' for k, v in FILTERS.items()]
    body = [
        '<form method="get" action="./"><input type="text" name="q" '
        f'value="{e(query)}" placeholder="search the facts (recall)"> <button>Search</button>'
        "</form>",
        f'<nav class="filters">Show only: {"".join(links)}<a href="./">all live facts</a></nav>',
    ]
    if query:
        return body + _hits(root, query)
    memory = load(repo, archives=chosen == "archived")
    mine = (memory.personal,) if memory.personal is not None else ()
    live = (*memory.documents[: len(memory.documents) - len(memory.archives)], *mine)
    stale = {k: e(v) for k, v in stale_marks(repo, live).items()}
    notes = _contradicted(live) if chosen == "conflicting" else stale
    keep = _filter(chosen, notes)
    docs = memory.archives if chosen == "archived" else mine if chosen == "personal" else live
    shown = 0
    for doc in docs:
        picked = [f for f in doc.facts if f.id is not None and keep(f)]
        if chosen == "archived":
            picked = picked[: max(0, ARCHIVED_SHOWN - shown)]
        shown += len(picked)
        if picked:
            body.append(f"<h2>{e(doc.path)}</h2>")
            body.extend(_sections(doc, picked, notes))
    if chosen == "archived" and shown >= ARCHIVED_SHOWN:
        body.append(
            f'<p class="notice">The first {ARCHIVED_SHOWN} archived facts; search for '
            "the others.</p>"
        )
    if not shown:
        body.append('<p class="notice">No fact here.</p>')
    return body


def _filter(chosen: str, notes: Mapping[str, str]) -> Callable[[Fact], bool]:
    if chosen in ("stale", "conflicting"):
        return lambda f: f.id in notes
    if chosen == "expiring":
        return lambda f: f.field("valid-until") is not None
    if chosen == "pinned":
        return lambda f: f.field("tier") == "core"
    return lambda f: True


def _opposed(docs: Sequence[Document]) -> dict[str, list[tuple[Side, Conflict]]]:
    """Each fact in a pair ``conflicts`` finds, with the other side of each of its pairs."""
    found: dict[str, list[tuple[Side, Conflict]]] = {}
    for pair in conflicts(docs):
        found.setdefault(pair.one.id, []).append((pair.other, pair))
        found.setdefault(pair.other.id, []).append((pair.one, pair))
    return found


def _contradicted(docs: Sequence[Document]) -> dict[str, str]:
    """The note (HTML) under each fact that may contradict another: a link to each other, the
    first ``NOTED`` of them (a fact like a thousand others would make a page of megabytes)."""
    anchors: dict[str, str] = {}  # one link per fact, however many notes name it
    notes = {}
    for fact_id, pairs in _opposed(docs).items():
        named = []
        for side, pair in pairs[:NOTED]:
            if side.id not in anchors:
                anchors[side.id] = f'<a href="{link("/fact", {"id": side.id})}">{e(side.id)}</a>'
            named.append(f"{anchors[side.id]} ({e(pair.kind)}: {e(pair.detail)})")
        more = f" and {len(pairs) - NOTED} more (its page lists them)" if len(pairs) > NOTED else ""
        notes[fact_id] = "may contradict " + ", ".join(named) + more
    return notes


def _sections(doc: Document, picked: Sequence[Fact], notes: Mapping[str, str]) -> Body:
    """The facts of one file under their sections' titles, each section's by tier, each with
    its note (HTML: a stale citation, or the facts it may contradict)."""
    out: Body = []
    for title in dict.fromkeys(f.section for f in picked):
        out.append(f"<h3>{e(title)}</h3>")
        here = [f for f in picked if f.section == title]
        for fact in sorted(here, key=_tier_order):
            out.append(card(doc, fact, notes.get(fact.id or "", "")))
    return out


def _tier_order(fact: Fact) -> int:
    """Core first, then as DECAY.md's tiers go; a tier we do not know, last."""
    tier = _tier(fact)
    return TIERS.index(tier) if tier in TIERS else len(TIERS)


def _tier(fact: Fact) -> str:
    return fact.field("tier") or "working"


def card(doc: Document, fact: Fact, note: str = "") -> str:
    """One fact in a list: its first line, id (a link to its page), tier, place and ``note``
    (HTML, its parts already escaped)."""
    tier = _tier(fact)
    said = f" · {note}" if note else ""
    return (
        f'<div class="fact"><p>{e(fact.first_line)}</p><p class="meta">'
        f'<a href="{link("/fact", {"id": fact.id or ""})}">{e(fact.id)}</a> '
        f'<span class="tier tier-{e(tier)}">{e(tier)}</span> {e(doc.path)}:{fact.line}{said}'
        "</p></div>"
    )


def _hits(root: Path, query: str) -> Body:
    # recall's line takes words, the last its PATH when it names a folder: the repo's, here
    said = run(("recall",), root, {"query": (*query.split(), str(root)), "limit": 50})
    if said.error is not None:
        raise said.error
    hits = said.result.report.summary["hits"] if said.result is not None else []
    if not hits:
        return [f'<p class="notice">No fact matches {e(query)}.</p>']
    return [
        f'<div class="fact"><p>{e(h["first_line"])}</p><p class="meta">'
        f'<a href="{link("/fact", {"id": h["id"]})}">{e(h["id"])}</a> '
        f'<span class="tier tier-{e(h["tier"])}">{e(h["tier"])}</span> '
        f"{e(h['path'])}:{e(h['line'])} · {e(h['section'])}</p></div>"
        for h in hits
    ]


def fact_page(root: Path, fact_id: str, setting: Setting, issue: Callable[[], str]) -> Body:
    live_docs, docs, doc, fact = found(root, fact_id)
    footer = doc.text.lines[fact.footer_line].strip() if fact.footer_line is not None else ""
    explained = run(("explain",), root, {"fact_id": fact_id, "today": setting.today})
    body = [
        card(doc, fact),
        "<h2>Text</h2>",
        pre(fact_text(doc, fact).rstrip()),
        "<h2>Footer</h2>",
        pre(footer or "(none)"),
        "<h2>Explain</h2>",
        pre((explained.out or explained.err).rstrip("\n")),
        "<h2>Related facts</h2>",
        *([card(d, f) for d, f in related(docs, fact_id)] or ["<p>None.</p>"]),
        "<h2>May contradict</h2>",
        *_contradicting(live_docs, doc, fact),
    ]
    if not setting.read_only:
        body.append("<h2>Change it</h2>")
        mine = doc.path == PERSONAL
        hidden = {"subject": fact_id, "rendered": rendered(doc, fact)}
        body.extend(_forms(fact_text(doc, fact).rstrip(), issue(), hidden, mine))
    return body


def found(
    root: Path, fact_id: str
) -> tuple[Sequence[Document], Sequence[Document], Document, Fact]:
    """The live files, those with the archive files that hold the fact or a fact related to it
    (as ``explain`` reads them), and the fact with its file."""
    repo = opened(root)
    live_docs = load(repo, archives=False).curated  # the personal file's facts too
    docs = with_related(repo, live_docs, fact_id) if fact_id else live_docs
    place = next(((d, f) for d in docs for f in d.facts if f.id == fact_id and fact_id), None)
    if place is None:
        raise AgentMemoryError(f"no fact {fact_id!r} in this memory")
    return live_docs, docs, *place


def rendered(doc: Document, fact: Fact) -> str:
    """What a fact's page shows of it (its file, text and footer), as a digest its forms carry:
    a change asked from a page of before is refused, not made to a fact the page did not show."""
    lines = doc.text.lines[fact.start : fact.end]
    return hashlib.sha256("\0".join((doc.path, *lines)).encode()).hexdigest()


def _contradicting(docs: Sequence[Document], doc: Document, fact: Fact) -> Body:
    """The live facts this one may contradict: ``fact add``'s check of its text against the
    others (one fact's pairs, not every pair of the memory), less itself and the facts linked
    to it, as ``conflicts`` leaves them out."""
    others = {f.id: f for _, f in live(docs)}
    pairs = [
        pair
        for pair in against(fact_text(doc, fact), docs)
        if fact.id in others
        and pair.other.id in others
        and pair.other.id != fact.id
        and not linked(fact, others[pair.other.id])
    ]
    return [
        f'<p class="meta"><a href="{link("/fact", {"id": pair.other.id})}">{e(pair.other.id)}</a> '
        f"{e(pair.other.first_line)} · {e(pair.kind)}: {e(pair.detail)}</p>"
        for pair in pairs
    ] or ["<p>None.</p>"]


def _forms(
    text: str, token: str, hidden: Mapping[str, str], personal: bool = False
) -> Iterable[str]:
    """One form per action, each posting to its preview (the plan's diff, nothing written), all
    with the page's one token and ``hidden`` (the fact's id, what the page showed of it). A
    personal fact may be shared, not superseded (its successor would be the team's); a team
    fact, the other way round."""
    labels = {"text": "Text", "reason": "Reason", "until": "Valid until (YYYY-MM-DD)"}
    labels |= {"other": "Related fact's id", "place": "File[:A-B]"}
    for name in FACT_ACTIONS:
        if name == ("supersede" if personal else "share"):
            continue
        action = ACTIONS[name]
        fields = [
            text_field(f, labels[f], text if name == "edit" else "", area=f == "text")
            for f in action.fields
        ]
        kept = {"action": name, **hidden}
        yield form("/preview", token, fields, f"{action.label}: preview", hidden=kept)
