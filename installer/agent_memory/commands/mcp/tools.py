"""The MCP tools: names, JSON schemas (as MCP.md documents them) and the command each one calls.

A tool is a thin function: it calls the same command function as the CLI, through the same
runner (the repo found and opened, the journal rule), and returns the command's summary as the
tool's structured result. Arguments are checked against the tool's input schema first; anything
wrong, there or in the command, is an error the runner words as the CLI would, and the server
sends it as a tool error. The repo is read afresh on every call, so a commit another agent made
is seen by the next call.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

import jsonschema  # type: ignore[import-untyped]  # comes with the mcp extra

from ... import resources
from ...core.agents.recall import Index
from ...errors import AgentMemoryError
from ...parse.dates import parse_date
from ...shell.memo import FileMemo
from ...shell.repo import Repo
from .. import accept as accept_command
from .. import cite as cite_command
from .. import context as context_command
from .. import curate as curate_command
from .. import explain as explain_command
from .. import fact as fact_command
from .. import recall as recall_command
from .. import reference as reference_command
from .. import status as status_command
from ..report import Report, Result
from ..runner import Answer, Call, Command, Journal, answer
from ..settle import Options
from . import schemas

# How long a tool waits for another run's lock (a reader: for a run that is writing) before it
# reports that run.
LOCK_WAIT = 5.0

# The bytes memory_context returns at most: the CLI's --max-bytes default.
CONTEXT_BYTES = 8192


@dataclasses.dataclass
class McpSession:
    """One server's session: its repo, and the log its references go to once there is one."""

    path: Path
    wait: float = LOCK_WAIT
    log: str | None = None  # the file name in memory/sessions/
    client: str = ""  # the name the client gave in its initialize (clientInfo.name)
    # The settings file whose hooks capture this session ("" when none do): asked once, at the
    # first reference, as the hooks an agent runs are those it read when the session began.
    captured: str | None = None
    # Search indexes of the memory files, kept while each file is unchanged.
    indexes: FileMemo[Index] = dataclasses.field(
        default_factory=lambda: FileMemo(recall_command.build_index)
    )


@dataclasses.dataclass(frozen=True)
class Tool:
    name: str
    description: str
    input_schema: Mapping[str, Any]
    output_schema: Mapping[str, Any]
    run: Callable[[McpSession, Repo, Mapping[str, Any]], dict[str, Any]]
    journal: Journal = Journal.READS


def _recall(session: McpSession, repo: Repo, args: Mapping[str, Any]) -> dict[str, Any]:
    query, limit = args["query"], args.get("limit", 10)
    result = recall_command.recall(repo, query, limit, session.indexes.get)
    hits = result.report.summary["hits"]
    facts = [
        {
            "id": h["id"],
            "tier": h["tier"],
            "text": h["first_line"],
            "where": f"{h['path']}:{h['line']}",
            "section": h["section"],
            "score": h["score"],
        }
        for h in hits
    ]
    for fact, hit in zip(facts, hits, strict=True):
        fact["related"] = hit["related"]
    return {"query": args["query"], "facts": facts}


def _status(_session: McpSession, repo: Repo, _args: Mapping[str, Any]) -> dict[str, Any]:
    return dict(status_command.status(repo).report.summary)


def _reference(session: McpSession, repo: Repo, args: Mapping[str, Any]) -> dict[str, Any]:
    label = args.get("label", "referenced").capitalize()
    ids = list(dict.fromkeys(args["ids"]))
    if session.captured is None:
        session.captured = reference_command.capturing(repo, session.client) or ""
    captured = session.captured or None
    result = reference_command.reference(repo, ids, label, session.log, captured=captured)
    summary = dict(result.report.summary)
    if captured is not None:
        return {**summary, "label": label.lower(), "note": result.report.closing[0]}
    session.log = summary["log"].rsplit("/", 1)[-1]
    summary["label"] = label.lower()
    return summary


def _fact_add(session: McpSession, repo: Repo, args: Mapping[str, Any]) -> dict[str, Any]:
    fact = fact_command.FactOptions(
        args["text"],
        args.get("section"),
        args.get("id"),
        new_section=args.get("new_section", False),
    )
    result = fact_command.fact_add(repo, fact, Options(wait=session.wait))
    return {**result.report.summary, "outcome": result.report.outcome}


def _context(_session: McpSession, repo: Repo, args: Mapping[str, Any]) -> dict[str, Any]:
    paths = tuple(args["paths"]) if "paths" in args else None
    result = context_command.context(repo, CONTEXT_BYTES, False, args.get("task", ""), paths)
    summary = result.report.summary
    return {"text": summary["markdown"], "due": list(summary["due"])}


def _explain(_session: McpSession, repo: Repo, args: Mapping[str, Any]) -> dict[str, Any]:
    return dict(explain_command.explain(repo, args["id"], False).report.summary)


def _curated(result: Result) -> dict[str, Any]:
    return {**result.report.summary, "outcome": result.report.outcome}


def _curating(
    command: Callable[..., Result], *names: str
) -> Callable[[McpSession, Repo, Mapping[str, Any]], dict[str, Any]]:
    """A curation tool: the command called with the fact's id, then ``names``'s arguments."""

    def run(session: McpSession, repo: Repo, args: Mapping[str, Any]) -> dict[str, Any]:
        values = [args[name] for name in names]
        return _curated(command(repo, args["id"], *values, Options(wait=session.wait)))

    return run


def _fact_expire(session: McpSession, repo: Repo, args: Mapping[str, Any]) -> dict[str, Any]:
    until = parse_date(args["until"])
    if until is None:
        raise AgentMemoryError(f"until: {args['until']!r} is not a date (YYYY-MM-DD)")
    return _curated(curate_command.fact_expire(repo, args["id"], until, Options(wait=session.wait)))


def _fact_supersede(session: McpSession, repo: Repo, args: Mapping[str, Any]) -> dict[str, Any]:
    text = args.get("text")
    successor = curate_command.Successor(text, args.get("new_id")) if text is not None else None
    options = Options(wait=session.wait)
    return _curated(
        curate_command.fact_supersede(repo, args["id"], args.get("new"), successor, options)
    )


def _fact_accept(session: McpSession, repo: Repo, args: Mapping[str, Any]) -> dict[str, Any]:
    options = Options(wait=session.wait)
    address, every = args.get("address"), args.get("all", False)
    return _curated(accept_command.fact_accept(repo, address, every, options))


def _fact_show(_session: McpSession, repo: Repo, args: Mapping[str, Any]) -> dict[str, Any]:
    return dict(cite_command.fact_show(repo, args["id"]).report.summary)


_CURATION = (
    Tool(
        "memory_fact_show",
        "A fact as written, with its footer, where it lives, its citations (stale or not) and "
        "its related facts.",
        schemas.FACT_ID_IN,
        schemas.FACT_SHOW_OUT,
        _fact_show,
    ),
    Tool(
        "memory_fact_edit",
        "Give a fact new text; its id and footer stay as they are.",
        schemas.FACT_EDIT_IN,
        schemas.CURATED_OUT,
        _curating(curate_command.fact_edit, "text"),
        Journal.WRITES,
    ),
    Tool(
        "memory_fact_supersede",
        "Supersede a fact by another (new: its id) or by a new fact written from text; the "
        "next review archives the old one.",
        schemas.FACT_SUPERSEDE_IN,
        schemas.CURATED_OUT,
        _fact_supersede,
        Journal.WRITES,
    ),
    Tool(
        "memory_fact_retract",
        "Retract a fact that is no longer true and that nothing replaces, saying why.",
        schemas.FACT_RETRACT_IN,
        schemas.CURATED_OUT,
        _curating(curate_command.fact_retract, "reason"),
        Journal.WRITES,
    ),
    Tool(
        "memory_fact_archive",
        "Archive a fact by hand; the next review moves it to the archive.",
        schemas.FACT_ID_IN,
        schemas.CURATED_OUT,
        _curating(curate_command.fact_archive),
        Journal.WRITES,
    ),
    Tool(
        "memory_fact_restore",
        "Undo an archive by hand, or bring an archived fact back where it came from.",
        schemas.FACT_ID_IN,
        schemas.CURATED_OUT,
        _curating(curate_command.fact_restore),
        Journal.WRITES,
    ),
    Tool(
        "memory_fact_pin",
        "Pin a fact (tier: core): it never decays.",
        schemas.FACT_ID_IN,
        schemas.CURATED_OUT,
        _curating(curate_command.fact_pin),
        Journal.WRITES,
    ),
    Tool(
        "memory_fact_unpin",
        "Unpin a fact: its tier is again what the decay rules give it.",
        schemas.FACT_ID_IN,
        schemas.CURATED_OUT,
        _curating(curate_command.fact_unpin),
        Journal.WRITES,
    ),
    Tool(
        "memory_fact_expire",
        "Make a fact valid until a date: the first review after it archives the fact.",
        schemas.FACT_EXPIRE_IN,
        schemas.CURATED_OUT,
        _fact_expire,
        Journal.WRITES,
    ),
    Tool(
        "memory_fact_relate",
        "Relate a fact to another (see: other); recall and explain show one beside the other.",
        schemas.FACT_RELATE_IN,
        schemas.CURATED_OUT,
        _curating(curate_command.fact_relate, "other"),
        Journal.WRITES,
    ),
    Tool(
        "memory_fact_cite",
        "Cite the code a fact describes (place: FILE or FILE:A-B, from the repo's top); lint "
        "then says when those lines change.",
        schemas.FACT_CITE_IN,
        schemas.CURATED_OUT,
        _curating(cite_command.fact_cite, "place"),
        Journal.WRITES,
    ),
    Tool(
        "memory_fact_recite",
        "Update a fact's citations whose cited lines moved.",
        schemas.FACT_ID_IN,
        schemas.CURATED_OUT,
        _curating(cite_command.fact_recite),
        Journal.WRITES,
    ),
)


TOOLS = MappingProxyType(
    {
        tool.name: tool
        for tool in (
            Tool(
                "memory_recall",
                "Find facts in this repo's memory (continuity.md and the archive) by words, "
                "best first. Look here before saying there is no context.",
                schemas.RECALL_IN,
                schemas.RECALL_OUT,
                _recall,
            ),
            Tool(
                "memory_context",
                "What to read at the start of a session: core facts and invariants, active and "
                "working facts, open threads, and whether a review is due; the facts most "
                "relevant to the task and the paths touched in full, the others by one line.",
                schemas.CONTEXT_IN,
                schemas.CONTEXT_OUT,
                _context,
            ),
            Tool(
                "memory_status",
                "Versions, facts per tier, and whether a review is due and why.",
                schemas.NO_ARGUMENTS,
                schemas.STATUS_OUT,
                _status,
            ),
            Tool(
                "memory_fact_add",
                "Add a fact worth keeping (born working, created today) to continuity.md; its "
                "id comes from its first words unless one is given.",
                schemas.FACT_ADD_IN,
                schemas.FACT_ADD_OUT,
                _fact_add,
                Journal.WRITES,
            ),
            Tool(
                "memory_reference",
                "Record that this session used facts (by id) in the session's own log, which "
                "the review counts. Call it for every fact you relied on.",
                schemas.REFERENCE_IN,
                schemas.REFERENCE_OUT,
                _reference,
                Journal.WRITES,
            ),
            Tool(
                "memory_explain",
                "Why a fact is where it is: its footer, the sessions that used it and the DECAY "
                "rule that gives its tier.",
                schemas.EXPLAIN_IN,
                schemas.EXPLAIN_OUT,
                _explain,
            ),
            *_CURATION,
            Tool(
                "memory_fact_accept",
                "Turn a session's proposed fact (address: LOG#N, from its log's Proposed Facts) "
                "into a fact, or every pending one (all: true); with neither, list those pending.",
                schemas.FACT_ACCEPT_IN,
                schemas.FACT_ACCEPT_OUT,
                _fact_accept,
                Journal.WRITES,
            ),
        )
    }
)


def call(session: McpSession, name: str, arguments: object) -> Answer:
    """Run tool ``name`` through the runner: ``error`` set (and ``err`` its line) for anything
    the caller must fix, else ``result``, whose report's summary is the tool's result."""
    tool = TOOLS.get(name)
    journal = tool.journal if tool is not None else Journal.READS

    def checked(repo: Repo) -> Result:
        refused = refusal(name, arguments)
        if refused is not None:
            raise AgentMemoryError(refused)
        assert tool is not None and isinstance(arguments, Mapping)
        summary = tool.run(session, repo, arguments)
        return Result(Report(name, resources.version(), repo.shown, "ok", None, (), summary), 0)

    options = Options(wait=session.wait)
    return answer(Command(name, journal), session.path, Call(checked, options), False)


def refusal(name: str, arguments: object, problem: str | None = None) -> str | None:
    """Why a call of ``name`` is refused before anything is read — no such tool, ``problem``,
    or arguments its input schema does not allow — or None."""
    tool = TOOLS.get(name)
    if tool is None:
        return f"no tool {name!r}; the tools are {', '.join(TOOLS)}"
    if problem is not None:
        return f"{name}: {problem}; MCP.md lists the arguments"
    checker = jsonschema.Draft202012Validator(tool.input_schema)
    error = jsonschema.exceptions.best_match(checker.iter_errors(arguments))
    if error is None:
        return None
    where = "/".join(map(str, error.absolute_path))
    at = f" (at {where})" if where else ""
    return f"{name}: {error.message}{at}; MCP.md lists the arguments"


def error_line(message: str) -> str:
    """A tool error's text: the line the CLI prints for the same error."""
    return f"agent-memory: {message}"
