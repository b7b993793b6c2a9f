"""``agent-memory fact forget TEXT``: retract the one live fact TEXT describes (DECAY.md § Forget
by description), through ``fact retract``'s plan; or name the candidates and change nothing."""

from __future__ import annotations

from ..core.agents.forget import FLOOR, MARGIN, choose
from ..errors import AgentMemoryError
from ..parse.untrusted import first_unsafe
from ..shell.repo import Repo
from .curate import fact_retract
from .report import Result
from .settle import Options, memory_of

REASON = 200  # characters of the description kept in the retraction's reason


def fact_forget(repo: Repo, text: str, options: Options) -> Result:
    described = " ".join(text.split())
    unsafe = first_unsafe(described)
    if unsafe is not None:
        raise AgentMemoryError(f"TEXT holds a control character ({unsafe}); pass plain text")
    memory, continuity = memory_of(repo, archives=False)
    live = [continuity, *memory.threads]
    choice = choose(described, live)
    if choice.chosen is None:
        listed = "; ".join(
            f"{h.id} ({h.score:.2f}): {h.first_line[:60]}" for h in choice.candidates
        )
        raise AgentMemoryError(
            f"no live fact matches {described[:80]!r} with {FLOOR:.0%} of its words (two at "
            f"least) and a score {MARGIN}x the next; nothing changed. Candidates: "
            f"{listed or 'none'} — retract one with agent-memory fact retract ID --reason TEXT"
        )
    result = fact_retract(repo, choice.chosen.id, f"forgotten: {described[:REASON]}", options)
    report = result.report._replace(command="fact forget")
    return result._replace(report=report)
