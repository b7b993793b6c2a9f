"""An agent's write held at the review gate (DECAY.md § The review gate): with ``agent_writes:
propose`` in the policy, ``memory_fact_add`` writes a proposal in the session's own log (the log
``memory_reference`` writes, by the same rule) instead of a fact; a person lands it with ``fact
accept LOG#N`` or refuses it with ``fact reject LOG#N``."""

from __future__ import annotations

import datetime as dt

from ..core.agents.gate import with_proposal
from ..core.agents.inbox import rejected_as, rejections
from ..core.facts.duplicates import compare
from ..core.plan import FileEdit, Outcome, Plan
from ..errors import AgentMemoryError
from ..layout import POLICY, REJECTED
from ..parse import policy, proposed
from ..shell.repo import Repo
from .reference import session_log
from .report import Report, Result
from .settle import Options, memory_of, settle


def gated(repo: Repo) -> bool:
    """Whether an agent's writes are proposals here: ``agent_writes`` is not ``direct`` (a value
    that is neither is read as ``propose``: the gate fails closed)."""
    return policy.parse(repo.read(POLICY))[0].agent_writes != "direct"


def refused(tool: str) -> AgentMemoryError:
    return AgentMemoryError(
        f"{tool} changes the memory, and agent_writes is propose in {POLICY}: an agent's writes "
        "are proposals a person lands; propose the change with memory_fact_add, or ask a person "
        "to run the command"
    )


def propose(
    repo: Repo, text: str, kind: str, own_log: str | None, now: dt.datetime | None = None
) -> Result:
    """Proposal of ``kind`` in the session's own log (``own_log``, while it is open; else a new
    one); the summary's ``log`` is the log to pass next time and ``address`` its ``LOG#N``."""
    memory, continuity = memory_of(repo, archives=False)
    said = rejected_as(text, rejections((repo.read(REJECTED) or b"").decode("utf-8", "replace")))
    if said is not None:
        raise AgentMemoryError(
            f"a person rejected this proposal before ({said.address}, {said.day}: {said.reason}); "
            "it is not proposed again"
        )
    if memory.personal is not None:  # a log is committed: one person's fact stays theirs
        same = compare(text, [memory.personal]).same
        if same is not None:
            raise AgentMemoryError(
                f"the same fact is your personal {same.id} ({same.path}:{same.line}); a "
                "proposal is committed in the session's log, so it is not proposed"
            )
    log = session_log(repo, memory, continuity, own_log, now)
    rel, before = log.rel, log.before
    after, number = with_proposal(log.text, kind, text)
    address = proposed.address(log.name[:-3], number)
    edit = FileEdit(rel, before, after.encode(), Outcome.written(before), f"proposed: {address}")
    settled = settle(repo, [Plan.of([edit])], Options(), "unchanged")
    summary = {"log": rel, "address": address, "kind": kind}
    report = Report("propose", repo.shown, "proposed", None, (), summary)
    return Result(report, settled.exit_code)
