"""LogNames answers from the names as listed what sorting and matching every name would answer."""

from __future__ import annotations

import bisect
import re

from hypothesis import given
from hypothesis import strategies as st

from agent_memory.parse.lognames import LogNames

LOG = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}-[0-9]{6}(?:-[A-Za-z0-9][A-Za-z0-9._-]*)?\.md\Z")

stamps = st.builds(
    "{:04}-{:02}-{:02}-{:06}".format,
    st.integers(2024, 2026),
    st.integers(1, 3),
    st.integers(1, 3),
    st.sampled_from([0, 101500, 235959]),
)
logs = st.builds(
    lambda stamp, slug: f"{stamp}{slug}.md", stamps, st.sampled_from(["", "-fix", "-a.b", "-Z"])
)
strays = st.sampled_from(
    [".gitkeep", ".DS_Store", "README.md", "2026-01-01.md", "2026-01-01-1015.md", "0", "-x.md"]
)
# A mark is a log's stem or a name of any shape a hand edit could leave.
marks = st.one_of(stamps, logs.map(lambda n: n[:-3]), st.text("0123456789-.abc", max_size=22))


@given(st.lists(st.one_of(logs, strays), unique=True), st.randoms())
def test_logs_and_strays_are_the_sorted_matches(names: list[str], rng: object) -> None:
    listed = list(names)
    rng.shuffle(listed)  # type: ignore[attr-defined]
    found = LogNames(listed)
    expected = sorted(n for n in names if LOG.match(n))
    assert found.logs == tuple(expected)
    assert found.strays == tuple(
        sorted(n for n in names if not n.startswith(".") and n not in expected)
    )
    assert found.newest == (expected[-1] if expected else None)
    count = rng.randrange(0, 6)  # type: ignore[attr-defined]
    assert LogNames(listed).latest(count) == tuple(reversed(expected))[:count]
    assert found.latest(count) == tuple(reversed(expected))[:count]  # the sorted logs known


@given(st.lists(st.one_of(logs, strays), unique=True), marks, st.integers(0, 12), st.booleans())
def test_after_and_beyond_agree_with_a_bisect_on_the_sorted_logs(
    names: list[str], mark: str, read: int, sorted_first: bool
) -> None:
    found = LogNames(reversed(names))
    expected = sorted(n for n in names if LOG.match(n))
    if sorted_first:  # the other way: the sorted logs are there already
        assert found.logs == tuple(expected)
    key = mark + ".md"
    at = bisect.bisect_right(expected, key)
    assert found.after(key) == tuple(expected[at:])
    assert found.beyond(key, read) == max(0, at - read)
