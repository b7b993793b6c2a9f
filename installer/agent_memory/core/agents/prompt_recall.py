"""Recall on each prompt (``hooks install --prompt-recall``): the facts that match what the user
just asked and that the session was not already shown, as a few lines the agent reads.

Stateless: what the session was shown is the list of facts of the session-start context, laid
out again from the memory and the paths git gives rather than remembered (the first prompt,
which the start ranked by too, is not known then). A hit shown is not a use; the agent naming it
is (HOOKS.md § Recall on each prompt).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

from ...layout import ARCHIVE_DIR
from .ranking import Hit, Searched, search, words

FLOOR = 6.0  # BM25 score a hit must reach: a rare word of the prompt, or several less rare
MOST = 3  # hits shown at most
BYTES = 1024  # UTF-8 bytes of the lines at most; hits are cut whole
_LOOKED_AT = 50  # best hits looked at, the shown ones skipped
# Distinct words of the prompt searched for, the first ones: a search costs a pass over every
# fact per word, and a pasted log of thousands of words must not outlast the hook's timeout.
QUERY_WORDS = 100
_ARCHIVE = f"{ARCHIVE_DIR}/"  # the quarters' paths: no start context lists their facts
HEAD = "agent-memory: facts that match this prompt (not in the session-start context):"


def select(
    query: str, indexes: Sequence[Searched], listed: Callable[[], Collection[str]]
) -> list[Hit]:
    """The best hits for ``query`` over ``FLOOR`` that the start context, whose ids
    ``listed()`` gives, did not list, at most ``MOST`` and ``BYTES``. The start context lists
    live facts alone, so it is laid out only for a hit outside the archive: most prompts clear
    no floor, an archived fact is never listed, and laying it out costs a prompt more than the
    search."""
    chosen: list[Hit] = []
    size = len(HEAD.encode()) + 1
    query = " ".join(terms(query))
    shown: Collection[str] | None = None
    for hit in search(query, indexes, _LOOKED_AT, FLOOR):
        if hit.score < FLOOR or len(chosen) == MOST:
            break
        if not hit.path.startswith(_ARCHIVE):
            shown = listed() if shown is None else shown
            if hit.id in shown:
                continue
        cost = len(_line(hit).encode()) + 1
        if size + cost > BYTES:
            continue
        chosen.append(hit)
        size += cost
    return chosen


def terms(query: str) -> list[str]:
    """The words of ``query`` searched for: its distinct words, the first ``QUERY_WORDS``."""
    return list(dict.fromkeys(words(query)))[:QUERY_WORDS]


def lines(hits: Sequence[Hit]) -> tuple[str, ...]:
    """What the agent reads: nothing when there is no hit."""
    return (HEAD, *map(_line, hits)) if hits else ()


def _line(hit: Hit) -> str:
    return f"- `{hit.id}` [{hit.tier}] {hit.path}:{hit.line}: {hit.first_line}"
