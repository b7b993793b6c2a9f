"""The forms in which the session-start view shows a fact: in full (as written, without its
footer, its id at its end), by an excerpt (its first paragraph and where the rest is), or by
one line (its id and first words). Each is a function of the fact's lines alone."""

from __future__ import annotations

from ... import patterns
from ...layout import VISION
from ...parse import footer
from ...parse.facts import Document, Fact
from ...parse.markdown import fence_closes, fence_opens

# The most bytes of a fact's first paragraph an excerpt shows.
EXCERPT_BYTES = 480
# The first-line lengths a one-line form tries, longest first: never fewer words than the last.
FIRST_LINE = (120, 90, 60, 40)
_TAG = patterns.compile(r" {0,3}<")  # a line that may open an HTML block
_OPENS = patterns.compile(r"\n[ \t]*(?:<|```|~~~)")  # a later line that may open either
# What a line's words are read without: list, task, quote and heading markers before them; HTML
# tags and comments and emphasis asterisks among them (an underscore may be part of a name).
_MARKERS = patterns.compile(r"\A(?:[-*+] (?:\[[ xX]\] )?|\d{1,9}[.)] |> ?|#{1,6} )+")
_TAGS_AND_STARS = r"</?[A-Za-z][^<>]*>|(?<!\w)\*+|\*+(?!\w)"
_MARKUP = patterns.compile(r"<!--.*?-->|" + _TAGS_AND_STARS)
_UNCLOSED = patterns.compile(_TAGS_AND_STARS)  # past a line's last -->: no comment closes there
_FENCE = patterns.compile(r"(?:```|~~~)")
_CODE = patterns.compile(r"(`[^`]+`)")


def excerpt(text: str, fact_id: str | None, path: str) -> str:
    """The first paragraph of ``text`` (a fact in full), at most ``EXCERPT_BYTES``, and where
    the rest is; "" when the text is no longer than that."""
    if fact_id is None or size(text) <= EXCERPT_BYTES:
        return ""
    lines = text.splitlines()
    first, taken = [lines[0]], size(lines[0])
    for line in lines[1:]:
        taken += size(line) + 1
        if taken > EXCERPT_BYTES or not line.startswith("  ") or line.lstrip().startswith("#"):
            break
        first.append(line)
    where = f"read {path}" if path == VISION else f"`agent-memory fact show {fact_id}` prints it"
    if len(first) == 1 and size(first[0]) > EXCERPT_BYTES:
        first[0] = cut(first[0], EXCERPT_BYTES) + f" `{fact_id}`"
    return "\n".join(first) + f"\n  _(first paragraph; the rest: {where})_\n"


def cut(line: str, most: int) -> str:
    """``line`` cut to at most ``most`` bytes, ending in an ellipsis: at its last space that
    keeps more than half of what fits, else (CJK text, a long URL: no space, or only the list
    marker's) after its last whole character, so that the words are never cut to nothing."""
    kept = line.encode("utf-8")[: most - 4].decode("utf-8", errors="ignore")
    space = kept.rfind(" ")
    if space > len(kept) // 2:
        kept = kept[:space]
    return kept.rstrip() + " …"


def first_words(doc: Document, fact: Fact) -> str:
    """What a one line shows of a fact: the words of the first line of its text that has a
    letter or digit (``line_words``); for vision.md, its title, else its first line with words.
    A text with none at all is shown by its first line as written, never by its id alone."""
    if doc.path == VISION:
        lines = [line for at, line in enumerate(doc.text.lines) if at != fact.footer_line]
    else:
        lines = [doc.text.lines[at] for at in range(fact.start + 1, fact.end)]
        if fact.footer_line is not None and fact.footer_line > fact.start:
            lines[fact.footer_line - fact.start - 1] = ""  # its own line holds only the footer
    for line in (fact.first_line, *lines):
        if said := line_words(line):
            return said
    return next((" ".join(line.split()) for line in lines if line.strip()), "(no text)")


def line_words(line: str) -> str:
    """The words of ``line``, its markup set aside (``_MARKERS``, ``_MARKUP`` outside code
    spans; a code fence's line has none); "" when no letter or digit is left."""
    line = line.strip()
    if _FENCE.match(line):
        return ""
    parts = _CODE.split(_MARKERS.sub("", line, count=1))  # a code span's text is kept as it is
    said = "".join(part if k % 2 else _unmarked(part) for k, part in enumerate(parts))
    said = " ".join(said.split())
    return said if any(char.isalnum() for char in said) else ""


def _unmarked(part: str) -> str:
    """``part`` with each ``_MARKUP`` a space. No comment closes past its last ``-->``, so there
    only tags and asterisks are looked for: ``<!--.*?-->`` tried from each of 20,000 unclosed
    ``<!--`` read to the line's end 20,000 times (45 s of every session start)."""
    last = part.rfind("-->")
    cut = last + 3 if last != -1 else 0
    return _MARKUP.sub(" ", part[:cut]) + _UNCLOSED.sub(" ", part[cut:])


def one_line(fact_id: str | None, first_line: str, length: int) -> str:
    first = " ".join(first_line.split())
    if len(first) > length:
        first = first[: length - 1].rstrip() + "…"
    name = f"`{fact_id}`" if fact_id else ""
    return "- " + " — ".join(part for part in (name, first) if part) + "\n"


def fact_text(doc: Document, fact: Fact, mark: str = "") -> str:
    """The fact's lines without its footer comment or blank lines, and its id in backticks at
    the end (and ``mark``, a stale citation, after the id): on its line when the fact is one
    line, else on a line of its own, where it cannot be read as part of the text's last
    sentence, list item, table row or code block; after the first line when a block the text
    opens may take a line after it in (``_ends_in_block``)."""
    lines = []
    for index in range(fact.start, fact.end):
        line = doc.text.lines[index]
        if index == fact.footer_line and (found := footer.find(line)) is not None:
            line = line[: found.start] + line[found.end :]
        line = line.rstrip()
        if line.strip():
            lines.append(line)
    if not lines:
        return ""
    tail = " ".join(
        ([f"`{fact.id}`"] if fact.id is not None else []) + ([f"_({mark})_"] if mark else [])
    )
    text = "\n".join(lines) + "\n"
    if not tail:
        return text
    if len(lines) > 1 and not _ends_in_block(text):
        return f"{text}  {tail}\n"
    first, _, rest = text.partition("\n")
    return f"{first} {tail}\n{rest}"


def _ends_in_block(text: str) -> bool:
    """Whether a line after a fact's ``text`` (its bullet, then the lines under it) may fall in
    a block of it: a code fence never closed, or an HTML block, which without the blank lines
    the view leaves out runs to the fact's end. Any line that opens with a tag counts, as one
    may start an HTML block wherever no paragraph runs (after a heading, say). Most texts hold
    no line that may open either, and are not walked."""
    if _OPENS.search(text) is None:
        return False
    opening: tuple[str, int] | None = None  # the fence open here, if any
    for line in (line.removeprefix("  ") for line in text.split("\n")[1:]):
        if opening is None and _TAG.match(line):
            return True
        if opening is None:
            opening = fence_opens(line)
        elif fence_closes(opening, line):
            opening = None
    return opening is not None


def full_text(doc: Document, fact: Fact, mark: str = "") -> str:
    """The fact as a view shows it in full: vision.md as one fact (``vision_text``), any other
    by its lines (``fact_text``, with ``mark``)."""
    return vision_text(doc, fact) if doc.path == VISION else fact_text(doc, fact, mark)


def vision_text(doc: Document, fact: Fact) -> str:
    """vision.md as one fact: its title and id, then its other lines (the footer's line and
    blank lines left out) indented under it, so that its headings stay inside the fact."""
    lines: list[str] = []
    for index, line in enumerate(doc.text.lines):
        line = line.rstrip()
        if index == fact.footer_line or not line.strip() or line.strip() == ">":
            continue
        if not lines and line.startswith("# "):
            continue  # the title, which the first line holds
        lines.append("  " + line)
    name = f" `{fact.id}`" if fact.id is not None else ""
    return f"- **Vision:** {fact.first_line}{name}\n" + "".join(f"{line}\n" for line in lines)


def size(text: str) -> int:
    return len(text.encode("utf-8"))
