"""The real agents, end to end (DESIGN.md §19): Claude Code, Codex and Gemini CLI from their npm
packages, headless, against the scripted model on 127.0.0.1, in a repo enabled with
``agent-memory enable``, ``hooks install`` and ``mcp install``.

Per agent: the session-start context reaches the model's first request; a session of two runs
(a compaction between or inside them, and a resume) leaves exactly one log, naming the ids the
agent used and the files it wrote, counted once by a review; the MCP tools are offered and one
is called; no hook fails or talks to the user; ``doctor`` agrees with what the agent loaded;
the hooks work from a subdirectory where the agent reads them there (Codex).

Run with ``python -m pytest tests/agents -m agents`` (the default run deselects these); the
agents are installed into ``$AGENT_MEMORY_E2E_CACHE`` or ``$XDG_CACHE_HOME/agent-memory-e2e``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from agent_memory.cli.mcp.tools import TOOLS
from agent_memory.core.agents.context import TITLE
from agents import model_server as ms
from agents.conftest import CANARY, CANARY_TEXT, SECOND, Factory, Sandbox, agent_memory
from agents.drivers import HEAVY

pytestmark = pytest.mark.agents

AGENTS = ["claude", "codex", "gemini"]
ONE = "[[e2e:one]] Check the widget colour, note it, and look it up in the memory."
TWO = "[[e2e:two]] Now the release day, and note that too."


def _session(sandbox_factory: Factory, agent: str) -> Sandbox:
    """Two runs of one session: four steps (a shell command naming a fact, a file written, an
    MCP recall, an MCP reference to the other fact), then — compacted on command, or by a prompt
    past the agent's threshold in the middle of the second run — a resume with two more. The
    reference is the only place the session names the second fact: capture must count it from
    the call, and the server must leave the log to capture (one session, one log)."""
    script = ms.Script({})
    sandbox = sandbox_factory(agent, script, "session")
    repo = sandbox.repo
    heavy = 100 if sandbox.driver.compacts_on_command else HEAVY
    script.scripts["one"] = [
        ms.shell(f"echo {CANARY}"),
        ms.write(str(repo / "notes" / "one.txt"), "cobalt\n"),
        ms.mcp("memory_recall", query="cobalt widgets"),
        ms.mcp("memory_reference", ids=[SECOND]),
    ]
    script.scripts["two"] = [
        ms.shell(f"echo {CANARY}", tokens=heavy),
        ms.write(str(repo / "notes" / "two.txt"), "thursday\n"),
    ]
    first, session = sandbox.driver.start(ONE, repo)
    sandbox.check(first)
    assert session, f"no session id in the first run's output\n{first.describe()}"
    sandbox.session = session
    if sandbox.driver.compacts_on_command:
        sandbox.check(sandbox.driver.compact(session, repo))
    sandbox.check(sandbox.driver.resume(session, TWO, repo))
    return sandbox


@pytest.fixture(scope="module", params=AGENTS)
def session(request: pytest.FixtureRequest, sandbox_factory: Factory) -> Sandbox:
    return _session(sandbox_factory, request.param)


# Claude Code and Gemini CLI read a project's hook settings only in the directory they start
# in (the tests "…from_a_subdirectory…" below); Codex finds .codex/ upwards and runs the hooks
# in the subdirectory.
@pytest.fixture(scope="module", params=["codex"])
def from_subdirectory(request: pytest.FixtureRequest, sandbox_factory: Factory) -> Sandbox:
    """One run started in ``src/app``, as agents are when the user is there."""
    script = ms.Script({})
    sandbox = sandbox_factory(request.param, script, "subdir")
    here = sandbox.repo / "src" / "app"
    script.scripts["sub"] = [ms.shell(f"echo {SECOND}"), ms.write(str(here / "here.txt"), "x\n")]
    done, session = sandbox.driver.start("[[e2e:sub]] Note the release day here.", here)
    sandbox.check(done)
    sandbox.session = session
    return sandbox


# -- what a log says ------------------------------------------------------------------------


def _logs_of(sandbox: Sandbox) -> list[Path]:
    mine = f"- session: {sandbox.session}\n"
    return [log for log in sandbox.logs() if mine in log.read_text()]


def _section(log: Path, title: str) -> list[str]:
    text = log.read_text()
    found = re.search(rf"^## {title}\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    return [
        line[2:] for line in (found.group(1) if found else "").splitlines() if line.startswith("- ")
    ]


def _ids(log: Path, label: str) -> set[str]:
    for item in _section(log, "Memory References"):
        if item.startswith(label + ":"):
            value = item.split(":", 1)[1].strip()
            return set() if value == "(none)" else {i.strip() for i in value.split(",")}
    return set()


def _files(log: Path) -> set[str]:
    return {f for f in _section(log, "Files Changed") if f != "(none)"}


def _one_log(sandbox: Sandbox) -> Path:
    logs = _logs_of(sandbox)
    names = [log.name for log in sandbox.logs()]
    assert len(logs) == 1, f"{sandbox.driver.agent.name}: {len(logs)} logs of one session: {names}"
    return logs[0]


# -- the session start -----------------------------------------------------------------------


def _first_request(sandbox: Sandbox, name: str) -> ms.Recorded:
    prompted = sandbox.script.prompted(name)
    assert prompted, f"the model never saw the prompt [[e2e:{name}]]"
    return prompted[0]


def test_session_start_context_reaches_the_first_request(session: Sandbox) -> None:
    first = _first_request(session, "one").raw
    assert CANARY_TEXT in first, "no memory context"  # only `agent-memory context` says it
    assert CANARY in first


def test_the_resumed_compacted_session_holds_the_context_once(session: Sandbox) -> None:
    """After the compaction and the resume, each request holds the session-start context once:
    not lost by the compaction, not added again by the resume when the agent holds it."""
    counts = [r.raw.count(TITLE) for r in session.script.prompted("two") if CANARY_TEXT in r.raw]
    assert counts and set(counts) == {1}, f"{session.driver.agent.name}: {counts}"


def test_context_reaches_the_model_from_a_subdirectory(from_subdirectory: Sandbox) -> None:
    first = _first_request(from_subdirectory, "sub").raw
    assert CANARY_TEXT in first, "no memory context"


# -- MCP -------------------------------------------------------------------------------------


def test_mcp_tools_are_listed_and_one_is_called(session: Sandbox) -> None:
    called = [r for r in session.script.seen() if r.answer is not None and r.answer.kind == "mcp"]
    offered = {name for r in session.script.seen() for name in ms.tools(r)}
    missing = [t for t in sorted(TOOLS) if not any(o.endswith(("_" + t, "/" + t)) for o in offered)]
    assert not missing, f"MCP tools not offered to the model: {missing}"
    assert called, "the scripted MCP call was never made (memory_recall not offered then)"
    outputs = [turn.output for r in session.script.seen() for turn in ms.turns(r) if turn.results]
    answered = [o for o in outputs if CANARY in o and "score" in o]
    assert answered, "the agent called memory_recall but no result of it came back"


# -- one session, one log --------------------------------------------------------------------


def test_the_session_compacted_and_resumed(session: Sandbox) -> None:
    """The harness did what it says: a compaction ran (the model was asked for a summary in
    the middle of the session) and the resumed run went on in the same session."""
    assert any(ms.asks_for_summary(r) for r in session.script.seen()), "no compaction happened"
    assert session.session in session.runs[-1].stdout, session.runs[-1].describe()
    transcripts = [t for t in session.driver.transcripts() if session.session in t.read_text()]
    assert transcripts, "the session wrote no transcript"
    # Gemini CLI resumed in a later minute also starts a file named by that minute, holding only
    # the session's opening context; the session goes on in the first. The others keep one file.
    assert len(transcripts) == 1 or session.driver.agent.name == "gemini", transcripts


def test_one_session_gives_one_log(session: Sandbox) -> None:
    log = _one_log(session)
    others = [p.name for p in session.logs() if p != log]
    assert not others, f"logs of no session here: {others}"


# What the session's logs say is checked over all of them, so that each of these tests says
# one thing: how many logs there are is test_one_session_gives_one_log's business.


def _said(sandbox: Sandbox) -> str:
    return "\n".join(log.read_text() for log in _logs_of(sandbox)) or "(no log)"


def _listed(sandbox: Sandbox, what: Callable[[Path], set[str]]) -> set[str]:
    return set().union(*(what(log) for log in _logs_of(sandbox)))


def _referenced(log: Path) -> set[str]:
    return _ids(log, "Referenced")


def _created(log: Path) -> set[str]:
    return _ids(log, "Created")


def test_the_log_names_the_facts_the_session_used(session: Sandbox) -> None:
    assert _listed(session, _referenced) == {CANARY, SECOND}, _said(session)
    assert _listed(session, _created) == set(), _said(session)


def test_the_log_lists_the_files_the_session_wrote(session: Sandbox) -> None:
    assert _listed(session, _files) == {"notes/one.txt", "notes/two.txt"}, _said(session)


def test_review_counts_the_session_once(session: Sandbox) -> None:
    """Each fact the session named, in one run or in both, is one use: decay counts sessions,
    not how often an agent fired its hooks."""
    for fact in (CANARY, SECOND):
        out = agent_memory("explain", fact, "--json", cwd=session.repo)
        summary = json.loads(out[out.index("{") :])["summary"]
        counted = int(summary["recomputed"]["uses"]) - int(summary["footer"]["uses"])
        assert counted == 1, f"{fact}: {counted} uses by one session\n{out}"


def test_one_log_from_a_subdirectory(from_subdirectory: Sandbox) -> None:
    _one_log(from_subdirectory)


def test_the_log_from_a_subdirectory_names_files_from_the_top(from_subdirectory: Sandbox) -> None:
    said = _said(from_subdirectory)
    assert _listed(from_subdirectory, _referenced) == {SECOND}, said
    assert _listed(from_subdirectory, _files) == {"src/app/here.txt"}, said


# What HOOKS.md says of the agents started below the repo's top. If one of these fails, an
# agent changed, and HOOKS.md § Tested with must say what it does now.


def test_claude_from_a_subdirectory_starts_the_mcp_server_but_runs_no_hook(
    sandbox_factory: Factory,
) -> None:
    """Claude Code finds the repo's ``.mcp.json`` from a subdirectory, not its
    ``.claude/settings.json``: the MCP server runs, the hooks do not."""
    script = ms.Script({"sub": [ms.mcp("memory_recall", query="cobalt widgets")]})
    sandbox = sandbox_factory("claude", script, "subdir")
    done, sandbox.session = sandbox.driver.start("[[e2e:sub]] Hello.", sandbox.repo / "src" / "app")
    sandbox.check(done)
    assert CANARY_TEXT not in _first_request(sandbox, "sub").raw
    assert [r for r in script.seen() if r.answer is not None and r.answer.kind == "mcp"]
    assert not sandbox.logs()


def test_gemini_from_a_subdirectory_reads_no_project_setting(sandbox_factory: Factory) -> None:
    """Gemini CLI reads ``.gemini/settings.json`` only where it starts: no hook, no MCP server
    (it waits for its MCP servers before it asks the model, so their tools would be there)."""
    script = ms.Script({"sub": [ms.shell(f"echo {SECOND}")]})
    sandbox = sandbox_factory("gemini", script, "subdir")
    done, sandbox.session = sandbox.driver.start("[[e2e:sub]] Hello.", sandbox.repo / "src" / "app")
    sandbox.check(done)
    first = _first_request(sandbox, "sub")
    assert CANARY_TEXT not in first.raw
    assert not [t for r in script.seen() for t in ms.tools(r) if "memory_recall" in t]
    assert not sandbox.logs()


# -- doctor --------------------------------------------------------------------------------


def _files_of(root: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in root.rglob("*") if p.is_file() and ".git" not in p.parts}


def test_doctor_finds_nothing_wrong_where_everything_ran(session: Sandbox) -> None:
    """After a session in which the agent ran our hooks and our MCP server, ``doctor`` (reading
    the same HOME) finds nothing that would not run, and changes nothing."""
    before = _files_of(session.repo)
    agent_memory("doctor", cwd=session.repo, env=session.driver.env())
    assert _files_of(session.repo) == before


def test_doctor_sees_the_codex_hooks_codex_will_not_run(
    sandbox_factory: Factory,
) -> None:
    """A trusted project whose hooks were never reviewed: Codex runs none of them (the
    context never reaches the model), and ``doctor`` says so, exit 1."""
    script = ms.Script({"quiet": [ms.shell("true")]})
    sandbox = sandbox_factory("codex", script, "untrusted", review_hooks=False)
    done, sandbox.session = sandbox.driver.start("[[e2e:quiet]] Hello.", sandbox.repo)
    sandbox.check(done)
    assert CANARY_TEXT not in _first_request(sandbox, "quiet").raw
    said = agent_memory("doctor", cwd=sandbox.repo, env=sandbox.driver.env(), code=1)
    assert "codex" in said.lower(), said


# -- Claude Code's own ------------------------------------------------------------------------


def test_a_claude_subagents_work_is_its_sessions(sandbox_factory: Factory) -> None:
    """What a subagent does (Claude Code keeps it in ``<session>/subagents/``) is the session's:
    the fact it named and the file it wrote are in the session's one log."""
    script = ms.Script({})
    sandbox = sandbox_factory("claude", script, "subagent")
    task = "[[e2e:helper]] Note the release day."
    script.scripts["main"] = [
        ms.tool("Agent", description="Note the day", prompt=task, subagent_type="general-purpose")
    ]
    script.scripts["helper"] = [
        ms.shell(f"echo {SECOND}"),
        ms.write(str(sandbox.repo / "notes" / "helper.txt"), "thursday\n"),
    ]
    done, sandbox.session = sandbox.driver.start("[[e2e:main]] Ask a helper.", sandbox.repo)
    sandbox.check(done)
    assert script.prompted("helper"), "the subagent never asked the model"
    log = _one_log(sandbox)
    assert SECOND in _referenced(log), log.read_text()
    assert "notes/helper.txt" in _files(log), log.read_text()


def test_claude_mcp_list_is_no_session(sandbox_factory: Factory) -> None:
    """``claude mcp list`` fires SessionEnd with a transcript that does not exist: nothing to
    capture, no failure shown, nothing written; and it finds our server and connects to it."""
    sandbox = sandbox_factory("claude", ms.Script({}), "mcp-list")
    listed = sandbox.check(sandbox.driver.invoke(["mcp", "list"], sandbox.repo))
    assert "agent-memory" in listed.stdout and "Connected" in listed.stdout, listed.describe()
    assert not _NOISE["claude"].search(listed.stdout + listed.stderr), listed.describe()
    assert not sandbox.logs()


# -- what the user sees ----------------------------------------------------------------------

_NOISE = {
    "claude": re.compile(r"hook.*(fail|error)", re.I),
    "codex": re.compile(r'"type":"error","message":"[^"]*hook', re.I),
    "gemini": re.compile(r"Hook system message|hook.*(fail|error)", re.I),
}


def test_hooks_neither_fail_nor_talk_to_the_user(session: Sandbox) -> None:
    """Nothing of ours on a channel the agent shows the user every turn, and no hook failure
    (a Codex timeout it has to clamp included)."""
    noise = _NOISE[session.driver.agent.name]
    heard = [
        line
        for done in session.runs
        for line in (done.stdout + "\n" + done.stderr).splitlines()
        if noise.search(line)
    ]
    assert not heard, "\n".join(heard[:10])


@pytest.mark.parametrize("session", ["gemini"], indirect=True)
def test_each_gemini_handler_has_a_name_of_its_own(session: Sandbox) -> None:
    """Gemini CLI records the project hooks it was told to trust as ``name:command``, and
    ``/hooks disable NAME`` takes that name: one name for three handlers is ambiguous."""
    settings = json.loads((session.repo / ".gemini" / "settings.json").read_text())
    ours = [h for groups in settings["hooks"].values() for g in groups for h in g["hooks"]]
    names = [h.get("name", "") for h in ours]
    assert len(set(names)) == len(names) == 3, names
    trusted = json.loads((session.driver.home / ".gemini" / "trusted_hooks.json").read_text())
    recorded = {entry.split(":", 1)[0] for entry in trusted[str(session.repo)]}
    assert recorded == set(names), trusted


def test_transcripts_are_where_hooks_md_says(session: Sandbox) -> None:
    """The table of transcripts in HOOKS.md, checked against where the agent wrote this one."""
    where = {
        "claude": r"\.claude/projects/[^/]+/[0-9a-f-]{36}\.jsonl$",
        "codex": r"\.codex/sessions/\d{4}/\d\d/\d\d/rollout-[^/]+-[0-9a-f-]{36}\.jsonl$",
        "gemini": r"\.gemini/tmp/[^/]+/chats/session-[^/]+\.jsonl$",
    }[session.driver.agent.name]
    found = [t for t in session.driver.transcripts() if session.session in t.read_text()]
    assert found and all(re.search(where, t.as_posix()) for t in found), found
    assert json.loads(found[0].read_text().splitlines()[0])  # a JSON record per line
