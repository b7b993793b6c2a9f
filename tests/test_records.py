"""A record made by ``records.NamedTuple`` behaves as one made by ``typing.NamedTuple``."""

from __future__ import annotations

import pickle
import typing

import pytest

from agent_memory import records


class Ours(records.NamedTuple):
    """A fact's place."""

    path: str
    line: int = 1
    tags: tuple[str, ...] = ()

    def where(self) -> str:
        return f"{self.path}:{self.line}"


class Theirs(typing.NamedTuple):
    """A fact's place."""

    path: str
    line: int = 1
    tags: tuple[str, ...] = ()

    def where(self) -> str:
        return f"{self.path}:{self.line}"


def test_a_record_behaves_as_typing_makes_it() -> None:
    ours, theirs = Ours("a.md", tags=("x",)), Theirs("a.md", tags=("x",))
    assert tuple(ours) == tuple(theirs) == ("a.md", 1, ("x",))
    assert ours._fields == theirs._fields and ours._field_defaults == theirs._field_defaults
    assert ours.where() == theirs.where() == "a.md:1"
    assert ours._replace(line=3) == Ours("a.md", 3, ("x",))
    assert ours._asdict() == theirs._asdict()
    assert Ours.__doc__ == Theirs.__doc__ and Ours.__module__ == Theirs.__module__
    assert Ours.__qualname__ == "Ours"
    assert Ours.__annotations__ == {"path": "str", "line": "int", "tags": "tuple[str, ...]"}
    assert typing.get_type_hints(Ours) == typing.get_type_hints(Theirs)
    assert repr(ours) == repr(theirs).replace("Theirs", "Ours")
    assert pickle.loads(pickle.dumps(ours)) == ours
    assert issubclass(Ours, tuple)


def test_a_record_is_refused_where_typing_refuses_one() -> None:
    with pytest.raises(TypeError, match="without a default follows"):

        class Late(records.NamedTuple):
            first: int = 0
            second: int

    with pytest.raises(AttributeError, match="_replace"):

        class Clash(records.NamedTuple):
            value: int

            def _replace(self) -> None: ...
