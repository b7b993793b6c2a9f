"""The journal's one file, written and read back without trusting a byte of it.

``agent-memory journal 2 crc32:<hex of the rest>``, a newline, a JSON list of entries, a
newline, then the originals of the entries that existed, back to back in entry order.

The checksum is there to catch damage (a torn or truncated write), as in a database's
write-ahead log; no checksum stops forgery by whoever can write the file, which is why every
entry is checked on its own before anything is restored. CRC-32 comes from zlib, which the
interpreter has loaded already; sha256 would load OpenSSL, 5 ms of every writing command. The
entry list is written here, as ``json.dumps`` writes it (a property test holds it there):
importing json costs 5.5M instructions, a fifth of what ``fact add`` may spend beyond start-up;
only recovery, which reads a journal, imports it.
"""

import posixpath
import zlib
from collections.abc import Sequence
from typing import Any, NamedTuple

from .. import patterns
from ..layout import JOURNAL_DIR, LOCK_FILE

_MAGIC = b"agent-memory journal 2 crc32:"
_HEX = patterns.compile(rb"[0-9a-f]{8}")
_KEYS = ("path", "existed", "created_dirs", "size")
_OURS = (JOURNAL_DIR, LOCK_FILE)


class Entry(NamedTuple):
    """One path of a plan being applied, as the journal records it."""

    path: str
    existed: bool
    created_dirs: list[str]  # deepest first, the order to remove them in
    size: int  # of its original in the journal (0 when it did not exist)


def dump(entries: Sequence[Entry], originals: bytes) -> bytes:
    body = header(entries) + b"\n" + originals
    return _MAGIC + _checksum(body) + b"\n" + body


def header(entries: Sequence[Entry]) -> bytes:
    """``json.dumps([e._asdict() for e in entries], separators=(",", ":"))``, encoded."""
    items = (
        f'{{"path":{_string(e.path)},"existed":{"true" if e.existed else "false"},'
        f'"created_dirs":[{",".join(map(_string, e.created_dirs))}],"size":{e.size}}}'
        for e in entries
    )
    return f"[{','.join(items)}]".encode()


_SHORT = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}


def _string(text: str) -> str:
    """A JSON string as ``json.dumps`` writes it (``ensure_ascii``): printable ASCII as it is,
    the rest escaped, a character past U+FFFF as its surrogate pair."""
    if text.isascii() and text.isprintable() and '"' not in text and "\\" not in text:
        return f'"{text}"'
    return '"' + "".join(map(_escaped, text)) + '"'


def _escaped(char: str) -> str:
    if " " <= char <= "~" and char not in '"\\':
        return char
    short = _SHORT.get(char)
    if short is not None:
        return short
    code = ord(char)
    if code > 0xFFFF:
        code -= 0x10000
        return f"\\u{0xD800 | code >> 10:04x}\\u{0xDC00 | code & 0x3FF:04x}"
    return f"\\u{code:04x}"


def load(data: bytes) -> tuple[list[Entry], bytes]:
    """The entries and the originals; ValueError saying what is wrong with anything else."""
    import json

    first, newline, body = data.partition(b"\n")
    if not newline or not first.startswith(_MAGIC) or not _HEX.fullmatch(first[len(_MAGIC) :]):
        raise ValueError("is not a journal agent-memory wrote (no header)")
    if _checksum(body) != first[len(_MAGIC) :]:
        raise ValueError("is damaged (its checksum does not match)")
    header, _, originals = body.partition(b"\n")
    try:
        raw = json.loads(header)
    except ValueError:
        raise ValueError("is damaged (its entry list is not JSON)") from None
    if not isinstance(raw, list):
        raise ValueError("is damaged (no entry list)")
    entries = [_entry(item) for item in raw]
    if sum(e.size for e in entries) != len(originals):
        raise ValueError("is damaged (its sizes do not add up to the bytes it holds)")
    if len({e.path for e in entries}) != len(entries):
        raise ValueError("is damaged (a path is listed twice)")
    return entries, originals


def _checksum(body: bytes) -> bytes:
    return b"%08x" % zlib.crc32(body)


def safe_path(path: object) -> bool:
    """A path a plan may write: relative, normalised, inside the repo, not ours, not git's."""
    if not isinstance(path, str) or not path or "\x00" in path or path.startswith("/"):
        return False
    parts = path.split("/")
    return (
        posixpath.normpath(path) == path
        and not any(part in ("", ".", "..") for part in parts)
        and parts[0] not in _OURS
        and ".git" not in (part.lower() for part in parts)
    )


def _entry(item: Any) -> Entry:
    if not isinstance(item, dict) or sorted(item) != sorted(_KEYS):
        raise ValueError("is damaged (an entry lacks a key)")
    path, existed, dirs, size = (item[key] for key in _KEYS)
    if not safe_path(path):
        raise ValueError(f"names a path outside what agent-memory writes ({path!r})")
    if type(existed) is not bool or type(size) is not int or size < 0:
        raise ValueError(f"is damaged (bad entry for {path})")
    if not existed and size:
        raise ValueError(f"is damaged (bytes for {path}, which did not exist)")
    if not isinstance(dirs, list) or not all(
        safe_path(d) and path.startswith(f"{d}/") for d in dirs
    ):
        raise ValueError(f"is damaged (a created folder of {path} is not on its way)")
    return Entry(path, existed, dirs, size)
