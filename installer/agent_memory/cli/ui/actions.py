"""What the pages run: a declared command line, with the values a form gave, through the runner.

The browser offers no rule of its own. Each action is a line of the table (``fact edit``,
``fact accept``...), built by its own ``build`` and run by ``runner.answer`` as the command line
runs it: the same plan, the same ``--dry-run`` diff, the same journal and lock (a command line
run at the same time waits ``--wait`` or is refused, as between two command line runs).
"""

import datetime as dt
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from ...commands.accept import fact_accept
from ...commands.runner import Answer, Call, answer
from ...errors import AgentMemoryError
from ...parse.dates import parse_date
from .. import curation, insight, memory
from ..declared import Declared, Kind, options

LINES: Mapping[tuple[str, ...], Declared] = {
    line.words: line for line in (*memory.LINES, *curation.LINES, *insight.LINES)
}


class Action(NamedTuple):
    """A change a page offers: its command line's words, the fact's parameter, the form's
    fields (each a parameter of the line) and the words of its button."""

    words: tuple[str, ...]
    subject: str  # the parameter the fact's id (or the proposal's address) goes to
    fields: tuple[str, ...]
    label: str


ACTIONS: Mapping[str, Action] = {
    "edit": Action(("fact", "edit"), "fact_id", ("text",), "Edit"),
    "supersede": Action(("fact", "supersede"), "fact_id", ("text",), "Supersede by new text"),
    "retract": Action(("fact", "retract"), "fact_id", ("reason",), "Retract"),
    "pin": Action(("fact", "pin"), "fact_id", (), "Pin"),
    "unpin": Action(("fact", "unpin"), "fact_id", (), "Unpin"),
    "archive": Action(("fact", "archive"), "fact_id", (), "Archive"),
    "restore": Action(("fact", "restore"), "fact_id", (), "Restore"),
    "expire": Action(("fact", "expire"), "fact_id", ("until",), "Expire"),
    "relate": Action(("fact", "relate"), "fact_id", ("other",), "Relate"),
    "cite": Action(("fact", "cite"), "fact_id", ("place",), "Cite"),
    "recite": Action(("fact", "recite"), "fact_id", (), "Recite"),
    "share": Action(("fact", "share"), "fact_id", (), "Share with the team"),
    "accept": Action(("fact", "accept"), "address", (), "Accept"),
    "reject": Action(("fact", "reject"), "address", ("reason",), "Reject"),
}
FACT_ACTIONS = tuple(name for name, action in ACTIONS.items() if action.subject == "fact_id")


class Setting(NamedTuple):
    """What the ``ui`` command line was given that every action shares."""

    today: dt.date | None = None  # --today, handed on as the line's own --today
    wait: float = 0.0
    read_only: bool = False


class Refused(AgentMemoryError):
    """A form the line cannot take (an unknown action, a missing field, a date that is not one),
    or a line's own refusal, handed on to the runner that runs the page."""


def values(line: Declared, root: Path, given: Mapping[str, Any]) -> dict[str, Any]:
    """Every parameter of ``line`` at its default, then PATH and ``given``: what click hands
    the line's ``build`` when only those options are typed."""
    found: dict[str, Any] = {p.name: () if p.multiple else p.default for p in line.params}
    found["path"] = root
    found.update(given)
    return found


def run(words: tuple[str, ...], root: Path, given: Mapping[str, Any]) -> Answer:
    """Run the line ``words`` on ``root`` as the command line would, with ``given`` values."""
    line = LINES[words]
    path, call = line.build(values(line, root, given), None)
    return answer(line.command, path, call, as_json=False)


def change(
    name: str, subject: str, form: Mapping[str, str], root: Path, preview: bool, setting: Setting
) -> Answer:
    """Action ``name`` on ``subject`` with the form's fields: its plan's diff (``preview``, the
    line's ``--dry-run``), or the plan applied."""
    action = ACTIONS.get(name)
    if action is None:
        raise Refused(f"no action {name!r}")
    line = LINES[action.words]
    kinds = {p.name: p.kind for p in line.params}
    what = "a proposal" if action.subject == "address" else "a fact"
    given: dict[str, Any] = {action.subject: subject}
    for field in action.fields:
        text = form.get(field, "").replace("\r\n", "\n").strip()  # a textarea sends CRLF
        if not text:
            raise Refused(f"{field} is needed to {name} {what}")
        given[field] = _typed(kinds[field], field, text)
    given.update(dry_run=preview, today=setting.today, wait=setting.wait)
    return run(action.words, root, given)


def edited_text(form: Mapping[str, str], proposed: str) -> str | None:
    """The text an accepted proposal is to take instead of its own (edit-then-accept), or None
    when the form left it as proposed."""
    text = form.get("text", "").replace("\r\n", "\n").strip()
    return text if text and text != proposed.strip() else None


def accept_edited(address: str, text: str, root: Path, preview: bool, setting: Setting) -> Answer:
    """Edit-then-accept: ``fact accept LOG#N`` with ``fact edit``'s new text given to the fact it
    makes, as one plan (a session log is never rewritten, so the proposal itself cannot change):
    a text ``fact edit`` refuses is refused before anything is written."""
    opts = options({"dry_run": preview, "today": setting.today, "wait": setting.wait})
    line = LINES[ACTIONS["accept"].words]
    call = Call(lambda repo: fact_accept(repo, address, False, opts, text), opts)
    return answer(line.command, root, call, as_json=False)


def _typed(kind: Kind, field: str, text: str) -> Any:
    if kind is not Kind.DATE:
        return text
    day = parse_date(text)
    if day is None:
        raise Refused(f"{field}: {text[:40]!r} is not a date (YYYY-MM-DD)")
    return day
