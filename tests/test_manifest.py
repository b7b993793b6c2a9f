"""The stamp ``.agent/version.md``: what ``status`` shows of it, against the full parse."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from packaging.version import Version

from agent_memory.errors import InputError
from agent_memory.parse import manifest

versions = st.one_of(
    st.text("0123456789.", max_size=12),
    st.text("0123456789.v!+-_abcrpostdevVRC ٣", max_size=12),
    st.sampled_from(["5.0.0", "05.0.0", "5.0", "5", "v5.0.0", "5.0.0rc1", "1!2.0", "5.0.0 "]),
)


@given(versions)
@example("5.00.0")
def test_a_plain_release_is_already_as_packaging_writes_it(version: str) -> None:
    if manifest.plain_release(version):
        assert str(Version(version)) == version


def _stamp(version: str, ours: bool) -> bytes:
    managed = "\n## Managed files\n- .agent/DECAY.md: sha256:00\n" if ours else ""
    return f"# agent-memory install manifest\n- version:       {version}\n{managed}".encode()


@given(versions, st.booleans())
@example("5.0.0", True)
@example("5.0.0", False)
@example("five", True)
@example("", True)
def test_what_status_shows_is_what_the_parse_reads(version: str, ours: bool) -> None:
    data = _stamp(version, ours)
    try:
        stamp = manifest.parse(data)
    except InputError as error:
        with pytest.raises(InputError) as raised:
            manifest.shown(data)
        assert str(raised.value) == str(error)
        return
    assert manifest.shown(data) == (str(stamp.version), stamp.ours)
