"""Citations: a fact's ``cites:`` field, ``<path>[:<start>-<end>]@<hash>`` (several,
comma-separated), and the hash of the cited lines (DECAY.md § Citations).

The hash is of the cited lines with their whitespace normalised, so that a re-indent or a
Windows checkout does not make a fact stale: each line loses its CRs, its runs of spaces and
tabs become one space, its leading and trailing spaces go, and it ends with one LF; the hash is
the first 12 hex digits of SHA-256 of those bytes. By hand:
``sed -n 'A,Bp' FILE | tr -d '\\r' | awk '{$1=$1};1' | sha256sum | cut -c1-12``.
"""

from collections.abc import Sequence
from typing import NamedTuple, TypeAlias

from .. import patterns

HASH_CHARS = 12
MAX_CITES = 50  # citations in one footer
MAX_PATH = 1024  # characters of a cited path
MAX_LINE = 10**7  # a line number
# A hash search for a moved block hashes at most this many lines (lines of the file times lines
# of the block): a changed citation in a huge file is reported as changed, not searched for.
MAX_SEARCH = 1_000_000

_HASH = patterns.compile(r"[0-9a-f]{12}")
_RANGE = patterns.compile(r"(?P<path>.*):(?P<start>[0-9]{1,8})-(?P<end>[0-9]{1,8})\Z")
_LINE_ONLY = patterns.compile(r"(?P<path>.*):(?P<start>[0-9]{1,8})\Z")
_BLANKS = patterns.compile(rb"[ \t]+")
_UNSAFE = patterns.compile(r"[,|\\<>\x00-\x1f\x7f\u2028\u2029]")


class Skipped(NamedTuple):
    """A cited path that is not checked, and why (a FIFO, a directory, a link out of the repo,
    a file too large): lint says so in one line and reads nothing there."""

    reason: str


# What a cited path holds, as the shell read it: its bytes, None when it is gone, or Skipped.
Source: TypeAlias = bytes | Skipped | None


class Citation(NamedTuple):
    path: str  # relative to the repo's top, with "/"
    start: int | None  # the first cited line (1-based); None: the whole file
    end: int | None  # the last cited line
    hash: str

    @property
    def place(self) -> str:
        """``path:start-end``, or the path of a whole file: what a person types to cite it."""
        return self.path if self.start is None else f"{self.path}:{self.start}-{self.end}"

    def render(self) -> str:
        return f"{self.place}@{self.hash}"


def path_problem(path: str) -> str | None:
    """Why ``path`` cannot be cited (it must stay inside the repo, and fit in a footer), or None."""
    if not path:
        return "the path is empty"
    if path.startswith("/"):
        return f"{path!r} is absolute; cite a path relative to the repo's top"
    if len(path) > MAX_PATH:
        return f"the path is longer than {MAX_PATH} characters"
    if _UNSAFE.search(path) or "-->" in path or path != path.strip():
        return (
            f"{path[:80]!r} holds a character a footer cannot carry (a comma, |, \\, <, >, a "
            "control character, or spaces at an end)"
        )
    if any(part in ("", ".", "..") for part in path.split("/")):
        return f"{path!r} is not a plain path inside the repo (an empty, '.' or '..' part)"
    return None


def parse_place(text: str) -> tuple[str, int | None, int | None]:
    """``PATH``, ``PATH:A-B`` or ``PATH:A`` as typed on a command line; ValueError says what is
    wrong in words."""
    found = _RANGE.match(text) or _LINE_ONLY.match(text)
    if found is None:
        path, start, end = text, None, None
    else:
        path = found.group("path")
        start = int(found.group("start"))
        end = int(found.groupdict().get("end") or start)
    problem = path_problem(path)
    if problem is None and start is not None and end is not None:
        problem = _range_problem(start, end)
    if problem is not None:
        raise ValueError(problem)
    return path, start, end


def _range_problem(start: int, end: int) -> str | None:
    if start < 1 or end < start or end > MAX_LINE:
        return f"the range {start}-{end} is not lines A-B with 1 <= A <= B"
    return None


def parse_value(value: str) -> tuple[tuple[Citation, ...], str | None]:
    """The citations of a ``cites:`` value, and what is wrong with it (None: nothing)."""
    found: list[Citation] = []
    parts = [part.strip() for part in value.split(",")]
    if len(parts) > MAX_CITES:
        return (), f"cites: more than {MAX_CITES} citations"
    for part in parts:
        place, at, digest = part.rpartition("@")
        if not at or not _HASH.fullmatch(digest):
            return (), f"cites: {part[:80]!r} is not PATH[:A-B]@HASH (12 hex digits)"
        ranged = _RANGE.match(place)
        path = ranged.group("path") if ranged else place
        start = int(ranged.group("start")) if ranged else None
        end = int(ranged.group("end")) if ranged else None
        problem = path_problem(path)
        if problem is None and start is not None and end is not None:
            problem = _range_problem(start, end)
        if problem is not None:
            return (), f"cites: {problem}"
        found.append(Citation(path, start, end, digest))
    return tuple(found), None


def render_value(citations: Sequence[Citation]) -> str:
    return ", ".join(c.render() for c in citations)


def lines_of(data: bytes) -> list[bytes]:
    """A file's lines as ``sed`` numbers them: split at LF, no empty line after a final LF (nor
    a last line of CRs alone without one, which ``tr -d '\\r'`` leaves empty: no line to awk)."""
    lines = data.split(b"\n")
    if not lines[-1].replace(b"\r", b""):
        lines.pop()
    return lines


def normalised(line: bytes) -> bytes:
    return _BLANKS.sub(b" ", line.replace(b"\r", b"")).strip(b" ")


def block_hash(lines: Sequence[bytes]) -> str:
    """The hash of cited lines (the module's docstring says it exactly)."""
    import hashlib  # only commands that read citations need it

    return hashlib.sha256(b"".join(normalised(line) + b"\n" for line in lines)).hexdigest()[
        :HASH_CHARS
    ]


def cite(path: str, start: int | None, end: int | None, data: bytes) -> Citation:
    """A citation of lines ``start``-``end`` (None: all) of a file holding ``data``; ValueError
    when the range is beyond the file."""
    lines = lines_of(data)
    if start is not None and end is not None:
        if end > len(lines):
            raise ValueError(f"{path} has {len(lines)} lines, fewer than {end}")
        return Citation(path, start, end, block_hash(lines[start - 1 : end]))
    return Citation(path, None, None, block_hash(lines))
