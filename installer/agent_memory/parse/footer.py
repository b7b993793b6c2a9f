"""Fact footers: ``<!-- id: x | created: D | last_used: D | uses: N | tier: T -->``.

Fields keep the order they were written in until a value changes; then the footer is rendered in
the canonical order, unknown fields after the known ones.
"""

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import NamedTuple

from .. import patterns
from ..errors import InputError, Problem
from . import cites, scopes
from .dates import parse_date

CANONICAL = (
    "id",
    "created",
    "last_used",
    "uses",
    "tier",
    "valid-until",
    "superseded-by",
    "supersedes",
    "see",
    "done",
    "from",
    "archived",
    "archived-by",
    "origin",
    "reason",
    "note",
    "cites",
    "paths",
    "base_uses",
    "base_last_used",
)
_KNOWN = frozenset(CANONICAL)
DATE_FIELDS = frozenset(
    {"created", "last_used", "done", "archived", "base_last_used", "valid-until"}
)
COUNT_FIELDS = frozenset({"uses", "base_uses"})
TIERS = ("core", "active", "working", "archive-candidate", "archived", "superseded")
# Ids are kebab-case; the hand-run line also wrote dots (``release-2.4.1-shipped``), which are
# read and matched as they are. Ids the tool derives (``slug``) stay kebab.
ID_PATTERN = r"[a-z0-9]+(?:[.-][a-z0-9]+)*"
ID = patterns.compile(rf"^{ID_PATTERN}\Z")
MAX_COUNT = 10**9
_COUNT = patterns.compile(r"[0-9]{1,10}")  # ASCII digits, and never thousands of them for int()

# A comment on one line that mentions ``id:``; the closing ``-->`` may be missing (an error).
# The reference for ``find`` (quadratic on a line of unclosed comments: never run on user text).
FOOTER = patterns.compile(r"<!--(?P<body>(?:(?!-->).)*?\bid\s*:(?:(?!-->).)*?)(?P<close>-->|$)")
_ID_KEY = patterns.compile(r"\bid\s*:")
# Every value an ``id:`` field could hold, anywhere (``id_values``): a match takes only the "i",
# so none can swallow the next; keys as ``parse_fields`` strips and lowers them.
_ID_VALUE = patterns.compile(r"[iI](?=[dD]\s*:\s*([^\s|]+))")
# An id named after a comment's opening on one line (``place_of``): a footer, or its shape.
_ID_NAMED = patterns.compile(r"\bid[ \t]*:[ \t]*([^\s|>]+)")


class Found(NamedTuple):
    """Where a footer sits in its line, what it says, and whether it is closed."""

    start: int
    end: int
    body: str
    closed: bool


def find(line: str) -> Found | None:
    """``FOOTER.search`` for one line, without the regex's per-character lookahead.

    Every fact carries a footer, so this runs once per fact of every memory file; a property
    test checks it finds what ``FOOTER`` finds.
    """
    start = line.find("<!--")
    close = -2  # the "-->" after the comment being looked at; -2: not looked for yet
    while start != -1:
        # A comment that opens before the close of one without "id:" has a body that is the end
        # of that one's (no "id:" either): skipped, so a line of 20,000 "<!--" stays linear.
        if close == -2 or (close != -1 and start + 4 > close):
            close = line.find("-->", start + 4)
            body = line[start + 4 : close if close != -1 else len(line)]
            if _ID_KEY.search(body):
                end = close + 3 if close != -1 else len(line)
                return Found(start, end, body, close != -1)
            if close == -1:
                return None
        start = line.find("<!--", start + 1)
    return None


def without_footers(text: str) -> str:
    """``text`` with each footer replaced by a space (``FOOTER.sub(" ", text)``, linear)."""
    lines = text.split("\n")
    for index, line in enumerate(lines):
        pieces, rest = [], line
        while (found := find(rest)) is not None:  # like re.sub: never rescan what it replaced
            pieces.append(rest[: found.start] + " ")
            rest = rest[found.end :]
        lines[index] = "".join(pieces) + rest
    return "\n".join(lines)


Fields = tuple[tuple[str, str], ...]


def id_values(text: str) -> set[str]:
    """A superset of the ids the facts of ``text`` hold (any value after an ``id:``, up to a
    blank, ``|`` or the ``-->`` that ends a footer), found in one regex pass: which files of
    thousands of facts a caller must parse to know an id."""
    return {value.partition("-->")[0] for value in _ID_VALUE.findall(text)} - {""}


def place_of(path: str, text: str, fact_id: str) -> str | None:
    """Where a footer-like comment of ``text`` names ``fact_id`` (``path:line``), read only on
    the lines that hold it: a command that asks about one id need not read 10,000 archived
    footers."""
    at = text.find(fact_id)
    while at != -1:
        start = text.rfind("\n", 0, at) + 1
        end = text.find("\n", at)
        end = len(text) if end == -1 else end
        if fact_id in _named_in_comments(text, start, end):
            return f"{path}:{text.count(chr(10), 0, start) + 1}"
        at = text.find(fact_id, end)
    return None


def _named_in_comments(text: str, start: int, end: int) -> list[str]:
    """The ids ``<!--`` … ``id: X`` names on the line ``text[start:end]``, each after an opening
    past the one before, read once: a pattern tried from each of 20,000 ``<!--`` with no id
    after them read to the line's end from each (10 s for 8,000)."""
    named: list[str] = []
    while (opening := text.find("<!--", start, end)) != -1:
        found = _ID_NAMED.search(text, opening + 4, end)
        if found is None:  # none after this opening, so none after any later one
            break
        named.append(found.group(1).rstrip("-"))
        start = found.end()
    return named


def _problem(check: str, message: str, severity: str = "error") -> Problem:
    """A problem of a footer body, which knows nothing of its place (the caller adds it)."""
    return Problem("", None, severity, check, message)


def parse_fields(body: str) -> tuple[Fields, list[Problem]]:
    """Fields of a footer body (the text between ``<!--`` and ``-->``), and what is wrong.

    A body knows nothing of its place: the problems have no path or line until the caller
    gives them one.
    """
    fields: dict[str, str] = {}
    problems: list[Problem] = []
    for segment in body.split("|"):
        key, colon, value = segment.partition(":")
        key = key.strip().lower()
        if not colon or not key:
            if segment.strip():
                problems.append(
                    _problem(
                        "footer-malformed", f"footer segment {segment.strip()!r} is not key: value"
                    )
                )
        elif key in fields:
            problems.append(_problem("footer-malformed", f"footer repeats {key!r}"))
        else:
            fields[key] = value.strip()
    found = tuple(fields.items())
    problems.extend(validate(found))
    return found, problems


def validate(fields: Sequence[tuple[str, str]]) -> list[Problem]:
    problems: list[Problem] = []
    values = dict(fields)
    if "id" in values and not ID.match(values["id"]):
        problems.append(
            _problem(
                "id-invalid",
                f"id {values['id']!r} is not kebab-case "
                "(lowercase letters, digits, single dashes or dots)",
            )
        )
    for key, value in fields:
        if key in DATE_FIELDS and parse_date(value) is None:
            problems.append(
                _problem("footer-value", f"{key}: {value!r} is not a date (YYYY-MM-DD)")
            )
        elif key in COUNT_FIELDS and not (_COUNT.fullmatch(value) and int(value) <= MAX_COUNT):
            problems.append(
                _problem("footer-value", f"{key}: {value!r} is not a count (0 to {MAX_COUNT})")
            )
        elif key == "tier" and value not in TIERS:
            problems.append(
                _problem("footer-value", f"tier: {value!r} is not one of {', '.join(TIERS)}")
            )
        elif key == "see" and not all(ID.match(part) for part in listed(value) or ("",)):
            problems.append(
                _problem("footer-value", f"see: {value[:80]!r} is not ids separated by commas")
            )
        elif (key == "cites" and (wrong := cites.parse_value(value)[1]) is not None) or (
            key == "paths" and (wrong := scopes.problem(value)) is not None
        ):
            problems.append(_problem("footer-value", wrong))
        elif key not in _KNOWN:
            problems.append(
                _problem(
                    "footer-unknown-field", f"footer field {key!r} is not ours (kept)", "warning"
                )
            )
    return problems


def listed(value: str | None) -> tuple[str, ...]:
    """The items of a comma-separated field (``see``, ``supersedes``), blanks dropped."""
    if not value:  # most facts have none: recall asks each archived fact
        return ()
    return tuple(part.strip() for part in value.split(",") if part.strip())


def render(fields: Mapping[str, str], original: Fields = ()) -> str:
    """A footer comment: known fields in canonical order, then unknown ones in their old order."""
    order = [k for k in CANONICAL if k in fields]
    order += [k for k, _ in original if k not in CANONICAL and k in fields]
    order += sorted(k for k in fields if k not in order)
    return "<!-- " + " | ".join(f"{k}: {fields[k]}" for k in order) + " -->"


_UNSAFE = patterns.compile(r"[|\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]|-->|<!--")


def safe_value(text: str) -> str:
    """``text`` fit to be a footer value (imported data): each ``|``, comment marker, control
    character or lone surrogate (a file name that is not UTF-8) becomes ``_``, so the footer
    reads back as written."""
    return _UNSAFE.sub("_", text).strip()


def render_checked(fields: Mapping[str, str]) -> str:
    """``render`` for imported data: a footer lint would reject is refused, never written (the
    values are sanitised first, so this stops only what still slips through)."""
    rendered = render(fields)
    _, problems = parse_fields(rendered[4:-3])
    problem = next((p.message for p in problems if p.severity == "error"), None)
    if problem is not None:
        raise InputError(
            fields.get("origin", "import"),
            None,
            f"would become a footer that lint rejects ({problem})",
            "fix that entry, then run enable again",
        )
    return rendered


_WORDS = patterns.compile(r"[a-z0-9]+")
# No "[" in a link's text, no "]" in its target: from each "[" of thousands unclosed, the text was
# read to the line's end again (a fact line of 20,000 "[[" held lint for minutes).
_LINK = patterns.compile(r"\[([^\[\]]*)\]\([^)\]]*\)")
SLUG_WORDS = 6
SLUG_CHARS = 48


def nearest_id(unknown: str, known: Iterable[str]) -> str | None:
    """The known id most like ``unknown``, for "did you mean", or None when none is close."""
    import difflib  # a refusal only: every command would pay for it at start-up otherwise

    close = difflib.get_close_matches(unknown, sorted(set(known)), n=1, cutoff=0.6)
    return close[0] if close else None


def slug(text: str) -> str:
    """A kebab id from a fact's first words: links reduced to their text, accents dropped; at
    most ``SLUG_CHARS`` long, and never a word cut short after the first (an id is read in
    listings: ``release-checklist-lives-in-documenta`` reads as a typo)."""
    import unicodedata  # a C extension every command would load; only new ids need it

    text = _LINK.sub(r"\1", text)
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii").lower()
    words = _WORDS.findall(text)[:SLUG_WORDS]
    if not words:
        return "fact"
    kept: str = words[0][:SLUG_CHARS]  # whole words only, unless the first is that long alone
    for word in words[1:]:
        if len(kept) + 1 + len(word) > SLUG_CHARS:
            break
        kept += "-" + word
    return kept


def unique_id(base: str, taken: Callable[[str], bool]) -> str:
    """``base``, else the first of ``base-2``, ``base-3``, … that is not ``taken``."""
    candidate, n = base, 1
    while taken(candidate):
        n += 1
        candidate = f"{base}-{n}"
    return candidate


def unique_ids(wanted: Iterable[str], taken: set[str]) -> list[str]:
    """Each slug made unique with ``-2``, ``-3``, … in order; ``taken`` grows as ids are given."""
    out = []
    for base in wanted:
        out.append(unique_id(base, taken.__contains__))
        taken.add(out[-1])
    return out
