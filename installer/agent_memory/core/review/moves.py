"""Moving a fact's lines between files: out of its file, and back, byte for byte.

A fact swept from a one-file thread (``memory/open-threads/<name>.md``) records
``from: open-threads/<name>.md``; the file goes away with its last fact and is recreated when
the fact is reactivated (DESIGN §13).
"""

from __future__ import annotations

from collections.abc import Sequence

from ... import patterns
from ...errors import InputError
from ...layout import KEY_DECISIONS, OPEN_THREADS, OPEN_THREADS_DIR
from ...parse import footer, markdown
from ...parse.facts import PROJECT_STATE, Document, Fact, is_blank, parse_text
from ...parse.text import Text
from .edits import Edit

_THREAD_FROM = patterns.compile(r"^open-threads/[A-Za-z0-9][A-Za-z0-9._-]*\.md$")
_MEMORY = "memory/"


def origin(doc_path: str, section: str) -> str:
    """What ``from`` records for a fact leaving ``doc_path``: its section, or its thread file."""
    if doc_path.startswith(OPEN_THREADS_DIR + "/"):
        return doc_path[len(_MEMORY) :]
    return section


def thread_file(from_value: str | None) -> str | None:
    """The thread file an archived fact came from, or None when it came from a section."""
    if from_value is None or _THREAD_FROM.match(from_value) is None or ".." in from_value:
        return None
    return _MEMORY + from_value


def section_of(from_value: str | None) -> str | None:
    """The section the tier rules see for an archived fact with this ``from``, and the one it
    goes back to. Project State holds no facts (only a hand edit names it): a fact sent there
    would vanish, so it goes where ``fact add`` puts a fact by default."""
    if thread_file(from_value):
        return OPEN_THREADS
    if from_value is not None and " ".join(from_value.split()).lower() == PROJECT_STATE:
        return KEY_DECISIONS
    return from_value


def emptied(text: Text) -> bool:
    return all(is_blank(line) for line in text.lines)


def removal(text: Text, fact: Fact) -> list[Edit]:
    """Delete a fact's lines, and one blank line when it would leave two in a row."""
    end = fact.end
    lines = text.lines
    before_blank = fact.start == 0 or is_blank(lines[fact.start - 1])
    if before_blank and end < len(lines) and is_blank(lines[end]):
        end += 1
    return [Edit(fact.start, end, ())]


def landed(path: str, text: Text, placed: Sequence[tuple[str, str]]) -> Document:
    """``text`` read back with the one reader, each new fact of ``placed`` (id, section) found
    there under its section, or a refusal: a section that ends inside an HTML block or a fence
    never closed would take the fact into it, and a fact written there would not exist."""
    doc = parse_text(path, text)
    held = {fact.id: fact.section.strip().lower() for fact in doc.facts if fact.id is not None}
    for fact_id, title in placed:
        if held.get(fact_id) != title.strip().lower():
            raise _swallowed(path, text, fact_id, title)
    return doc


def _swallowed(path: str, text: Text, fact_id: str, title: str) -> InputError:
    """Why ``fact_id`` would not be read at the end of ``title``: the block it fell into."""
    line = next((n for n, ln in enumerate(text.lines) if _names(ln, fact_id)), None)
    block = next(
        (b for b in markdown.blocks(text.lines) if line is not None and b.start <= line < b.end),
        None,
    )
    if block is None:
        return InputError(
            path, None, f"fact {fact_id} would not read back in section {title!r}",
            "agent-memory lint lists what is wrong with the file; fix it, then try again",
        )  # fmt: skip
    if block.kind == "fence":
        return InputError(
            path, block.start + 1,
            "the code fence opened here is never closed, so it runs to the end of the file and "
            f"would hold fact {fact_id} as code",
            "close the fence (a line of the same backticks or tildes), then try again",
        )  # fmt: skip
    return InputError(
        path, block.start + 1,
        f"section {title!r} ends inside the HTML block that starts here, which would hold fact "
        f"{fact_id} as part of it",
        "close the block and put a blank line and a line of text after it (or move it up the "
        "section), then try again",
    )  # fmt: skip


def _names(line: str, fact_id: str) -> bool:
    found = footer.find(line)
    return found is not None and dict(footer.parse_fields(found.body)[0]).get("id") == fact_id
