"""recall's index against the plain BM25 it replaced, and the server's cache against no cache."""

from __future__ import annotations

import math
import os
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_memory.commands.recall import build_index, recall
from agent_memory.core.agents import ranking
from agent_memory.core.agents import recall as searching
from agent_memory.errors import AgentMemoryError
from agent_memory.parse import facts
from agent_memory.parse.facts import Document, parse
from agent_memory.parse.footer import FOOTER, TIERS, without_footers
from agent_memory.shell.memo import RACY_NS, FileMemo
from agent_memory.shell.repo import Repo
from conftest import build_tree, cli, git_init

FOOT = "<!-- id: {} | created: 2026-01-01 | last_used: 2026-01-{:02d} | uses: {} | tier: {} -->"


def plain_recall(query: str, docs: list[Document], limit: int) -> list[ranking.Hit]:
    """BM25 as recall computed it before the index: every fact scored, everything sorted."""
    entries = []
    for doc in docs:
        for fact in doc.facts:
            if fact.id is None:
                continue
            text = FOOTER.sub(" ", "".join(doc.text.lines[fact.start : fact.end]))
            section = fact.field("from") or fact.section
            terms = Counter(ranking.words(f"{text} {fact.id} {section}"))
            tier = fact.field("tier") or "working"
            hit = ranking.Hit(fact.id, tier, doc.path, fact.line, section, fact.first_line, 0.0)
            recency = (
                int((fact.field("last_used") or "0").replace("-", "")),
                int(fact.field("uses") or 0),
            )
            entries.append((hit, terms, sum(terms.values()), recency))
    counted = Counter(ranking.words(query))
    if not entries or not counted:
        return []
    average = sum(n for _, _, n, _ in entries) / len(entries)
    frequency = Counter(t for _, terms, _, _ in entries for t in counted if t in terms)
    scored = []
    for hit, terms, length, (when, uses) in entries:
        score = 0.0
        for term, times in counted.items():
            tf = terms.get(term, 0)
            if tf:
                idf = math.log(1 + (len(entries) - frequency[term] + 0.5) / (frequency[term] + 0.5))
                k1, b = ranking.K1, ranking.B
                score += times * idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * length / average))
        if score > 0:
            near = math.floor(math.log(round(score, 6)) / math.log(ranking.NEAR))
            scored.append(((-near, -when, -uses), hit._replace(score=round(score, 6))))
    rank = {tier: i for i, tier in enumerate(TIERS)}
    scored.sort(key=lambda e: (*e[0], rank.get(e[1].tier, len(rank)), e[1].id))
    return [hit for _, hit in scored[:limit]]


_word = st.sampled_from(["cache", "api", "outbox", "redis", "post", "ttl", "queue", "a1"])
_fact = st.tuples(
    st.lists(_word, min_size=1, max_size=6),
    st.sampled_from([*TIERS, "archived"]),
    st.sampled_from(["Key Decisions", "Conventions", "Stack & Tools"]),
    st.integers(1, 3),
    st.integers(0, 2),
)


def _document(path: str, facts: list[tuple[list[str], str, str, int, int]], start: int) -> Document:
    by_section: dict[str, list[str]] = {}
    for n, (words, tier, section, day, uses) in enumerate(facts, start):
        item = f"- {' '.join(words)}\n  {FOOT.format(f'f-{n % 7}-{n}', day, uses, tier)}\n"
        by_section.setdefault(section, []).append(item)
    text = "# M\n" + "".join(f"\n## {s}\n{''.join(items)}" for s, items in by_section.items())
    return parse(path, text.encode())


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.lists(_fact, max_size=12), min_size=1, max_size=3),
    st.lists(_word, max_size=8).map(" ".join),
    st.integers(min_value=1, max_value=8),
)
def test_the_index_ranks_exactly_as_plain_bm25(
    documents: list[list[tuple[list[str], str, str, int, int]]], query: str, limit: int
) -> None:
    docs = [_document(f"d{i}.md", facts, 100 * i) for i, facts in enumerate(documents)]
    assert searching.recall(query, docs, limit) == plain_recall(query, docs, limit)


@given(
    st.text(st.characters(exclude_categories=()))
    | st.text("aZ0 9-_.\u212a\u0130\u00e9\u0663\u00df\u0416\u4e2d\ufb01\u0301")
)
def test_words_are_the_runs_of_letters_and_digits_in_the_case_folded_text(text: str) -> None:
    assert ranking.words(text) == re.findall(r"[^\W_]+", text.casefold())


def test_recall_finds_words_of_any_script_and_the_store_answers_alike(tmp_path: Path) -> None:
    """Recall's words were the runs of a-z and 0-9: a fact in Russian held none, and one in
    German was found by its broken halves ("gr", "e" of "Größe"). Its words, the derived
    store's tokens and duplicates' words are now one rule: letters and digits of any script."""
    root = git_init(tmp_path / "repo")
    assert cli("enable", root, "--today", "2026-01-01").exit_code == 0
    for fact_id, text in (
        ("ru-db", "Приложение использует базу данных Постгрес"),
        ("de-size", "Die Größe der Datei ist begrenzt"),
        ("fr-naive", "Un lecteur naïf lit tout"),
    ):
        added = cli("fact", "add", text, root, "--id", fact_id, "--today", "2026-01-01")
        assert added.exit_code == 0, added.output
    for query, found in (("базу данных", "ru-db"), ("grösse", "de-size"), ("naïf", "fr-naive")):
        for store in (True, False):  # made and read, then none
            if not store:
                shutil.rmtree(root / ".git/agent-memory", ignore_errors=True)
            result = cli("recall", query, root)
            assert result.exit_code == 0 and result.output.startswith(found), result.output
            assert (root / ".git/agent-memory/store.sqlite3").exists()
    assert cli("recall", "naif", root).exit_code == 1  # accents are letters of their own
    again = cli("fact", "add", "ПРИЛОЖЕНИЕ использует базу данных постгрес", root)
    assert again.exit_code == 1 and "the same fact is already ru-db" in again.output


_LINES = [
    "- A fact",
    "- A fact <!-- id: on-the-bullet | tier: core --> and after",
    "  <!-- id: a | tier: core -->",
    "  <!-- id: unclosed | tier: core",
    "  <!-- a note -->",
    "  <!-- id: c --> and <!-- id: d -->",
    "  <!-- id: e --> trailing",
    "  `<!-- id: shown -->`",
    "  more text",
    "  ```",
    "```",
    "",
    "## Facts",
]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(_LINES), max_size=10), st.sampled_from(["\n", "\r\n"]))
def test_a_facts_text_is_its_lines_without_footers(lines: list[str], newline: str) -> None:
    doc = parse("m.md", newline.join(["## Facts", *lines, ""]).encode())
    for fact in doc.facts:
        body = "".join(doc.text.lines[fact.start : fact.end])
        assert searching.text(doc.text.lines, fact) == without_footers(body)


def _archive(n: int, word: str) -> str:
    items = "".join(
        f"- Fact {i} about {word} {i % 5}\n  {FOOT.format(f'a-{i}', 1, 1, 'archived')}\n"
        for i in range(n)
    )
    return f"# Archive\n\n## Facts\n{items}"


def test_the_cache_answers_as_reading_afresh_through_every_kind_of_edit(tmp_path: Path) -> None:
    root = build_tree(
        tmp_path,
        {
            "memory/continuity.md": "# Continuity\n",
            "memory/archive/2026-Q1.md": _archive(30, "cats"),
        },
    )
    archive = root / "memory/archive/2026-Q1.md"
    built: list[str] = []

    def counting(rel: str, raw: bytes) -> ranking.Index:
        built.append(rel)
        return build_index(rel, raw)

    memo = FileMemo(counting)

    def same(query: str) -> list[dict[str, object]]:
        repo = Repo(root)
        cached = recall(repo, query, 50, index_of=memo.get).report.summary["hits"]
        assert cached == recall(repo, query, 50).report.summary["hits"]
        return list(cached)

    def age(path: Path, seconds: int) -> None:
        past = path.stat().st_mtime_ns - seconds * 1_000_000_000
        os.utime(path, ns=(past, past))

    assert len(same("cats 3")) == 30
    assert len(same("cats 3")) == 30 and len(built) == 4  # just written: racy, never trusted
    age(archive, 10)
    age(root / "memory/continuity.md", 10)
    built.clear()
    same("cats")
    same("cats 4")
    assert len(built) == 2  # read once more, then kept
    archive.write_text(_archive(30, "dogs"))  # same size, in place: racy again
    assert same("cats") == [] and len(same("dogs")) == 30
    age(archive, 10)
    replacement = root / "memory/archive/new.tmp"
    replacement.write_text(_archive(31, "eels"))
    age(replacement, 20)
    replacement.replace(archive)  # an atomic replace from outside, with an old mtime: new inode
    assert len(same("eels")) == 31
    archive.unlink()
    assert same("eels") == []
    assert RACY_NS >= 1_000_000_000


def test_a_key_belongs_to_the_bytes_read(tmp_path: Path) -> None:
    root = build_tree(tmp_path, {"a.md": "one\n"})
    repo = Repo(root)
    read = repo.read_keyed("a.md")
    assert read is not None and read[1] == b"one\n" and repo.stat_key("a.md") == read[0]
    (root / "a.md").write_text("three\n")
    assert repo.stat_key("a.md") != read[0]
    assert repo.read_keyed("missing.md") is None and repo.stat_key("missing.md") is None


def test_a_fifo_where_a_memory_file_belongs_is_refused_not_waited_on(tmp_path: Path) -> None:
    root = build_tree(tmp_path, {"memory/continuity.md": "# Continuity\n"})
    os.mkfifo(root / "other.md")
    with pytest.raises(AgentMemoryError, match="not a regular file"):
        Repo(root).read_keyed("other.md")


def _seen(ix: ranking.Index) -> tuple[object, ...]:
    """All a search can read of an index."""
    terms = {term for entry in range(len(ix)) for term in ix.terms[entry]}
    postings = {term: ix.postings(term) for term in sorted(terms)}
    return [ix.hit(entry, 0.0) for entry in range(len(ix))], ix.lengths, ix.words, postings


def test_a_file_too_long_to_parse_is_refused_either_way() -> None:
    data = b"## Facts\n- A fact\n  <!-- id: a -->\n" + b"\n" * facts.MAX_DOCUMENT_LINES
    with pytest.raises(AgentMemoryError, match="lines"):
        parse("m.md", data)
    with pytest.raises(AgentMemoryError, match="lines"):
        searching.read("m.md", data)


@given(st.lists(st.sampled_from(["a", "b", "old", "4242", "module"]), max_size=30))
def test_a_fact_s_words_are_counted_as_counter_counts_them(terms: list[str]) -> None:
    """What the store keeps of how often a fact holds each word, in the order it first holds it."""
    found = ranking.counted(terms)
    assert found == Counter(terms) and list(found) == list(Counter(terms))


def test_the_server_cache_sees_an_edit_in_place_whose_mtime_was_set_back(tmp_path: Path) -> None:
    """A same-size edit in place, its mtime then put back as it was (``touch -d``), changes no
    field but the change time, which no one can set: the cache must not answer from the old
    text."""
    root = build_tree(tmp_path / "repo", {"memory/continuity.md": "uses docker\n"})
    path = root / "memory/continuity.md"
    past = path.stat().st_mtime_ns - 10 * 1_000_000_000
    os.utime(path, ns=(past, past))
    memo = FileMemo(lambda _rel, data: data)
    assert memo.get(Repo(root), "memory/continuity.md") == b"uses docker\n"
    with path.open("r+b") as stream:  # in place: the same inode and size
        stream.write(b"uses podman\n")
    os.utime(path, ns=(past, past))
    assert memo.get(Repo(root), "memory/continuity.md") == b"uses podman\n"
