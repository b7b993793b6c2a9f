"""Decoding Markdown files without losing a byte: BOM, line endings and final newline are kept."""

from typing import NamedTuple

from .. import patterns
from ..errors import InputError

BOM = "\ufeff"
# A word: a run of letters and digits (``_`` and every other mark split words).
_WORD = patterns.compile(r"[^\W_]+")
# Every byte but those of a-z and 0-9 made a space: an ASCII text's words split out in C.
_SPACES = bytes(b if chr(b) in "abcdefghijklmnopqrstuvwxyz0123456789" else 32 for b in range(256))


class Text(NamedTuple):
    """A decoded file as lines that keep their own endings, so joining them restores the bytes."""

    bom: bool
    lines: tuple[str, ...]

    @property
    def body(self) -> str:
        return "".join(self.lines)

    @property
    def newline(self) -> str:
        """The file's dominant line ending, used for lines we add; a last line without one
        has no say (``a\\r\\nb`` is a CRLF file)."""
        ended = sum(1 for line in self.lines if line.endswith("\n"))
        crlf = sum(1 for line in self.lines if line.endswith("\r\n"))
        return "\r\n" if crlf * 2 > ended else "\n"

    def encode(self) -> bytes:
        return ((BOM if self.bom else "") + self.body).encode("utf-8")


def decode(path: str, data: bytes) -> Text:
    """Decode UTF-8 (BOM or not); binary or invalid input is an InputError naming the line."""
    if b"\x00" in data:
        line = data[: data.index(b"\x00")].count(b"\n") + 1
        raise InputError(
            path,
            line,
            "contains a NUL byte (binary data)",
            "delete it (a memory file is UTF-8 text), or restore the file from git",
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(
            path, line, "is not valid UTF-8", "re-save the file as UTF-8 text"
        ) from None
    bom = text.startswith(BOM)
    if bom:
        text = text[1:]
    return Text(bom=bom, lines=tuple(split_lines(text)))


def split_lines(text: str) -> list[str]:
    """Split on \\n only (keeping \\r\\n together): Markdown's notion of a line."""
    lines = text.split("\n")
    out = [line + "\n" for line in lines[:-1]]
    if lines[-1]:
        out.append(lines[-1])
    return out


def strip_eol(line: str) -> str:
    return line.rstrip("\r\n")


def words(text: str) -> list[str]:
    """The words of ``text``, in order: its runs of letters and digits, case folded, in any
    script (``re.findall(r"[^\\W_]+", text.casefold())``: a property test holds it there). The
    one word rule of recall, the prompt hook, duplicates and forget. An ASCII text, nearly every
    fact, is split out in C (10,000 facts are read when a file's rows are made)."""
    if text.isascii():
        return text.lower().encode("ascii").translate(_SPACES).decode("ascii").split()
    return _WORD.findall(text.casefold())
