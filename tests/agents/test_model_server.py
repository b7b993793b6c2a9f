"""The scripted model itself, over HTTP as the agents call it: each API's streamed shape, the
step a conversation is at, compaction summaries, and the calls that only wait. No agent, no
node: this runs in the default suite."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from agents import model_server as ms

ECHO = "echo e2e-canary-fact"
STEPS = [ms.shell(ECHO), ms.write("/repo/notes.txt", "x\n"), ms.mcp("memory_recall", query="q")]
RECALL = "mcp__agent-memory__memory_recall"
PROMPT = {"role": "user", "content": "[[e2e:s]] go"}
MOVED = {"role": "assistant", "content": "…"}
Json = dict[str, Any]


@pytest.fixture
def server() -> Iterator[ms.ModelServer]:
    with ms.ModelServer(ms.Script({"s": STEPS})) as running:
        yield running


def post(server: ms.ModelServer, path: str, body: Json) -> bytes:
    headers = {"content-type": "application/json"}
    request = urllib.request.Request(server.url + path, json.dumps(body).encode(), headers)
    with urllib.request.urlopen(request, timeout=10) as answer:
        return bytes(answer.read())


def events(raw: bytes) -> list[Json]:
    return [json.loads(line[6:]) for line in raw.decode().splitlines() if line.startswith("data: ")]


def result(n: int) -> Json:
    block = {"type": "tool_result", "tool_use_id": f"t{n}", "content": "ok"}
    return {"role": "user", "content": [block]}


def claude(
    server: ms.ModelServer, messages: list[Json], tools: tuple[str, ...]
) -> tuple[str, Json]:
    """The tool Claude Code would be told to call, and its input (or "text" and the words)."""
    body = {"model": "m", "stream": True, "tools": [{"name": t} for t in tools]}
    streamed = events(post(server, "/v1/messages?beta=true", {**body, "messages": messages}))
    block = next(e["content_block"] for e in streamed if e["type"] == "content_block_start")
    delta = next(e["delta"] for e in streamed if e["type"] == "content_block_delta")
    if block["type"] == "text":
        return "text", {"text": delta["text"]}
    return block["name"], json.loads(delta["partial_json"])


ALL = ("Bash", "Write", RECALL)


def test_the_messages_api_walks_the_script_by_tool_results(server: ms.ModelServer) -> None:
    assert claude(server, [PROMPT], ALL) == (
        "Bash",
        {"command": ECHO, "description": "Run a command"},
    )
    conversation = [PROMPT, MOVED, result(1)]
    assert claude(server, conversation, ALL)[0] == "Write"
    conversation += [MOVED, result(2)]
    assert claude(server, conversation, ALL) == (RECALL, {"query": "q"})
    conversation += [MOVED, result(3)]
    assert claude(server, conversation, ALL) == ("text", {"text": "Done with s."})
    assert len(server.script.prompted("s")) == 4


def test_a_compaction_summary_carries_the_count(server: ms.ModelServer) -> None:
    ask = {"role": "user", "content": "Please create a detailed summary of the conversation."}
    kind, said = claude(server, [PROMPT, MOVED, result(1), MOVED, ask], ALL)
    assert kind == "text" and "[[e2e-done:s:1]]" in said["text"]
    # The compacted history holds the summary instead of the prompt and its results.
    assert claude(server, [{"role": "user", "content": said["text"]}], ALL)[0] == "Write"


def test_a_tool_not_offered_yet_is_waited_for(server: ms.ModelServer) -> None:
    conversation: list[Json] = [PROMPT]
    for n in range(2):  # the shell command, then Write, which is not offered
        name, args = claude(server, conversation, ("Bash",))
        call = {"type": "tool_use", "id": f"t{n}", "name": name, "input": args}
        conversation += [{"role": "assistant", "content": [call]}, result(n)]
    assert ms.WAIT in args["command"]
    turns, _ = ms._anthropic_turns({"messages": conversation})
    waited = ms.follow(turns, ["Bash"])
    assert (waited.results_after, waited.waited) == (1, 1)
    assert claude(server, conversation, ALL)[0] == "Write"


def test_the_responses_api_names_namespaces_and_patches_in_the_shell(
    server: ms.ModelServer,
) -> None:
    recall = {"type": "function", "name": "memory_recall"}
    tools = [
        {"type": "function", "name": "exec_command"},
        {"type": "namespace", "name": "mcp__agent_memory", "tools": [recall]},
    ]
    said = {"type": "input_text", "text": "[[e2e:s]] go"}
    items: list[Json] = [{"type": "message", "role": "user", "content": [said]}]
    answers = []
    for _ in STEPS:
        body = {"model": "m", "stream": True, "tools": tools, "input": items}
        streamed = events(post(server, "/v1/responses", body))
        kinds = [e["type"] for e in streamed]
        assert kinds == ["response.created", "response.output_item.done", "response.completed"]
        item = streamed[1]["item"]
        answers.append(item)
        items += [item, {"type": "function_call_output", "call_id": item["call_id"], "output": ""}]
    assert answers[0]["name"] == "exec_command" and ECHO in answers[0]["arguments"]
    assert "*** Add File: /repo/notes.txt" in json.loads(answers[1]["arguments"])["cmd"]
    assert (answers[2]["namespace"], answers[2]["name"]) == ("mcp__agent_memory", "memory_recall")


def test_gemini_calls_functions_and_answers_json_questions(server: ms.ModelServer) -> None:
    tools = [{"functionDeclarations": [{"name": "run_shell_command"}]}]
    contents = [{"role": "user", "parts": [{"text": "[[e2e:s]] go"}]}]
    path = "/v1beta/models/m:streamGenerateContent?alt=sse"
    streamed = events(post(server, path, {"contents": contents, "tools": tools}))
    call = streamed[0]["candidates"][0]["content"]["parts"][0]["functionCall"]
    assert call == {
        "name": "run_shell_command",
        "args": {"command": ECHO, "description": "Run a command"},
    }
    speaker = {"type": "string", "enum": ["user", "model"]}
    schema = {"type": "object", "properties": {"next_speaker": speaker}}
    config = {"responseMimeType": "application/json", "responseJsonSchema": schema}
    body = {"contents": [], "generationConfig": config}
    plain = json.loads(post(server, "/v1beta/models/m:generateContent", body))
    text = plain["candidates"][0]["content"]["parts"][0]["text"]
    assert json.loads(text) == {"next_speaker": "user"}
