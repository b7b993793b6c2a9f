"""The files the tool installs: packaged in the wheel, or read from the checkout in development."""

from __future__ import annotations

from functools import cache
from pathlib import Path

_PACKAGED = Path(__file__).parent / "_data"
_CHECKOUT = Path(__file__).resolve().parents[2]


@cache
def _root() -> Path:
    # A wheel carries its data under _data; an editable install runs from the checkout itself.
    return _PACKAGED if (_PACKAGED / "VERSION").is_file() else _CHECKOUT


def data(relpath: str) -> bytes:
    """A packaged file by its path in the project (``templates/AGENTS.md``, ``DECAY.md``)."""
    return (_root() / relpath).read_bytes()


@cache
def version() -> str:
    return data("VERSION").decode("utf-8").strip()
