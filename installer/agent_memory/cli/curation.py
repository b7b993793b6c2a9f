"""Command lines that keep facts true: fact edit, supersede, retract, archive, restore, pin, unpin,
expire, relate, cite, recite and show (DECAY.md § Curating facts).

Each ``build`` imports its command's module when the command runs (``table.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..commands.runner import Call, Command, Journal
from .calls import calls
from .declared import (
    ID_BOUNDS,
    JSON,
    PATH,
    TEXT_BOUNDS,
    WRITING,
    Arg,
    Declared,
    Kind,
    Param,
    Values,
    options,
)

if TYPE_CHECKING:
    from .declared import Built, Progress


def _reason(help: str) -> Param:
    """``--reason TEXT``: why a fact is retracted or a proposal rejected, kept with it."""
    bounds = {"minLength": 1, "maxLength": 300}
    return Param(
        "reason",
        Kind.TEXT,
        ("--reason",),
        help,
        required=True,
        metavar="TEXT",
        arg=Arg(bounds=bounds),
    )


FACT_ID = Param("fact_id", Kind.TEXT, required=True, metavar="ID", arg=Arg("id", ID_BOUNDS))


def _supersede(v: Values, _progress: Progress) -> Built:
    from ..commands.curate import Successor, fact_supersede

    new, path = v["new"], v["path"]
    if v["text"] is not None and new is not None and path is None:
        path, new = Path(new), None  # with --text there is no NEW: a second word is PATH
    successor = Successor(v["text"], v["new_id"]) if v["text"] is not None else None
    opts = options(v)
    old = v["fact_id"]
    return path, Call(lambda repo: fact_supersede(repo, old, new, successor, opts), opts)


def _accept(v: Values, _progress: Progress) -> Built:
    from ..commands.accept import fact_accept

    address, path, every = v["address"], v["path"], v["all"]
    if address is not None and "#" not in address and path is None:
        path, address = Path(address), None  # an address always has a "#": this word is PATH
    opts = options(v)
    return path, Call(lambda repo: fact_accept(repo, address, every, opts), opts)


def _line(
    words: str, help: str, tool: str, build: Callable[[Values, Progress], Built], *params: Param
) -> Declared:
    """A writing ``fact`` line: ID, its own parameters, PATH and the writing options; its MCP
    tool's description ``tool``."""
    name = f"fact {words}"
    command = Command(name, Journal.WRITES)
    params = (FACT_ID, *params, PATH, *WRITING)
    return Declared(("fact", words), help, command, params, build, tool=tool)


PLACE = Param(
    "place",
    Kind.TEXT,
    required=True,
    metavar="FILE[:A-B]",
    arg=Arg(bounds={"minLength": 1, "maxLength": 1100}),
)

LINES: tuple[Declared, ...] = (
    _line(
        "edit",
        "Give fact ID the new TEXT; its id and footer stay as they are.",
        "Give a fact new text; its id and footer stay as they are.",
        calls("curate", "fact_edit", "fact_id", "text", with_options=True),
        Param("text", Kind.TEXT, required=True, arg=Arg(bounds=TEXT_BOUNDS)),
    ),
    _line(
        "supersede",
        "Supersede fact ID by fact NEW, or by a new fact written from --text (what a log's "
        "`- Superseded: ID → NEW` line does).\n\nWith --text, leave NEW out (a second word is "
        "then PATH).",
        "Supersede a fact by another (new: its id) or by a new fact written from text; the next "
        "review archives the old one.",
        _supersede,
        Param("new", Kind.TEXT, metavar="NEW", arg=Arg(bounds=ID_BOUNDS)),
        Param(
            "text",
            Kind.TEXT,
            ("--text",),
            "Write the successor as a new fact with this text (in ID's section).",
            metavar="TEXT",
            arg=Arg(bounds=TEXT_BOUNDS),
        ),
        Param(
            "new_id",
            Kind.TEXT,
            ("--id",),
            "The new fact's id (default: derived from its words).",
            metavar="NEW_ID",
            arg=Arg(bounds=ID_BOUNDS),
        ),
    ),
    _line(
        "retract",
        "Retract fact ID: no longer true and nothing replaces it (archived by the next review, "
        "never reactivated).",
        "Retract a fact that is no longer true and that nothing replaces, saying why.",
        calls("curate", "fact_retract", "fact_id", "reason", with_options=True),
        _reason("Why it no longer holds (kept in its footer and its INDEX line)."),
    ),
    _line(
        "archive",
        "Archive fact ID by hand (`archived-by: hand`); the next review moves it.",
        "Archive a fact by hand; the next review moves it to the archive.",
        calls("curate", "fact_archive", "fact_id", with_options=True),
    ),
    _line(
        "restore",
        "Undo `fact archive ID`, or move an archived fact back where it came from.",
        "Undo an archive by hand, or bring an archived fact back where it came from.",
        calls("curate", "fact_restore", "fact_id", with_options=True),
    ),
    _line(
        "share",
        "Move personal fact ID into continuity.md, for the team (a duplicate is refused).",
        "Move one of the user's personal facts into the team's memory (continuity.md).",
        calls("share", "fact_share", "fact_id", with_options=True),
    ),
    _line(
        "pin",
        "Pin fact ID (`tier: core`): it never decays.",
        "Pin a fact (tier: core): it never decays.",
        calls("curate", "fact_pin", "fact_id", with_options=True),
    ),
    _line(
        "unpin",
        "Unpin fact ID: its tier is again what the decay rules give it.",
        "Unpin a fact: its tier is again what the decay rules give it.",
        calls("curate", "fact_unpin", "fact_id", with_options=True),
    ),
    _line(
        "expire",
        "Make fact ID valid until DATE: the first review after it archives the fact.",
        "Make a fact valid until a date: the first review after it archives the fact.",
        calls("curate", "fact_expire", "fact_id", "until", with_options=True),
        Param("until", Kind.DATE, required=True, metavar="DATE", arg=Arg()),
    ),
    _line(
        "relate",
        "Relate fact ID to fact OTHER (`see: OTHER`): recall and explain show it beside ID.",
        "Relate a fact to another (see: other); recall and explain show one beside the other.",
        calls("curate", "fact_relate", "fact_id", "other", with_options=True),
        Param("other", Kind.TEXT, required=True, metavar="OTHER", arg=Arg(bounds=ID_BOUNDS)),
    ),
    _line(
        "cite",
        "Cite FILE (lines A to B) as what fact ID describes: lint then says when they change.",
        "Cite the code a fact describes (place: FILE or FILE:A-B, from the repo's top); lint then "
        "says when those lines change.",
        calls("cite", "fact_cite", "fact_id", "place", with_options=True),
        PLACE,
    ),
    _line(
        "recite",
        "Update fact ID's citations whose lines moved (lint's `stale` says which).",
        "Update a fact's citations whose cited lines moved.",
        calls("cite", "fact_recite", "fact_id", with_options=True),
    ),
    Declared(
        ("fact", "accept"),
        "Turn proposal LOG#N of a session log's `## Proposed Facts` into a fact (`origin: "
        "LOG#N`), or with --all every pending one; with neither, list the pending proposals.\n\n"
        "Pending: in a log no review has read, and not yet accepted. A word without `#` is PATH.",
        Command("fact accept", Journal.WRITES),
        (
            Param(
                "address",
                Kind.TEXT,
                metavar="LOG#N",
                arg=Arg(bounds={"minLength": 3, "maxLength": 300}),
            ),
            PATH,
            Param(
                "all",
                Kind.FLAG,
                ("--all",),
                "Accept every pending proposal (one a fact add would refuse is skipped, and said).",
                arg=Arg(),
            ),
            *WRITING,
        ),
        _accept,
        tool="Turn a session's proposed fact (address: LOG#N, from its log's Proposed Facts) into "
        "a fact, or every pending one (all: true); with neither, list those pending.",
    ),
    Declared(
        ("fact", "forget"),
        "Retract the one live fact TEXT describes: it holds 60% of TEXT's words (two at least) "
        "and scores 1.5x the next (recall's ranking); otherwise list the candidates and change "
        "nothing.",
        Command("fact forget", Journal.WRITES),
        (
            Param("text", Kind.TEXT, required=True, arg=Arg(bounds=TEXT_BOUNDS)),
            PATH,
            *WRITING,
        ),
        calls("forget", "fact_forget", "text", with_options=True),
        tool="Retract the one live fact a description names (clearly ahead of the next); "
        "otherwise an error listing the candidates' ids, and nothing changes.",
    ),
    Declared(
        ("fact", "reject"),
        "Reject proposal LOG#N: recorded at the end of memory/rejected.md (committed, "
        "append-only), so it waits no more and its text is not proposed again.",
        Command("fact reject", Journal.WRITES),
        (
            Param(
                "address",
                Kind.TEXT,
                required=True,
                metavar="LOG#N",
                arg=Arg(bounds={"minLength": 3, "maxLength": 300}),
            ),
            _reason("Why it is rejected (kept in memory/rejected.md)."),
            PATH,
            *WRITING,
        ),
        calls("reject", "fact_reject", "address", "reason", with_options=True),
        tool="Reject a session's proposed fact (address: LOG#N) with a reason; it waits no more "
        "and its text is not proposed again.",
    ),
    Declared(
        ("proposals",),
        "List the proposals that wait for a person: in logs no review has read, not accepted, "
        "not rejected; each with its address, kind, text, log and similar facts.",
        Command("proposals", Journal.READS),
        (PATH, JSON),
        calls("proposals", "proposals"),
        tool="The proposals that wait for a person (address LOG#N, kind, text, log, ids of "
        "similar facts).",
    ),
    Declared(
        ("fact", "show"),
        "Show fact ID as written, with its footer, where it lives, its citations and its "
        "related facts.",
        Command("fact show", Journal.READS),
        (FACT_ID, PATH, JSON),
        calls("cite", "fact_show", "fact_id"),
        tool="A fact as written, with its footer, where it lives, its citations (stale or not) and "
        "its related facts.",
    ),
)
