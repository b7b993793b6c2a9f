"""``agent-memory hook prompt``: the facts that match the user's prompt and that the session's
start did not show (HOOKS.md § Recall on each prompt).

Most prompts clear no fact's floor, so this loads the search alone: the start's context, which a
hit of a live fact is checked against, is handed in by the command line and loaded only for one.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import IO

from .. import resources
from ..core.agents import candidates, kept, prompt_recall
from ..core.agents import recall as searching
from ..layout import CONTINUITY
from ..parse.facts import Document
from ..shell import cache
from ..shell.load import archive_paths, extras
from ..shell.repo import Repo
from .hook_payload import answer, event_of, read_payload, silent, where
from .report import Report, Result
from .runner import Call, Command, Journal, execute

_RECALL = Command("recall", Journal.READS)


def prompt(
    stdin: IO[str] | None, shown: Callable[[Repo, Sequence[Document]], Collection[str]]
) -> Result:
    """The JSON the agent adds to this turn: the hits over the floor that the session start's
    context, whose ids in full ``shown(repo, found)`` gives, did not show in full (``found``:
    the one-file threads and vision.md, read once for both); nothing when none clears the
    floor."""
    payload = read_payload(stdin)
    if not payload.prompt:
        return silent("hook prompt")
    query = payload.prompt

    def hits(repo: Repo) -> Result:
        searched = " ".join(prompt_recall.terms(query))
        found = extras(repo)
        read = [(rel, repo.read(rel)) for rel in (CONTINUITY, *archive_paths(repo))]
        files = {rel: raw for rel, raw in read if raw is not None}
        sides = {doc.path: doc for doc in found}

        def document(rel: str) -> bytes | None:  # a hit's file, for its text
            side = sides.get(rel)
            return files.get(rel) if side is None else side.render()

        hit: list[tuple[searching.Hit, str]] = []
        for again in (False, True):  # again: a kept index said what its file does not
            indexes = indexes_for(repo, files, (searched, prompt_recall.FLOOR), found, again)
            hit = prompt_recall.shown(query, indexes, lambda: shown(repo, found), document)
            if all(_said(h, files.get(h.path)) for h, _ in hit):
                break
        data = {"hits": [h.id for h, _ in hit]}
        report = Report("recall", resources.version(), repo.shown, "ok", None, (), data)
        return Result(report._replace(heading=prompt_recall.lines(hit)), 0)

    done = execute(_RECALL, where(payload), Call(hits))
    if not done.report.heading:
        return silent("hook prompt")
    text = "\n".join(done.report.heading) + "\n"
    return answer("hook prompt", event_of("prompt", payload), text, done.report.summary)


def indexes_for(
    repo: Repo,
    files: Mapping[str, bytes],
    asked: tuple[str, float],
    found: Sequence[Document],
    again: bool = False,
) -> list[searching.Index]:
    """``recall_indexes`` for a search of the query ``asked`` alone, down to its floor: the
    ``files`` (continuity.md and the archive's quarters, by path) hold only the facts that may
    hold a word of it and may score in the floor's band (``candidates``), and a search of it
    lists the same facts down to that band; ``found``, the one-file threads and vision.md, are
    indexed whole. A file's kept index stands for it when it is of the file's bytes: one is
    made for each file read (each, ``again``)."""
    query, floor = asked
    extra = [searching.index(doc) for doc in found]
    opened: list[cache.Entry] = []
    try:
        try:
            kept_of = _kept(repo, opened, again)
            return candidates.indexes(list(files.items()), query, extra, floor, kept_of)
        except ValueError:  # a kept index that is not what this writes: made again
            kept_of = _kept(repo, [], again=True)
            return candidates.indexes(list(files.items()), query, extra, floor, kept_of)
    finally:
        for entry in opened:
            entry.close()


def _said(hit: searching.Hit, data: bytes | None) -> bool:
    """Whether the file's bytes say what the hit shows (its id, its first line, a tier other
    than the default): a kept index is read as anyone may have written it, and what the agent
    is shown comes from the memory's files alone. A first line is looked for on each side of
    the two spaces a footer written inside it leaves (``facts.parse`` cuts it out); a hit the
    file does not say makes every index again, which a true one must never cost. A thread's or
    vision.md's hit (``data`` None) was read from its file."""
    if data is None:
        return True
    said = [hit.id, *hit.first_line.split("  "), hit.tier if hit.tier != "working" else ""]
    return all(text.strip().encode("utf-8", "surrogatepass") in data for text in said)


def _kept(
    repo: Repo, opened: list[cache.Entry], again: bool = False
) -> Callable[[str, bytes], kept.Kept | None]:
    """The kept index of a memory file (path, bytes), made when there is none for those bytes
    (or ``again``); None when the repo keeps none (``cache``). Once one cannot be kept (too
    large, or not written), no other is made this run: each file is read for the search alone,
    which costs less than making an index that is not kept. The entries it opens are added to
    ``opened``, for the caller to close."""
    kept_in: list[cache.Cache | None] = []  # found at the first file: a search may read none

    def found(rel: str, raw: bytes) -> kept.Kept | None:
        if not kept_in:
            kept_in.append(cache.cache_of(repo.root))
        if kept_in[0] is None:
            return None
        version = resources.version()
        entry = None if again else kept_in[0].open(rel, kept.limit(raw))
        if entry is not None:
            opened.append(entry)
            stored = kept.opened(rel, entry.read, entry.size, raw, version)
            if stored is not None:
                return stored
        made = kept.entry(searching.read(rel, raw), raw, version)
        if len(made) > kept.limit(raw) or not kept_in[0].save(rel, made):
            kept_in[0] = None  # no other file is kept this run: making it costs more than a read
        return kept.opened(rel, _reader(made), len(made), raw, version)

    return found


def _reader(made: bytes) -> kept.Read:
    return lambda at, length: made[at : at + max(length, 0)]
