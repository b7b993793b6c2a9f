"""``agent-memory hook prompt``: the facts that match the user's prompt and that neither the
session's start nor an earlier prompt's hook showed in full (HOOKS.md § Recall on each prompt).

Most prompts clear no fact's floor, so this loads the search alone: the start's context, which a
hit of a live fact is checked against, is handed in by the command line and loaded only for one,
and the agent's transcript is read only for a first hit.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import IO

from .. import resources
from ..core.agents import prompt_recall
from ..errors import AgentMemoryError
from ..parse import hookcontext, hookinput
from ..parse.facts import Document
from ..parse.hookinput import Payload
from ..parse.transcripts import LINE_MAX
from ..shell.discovery import below
from ..shell.load import extras
from ..shell.repo import Repo
from ..shell.stream import tail
from .hook_payload import answer, event_of, read_payload, silent, where
from .recall import in_memory
from .report import Report, Result
from .runner import Call, Command, Journal, execute

_RECALL = Command("recall", Journal.READS)
# The end of a transcript read for what an earlier prompt's hook showed: a hook record before it
# is missed (its fact shown again), a compaction before it never matters (nothing after it is).
TRANSCRIPT_TAIL = 8 << 20  # reading 30 MB cost 27 ms of CPU, its search 22 ms


def prompt(
    stdin: IO[str] | None,
    shown: Callable[[Repo, Sequence[Document], str | None], Collection[str]],
) -> Result:
    """The JSON the agent adds to this turn: the hits over the floor that the session start's
    context, whose ids in full ``shown(repo, found, here)`` gives, did not show in full
    (``found``: the one-file threads and vision.md, read once for both; ``here``: the folder
    the session started in, a path it touches as the start took it); nothing when none clears
    the floor."""
    payload = read_payload(stdin)
    if not payload.prompt:
        return silent("hook prompt")
    query = payload.prompt

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
                query, ix, lambda: shown(repo, found, here), document, lambda: _earlier(payload)
            ),
            found,
        )
        data = {"hits": [h.id for h, _ in hit]}
        report = Report("recall", resources.version(), repo.shown, "ok", None, (), data)
        return Result(report._replace(heading=prompt_recall.lines(hit)), 0)

    done = execute(_RECALL, where(payload), Call(hits))
    if not done.report.heading:
        return silent("hook prompt")
    text = "\n".join(done.report.heading) + "\n"
    return answer("hook prompt", event_of("prompt", payload), text, done.report.summary)


def _earlier(payload: Payload) -> frozenset[str]:
    """The facts an earlier prompt's hook showed in full that the agent still holds, from the
    payload's transcript; none when it names none, or none that can be read: the prompt hook
    never fails over a transcript, it shows such a fact again."""
    try:
        named = hookinput.hook_transcript(payload)
        if named is None:
            return frozenset()
        data = tail(Path(named), TRANSCRIPT_TAIL)
        return hookcontext.earlier(data, prompt_recall.HEAD, LINE_MAX)
    except AgentMemoryError:
        return frozenset()
