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
from ...shell.memo import FileMemo
from ...shell.repo import Repo
from .. import context as context_command
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
    return {"query": args["query"], "facts": facts}


def _status(_session: McpSession, repo: Repo, _args: Mapping[str, Any]) -> dict[str, Any]:
    return dict(status_command.status(repo).report.summary)


def _reference(session: McpSession, repo: Repo, args: Mapping[str, Any]) -> dict[str, Any]:
    label = args.get("label", "referenced").capitalize()
    ids = list(dict.fromkeys(args["ids"]))
    result = reference_command.reference(repo, ids, label, session.log)
    summary = dict(result.report.summary)
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


def _context(_session: McpSession, repo: Repo, _args: Mapping[str, Any]) -> dict[str, Any]:
    summary = context_command.context(repo, CONTEXT_BYTES).report.summary
    return {"text": summary["markdown"], "due": list(summary["due"])}


def _explain(_session: McpSession, repo: Repo, args: Mapping[str, Any]) -> dict[str, Any]:
    return dict(explain_command.explain(repo, args["id"], False, None).report.summary)


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
                "working facts, open threads, and whether a review is due.",
                schemas.NO_ARGUMENTS,
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
