"""A search of the candidate facts (core/agents/candidates.py) against a search of every fact."""

from __future__ import annotations

import itertools
from collections.abc import Collection

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from agent_memory.core.agents import candidates, kept, prompt_recall, wordscan
from agent_memory.core.agents import recall as searching
from agent_memory.errors import AgentMemoryError
from test_recall_index import _blocks
from test_written import documents

# Words the generated files hold (and one no file holds): a query draws from these and the file's
_WORDS = ["fact", "system", "id", "from", "tier", "core", "key", "decisions", "x", "2026", "zebra"]


def _kept(path: str, data: bytes) -> kept.Kept | None:
    """The kept index of a file, made and opened again: what the cache folder gives a search."""
    made = kept.entry(searching.read(path, data), data, "1.0")
    return kept.opened(path, lambda at, n: made[at : at + n], len(made), data, "1.0")


def _searched(
    files: list[bytes], query: str, floor: float | None, kept_at: Collection[int] = ()
) -> object:
    """What each limit's search lists down to ``floor``'s band (None: every fact's indexes, and
    all of it), or the error reading the files raised; and each index's statistics, when a fact
    may hold a word (else no fact scores, whatever they are). The files numbered ``kept_at``
    have a kept index."""
    named = [(f"m{n}.md", data) for n, data in enumerate(files)]
    wanted = searching.words(query)

    def kept_of(path: str, data: bytes) -> kept.Kept | None:
        return _kept(path, data) if int(path[1:-3]) in kept_at else None

    try:
        if floor is None:
            indexes = [searching.read(path, data) for path, data in named]
        else:
            indexes = candidates.indexes(named, query, [], floor, kept_of)
    except AgentMemoryError as exc:
        return str(exc)
    held = any(ix.frequency(word) for ix in indexes for word in wanted)
    counts = [(ix.counted, ix.words) for ix in indexes] if held else None
    lists = [searching.search(query, indexes, limit) for limit in (1, 3, 50)]
    return counts, [_down_to(found, floor or 0.0) for found in lists]


def _down_to(hits: list[searching.Hit], floor: float) -> list[searching.Hit]:
    """The hits before the first whose band is under ``floor``'s."""
    edge = searching.band(floor) if floor > 0 else None
    return list(
        itertools.takewhile(lambda h: edge is None or searching.band(h.score) >= edge, hits)
    )


_files = st.lists(
    st.tuples(
        st.one_of(
            documents(odd=False),
            documents(odd=True),
            st.lists(_blocks, max_size=8).map(lambda b: ["## Facts", *(ln for x in b for ln in x)]),
        ),
        st.sampled_from(["", "# Archive 2026-Q1\n", "\ufeff", "\n\n"]),
        st.booleans(),
    ).map(lambda p: (p[1] + "\n".join(p[0]) + ("\n" if p[2] else "")).encode()),
    min_size=1,
    max_size=3,
)


@settings(max_examples=600, deadline=None)
@given(_files, st.data())
@example([b"## Facts\n- A fact\n  <!-- id: a | from: Key Decisions -->\n"], None)
def test_a_search_of_the_candidates_or_kept_indexes_lists_what_one_of_every_fact_lists(
    files: list[bytes], data: st.DataObject | None
) -> None:
    held = sorted({w for f in files for w in searching.words(f.decode(errors="replace"))})
    draw = st.lists(st.sampled_from([*_WORDS, *held]), min_size=1, max_size=5)
    query = " ".join(data.draw(draw) if data is not None else ["decisions"])
    floor = data.draw(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.0, 6.0])) if data else 0.0
    kept_at = data.draw(st.sets(st.integers(0, len(files) - 1))) if data else set()
    full = _searched(files, query, None)
    if floor and isinstance(full, tuple):
        full = (full[0], [_down_to(found, floor) for found in full[1]])
    fast = _searched(files, query, floor, kept_at)
    if isinstance(full, str) and not _held_anywhere(files, query):
        # no file holds a word of the query: none is read for its shape, and nothing is listed
        assert fast == (None, [[], [], []])
    else:
        assert fast == full


def _held_anywhere(files: list[bytes], query: str) -> bool:
    """Whether a word of ``query`` is a word of a file's text, anywhere in it."""
    wanted = set(searching.words(query))
    return any(wanted & set(searching.words(f.decode(errors="replace"))) for f in files)


@settings(max_examples=300, deadline=None)
@given(_files, st.data())
def test_the_prompt_hook_picks_the_same_hits_from_the_candidates(
    files: list[bytes], data: st.DataObject
) -> None:
    held = sorted({w for f in files for w in searching.words(f.decode(errors="replace"))})
    query = " ".join(data.draw(st.lists(st.sampled_from([*_WORDS, *held]), min_size=1, max_size=4)))
    named = [(f"m{n}.md", raw) for n, raw in enumerate(files)]
    try:
        full = [searching.read(path, raw) for path, raw in named]
    except AgentMemoryError:
        return
    ids = [hit.id for hit in searching.search(query, full, 50)]
    shown = set(data.draw(st.lists(st.sampled_from(ids or ["x"]))))
    fast = candidates.indexes(named, query, [], prompt_recall.FLOOR)
    assert prompt_recall.select(query, fast, lambda: shown) == prompt_recall.select(
        query, full, lambda: shown
    )


def test_a_file_in_the_reviews_shape_is_indexed_for_its_candidates_alone() -> None:
    foot = "<!-- id: f-{0} | created: 2026-01-01 | last_used: 2026-01-02 | uses: 1 | tier: {1} -->"
    body = "".join(f"- Fact {i} about cats\n  {foot.format(i, 'archived')}\n" for i in range(200))
    other = f"## Other\n- A zebra\n  {foot.format('z', 'core')}\n"
    data = f"# Archive 2026-Q1\n\n## Facts\n{body}\n{other}"
    full = searching.read("a.md", data.encode())
    (fast,) = candidates.indexes([("a.md", data.encode())], "zebra", [])
    assert (len(fast), fast.counted, fast.words) == (1, 201, full.words)
    assert searching.search("zebra", [fast], 5) == searching.search("zebra", [full], 5)
    footer_line = data.splitlines().index("- A zebra") + 2  # as every index numbers it
    assert searching.search("zebra", [fast], 5)[0].line == footer_line
    (none,) = candidates.indexes([("a.md", data.encode())], "quagga", [])
    (pruned,) = candidates.indexes([("a.md", data.encode())], "cats zebra", [], 2.0)
    assert len(pruned) == 1 and pruned.frequency("cats") == 200  # "cats" alone cannot reach 2
    assert len(none) == 0 and searching.search("quagga", [none], 5) == []


def test_a_query_no_file_holds_is_answered_without_reading_the_files_shape() -> None:
    """A word found only inside others ("it" in "commit", "submit") is not held; the files are
    then not read for their facts, nor their shape checked (a list nested too deeply to read
    is reported when a word of the query is in the file)."""
    deep = "## Facts\n" + "- " * 30 + "x\n"
    data = f"{deep}- Commit and submit\n  <!-- id: commit-rule -->\n".encode()
    files = [("m.md", data), ("n.md", "## Facts\n- Édit\n  <!-- id: e -->\n".encode())]
    (none, other) = candidates.indexes(files, "it edit", [], prompt_recall.FLOOR)
    assert (len(none), none.counted, len(other)) == (0, 0, 0)
    with pytest.raises(AgentMemoryError, match="too deeply"):
        candidates.indexes(files, "submit", [], prompt_recall.FLOOR)
    crlf = [(path, raw.replace(b"\n", b"\r\n")) for path, raw in files]  # as autocrlf checks out
    assert [len(ix) for ix in candidates.indexes(crlf, "it edit", [], 6.0)] == [0, 0]
    many = " ".join(f"w{n}" for n in range(9))  # more words than are looked for one by one
    with pytest.raises(AgentMemoryError, match="too deeply"):
        candidates.indexes(files, many, [], prompt_recall.FLOOR)
    ending = [("e.md", b"## Facts\n- Run\n  <!-- id: fix -->")]  # the last word ends the file
    assert [ix.ids for ix in candidates.indexes(ending, "fix", [])] == [("fix",)]


@given(st.text(st.characters(exclude_categories=())) | st.text("aZ0 9-_.\n\u212a\u0130\u00e9"))
def test_words_are_counted_as_they_are_split(text: str) -> None:
    assert wordscan.count_words(text) == len(searching.words(text))
