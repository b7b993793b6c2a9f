"""Curating facts (DECAY.md § Curating facts): every command through the real CLI on real
directories, the by-hand form the document gives for it (the same bytes), and every refusal in
one line that names the id and writes nothing."""

from __future__ import annotations

import datetime as dt
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_memory.cli.mcp.tools import McpSession, call
from agent_memory.errors import AgentMemoryError
from agent_memory.parse import facts, footer
from conftest import PROJECT, build_tree, cli, run_fresh, tree

DECAY = " ".join((PROJECT / "DECAY.md").read_text().split())
DAY = "2026-04-01"
FOOT = "<!-- id: {} | created: 2026-03-01 | last_used: 2026-03-01 | uses: 1 | tier: {} -->"
CONTINUITY = """# Continuity

## Project State
- last_review: (none yet)

## Architectural Invariants
- Writes go through the outbox
  {outbox}

## Key Decisions
- Cache sessions in Redis
  {cache}
- Deploy with `make ship` {ship}
- Use Node 20
  with corepack
  {node} <!-- a note of the user's -->

## Open Threads
- [ ] Rate-limit the API
  {rate}
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    assert cli("enable", root, "--today", "2026-03-01").exit_code == 0
    text = CONTINUITY.format(
        outbox=FOOT.format("outbox", "core"),
        cache=FOOT.format("cache-v1", "working"),
        node=FOOT.format("node-20", "working"),
        ship=FOOT.format("ship", "working"),
        rate=FOOT.format("rate-limit", "active"),
    )
    build_tree(root, {"memory/continuity.md": text, "src/cache.py": "def get():\n    pass\n"})
    return root


def run(root: Path, *args: str, today: str | None = DAY) -> tuple[int, str, str]:
    dated = ["--today", today] if today is not None else []
    done = run_fresh(*args, *dated, cwd=root)
    return done.returncode, done.stdout, done.stderr


def twin(root: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "by-hand"
    shutil.copytree(root, copy)
    return copy


def bullet(words: str) -> str:
    """The bullet of DECAY.md § Curating facts that documents ``fact WORDS``."""
    found = re.search(rf"- \*\*`fact {words}[^`]*`\*\*: (.*?)(?= - \*\*`fact | ## )", DECAY)
    assert found is not None, words
    return found.group(1)


def canonical_order() -> list[str]:
    """The field names of DECAY.md § Facts and ids, in the order it gives them."""
    paragraph = DECAY.split("Fields, in canonical order:", 1)[1].split("Unknown fields", 1)[0]
    paragraph = re.sub(r"`tier` \([^)]*\)", "`tier`", paragraph)  # the tiers, not fields
    names = re.findall(r"`([a-z_-]+)(?:: hand)?`", paragraph)
    return [n for n in dict.fromkeys(names) if n not in ("core", "active", "working")]


def by_hand(root: Path, rel: str, fact_id: str, changes: dict[str, str | None]) -> None:
    """A person's edit of one footer: values set (None: removed), written in DECAY.md's order."""
    path = root / rel
    text = path.read_bytes().decode()
    match = re.search(rf"<!-- (id: {re.escape(fact_id)} \|[^\n]*?) -->", text)
    assert match is not None, fact_id
    fields = dict(part.strip().split(": ", 1) for part in match.group(1).split("|"))
    fields |= {k: v for k, v in changes.items() if v is not None}
    fields = {k: v for k, v in fields.items() if changes.get(k, "") is not None}
    order = canonical_order()
    body = " | ".join(f"{k}: {fields[k]}" for k in sorted(fields, key=order.index))
    path.write_bytes((text[: match.start()] + f"<!-- {body} -->" + text[match.end() :]).encode())


def pairs(words: str) -> dict[str, str]:
    """The ``key: value`` pairs a bullet sets, as it writes them in backticks."""
    first = re.split(r"[.;] ", bullet(words), maxsplit=1)[0]  # what it sets comes first
    return dict(re.findall(r"`([a-z-]+): ([^`]+)`", first))


def test_decay_md_gives_the_fields_in_the_order_the_tool_writes_them() -> None:
    assert canonical_order() == [k for k in footer.CANONICAL]


@pytest.mark.parametrize(
    ("args", "fact_id", "changes"),
    [
        (["fact", "retract", "cache-v1", "--reason", "we dropped Redis"], "cache-v1",
         {k: v.replace("TEXT", "we dropped Redis") for k, v in pairs("retract").items()}),
        (["fact", "archive", "cache-v1"], "cache-v1", pairs("archive")),
        (["fact", "pin", "cache-v1"], "cache-v1", pairs("pin")),
        (["fact", "pin", "ship"], "ship", pairs("pin")),
        (["fact", "expire", "rate-limit", "2026-05-01"], "rate-limit",
         {k: v.replace("DATE", "2026-05-01") for k, v in pairs("expire").items()}),
        (["fact", "expire", "outbox", "2026-05-01"], "outbox", {"valid-until": "2026-05-01"}),
    ],
)  # fmt: skip
def test_a_footer_command_gives_the_bytes_of_its_by_hand_form(
    repo: Path, tmp_path: Path, args: list[str], fact_id: str, changes: dict[str, str]
) -> None:
    hand = twin(repo, tmp_path)
    code, _, err = run(repo, *args)
    assert code == 0, err
    assert changes, "the bullet names the fields it sets"
    by_hand(hand, "memory/continuity.md", fact_id, dict(changes))
    assert tree(repo) == tree(hand)
    again = run(repo, *args)  # a second run changes nothing
    assert again[0] == 0 and tree(repo) == tree(hand)


def test_supersede_is_the_log_line_now_by_hand_or_by_command(repo: Path, tmp_path: Path) -> None:
    hand = twin(repo, tmp_path)
    assert run(repo, "fact", "supersede", "cache-v1", "node-20")[0] == 0
    said = pairs("supersede OLD NEW")
    assert said == {"tier": "superseded", "superseded-by": "NEW"}
    by_hand(hand, "memory/continuity.md", "cache-v1", {**said, "superseded-by": "node-20"})
    assert "OLD added at the end of `supersedes`" in bullet("supersede OLD NEW")
    by_hand(hand, "memory/continuity.md", "node-20", {"supersedes": "cache-v1"})
    assert tree(repo) == tree(hand)
    # The same pair written as a log line gives the same footers after a review.
    logged = twin(hand, tmp_path / "logged")
    build_tree(logged, {"memory/sessions/2026-04-01-100000.md": "## Memory References\n"})
    reviewed = [run(r, "review")[0] for r in (repo, logged)]
    assert reviewed == [0, 0]


def test_supersede_with_text_writes_the_successor_in_the_old_ones_section(repo: Path) -> None:
    code, out, _ = run(repo, "fact", "supersede", "rate-limit", "--text", "Rate-limit per key")
    assert code == 0 and "rate-limit-per-key" in out
    doc = facts.parse("c", (repo / "memory/continuity.md").read_bytes())
    new = next(f for f in doc.facts if f.id == "rate-limit-per-key")
    old = next(f for f in doc.facts if f.id == "rate-limit")
    assert (new.section, new.task, new.field("supersedes")) == ("Open Threads", " ", "rate-limit")
    assert (old.field("tier"), old.field("superseded-by")) == ("superseded", "rate-limit-per-key")
    assert not [p for p in facts.parse("c", (repo / "memory/continuity.md").read_bytes()).problems]


def test_relate_and_cite_follow_their_by_hand_forms(repo: Path, tmp_path: Path) -> None:
    hand = twin(repo, tmp_path)
    assert run(repo, "fact", "relate", "node-20", "ship")[0] == 0
    assert run(repo, "fact", "relate", "node-20", "cache-v1")[0] == 0
    assert "OTHER added at the end of `see`" in bullet("relate")
    by_hand(hand, "memory/continuity.md", "node-20", {"see": "ship, cache-v1"})
    assert run(repo, "fact", "cite", "cache-v1", "src/cache.py:1-2")[0] == 0
    # The hash as DECAY.md § Citations computes it by hand.
    command = re.search(r"(sed -n 'A,Bp' FILE .*?cut -c1-12)", DECAY)
    assert command is not None
    shell = command.group(1).replace("A,B", "1,2").replace("FILE", "src/cache.py")
    digest = subprocess.run(
        ["sh", "-c", shell], cwd=hand, capture_output=True, text=True, check=True
    ).stdout.strip()
    assert "`FILE:A-B@<hash>` added at the end of `cites`" in bullet("cite")
    by_hand(hand, "memory/continuity.md", "cache-v1", {"cites": f"src/cache.py:1-2@{digest}"})
    assert tree(repo) == tree(hand)


def test_edit_keeps_the_footer_line_and_every_other_byte(repo: Path, tmp_path: Path) -> None:
    crlf = (repo / "memory/continuity.md").read_bytes().replace(b"\n", b"\r\n")
    (repo / "memory/continuity.md").write_bytes(b"\xef\xbb\xbf" + crlf)
    hand = twin(repo, tmp_path)
    assert run(repo, "fact", "edit", "node-20", "Use Node 22\nwith corepack and pnpm")[0] == 0
    assert run(repo, "fact", "edit", "ship", "Deploy with `make release`")[0] == 0
    text = (hand / "memory/continuity.md").read_bytes()
    text = text.replace(
        b"- Use Node 20\r\n  with corepack\r\n", b"- Use Node 22\r\n  with corepack and pnpm\r\n"
    )
    text = text.replace(b"- Deploy with `make ship` <!--", b"- Deploy with `make release` <!--")
    (hand / "memory/continuity.md").write_bytes(text)
    assert tree(repo) == tree(hand)
    assert "keep its footer line as it is" in bullet("edit")


def test_archive_then_review_then_restore_by_hand_or_by_command(repo: Path, tmp_path: Path) -> None:
    assert run(repo, "fact", "archive", "cache-v1")[0] == 0
    code, out, _ = run(repo, "review")
    assert code == 0 and "Archived: 1 (cache-v1)" in out
    hand = twin(repo, tmp_path)
    code, out, err = run(repo, "fact", "restore", "cache-v1")
    assert code == 0, err
    # By hand, as the bullet says: cut it from the quarter, drop from/archived/archived-by, set
    # the tier the rules give it (explain says), paste it at the end of its from section, and
    # remove its INDEX.md line.
    quarter = hand / "memory/archive/2026-Q2.md"
    lines = quarter.read_text().splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.startswith("- Cache sessions"))
    moved, rest = lines[start : start + 2], lines[:start] + lines[start + 2 :]
    if rest[start - 1] == "\n" and start < len(rest) and rest[start] == "\n":
        del rest[start]
    quarter.write_text("".join(rest))
    # No log since its birth: where it returns, rule 4 gives it working.
    continuity = (hand / "memory/continuity.md").read_text()
    fact = "".join(moved)
    fact = re.sub(r" \| (from|archived|archived-by): [^|]*?(?= \||\s-->)", "", fact)
    fact = fact.replace("tier: archived", "tier: working")
    marker = "## Open Threads"
    continuity = continuity.replace(f"\n{marker}", f"{fact}\n{marker}", 1)
    (hand / "memory/continuity.md").write_text(continuity)
    index = hand / "memory/archive/INDEX.md"
    kept = [line for line in index.read_text().splitlines(True) if "cache-v1" not in line]
    index.write_text("".join(kept))
    assert tree(repo) == tree(hand)
    assert "remove its line from INDEX.md" in bullet("restore")


def test_archive_then_restore_before_a_review_gives_the_bytes_back(repo: Path) -> None:
    before = tree(repo)
    assert run(repo, "fact", "archive", "ship")[0] == 0
    assert tree(repo) != before
    assert run(repo, "fact", "restore", "ship")[0] == 0
    assert tree(repo) == before
    assert run(repo, "fact", "pin", "cache-v1")[0] == 0
    assert run(repo, "fact", "unpin", "cache-v1")[0] == 0
    assert tree(repo) == before


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["fact", "edit", "no-such", "x"], "'no-such'; agent-memory recall"),
        (["fact", "pin", "cache-v2"], "did you mean 'cache-v1'?"),
        (["fact", "supersede", "cache-v1", "cache-v1"], "'cache-v1' with itself"),
        (["fact", "supersede", "cache-v1"], "its id as NEW, or --text TEXT"),
        (["fact", "archive", "outbox"], "'outbox' is pinned (tier: core); run agent-memory"),
        (["fact", "retract", "ship", "--reason", "a | b"], "--reason holds '|'"),
        (["fact", "edit", "ship", "[ ] now a task"], "would not read back as the same one fact"),
        (["fact", "edit", "ship", "a <!-- comment -->"], "holds an HTML comment"),
        (["fact", "relate", "ship", "ship"], "'ship' cannot be related to itself"),
        (["fact", "cite", "ship", "../outside.py"], "not a plain path inside the repo"),
        (["fact", "cite", "ship", "/etc/passwd"], "is absolute"),
        (["fact", "cite", "ship", "src/gone.py"], "src/gone.py does not exist"),
        (["fact", "cite", "ship", "src/cache.py:2-9"], "has 2 lines, fewer than 9"),
        (["fact", "cite", "ship", "src"], "is a directory"),
        (["fact", "recite", "ship"], "'ship' cites nothing"),
    ],
)  # fmt: skip
def test_each_refusal_is_one_line_and_writes_nothing(
    repo: Path, args: list[str], said: str
) -> None:
    before = tree(repo)
    code, out, err = run(repo, *args)
    assert (code, out) == (1, "")
    assert len(err.splitlines()) == 1 and said in err, err
    assert tree(repo) == before


def test_cycles_superseded_and_expired_facts_are_refused(repo: Path) -> None:
    assert run(repo, "fact", "supersede", "cache-v1", "node-20")[0] == 0
    before = tree(repo)
    for args, said in [
        (["fact", "supersede", "node-20", "cache-v1"], "would make a cycle (node-20 → cache-v1"),
        (["fact", "supersede", "ship", "cache-v1"], "'cache-v1' is superseded by 'node-20'"),
        (["fact", "restore", "cache-v1"], "is superseded by 'node-20', which is final"),
        (["fact", "pin", "cache-v1"], "superseded"),
    ]:
        code, _, err = run(repo, *args)
        assert code == 1 and said in err and len(err.splitlines()) == 1, (args, err)
        assert tree(repo) == before
    assert run(repo, "fact", "expire", "ship", "2026-04-02")[0] == 0
    code, out, _ = run(repo, "review", today="2026-04-03")
    assert code == 0 and "- Expired: 1 (ship) → memory/archive/2026-Q2.md" in out
    before = tree(repo)
    code, _, err = run(repo, "fact", "restore", "ship", today="2026-04-03")
    assert code == 1 and "'ship' expired on 2026-04-02 (valid-until)" in err
    assert tree(repo) == before


def test_dry_run_check_and_json(repo: Path) -> None:
    before = tree(repo)
    code, out, _ = run(repo, "fact", "pin", "ship", "--dry-run")
    assert code == 0 and "+- Deploy with `make ship` <!-- id: ship" in out and tree(repo) == before
    assert run(repo, "fact", "pin", "ship", "--check")[0] == 1 and tree(repo) == before
    code, out, _ = run(repo, "fact", "pin", "ship", "--json")
    doc = json.loads(out)
    assert (code, doc["outcome"], doc["summary"]["footer"]["tier"]) == (0, "changed", "core")
    assert run(repo, "fact", "pin", "ship", "--check")[0] == 0  # nothing left to do
    code, out, _ = run(repo, "fact", "show", "ship", "--json", today=None)
    shown = json.loads(out)["summary"]
    assert (shown["path"], shown["section"], shown["tier"]) == (
        "memory/continuity.md",
        "Key Decisions",
        "core",
    )
    assert shown["text"].startswith("- Deploy with `make ship` <!-- id: ship")


# Each tool, its arguments, and the words after ``fact <what>`` of the same command line.
MCP_CASES = [
    ("edit", {"id": "ship", "text": "Deploy with make"}, ["ship", "Deploy with make"]),
    ("supersede", {"id": "cache-v1", "new": "node-20"}, ["cache-v1", "node-20"]),
    ("retract", {"id": "ship", "reason": "gone"}, ["ship", "--reason", "gone"]),
    ("archive", {"id": "ship"}, ["ship"]),
    ("restore", {"id": "ship"}, ["ship"]),
    ("pin", {"id": "ship"}, ["ship"]),
    ("unpin", {"id": "outbox"}, ["outbox"]),
    ("expire", {"id": "ship", "until": "2027-01-01"}, ["ship", "2027-01-01"]),
    ("relate", {"id": "ship", "other": "node-20"}, ["ship", "node-20"]),
    ("cite", {"id": "ship", "place": "src/cache.py:2"}, ["ship", "src/cache.py:2"]),
    ("recite", {"id": "ship"}, ["ship"]),
    ("supersede", {"id": "ship"}, ["ship"]),
    ("pin", {"id": "nope"}, ["nope"]),
]


@pytest.mark.parametrize(("what", "arguments", "argv"), MCP_CASES, ids=[c[0] for c in MCP_CASES])
def test_each_mcp_tool_does_what_its_command_does(
    repo: Path, tmp_path: Path, what: str, arguments: dict[str, str], argv: list[str]
) -> None:
    from agent_memory.cli.mcp.tools import McpSession, call

    served = twin(repo, tmp_path)
    code, out, err = run(repo, "fact", what, *argv, "--json", today=None)
    done = call(McpSession(served), f"memory_fact_{what}", arguments)
    assert tree(repo) == tree(served)
    if code == 0:
        summary = json.loads(out)["summary"]
        assert done.result is not None, done.err
        assert done.result.report.summary == {**summary, "outcome": json.loads(out)["outcome"]}
    else:
        assert done.error is not None and done.err.strip() == err.strip()


lines_of_text = st.sampled_from(["plain words", "`code` here", "a | b", "é", "  indented", ""])


@st.composite
def memories(draw: st.DrawFn) -> tuple[bytes, list[str]]:
    """A continuity.md of facts in both footer forms, with prose, comments and either line end."""
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    lines, ids = ["# Continuity", "", "## Key Decisions"], []
    for n in range(draw(st.integers(1, 5))):
        fact_id = f"fact-{n}"
        ids.append(fact_id)
        foot = FOOT.format(fact_id, draw(st.sampled_from(["working", "active"])))
        box = draw(st.sampled_from(["", "[ ] ", "[x] "]))
        more = [f"  {line}" for line in draw(st.lists(lines_of_text, max_size=2)) if line]
        if draw(st.booleans()):
            lines += [f"- {box}Fact {n} {foot}", *more]
        else:
            lines += [f"- {box}Fact {n}", *more, f"  {foot} <!-- kept -->"]
        lines += draw(st.sampled_from([[], [""], ["Some prose."]]))
    end = newline if draw(st.booleans()) else ""
    return (newline.join(lines) + end).encode(), ids


@settings(max_examples=200, deadline=None)
@given(memories(), st.data())
def test_a_curation_changes_its_footer_or_its_text_and_no_other_byte(
    memory: tuple[bytes, list[str]], data: st.DataObject
) -> None:
    from agent_memory.core.facts import footers
    from agent_memory.core.facts.curate import locate, rewrite
    from agent_memory.core.facts.edit import edit_text

    raw, ids = memory
    doc = facts.parse("memory/continuity.md", raw)
    place = locate([doc], data.draw(st.sampled_from(ids)))
    other = locate([doc], data.draw(st.sampled_from(ids)))
    changes = {
        "retract": lambda: footers.retract(place, "not true"),
        "archive": lambda: footers.archive(place),
        "pin": lambda: footers.pin(place),
        "expire": lambda: footers.expire(place, dt.date(2027, 1, 1), dt.date(2026, 4, 1)),
        "relate": lambda: footers.relate(place, other),
    }
    what = data.draw(st.sampled_from([*changes, "edit"]))
    old = raw.decode().splitlines(keepends=True)
    if what == "edit":
        text = data.draw(st.sampled_from(["New words", "Two\nlines `x`", "é"]))
        new = edit_text(place, text).encode().decode().splitlines(keepends=True)
        footer_line = old[place.fact.footer_line or 0]
        kept = footer_line[footer_line.index("<!--") :].rstrip("\r\n")  # the file's end may move
        assert (
            kept
            in new[
                place.fact.start
                + (0 if place.fact.footer_line == place.fact.start else len(text.splitlines()))
            ]
        )
        assert new[: place.fact.start] == old[: place.fact.start]
        assert new[len(new) - (len(old) - place.fact.end) :] == old[place.fact.end :]
        return
    try:
        change = changes[what]()
    except AgentMemoryError:
        return  # a refusal (relating a fact to itself) writes nothing
    edits = rewrite([(place, change.fields)], what, [], (None, b""))
    if not edits:
        return
    new = (edits[0].after or b"").decode().splitlines(keepends=True)
    line = place.fact.footer_line or 0
    assert len(new) == len(old)
    assert [n for n, (a, b) in enumerate(zip(old, new, strict=True)) if a != b] == [line]
    start, end = place.fact.footer_span
    assert new[line][:start] == old[line][:start]
    assert new[line].endswith(old[line][end:])


def test_a_date_already_past_is_said_by_expire_and_by_fact_add(repo: Path) -> None:
    """Issue 39, item 6: a past date archives the fact at the next review; the run says so."""
    code, out, _ = run(repo, "fact", "expire", "cache-v1", "2020-01-01", today="2026-12-06")
    assert code == 0
    assert "warning: 2020-01-01 is already past (today is 2026-12-06)" in out
    assert "agent-memory fact expire cache-v1 YYYY-MM-DD" in out
    code, out, _ = run(repo, "fact", "expire", "cache-v1", "2026-12-06", today="2026-12-06")
    assert code == 0 and "warning" not in out  # today is still valid
    args = ("fact", "add", "Freeze deploys until the audit", "--until", "2026-01-15")
    code, out, err = run(repo, *args, today="2026-12-06")
    assert code == 0 and out == "freeze-deploys-until-the-audit\n"  # stdout: the id alone
    assert "warning: 2026-01-15 is already past (today is 2026-12-06)" in err
    done = call(McpSession(repo), "memory_fact_expire", {"id": "node-20", "until": "2021-05-01"})
    assert done.result is not None and "already past" in done.result.report.summary["message"]


def test_a_retracted_fact_is_not_told_to_restore_itself(repo: Path) -> None:
    """Issue 39, item 7: the refusal named the command that had just failed."""
    assert run(repo, "fact", "retract", "cache-v1", "--reason", "gone")[0] == 0
    for command in ("restore", "pin", "expire"):
        args = ["fact", command, "cache-v1", *(["2027-01-01"] if command == "expire" else [])]
        code, _, err = run(repo, *args)
        assert code == 1 and err.count("\n") == 1
        assert f"no command can {command} it" in err and "agent-memory fact add TEXT" in err
        assert f"{command} it instead" not in err


@pytest.mark.parametrize("word", ["remove", "delete", "rm"])
def test_fact_remove_names_the_ways_a_fact_leaves(repo: Path, word: str) -> None:
    before = tree(repo)
    code, _, err = run(repo, "fact", word, "cache-v1", today=None)
    assert code == 2 and "Did you mean" not in err
    assert "fact retract ID --reason WHY" in err and "fact archive ID" in err
    assert tree(repo) == before


def test_a_restore_into_a_section_that_would_swallow_it_is_refused(repo: Path) -> None:
    assert run(repo, "fact", "archive", "ship")[0] == 0
    assert run(repo, "review")[0] == 0
    path = repo / "memory/continuity.md"
    path.write_text(path.read_text().replace("user's -->\n", "user's -->\n\n```\n"))
    before = tree(repo)
    code, out, err = run(repo, "fact", "restore", "ship")
    assert (code, out) == (1, "")
    assert err.startswith("agent-memory: memory/continuity.md:17: the code fence opened here")
    assert tree(repo) == before
