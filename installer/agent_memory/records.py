"""``NamedTuple``, made without compiling code when a record's class is made.

``typing.NamedTuple`` turns every annotation into a type when the class is made; under
``from __future__ import annotations`` each one is a string, which it compiles. The package
declares some hundred records and a command loads about fifty: that check alone cost 19 million
instructions of `recall`'s 261 million, a tenth of starting the interpreter and click together.
``collections.namedtuple`` then compiles each record's ``__new__`` from source: 280,000
instructions a record, 13 million of every command. Here a record is the class namedtuple
makes, with its ``__new__`` taken from a function written below for its number of fields (its
parameters renamed to the fields', so keywords and defaults work as namedtuple's do), and the
class's defaults, methods and docstring put back as typing would; its annotations are kept as
written. A test holds a record to typing's. Type checkers see ``typing.NamedTuple``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from typing import NamedTuple as NamedTuple
else:
    import collections
    import sys
    from keyword import iskeyword
    from operator import itemgetter
    from types import FunctionType

    try:
        from _collections import _tuplegetter  # the field accessor namedtuple itself uses
    except ImportError:  # pragma: no cover - an interpreter without it, as namedtuple falls back

        def _tuplegetter(index: int, doc: str) -> property:
            return property(itemgetter(index), doc=doc)

    # What namedtuple makes and a record's body must not replace; what it may not replace silently.
    _SPECIAL = frozenset(("__module__", "__name__", "__annotations__"))
    _PROHIBITED = frozenset(("__new__", "__init__", "__slots__", "__getnewargs__", "_fields"))
    _PROHIBITED |= frozenset(("_field_defaults", "_make", "_replace", "_asdict", "_source"))
    _tuple_new = tuple.__new__

    # The __new__ of a record of n fields, n the index: compiled with this module, not per record.
    _NEW = (
        lambda _cls: _tuple_new(_cls, ()),
        lambda _cls, v0: _tuple_new(_cls, (v0,)),
        lambda _cls, v0, v1: _tuple_new(_cls, (v0, v1)),
        lambda _cls, v0, v1, v2: _tuple_new(_cls, (v0, v1, v2)),
        lambda _cls, v0, v1, v2, v3: _tuple_new(_cls, (v0, v1, v2, v3)),
        lambda _cls, v0, v1, v2, v3, v4: _tuple_new(_cls, (v0, v1, v2, v3, v4)),
        lambda _cls, v0, v1, v2, v3, v4, v5: _tuple_new(_cls, (v0, v1, v2, v3, v4, v5)),
        lambda _cls, v0, v1, v2, v3, v4, v5, v6: _tuple_new(_cls, (v0, v1, v2, v3, v4, v5, v6)),
        lambda _cls, v0, v1, v2, v3, v4, v5, v6, v7: _tuple_new(
            _cls, (v0, v1, v2, v3, v4, v5, v6, v7)
        ),
        lambda _cls, v0, v1, v2, v3, v4, v5, v6, v7, v8: _tuple_new(
            _cls, (v0, v1, v2, v3, v4, v5, v6, v7, v8)
        ),
        lambda _cls, v0, v1, v2, v3, v4, v5, v6, v7, v8, v9: _tuple_new(
            _cls, (v0, v1, v2, v3, v4, v5, v6, v7, v8, v9)
        ),
        lambda _cls, v0, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10: _tuple_new(
            _cls, (v0, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10)
        ),
        lambda _cls, v0, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11: _tuple_new(
            _cls, (v0, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11)
        ),
        lambda _cls, v0, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12: _tuple_new(
            _cls, (v0, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12)
        ),
        lambda _cls, v0, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12, v13: _tuple_new(
            _cls, (v0, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12, v13)
        ),
        lambda _cls, v0, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12, v13, v14: _tuple_new(
            _cls, (v0, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12, v13, v14)
        ),
        lambda _cls, v0, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12, v13, v14, v15: (
            _tuple_new(_cls, (v0, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12, v13, v14, v15))
        ),
    )

    @classmethod
    def _make(cls: type[tuple[Any, ...]], iterable: Any) -> Any:
        result = _tuple_new(cls, iterable)
        if len(result) != len(cls._fields):
            raise TypeError(f"Expected {len(cls._fields)} arguments, got {len(result)}")
        return result

    def _replace(self: Any, /, **kwds: Any) -> Any:
        result = self._make(map(kwds.pop, self._fields, self))
        if kwds:
            raise ValueError(f"Got unexpected field names: {list(kwds)!r}")
        return result

    def _repr(self: Any) -> str:
        shown = ", ".join(
            f"{name}={value!r}" for name, value in zip(self._fields, self, strict=True)
        )
        return f"{self.__class__.__name__}({shown})"

    def _asdict(self: Any) -> dict[str, Any]:
        return dict(zip(self._fields, self, strict=True))

    def _getnewargs(self: Any) -> tuple[Any, ...]:
        return tuple(self)

    def _namedtuple(
        name: str, fields: list[str], defaults: list[Any], module: str
    ) -> type[tuple[Any, ...]]:
        """``collections.namedtuple(name, fields, defaults=defaults, module=module)``."""
        if len(fields) >= len(_NEW) or any(f.startswith("_") or iskeyword(f) for f in fields):
            return collections.namedtuple(name, fields, defaults=defaults, module=module)
        names = tuple(map(sys.intern, fields))
        code = _NEW[len(names)].__code__.replace(co_varnames=("_cls", *names), co_name="__new__")
        new = FunctionType(code, globals(), "__new__", tuple(defaults) or None)
        new.__qualname__ = f"{name}.__new__"
        new.__doc__ = f"Create new instance of {name}({', '.join(names)})"
        body: dict[str, Any] = {
            "__doc__": f"{name}({', '.join(names)})",
            "__slots__": (),
            "_fields": names,
            "_field_defaults": dict(
                zip(names[len(names) - len(defaults) :], defaults, strict=True)
            ),
            "__new__": new,
            "_make": _make,
            "_replace": _replace,
            "__repr__": _repr,
            "_asdict": _asdict,
            "__getnewargs__": _getnewargs,
            "__match_args__": names,
        }
        for index, field in enumerate(names):
            body[field] = _tuplegetter(index, sys.intern(f"Alias for field number {index}"))
        record = type(name, (tuple,), body)
        record.__module__ = module
        return record

    class _RecordMeta(type):
        def __new__(cls, name: str, bases: tuple[type, ...], body: dict[str, Any]) -> type:
            if bases != (_Record,):
                raise TypeError(f"{name}: a record extends NamedTuple only")
            annotations = body.get("__annotations__", {})
            defaulted = [field for field in annotations if field in body]
            if defaulted != list(annotations)[len(annotations) - len(defaulted) :]:
                raise TypeError(f"{name}: a field without a default follows one with a default")
            record = _namedtuple(
                name, list(annotations), [body[field] for field in defaulted], body["__module__"]
            )
            record.__annotations__ = dict(annotations)
            for key, value in body.items():
                if key in _PROHIBITED:
                    raise AttributeError(f"{name}: cannot overwrite NamedTuple attribute {key}")
                if key not in _SPECIAL and key not in annotations:
                    setattr(record, key, value)
            return record

    _Record = type.__new__(_RecordMeta, "_Record", (), {})

    def NamedTuple(*args: object, **kwargs: object) -> None:
        raise TypeError("a record is declared as a class: class Name(NamedTuple): ...")

    NamedTuple.__mro_entries__ = lambda bases: (_Record,)  # type: ignore[attr-defined]
