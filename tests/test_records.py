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


def test_construction_and_its_errors_are_typings() -> None:
    """``__new__`` is not namedtuple's compiled one but a written one renamed: keywords,
    defaults, and every error say what typing's say."""
    assert Ours(tags=("y",), path="b.md") == Ours("b.md", 1, ("y",))
    assert Ours._make(["c.md", 2, ()]) == Ours("c.md", 2)
    assert Ours.__match_args__ == Theirs.__match_args__ == ("path", "line", "tags")
    assert Ours.__new__.__defaults__ == Theirs.__new__.__defaults__
    assert Ours.path.__doc__ == Theirs.path.__doc__
    for make in (
        lambda cls: cls(),
        lambda cls: cls("a", 1, (), "extra"),
        lambda cls: cls("a", nope=1),
        lambda cls: cls._make(["a"]),
        lambda cls: cls("a")._replace(nope=1),
    ):
        errors = []
        for cls in (Ours, Theirs):
            with pytest.raises((TypeError, ValueError)) as caught:
                make(cls)
            errors.append((type(caught.value), str(caught.value).replace("Theirs", "Ours")))
        assert errors[0] == errors[1]


@pytest.mark.parametrize("count", [0, 1, 16, 17, 40])
def test_a_record_of_any_number_of_fields_is_typings(count: int) -> None:
    """Up to 16 fields a written __new__ serves; past that, namedtuple's own."""
    fields = {f"f{n}": int for n in range(count)}
    ours = records._RecordMeta(
        "Wide", (records._Record,), {"__module__": __name__, "__annotations__": fields}
    )
    theirs = typing.NamedTuple("Wide", list(fields.items()))
    values = list(range(count))
    assert ours(*values) == theirs(*values) == tuple(values)
    assert ours(**{f"f{n}": n for n in range(count)}) == tuple(values)
    assert repr(ours(*values)) == repr(theirs(*values))
    assert ours._fields == theirs._fields
