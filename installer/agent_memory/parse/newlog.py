"""New session logs: their name and their text, from the schema's template."""

from __future__ import annotations

import datetime as dt

from .. import patterns
from .outline import markdown

TEMPLATE_TITLE = "YYYY-MM-DD-HHMMSS"
_SLUG_JUNK = patterns.compile(r"[^a-z0-9]+")


def log_template(schema: str) -> str:
    """The session-log template: the schema's ``markdown`` example with a Memory References."""
    for token in markdown().parse(schema):
        if token.type == "fence" and "## Memory References" in token.content:
            return token.content
    raise ValueError("the schema has no session-log template")


def log_name(now: dt.datetime, slug: str | None) -> str:
    """``YYYY-MM-DD-HHMMSS[-slug].md`` for a UTC time; the slug is reduced to kebab-case."""
    utc = now.astimezone(dt.timezone.utc)  # the year as four digits: strftime writes 1 for 0001
    stem = f"{utc.year:04}-{utc:%m-%d-%H%M%S}"
    if slug:
        kebab = _SLUG_JUNK.sub("-", slug.lower()).strip("-")
        if kebab:
            stem += f"-{kebab}"
    return f"{stem}.md"


def new_log(schema: str, name: str) -> bytes:
    return log_template(schema).replace(TEMPLATE_TITLE, name[:-3], 1).encode("utf-8")
