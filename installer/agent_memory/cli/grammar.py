"""A command line read by the grammar its declaration gives (``table.py``), as click reads it.

A strict subset of click's grammar, with click's defaults and checks: anything this reader might
read otherwise than click — an unknown word, ``--help``, ``--``, an option given twice, a value
click would refuse or reads in its own way (a leading zero, an exponent, a non-ASCII digit) — is
refused, and the quick path leaves the line to click.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..layout import slug_fits
from .declared import Declared, Kind, Param


class Refused(Exception):
    """A word this reader leaves to click."""


def parse(line: Declared, words: Sequence[str]) -> dict[str, Any]:
    """The values click would pass for ``words``, or ``Refused``."""
    by_flag = {flag: p for p in line.params for flag in p.flags}
    given: dict[str, list[Any]] = {}
    positional: list[str] = []
    rest = list(words)
    while rest:
        word = rest.pop(0)
        if not word.startswith("-"):
            positional.append(word)
            continue
        name, has_value, value = word.partition("=")
        param = by_flag.get(name)
        if param is None or (param.name in given and not param.multiple):
            raise Refused
        if param.kind in (Kind.FLAG, Kind.SWITCH):
            if has_value:
                raise Refused
            given[param.name] = [param.kind is Kind.FLAG or name == param.flags[0]]
            continue
        if not has_value:
            if not rest or rest[0][:1] in ("-", ""):  # click might read it as an option
                raise Refused
            value = rest.pop(0)
        given.setdefault(param.name, []).append(_value(param, value))
    return _assigned(line, given, positional)


def _assigned(line: Declared, given: dict[str, list[Any]], positional: list[str]) -> dict[str, Any]:
    """Every parameter's value: the positionals in order, then each default."""
    arguments = [p for p in line.params if not p.flags]
    if len(positional) > len(arguments) and not (arguments and arguments[-1].multiple):
        raise Refused
    for at, param in enumerate(arguments):  # a multiple one is the last, and takes the rest
        words = positional[at:] if param.multiple else positional[at : at + 1]
        if words:
            given[param.name] = [_value(param, word) for word in words]
    values: dict[str, Any] = {}
    for param in line.params:
        found = given.get(param.name)
        if found is None:
            if param.required:
                raise Refused
            values[param.name] = _default(param)
        else:
            values[param.name] = tuple(found) if param.multiple else found[0]
    return values


def _default(param: Param) -> Any:
    if param.multiple:
        return ()
    if param.kind is Kind.FLAG:
        return False
    return param.default


def _value(param: Param, word: str) -> Any:
    """``word`` read as click reads ``param``'s value; ``Refused`` where click would refuse it
    or where the two might differ."""
    if not word or "\x00" in word or (word.startswith("-") and not param.flags):
        raise Refused
    kind = param.kind
    if kind is Kind.FOLDER:
        return _folder(word)
    if kind is Kind.FILE:
        return _file(word)
    if kind is Kind.ANY_PATH:
        return _readable(word)
    if kind is Kind.COUNT:
        if not _number(word) or int(word) < param.low:
            raise Refused
        return int(word)
    if kind is Kind.SECONDS:
        if not _seconds(word):
            raise Refused
        return float(word)
    if kind is Kind.CHOICE and word not in param.choices:
        raise Refused
    if kind is Kind.DATE:
        return _parsed(word, "parse_date")
    if kind is Kind.MOMENT:
        return _parsed(word, "parse_moment")
    if kind is Kind.SLUG and not slug_fits(word):
        raise Refused
    return word


def _parsed(word: str, reader: str) -> Any:
    from ..parse import dates

    found = getattr(dates, reader)(word)
    if found is None:
        raise Refused
    return found


def _number(word: str) -> bool:
    """ASCII digits without a leading zero: the numbers click and this parser read alike."""
    return word.isascii() and word.isdigit() and not word.startswith("0") and len(word) < 10


def _seconds(word: str) -> bool:
    """ASCII digits with an optional fraction: the seconds click and this parser read alike."""
    whole, _, fraction = word.partition(".")
    return all(part.isascii() and part.isdigit() for part in (whole, fraction or "0"))


def _folder(word: str) -> Path:
    """What click.Path(file_okay=False) takes: a folder, readable when it exists."""
    path = Path(word)
    if path.exists() and not (path.is_dir() and os.access(path, os.R_OK)):
        raise Refused
    return path


def _file(word: str) -> Path:
    """What click.Path(dir_okay=False) takes: no folder, and readable when it exists."""
    if Path(word).is_dir():
        raise Refused
    return _readable(word)


def _readable(word: str) -> Path:
    """What click.Path() takes: a path, readable when it exists."""
    path = Path(word)
    if path.exists() and not os.access(path, os.R_OK):
        raise Refused
    return path
