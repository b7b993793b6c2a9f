"""The MCP tools, made from the commands' declarations: a declared line with a ``tool``
description is the tool ``memory_`` and its words, whose input schema its parameters give
(``inputs.py``) and which writes when its command writes; ``memory_reference``, which no command
line has, is declared here. MCP.md shows them all (generated: ``tests/cli_reference.py``).
The lines come from the families that declare tools, not from ``table.py``: ``setup`` declares
``mcp``, whose server imports this module (a test holds the tools to the whole table).

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
from ...commands import accept as accept_command
from ...commands import cite as cite_command
from ...commands import context as context_command
from ...commands import curate as curate_command
from ...commands import explain as explain_command
from ...commands import fact as fact_command
from ...commands import forget as forget_command
from ...commands import proposals as proposals_command
from ...commands import propose as propose_command
from ...commands import recall as recall_command
from ...commands import reference as reference_command
from ...commands import reject as reject_command
from ...commands import share as share_command
from ...commands import status as status_command
from ...commands.report import Report, Result
from ...commands.runner import Answer, Call, Command, Journal, answer
from ...commands.settle import Options
from ...core.agents.gate import kind_of
from ...core.agents.ranking import Index
from ...errors import AgentMemoryError
from ...layout import CONTEXT_BYTES  # what memory_context returns at most: --max-bytes's default
from ...parse.dates import parse_date
from ...shell.memo import FileMemo
from ...shell.repo import Repo
from .. import curation, memory
from ..declared import Declared
from . import schemas
from .inputs import input_schema

# How long a tool waits for another run's lock (a reader: for a run that is writing) before it
# reports that run.
LOCK_WAIT = 5.0


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
        personal=args.get("personal", False),
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


def _fact_forget(session: McpSession, repo: Repo, args: Mapping[str, Any]) -> dict[str, Any]:
    return _curated(forget_command.fact_forget(repo, args["text"], Options(wait=session.wait)))


def _proposed(
    session: McpSession, repo: Repo, name: str, args: Mapping[str, Any]
) -> dict[str, Any]:
    """A write held at the review gate: ``memory_fact_add`` proposes its text in the session's
    own log (its ``id`` is the proposal's address, its ``tier`` "proposed"); any other writing
    tool is refused."""
    if name != "memory_fact_add":
        raise propose_command.refused(name)
    kind = kind_of(args.get("section"))
    result = propose_command.propose(repo, args["text"], kind, session.log)
    summary = result.report.summary
    session.log = str(summary["log"]).rsplit("/", 1)[-1]
    address = str(summary["address"])
    section = args.get("section") or "Key Decisions"
    return {
        "id": address,
        "section": section,
        "tier": "proposed",
        "created": session.log[:10],
        "outcome": "proposed",
        "similar": [],
        "conflicts": [],
        "log": summary["log"],
    }


def _fact_reject(session: McpSession, repo: Repo, args: Mapping[str, Any]) -> dict[str, Any]:
    options = Options(wait=session.wait)
    return _curated(reject_command.fact_reject(repo, args["address"], args["reason"], options))


def _proposals(_session: McpSession, repo: Repo, _args: Mapping[str, Any]) -> dict[str, Any]:
    return dict(proposals_command.proposals(repo).report.summary)


def _fact_show(_session: McpSession, repo: Repo, args: Mapping[str, Any]) -> dict[str, Any]:
    return dict(cite_command.fact_show(repo, args["id"]).report.summary)


LINES = (*memory.LINES, *curation.LINES)  # the families whose lines are tools
Run = Callable[[McpSession, Repo, Mapping[str, Any]], dict[str, Any]]

# What each declared tool does with its arguments: its command, called as its line calls it.
_RUNS: Mapping[str, Run] = {
    "memory_status": _status,
    "memory_context": _context,
    "memory_recall": _recall,
    "memory_explain": _explain,
    "memory_fact_add": _fact_add,
    "memory_fact_edit": _curating(curate_command.fact_edit, "text"),
    "memory_fact_supersede": _fact_supersede,
    "memory_fact_retract": _curating(curate_command.fact_retract, "reason"),
    "memory_fact_forget": _fact_forget,
    "memory_fact_share": _curating(share_command.fact_share),
    "memory_fact_archive": _curating(curate_command.fact_archive),
    "memory_fact_restore": _curating(curate_command.fact_restore),
    "memory_fact_pin": _curating(curate_command.fact_pin),
    "memory_fact_unpin": _curating(curate_command.fact_unpin),
    "memory_fact_expire": _fact_expire,
    "memory_fact_relate": _curating(curate_command.fact_relate, "other"),
    "memory_fact_cite": _curating(cite_command.fact_cite, "place"),
    "memory_fact_recite": _curating(cite_command.fact_recite),
    "memory_fact_accept": _fact_accept,
    "memory_fact_show": _fact_show,
    "memory_fact_reject": _fact_reject,
    "memory_proposals": _proposals,
}

# The one tool no command line declares: the uses of a session, in its own log.
_REFERENCE = Tool(
    "memory_reference",
    "Record that this session used facts (by id) in the session's own log, which the review "
    "counts. Call it for every fact you relied on.",
    schemas.REFERENCE_IN,
    schemas.REFERENCE_OUT,
    _reference,
    Journal.WRITES,
)


def tool_name(line: Declared) -> str:
    """A declared tool's name: ``memory_`` and its command's words (``memory_fact_add``)."""
    return "memory_" + "_".join(line.words).replace("-", "_")


def _declared(line: Declared, description: str) -> Tool:
    name = tool_name(line)
    journal = line.command.journal
    output = schemas.OUTPUTS[name]
    return Tool(name, description, input_schema(line.params), output, _RUNS[name], journal)


TOOLS = MappingProxyType(
    {
        tool.name: tool
        for tool in (
            *(_declared(line, line.tool) for line in LINES if line.tool is not None),
            _REFERENCE,
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
        held = tool.journal is Journal.WRITES and tool is not _REFERENCE
        held = held and not arguments.get("personal")  # the user's own file: no team review
        if held and propose_command.gated(repo):  # the review gate: before any tool runs
            summary = _proposed(session, repo, name, arguments)
        else:
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
