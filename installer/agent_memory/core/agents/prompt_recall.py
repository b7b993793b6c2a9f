"""Recall on each prompt (``hooks install --prompt-recall``): the full text of the facts that
match what the user just asked and that the session start did not show in full, as lines the
agent reads.

Stateless: what the session start showed in full is worked out again from the memory and the
paths git gives rather than remembered (the first prompt, which the start ranked by too, is not
known then), and what an earlier prompt's hook showed in full is read from the agent's
transcript (``parse/hookcontext``). A fact the start showed only by name (its one line or
excerpt) is brought in full: its name alone does not say what it holds. A hit shown is not a
use; the agent naming it is (HOOKS.md § Recall on each prompt).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

from ...layout import ARCHIVE_DIR, CONTEXT_BYTES, VISION
from ...parse import markdown
from ...parse.facts import Document, parse
from ...parse.sidefiles import parse_vision
from .forms import full_text
from .ranking import Hit, Searched, search, words

FLOOR = 6.0  # BM25 score a hit must reach: a rare word of the prompt, or several less rare
MOST = 5  # hits shown at most
# UTF-8 bytes of the lines at most (a hit in full, else by its one line, else none): the start
# view's own budget, so that any fact it could have shown in full a prompt can bring in full
BYTES = CONTEXT_BYTES
_LOOKED_AT = 50  # best hits looked at, the shown ones skipped
# Distinct words of the prompt searched for, the first ones: a search costs a pass over every
# fact per word, and a pasted log of thousands of words must not outlast the hook's timeout.
QUERY_WORDS = 100
_FIRST = 120  # characters of a first line a hit's one line shows at most
_ARCHIVE = f"{ARCHIVE_DIR}/"  # the quarters' paths: no start context shows their facts
HEAD = "agent-memory: facts that match this prompt (not in full in the session-start context):"

Read = Callable[[str], bytes | None]  # a memory file's bytes, by its path
_BACK = 400  # lines looked back from a hit's footer for its bullet


def shown(
    query: str,
    indexes: Sequence[Searched],
    listed: Callable[[], Collection[str]],
    read: Read | None = None,
    earlier: Callable[[], Collection[str]] = frozenset,
) -> list[tuple[Hit, str]]:
    """The best hits for ``query`` over ``FLOOR`` that neither the start context, whose ids in
    full ``listed()`` gives, nor an earlier prompt's hook (``earlier()``) showed in full, at
    most ``MOST`` and ``BYTES``, each with what the agent reads of it: its full text, from the
    memory file's own bytes (``read``), when that fits what ``BYTES`` leaves, else its one line
    when that fits. Each is asked once, at the first hit that needs it: most prompts clear no
    floor. The start context shows live facts alone, so it is laid out only for a hit outside
    the archive: an archived fact is never shown there, and laying it out costs a prompt more
    than the search."""
    chosen: list[tuple[Hit, str]] = []
    size = len(HEAD.encode()) + 1
    query = " ".join(terms(query))
    full: Collection[str] | None = None
    before: Collection[str] | None = None
    for hit in search(query, indexes, _LOOKED_AT, FLOOR):
        if hit.score < FLOOR or len(chosen) == MOST:
            break
        before = earlier() if before is None else before
        if hit.id in before:
            continue
        if not hit.path.startswith(_ARCHIVE):
            full = listed() if full is None else full
            if hit.id in full:
                continue
        for text in (_in_full(hit, read), _line(hit)):
            cost = len(text.encode()) + 1
            if text and size + cost <= BYTES:
                chosen.append((hit, text))
                size += cost
                break
    return chosen


def terms(query: str) -> list[str]:
    """The words of ``query`` searched for: its distinct words, the first ``QUERY_WORDS``."""
    return list(dict.fromkeys(words(query)))[:QUERY_WORDS]


def lines(chosen: Sequence[tuple[Hit, str]]) -> tuple[str, ...]:
    """What the agent reads of ``shown``'s hits: nothing when there is none."""
    return (HEAD, *(text.rstrip("\n") for _, text in chosen)) if chosen else ()


def _in_full(hit: Hit, read: Read | None) -> str:
    """The hit's heading line and its text as ``context`` shows a fact in full, from its
    file's bytes; "" when they do not hold it."""
    data = read(hit.path) if read is not None else None
    if data is None:
        return ""
    doc = parse_vision(data) if hit.path == VISION else _around(hit, data)
    for fact in doc.facts:
        if fact.id == hit.id:
            text = full_text(doc, fact)
            heading = f"- `{hit.id}` [{hit.tier}] {hit.path}:{hit.line}, in full:\n"
            return heading + "".join(f"  {line}\n" for line in text.splitlines())
    return ""


def _around(hit: Hit, data: bytes) -> Document:
    """The lines of ``data`` from the bullet before the hit's footer line to that line, parsed:
    the fact alone, not the archive quarter of thousands it sits in. The whole file when a line
    before that bullet may open a block (``markdown.opening``): a fence or an HTML block may hold
    it, and its lines read alone would not be what the reader reads."""
    lines = data.split(b"\n")[: hit.line]
    start = len(lines) - 1
    while start > max(0, len(lines) - _BACK) and lines[start][:2] not in _BULLETS:
        start -= 1
    before = sum(map(len, lines[:start])) + start  # where the bullet's line starts
    if markdown.opening(data[:before]) < before:
        return parse(hit.path, data)
    return parse(hit.path, b"\n".join(lines[start:]) + b"\n", hit.section or None)


_BULLETS = (b"- ", b"* ", b"+ ")


def _line(hit: Hit) -> str:
    first = hit.first_line if len(hit.first_line) <= _FIRST else hit.first_line[: _FIRST - 1] + "…"
    return f"- `{hit.id}` [{hit.tier}] {hit.path}:{hit.line}: {first}"
