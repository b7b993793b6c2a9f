"""``NamedTuple``, without the check of each field's annotation at class creation.

``typing.NamedTuple`` turns every annotation into a type when the class is made; under
``from __future__ import annotations`` each one is a string, which it compiles. The package
declares some fifty records and a command loads about thirty: that check alone cost 19 million
instructions of `recall`'s 261 million, a tenth of starting the interpreter and click together.
Here a record is ``collections.namedtuple`` with the class's defaults, methods and docstring put
back as typing would, and its annotations kept as written. Type checkers see ``typing.NamedTuple``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from typing import NamedTuple as NamedTuple
else:
    import collections

    # What namedtuple makes and a record's body must not replace; what it may not replace silently.
    _SPECIAL = frozenset(("__module__", "__name__", "__annotations__"))
    _PROHIBITED = frozenset(("__new__", "__init__", "__slots__", "__getnewargs__", "_fields"))
    _PROHIBITED |= frozenset(("_field_defaults", "_make", "_replace", "_asdict", "_source"))

    class _RecordMeta(type):
        def __new__(cls, name: str, bases: tuple[type, ...], body: dict[str, Any]) -> type:
            if bases != (_Record,):
                raise TypeError(f"{name}: a record extends NamedTuple only")
            annotations = body.get("__annotations__", {})
            defaulted = [field for field in annotations if field in body]
            if defaulted != list(annotations)[len(annotations) - len(defaulted) :]:
                raise TypeError(f"{name}: a field without a default follows one with a default")
            record = collections.namedtuple(
                name,
                list(annotations),
                defaults=[body[field] for field in defaulted],
                module=body["__module__"],
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
