"""Decoding Markdown files without losing a byte: BOM, line endings and final newline are kept."""

from typing import NamedTuple

from ..errors import InputError

BOM = "\ufeff"


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
