"""Recall on each prompt (``hooks install --prompt-recall``): the facts that match what the user
just asked and that the session was not already shown, as a few lines the agent reads.

Stateless: what the session was shown is the session-start context, computed again from the
memory and the paths git gives rather than remembered (the first prompt, which the start ranked
by too, is not known then). A hit shown is not a use; the agent naming it is (HOOKS.md § Recall
on each prompt).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .recall import Hit, Index, search, words

FLOOR = 6.0  # BM25 score a hit must reach: a rare word of the prompt, or several less rare
MOST = 3  # hits shown at most
BYTES = 1024  # UTF-8 bytes of the lines at most; hits are cut whole
_LOOKED_AT = 50  # best hits looked at, the shown ones skipped
# Distinct words of the prompt searched for, the first ones: a search costs a pass over every
# fact per word, and a pasted log of thousands of words must not outlast the hook's timeout.
QUERY_WORDS = 100
HEAD = "agent-memory: facts that match this prompt (not in the session-start context):"


def select(query: str, indexes: Sequence[Index], shown: Callable[[], str]) -> list[Hit]:
    """The best hits for ``query`` over ``FLOOR`` whose id the start context ``shown()`` does
    not name (as it names every id: in backticks), at most ``MOST`` and ``BYTES``. The context
    is rendered only once a hit clears the floor: most prompts have none, and rendering it costs
    a prompt more than the search."""
    chosen: list[Hit] = []
    size = len(HEAD.encode()) + 1
    query = " ".join(terms(query))
    context: str | None = None
    for hit in search(query, indexes, _LOOKED_AT):
        if hit.score < FLOOR or len(chosen) == MOST:
            break
        context = shown() if context is None else context
        if f"`{hit.id}`" in context:
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
