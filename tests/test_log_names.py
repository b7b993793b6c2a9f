"""Which names of memory/sessions/ are logs: the joined-names shortcut against one by one."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from agent_memory.layout import SESSION_NAME, split_logs

_LOG = st.builds(
    "{}-{:02d}-{:02d}-{:06d}{}.md".format,
    st.integers(1000, 9999),
    st.integers(0, 99),
    st.integers(0, 99),
    st.integers(0, 999999),
    st.sampled_from(["", "-fix", "-a.b_c", "-x-"]),
)
_NAME = st.one_of(
    _LOG,
    _LOG.map(lambda name: name + "\n"),
    _LOG.map(lambda name: name.replace("-", "\n", 1)),
    st.sampled_from([".gitkeep", ".hidden.md", "-early.md", " 2026.md", "notes.md", "README"]),
    st.text(alphabet="0123456789-.mdx\n ", max_size=24),
)


def _one_by_one(names: list[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    logs = tuple(n for n in names if SESSION_NAME.match(n))
    return logs, tuple(n for n in names if not n.startswith(".") and n not in logs)


@given(st.lists(_NAME, unique=True, max_size=30))
@example(["2026-01-01-000000.md\n2026-01-02-000000.md"])  # two logs' names in one file name
@example(["-a.md", ".gitkeep", "2026-01-01-000000.md"])
@example([])
def test_joined_names_split_like_one_by_one(names: list[str]) -> None:
    names.sort()
    assert split_logs(names) == _one_by_one(names)
