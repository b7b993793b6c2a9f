"""``agent-memory hook prompt``: the facts that match the user's prompt and that neither the
session's start nor an earlier prompt's hook showed in full (HOOKS.md § Recall on each prompt).

Most prompts clear no fact's floor, so this loads the search alone: the start's context, which a
hit of a live fact is checked against, is handed in by the command line and loaded only for one,
and the agent's transcript is read only for a first hit.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import IO

from ..core.agents import prompt_recall
from ..parse import hookcontext
from ..parse.facts import Document
from ..shell.discovery import below
from ..shell.load import extras
from ..shell.repo import Repo
from .hook_payload import (
    HOOK_WAIT,
    answer,
    event_of,
    read_payload,
    silent,
    transcript_end,
    where,
)
from .recall import in_memory
from .report import Report, Result
from .runner import Call, Command, Journal, execute
from .settle import Options

_RECALL = Command("recall", Journal.READS)
Held = Callable[[str], list[str]]  # the texts opening with a line, of our hooks' context held


def prompt(
    stdin: IO[str] | None,
    shown: Callable[[Repo, Sequence[Document], str | None, Held], Collection[str]],
) -> Result:
    """The JSON the agent adds to this turn: the hits over the floor that neither the session
    start's context, whose ids in full ``shown(repo, found, here, held)`` gives, nor an earlier
    prompt's hook showed in full (``found``: the one-file threads and vision.md, read once for
    both; ``here``: the folder the session started in, a path it touches as the start took it;
    ``held``: the texts opening with a given line that the agent holds of our hooks' context);
    nothing when none clears the floor."""
    payload = read_payload(stdin)
    if not payload.prompt:
        return silent("hook prompt")
    query = payload.prompt
    end = functools.cache(lambda: transcript_end(payload))  # read once, for the first hit

    def held(head: str) -> list[str]:
        return hookcontext.held(end(), head)

    def hits(repo: Repo) -> Result:
        found = extras(repo)
        here = below(repo.root, where(payload) or Path.cwd())
        sides = {doc.path: doc for doc in found}

        def document(rel: str) -> bytes | None:  # a hit's file, for its text
            side = sides.get(rel)
            return repo.read(rel) if side is None else side.render()

        hit = in_memory(
            repo,
            lambda ix: prompt_recall.shown(
                query,
                ix,
                lambda: shown(repo, found, here, held),
                document,
                lambda: hookcontext.in_full(held(prompt_recall.HEAD)),
            ),
            found,
        )
        data = {"hits": [h.id for h, _ in hit]}
        report = Report("recall", repo.shown, "ok", None, (), data)
        return Result(report._replace(heading=prompt_recall.lines(hit)), 0)

    done = execute(_RECALL, where(payload), Call(hits, Options(wait=HOOK_WAIT)))
    if not done.report.heading:
        return silent("hook prompt")
    text = "\n".join(done.report.heading) + "\n"
    return answer("hook prompt", event_of("prompt", payload), text, done.report.summary)
