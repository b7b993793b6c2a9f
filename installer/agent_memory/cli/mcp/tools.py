"""The MCP tools, made from the commands' declarations: a declared line with a ``tool``
description is the tool ``memory_`` and its words, whose input schema its parameters give
(``inputs.py``) and which writes when its command writes; ``memory_reference``, which no command
line has, is declared here. MCP.md shows them all (generated: ``tests/cli_reference.py``).
The lines come from the families that declare tools, not from ``table.py``: ``setup`` declares
``mcp``, whose server imports this module (a test holds the tools to the whole table).

A tool runs its line's own build, the call the CLI makes, through the same runner (the repo
found and opened, the journal rule), and returns the command's summary as the tool's structured
result (``context`` and ``recall`` reshape theirs). Arguments are checked against the tool's
input schema first; anything wrong, there or in the command, is an error the runner words as the
CLI would, and the server sends it as a tool error. The repo is read afresh on every call, so a
commit another agent made is seen by the next call.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

import jsonschema  # type: ignore[import-untyped]  # comes with the mcp extra

from ...commands import context as context_command
from ...commands import propose as propose_command
from ...commands import recall as recall_command
from ...commands import reference as reference_command
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
from ..declared import Declared, Kind, Param
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


Run = Callable[[McpSession, Repo, Mapping[str, Any]], dict[str, Any]]
LINES = (*memory.LINES, *curation.LINES)  # the families whose lines are tools


@dataclasses.dataclass(frozen=True)
class Tool:
    name: str
    description: str
    input_schema: Mapping[str, Any]
    output_schema: Mapping[str, Any]
    run: Run
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


def _context(_session: McpSession, repo: Repo, args: Mapping[str, Any]) -> dict[str, Any]:
    paths = tuple(args["paths"]) if "paths" in args else None
    result = context_command.context(repo, CONTEXT_BYTES, False, args.get("task", ""), paths)
    summary = result.report.summary
    return {"text": summary["markdown"], "due": list(summary["due"])}


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


# The tools whose result is not their command's summary: the rest run their line (``_run``).
_SHAPED: Mapping[str, Run] = {"memory_context": _context, "memory_recall": _recall}


def _run(line: Declared) -> Run:
    """A declared tool run as its line: each argument handed to its parameter, the rest at what
    click gives when they are not typed, the session's repo and wait; the command's summary is
    the result, with its outcome when the tool writes."""
    writes = line.command.journal is Journal.WRITES

    def run(session: McpSession, repo: Repo, args: Mapping[str, Any]) -> dict[str, Any]:
        values = {param.name: _value(param, args) for param in line.params}
        values.update(path=session.path, wait=session.wait)
        result = line.build(values, None)[1].run(repo)
        summary = dict(result.report.summary)
        return {**summary, "outcome": result.report.outcome} if writes else summary

    return run


def _value(param: Param, args: Mapping[str, Any]) -> Any:
    """``param``'s value: its argument (a date parsed), else its default as click gives it."""
    name = None if param.arg is None else param.arg.name or param.name
    if name is None or name not in args:
        return () if param.multiple else False if param.kind is Kind.FLAG else param.default
    value = args[name]
    if param.kind is not Kind.DATE:
        return value
    day = parse_date(value)
    if day is None:
        raise AgentMemoryError(f"{name}: {value!r} is not a date (YYYY-MM-DD)")
    return day


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
    run = _SHAPED.get(name) or _run(line)
    return Tool(name, description, input_schema(line.params), output, run, journal)


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
        return Result(Report(name, repo.shown, "ok", None, (), summary), 0)

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
