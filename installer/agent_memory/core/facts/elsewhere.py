"""The memory files beside the one a new fact goes to, unparsed: the archive's quarters, the
one-file threads, vision.md, and continuity.md or the personal file, asked only what a new fact
needs of them.

The archive may hold 10,000 facts. A new fact needs two answers of it: whether an id is taken
(found by searching for the id, as ``footer.place_of`` does) and which facts say what
the new one says (``duplicates``: a file is parsed only when one of its facts may).
"""

from __future__ import annotations

from collections.abc import Sequence

from ...layout import ARCHIVE_DIR
from ...parse.facts import Document
from ...parse.footer import place_of
from ...parse.sidefiles import parse_file
from .duplicates import Found, compare, may_hold, probes, words


class Elsewhere:
    """The files as ``(path, bytes)``, in the order a taken id's place is looked up."""

    __slots__ = ("_files", "_parsed", "_texts")

    def __init__(self, files: Sequence[tuple[str, bytes]]) -> None:
        self._files = tuple(files)
        self._texts: dict[str, str] = {}
        # kept: an import or ``fact accept --all`` asks once per fact it adds
        self._parsed: dict[str, Document] = {}

    @classmethod
    def of(cls, docs: Sequence[Document]) -> Elsewhere:
        return cls([(doc.path, doc.render()) for doc in docs])

    def _text(self, path: str, data: bytes) -> str:
        found = self._texts.get(path)
        if found is None:
            found = self._texts[path] = data.decode("utf-8", errors="replace")
        return found

    def place(self, fact_id: str) -> str | None:
        """``path:line`` of the first footer-like comment naming ``fact_id``, or None."""
        for path, data in self._files:
            found = place_of(path, self._text(path, data), fact_id)
            if found is not None:
                return found
        return None

    def documents(self, wanted: frozenset[str], probed: Sequence[str]) -> list[Document]:
        """The files, parsed, that may hold a fact similar to a text of words ``wanted``: each
        thread and vision.md (a few lines each), an archive quarter only if ``may_hold``."""
        return [
            self._document(path, data)
            for path, data in self._files
            if not path.startswith(_ARCHIVE) or may_hold(self._text(path, data), wanted, probed)
        ]

    def _document(self, path: str, data: bytes) -> Document:
        found = self._parsed.get(path)
        if found is None:
            found = self._parsed[path] = parse_file(path, data)
        return found


_ARCHIVE = ARCHIVE_DIR + "/"


def duplicates(text: str, continuity: Document, elsewhere: Elsewhere) -> Found:
    """The facts of the memory that say what ``text`` says, or much the same (continuity.md's
    compared only if it ``may_hold`` one)."""
    wanted = words(text)
    if not wanted:
        return Found(None, ())
    probed = probes(wanted)
    live = [continuity] if may_hold("".join(continuity.text.lines), wanted, probed) else []
    return compare(text, [*live, *elsewhere.documents(wanted, probed)])
