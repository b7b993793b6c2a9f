"""Command lines on the memory itself: review, status, lint, context, recall, explain, fact add.

Each ``build`` imports its command's module when the command runs (``table.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..commands.report import Result
from ..commands.runner import Call, Command, Journal
from ..layout import CONTEXT_BYTES, CONTEXT_MIN_BYTES, IMPORT_SOURCES
from ..shell.discovery import in_repo
from .calls import calls
from .declared import (
    HOOK,
    ID_BOUNDS,
    JSON,
    PATH,
    TEXT_BOUNDS,
    TODAY,
    WRITING,
    Arg,
    Declared,
    Kind,
    Param,
    Values,
    options,
)

if TYPE_CHECKING:
    from ..shell.repo import Repo
    from .declared import Built, Progress


def _review(v: Values, progress: Progress) -> Built:
    from ..commands.due import not_due

    wanted, opts = (v["full"], v["if_due"], v["session"]), options(v, progress)

    def run(repo: Repo) -> Result:
        # 60M instructions (25 ms): paid only when a review runs, never by --if-due not due
        from ..commands.review import ReviewOptions, review

        return review(repo, ReviewOptions(*wanted), opts)

    return v["path"], Call(run, opts, not_due if v["if_due"] else None)


def _context(v: Values, _progress: Progress) -> Built:
    from ..commands.context import context

    size, hook, task = v["max_bytes"], v["hook"], v["task"] or ""
    given = tuple(v["paths"]) if v["paths"] else None

    def run(repo: Repo) -> Result:  # --paths are read from where the user stands, as git's
        paths = tuple(in_repo(repo.root, p) for p in given) if given else None
        return context(repo, size, hook, task, paths)

    return v["path"], Call(run)


def _recall(v: Values, _progress: Progress) -> Built:
    from ..commands.recall import query_and_path, recall

    query, path = query_and_path(v["query"])
    limit = v["limit"]
    return path, Call(lambda repo: recall(repo, query, limit))


def _fact_add(v: Values, _progress: Progress) -> Built:
    from ..commands.fact import FactOptions, fact_add

    fact = FactOptions(
        v["text"], v["section"], v["fact_id"], v["thread"], v["new_section"], v["cite"], v["until"],
        tuple(v["paths"]), v["personal"],
    )  # fmt: skip
    opts = options(v)
    return v["path"], Call(lambda repo: fact_add(repo, fact, opts), opts)


def _import(v: Values, _progress: Progress) -> Built:
    from ..commands.imports import import_memory

    kind, given, mine, opts = v["source"], v["from_place"], v["personal"], options(v)
    return v["path"], Call(lambda repo: import_memory(repo, kind, given, opts, mine), opts)


LINES: tuple[Declared, ...] = (
    Declared(
        ("review",),
        "Recompute usage and tiers from the session logs; archive, sweep and reactivate facts.",
        Command("review", Journal.WRITES),
        (
            PATH,
            Param("full", Kind.FLAG, ("--full",), "Recompute every fact from every session log."),
            Param(
                "if_due",
                Kind.FLAG,
                ("--if-due",),
                "Do nothing (exit 0, quietly) unless a review is due.",
            ),
            Param(
                "session",
                Kind.FILE,
                ("--session",),
                "Append the summary to FILE, the newest session log, unless it already has one.",
                metavar="FILE",
            ),
            *WRITING,
        ),
        _review,
        progress=True,
    ),
    Declared(
        ("status",),
        "Show versions, facts per tier, and whether a review is due and why.",
        Command("status", Journal.READS),
        (PATH, JSON),
        calls("status", "status"),
        tool="Versions, facts per tier, and whether a review is due and why.",
    ),
    Declared(
        ("lint",),
        "Check the memory files of PATH; exit 1 when there is an error.\n\nEach finding is "
        "printed as `path:line: severity [check] message`.",
        Command("lint", Journal.READS),
        (
            PATH,
            Param(
                "only",
                Kind.TEXT,
                ("--only",),
                "Report only this check (repeatable): secret, stale, …",
                multiple=True,
                metavar="CHECK",
            ),
            Param(
                "rev",
                Kind.TEXT,
                ("--rev",),
                "Check what facts cite against this git revision instead of the work tree.",
                metavar="REV",
            ),
            JSON,
        ),
        calls("lint", "lint", "only", "rev"),
    ),
    Declared(
        ("context",),
        "Print what an agent should read at session start: core facts and invariants, open\n"
        "threads, active and working facts, and whether a review is due.\n\n"
        "Facts come in full by relevance (to --task and --paths, else by recent use) while\n"
        "they fit; every other fact keeps one line (HOOKS.md).",
        Command("context", Journal.READS),
        (
            PATH,
            Param(
                "max_bytes",
                Kind.COUNT,
                ("--max-bytes",),
                "Print at most this many bytes; facts that do not fit are counted, not shown.",
                default=CONTEXT_BYTES,
                low=CONTEXT_MIN_BYTES,
                show_default=True,
            ),
            Param(
                "task",
                Kind.TEXT,
                ("--task",),
                "What the session is about: facts are ranked by their words (recall's BM25).",
                metavar="TEXT",
                arg=Arg(bounds={"maxLength": 100000}),
            ),
            Param(
                "paths",
                Kind.TEXT,
                ("--paths",),
                "A path the session touches (repeatable): facts citing it or scoped to it come "
                "first; facts scoped elsewhere are left out.",
                multiple=True,
                metavar="PATH",
                arg=Arg(bounds={"minLength": 1, "maxLength": 1000}, most=1000),
            ),
            HOOK,
            JSON,
        ),
        _context,
        tool="What to read at the start of a session: core facts and invariants, active and "
        "working facts, open threads, and whether a review is due; the facts most relevant to "
        "the task and the paths touched in full, the others by one line.",
    ),
    Declared(
        ("recall",),
        "Find facts about QUERY in continuity.md and the archive (exit 1 when none match).\n\n"
        "QUERY is every word given, unquoted too; the last is the repo's PATH only when it names "
        "a folder. Each line: id, [tier], where it lives (file:line), and its first line.",
        Command("recall", Journal.READS),
        (
            Param(
                "query",
                Kind.TEXT,
                required=True,
                multiple=True,
                metavar="QUERY... [PATH]",
                arg=Arg(bounds={"minLength": 1, "maxLength": 1000}),
            ),
            Param(
                "limit",
                Kind.COUNT,
                ("--limit",),
                "List at most this many facts.",
                default=10,
                low=1,
                show_default=True,
                arg=Arg(bounds={"maximum": 100}),
            ),
            JSON,
        ),
        _recall,
        tool="Find facts in this repo's memory (continuity.md and the archive) by words, best "
        "first. Look here before saying there is no context.",
    ),
    Declared(
        ("explain",),
        "Why fact ID has its tier: its events, the DECAY rule that matched, and what comes next.",
        Command("explain", Journal.READS),
        (
            Param("fact_id", Kind.TEXT, required=True, metavar="ID", arg=Arg("id", ID_BOUNDS)),
            PATH,
            Param(
                "full",
                Kind.FLAG,
                ("--full",),
                "Read every session log and list each that names it.",
            ),
            TODAY,
            JSON,
        ),
        calls("explain", "explain", "fact_id", "full"),
        tool="Why a fact is where it is: its footer, the sessions that used it and the DECAY rule "
        "that gives its tier.",
    ),
    Declared(
        ("fact", "add"),
        "Add TEXT as a fact the review tracks (id, created today, tier working); print its id.",
        Command("fact add", Journal.WRITES),
        (
            Param("text", Kind.TEXT, required=True, arg=Arg(bounds=TEXT_BOUNDS)),
            PATH,
            Param(
                "section",
                Kind.TEXT,
                ("--section",),
                "Section to add it to (default: Key Decisions): one continuity.md has, or one of "
                "the schema's; any other is refused as a likely typo unless --new-section is "
                "given.",
                metavar="S",
                arg=Arg(bounds={"minLength": 1, "maxLength": 200}),
            ),
            Param(
                "new_section",
                Kind.FLAG,
                ("--new-section",),
                "Start section S when continuity.md has none by that name.",
                arg=Arg(),
            ),
            Param(
                "fact_id",
                Kind.TEXT,
                ("--id",),
                "Its id (default: derived from its words).",
                metavar="ID",
                # No pattern: the command's own id check refuses a bad id, with the CLI's line.
                arg=Arg("id", ID_BOUNDS),
            ),
            Param(
                "thread",
                Kind.FLAG,
                ("--thread",),
                "An open thread `- [ ]` (default: in Open Threads).",
            ),
            Param(
                "cite",
                Kind.TEXT,
                ("--cite",),
                "Cite FILE (lines A to B) as the code it describes (repeatable).",
                multiple=True,
                metavar="FILE[:A-B]",
            ),
            Param(
                "until",
                Kind.DATE,
                ("--until",),
                "Valid until this date: the first review after it archives the fact.",
                metavar="YYYY-MM-DD",
            ),
            Param(
                "paths",
                Kind.TEXT,
                ("--paths",),
                "Scope the fact to paths matching GLOB (repeatable): context shows it only to a "
                "session that touches one, or when nothing is known about paths.",
                multiple=True,
                metavar="GLOB",
            ),
            Param(
                "personal",
                Kind.FLAG,
                ("--personal",),
                "Yours only: in memory/personal.md, which git ignores (default section: User "
                "Preferences); shown to your sessions, never shared.",
                arg=Arg(),
            ),
            *WRITING,
        ),
        _fact_add,
        tool="Add a fact worth keeping (born working, created today) to continuity.md; its id "
        "comes from its first words unless one is given.",
    ),
    Declared(
        ("import",),
        "Import what an agent remembers on its own (SOURCE: claude, codex, gemini, serena, cline,\n"
        "context-yaml, co-cli) as facts, each with origin: naming where it came from.\n\n"
        "An entry a fact already says is skipped; similar facts are listed (MIGRATE.md).",
        Command("import", Journal.WRITES),
        (
            Param("source", Kind.CHOICE, required=True, choices=IMPORT_SOURCES, metavar="SOURCE"),
            PATH,
            Param(
                "from_place",
                Kind.ANY_PATH,
                ("--from",),
                "Read the source here (its folder, or its file) instead of where the agent keeps "
                "it.",
                metavar="DIR|FILE",
            ),
            Param(
                "personal",
                Kind.FLAG,
                ("--personal",),
                "Into memory/personal.md, yours only (git ignores it): an entry the team's "
                "memory already says is skipped.",
            ),
            *WRITING,
        ),
        _import,
    ),
)
