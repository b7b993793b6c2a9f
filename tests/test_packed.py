"""Packed values read back as a plain dict of them would, through puts, rewinds and compaction."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_memory.parse import packed
from agent_memory.parse.packed import Packed

_KEYS = st.sampled_from("abcdefgh")
_VALUES = st.none() | st.tuples(st.integers(), st.text(), st.lists(st.text()).map(tuple))
_STEPS = st.lists(st.tuples(_KEYS, _VALUES) | st.integers(0, 8), max_size=60)


@settings(max_examples=300, deadline=None)
@given(_STEPS)
def test_packed_is_an_ordered_dict_of_its_values(steps: list[object]) -> None:
    slack, packed._SLACK = packed._SLACK, 0  # compact as often as it may
    try:
        _check(steps)
    finally:
        packed._SLACK = slack


def _check(steps: list[object]) -> None:
    store, plain = Packed(), dict[str, object]()
    for step in steps:
        if isinstance(step, int):  # keep the first `step` keys, as a rewind does
            keys = list(plain)[:step]
            store.keep(keys)
            plain = {key: plain[key] for key in keys}
        else:
            key, value = step  # type: ignore[misc]
            store.put(key, value)
            plain[key] = value
        assert store.keys() == list(plain)
        assert all(store.get(key) == value for key, value in plain.items())
        assert list(store.values()) == [v for v in plain.values() if v is not None]
