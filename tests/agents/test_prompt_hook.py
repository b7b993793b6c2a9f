"""The hooks' context over a session of several turns, with the real agents: the prompt hook's
lines (``hooks install --prompt-recall``) reach the model on the turn whose prompt matches a
fact the session start showed only by its excerpt, and a later prompt that matches it again does
not send the fact twice to a model that still holds it (Claude Code and Codex keep every hook's
context of the session until a compaction; Gemini CLI, resumed, does not send the earlier one
again, so there the hook brings it again). Likewise the session-start view: Codex runs the
session-start hook again on each resume, and a resumed session goes on with the view it holds.

Run with ``python -m pytest tests/agents -m agents`` (see test_agents.py).
"""

from __future__ import annotations

import pytest

from agent_memory.core.agents.context import TITLE
from agent_memory.core.agents.prompt_recall import HEAD
from agents import model_server as ms
from agents.conftest import Factory, Sandbox, agent_memory, git
from agents.drivers import HEAVY

pytestmark = pytest.mark.agents

LARGE = "e2e-ledger-fact"
TAIL = "The ledger closes at dusk, never at noon."  # past the excerpt the start view shows
ASK = "What about the zanzibar quokka ledger?"
PADDING = 40  # small facts: a rare word of the prompt then clears the hook's floor


def _prompted(sandbox: Sandbox, name: str) -> list[int]:
    """How often each request of the turn ``name`` holds the large fact's tail."""
    requests = sandbox.script.prompted(name)
    assert requests, f"the model never saw the prompt [[e2e:{name}]]"
    return [request.raw.count(TAIL) for request in requests]


def _sandbox(sandbox_factory: Factory, agent: str) -> Sandbox:
    """A repo whose session start shows one large fact by its excerpt alone, the prompt hook
    installed; two turns of one session ask about it (for Codex, a compaction and a third)."""
    script = ms.Script({name: [ms.text(f"ok {name}")] for name in ("one", "two", "three")})
    sandbox = sandbox_factory(agent, script, "prompt")
    repo = sandbox.repo
    for n in range(PADDING):
        agent_memory(
            "fact", "add", f"Padding note {n} on topic t{n}.", "--id", f"pad-{n}", cwd=repo
        )
    body = "The zanzibar quokka ledger. " + "Zanzibar quokka ledger entries. " * 110 + TAIL
    agent_memory("fact", "add", body, "--id", LARGE, cwd=repo)
    agent_memory("hooks", "install", "--agent", agent, "--prompt-recall", cwd=repo)
    sandbox.driver.prepare(repo)  # Codex: the hooks reviewed again, the new one among them
    git("add", "-A", cwd=repo)
    git("commit", "-q", "-m", "a large fact, the prompt hook", cwd=repo)
    first, session = sandbox.driver.start(f"[[e2e:one]] {ASK}", repo)
    sandbox.check(first)
    sandbox.session = session
    sandbox.check(sandbox.driver.resume(session, f"[[e2e:two]] {ASK}", repo))
    if agent == "codex":  # compacted by a prompt past its threshold, then asked again
        script.scripts["squeeze"] = [ms.shell("echo squeeze", tokens=HEAVY)]
        sandbox.check(sandbox.driver.resume(session, "[[e2e:squeeze]] Go on.", repo))
        sandbox.check(sandbox.driver.resume(session, f"[[e2e:three]] {ASK}", repo))
    return sandbox


@pytest.fixture(scope="module", params=["claude", "codex", "gemini"])
def asked(request: pytest.FixtureRequest, sandbox_factory: Factory) -> Sandbox:
    return _sandbox(sandbox_factory, request.param)


def test_the_start_shows_the_large_fact_by_its_excerpt_alone(asked: Sandbox) -> None:
    start = asked.script.prompted("one")[0].raw
    assert LARGE in start and "e2e-canary-fact" in start, "no session-start context"
    assert TAIL not in start.split(HEAD)[0], "the start view showed the large fact in full"


def test_the_prompt_hooks_lines_reach_the_model(asked: Sandbox) -> None:
    assert HEAD in asked.script.prompted("one")[0].raw
    assert 1 in _prompted(asked, "one"), "the prompt hook's lines never reached the model"


def test_a_fact_the_model_holds_is_not_sent_again(asked: Sandbox) -> None:
    counts = _prompted(asked, "two")
    assert max(counts) == 1, f"{asked.driver.agent.name}: the tail {max(counts)} times"


def test_after_a_compaction_the_fact_is_brought_again(asked: Sandbox) -> None:
    if asked.driver.agent.name != "codex":
        pytest.skip("only the Codex session here compacts between two matching prompts")
    assert any(ms.asks_for_summary(r) for r in asked.script.seen()), "no compaction happened"
    counts = _prompted(asked, "three")
    assert max(counts) == 1, f"the tail {max(counts)} times after the compaction"


def test_a_resumed_session_holds_the_start_view_once(asked: Sandbox) -> None:
    turns = ("two", "three") if asked.driver.agent.name == "codex" else ("two",)
    for name in turns:
        counts = [request.raw.count(TITLE) for request in asked.script.prompted(name)]
        assert max(counts) == 1, f"{asked.driver.agent.name}, turn {name}: {counts}"
