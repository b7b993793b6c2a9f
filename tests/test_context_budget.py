"""``context``'s budget and forms through the real CLI: what is printed never passes
``--max-bytes``, and every line that names a fact carries words."""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st

from agent_memory.core.agents.context import view
from agent_memory.core.agents.forms import cut, first_words, line_words, one_line
from agent_memory.parse.facts import parse
from agent_memory.parse.sidefiles import parse_file
from conftest import build_tree, cli

FOOT = "<!-- id: {} | created: 2026-01-01 | last_used: 2026-01-{:02d} | uses: 1 | tier: {} -->"
# What a hand-written fact may hold: words, CJK, a long unbroken run, markup, control characters.
PIECES = ("cache", "keys", "支払い照合", "a" * 90, "**", "<details>", "`x`", "\x1b[31m", "\x07", "")


def _memory(facts: list[tuple[list[str], int, str]]) -> str:
    body = "".join(
        f"- {' '.join(words)}\n  {' '.join(reversed(words))}\n  {FOOT.format(f'f{i}', day, tier)}\n"
        for i, (words, day, tier) in enumerate(facts)
    )
    return f"# Continuity\n\n## Key Decisions\n{body}"


def _hook_context(root: Path, budget: int) -> str:
    out = cli("context", root, "--hook", "--max-bytes", str(budget)).output
    return str(json.loads(out)["hookSpecificOutput"]["additionalContext"])


@settings(max_examples=60, deadline=None)
@given(
    st.integers(min_value=256, max_value=1500),
    st.lists(
        st.tuples(
            st.lists(st.sampled_from(PIECES), max_size=8),
            st.integers(1, 28),
            st.sampled_from(("working", "core", "active")),
        ),
        max_size=20,
    ),
)
def test_what_context_prints_never_passes_the_budget(
    budget: int, facts: list[tuple[list[str], int, str]]
) -> None:
    """Counted as printed: the line break the command line ends with, and each control
    character a terminal would obey written as its escape; the hook's context alike."""
    with tempfile.TemporaryDirectory() as where:
        root = build_tree(Path(where), {"memory/continuity.md": _memory(facts)})
        printed = cli("context", root, "--max-bytes", str(budget)).stdout_bytes
        assert len(printed) <= budget, printed
        assert printed.endswith(b"\n") and not printed.endswith(b"\n\n")
        assert len(_hook_context(root, budget).encode()) <= budget


def test_a_budget_smaller_than_the_view_s_head_keeps_whole_lines(tmp_path: Path) -> None:
    build_tree(tmp_path, {"memory/continuity.md": _memory([(["x", "fact"], 1, "working")])})
    for budget in (256, 300, 333, 340):
        printed = cli("context", tmp_path, "--max-bytes", str(budget)).stdout_bytes
        assert len(printed) <= budget
        assert printed.rstrip(b"\n").endswith(b"- not due")  # no line cut short


def test_control_characters_count_as_the_escapes_printed(tmp_path: Path) -> None:
    """A hand-written fact may hold them (``fact add`` refuses them); a terminal is shown
    ``\\x1b``, four bytes, and the budget counts those four."""
    facts = [(["bell\x07", "and", f"esc\x1b[31m{i}"], i + 1, "working") for i in range(20)]
    build_tree(tmp_path, {"memory/continuity.md": _memory(facts)})
    for budget in range(844, 1000, 7):
        printed = cli("context", tmp_path, "--max-bytes", str(budget)).stdout_bytes
        assert len(printed) <= budget
        assert b"\\x1b" in printed


def _enabled(root: Path, files: dict[str, str]) -> Path:
    assert cli("enable", root).exit_code == 0
    continuity = (root / "memory/continuity.md").read_text()
    for heading, text in files.items():
        continuity = continuity.replace(f"## {heading}\n", f"## {heading}\n{text}")
    (root / "memory/continuity.md").write_text(continuity)
    return root


def test_a_fact_whose_bullet_line_is_empty_is_named_by_its_first_words(tmp_path: Path) -> None:
    text = "Cache keys carry the tenant id; " + "old keys are swept nightly. " * 8
    fact = f"- \n  {text}\n  {FOOT.format('cache-keys', 1, 'working')}\n"
    _enabled(tmp_path, {"Conventions": fact})
    out = cli("context", tmp_path, "--max-bytes", "700").output
    assert out.splitlines()[-1].startswith("- `cache-keys` — Cache keys carry the tenant id;")


MARKUP = ("", "**", "<details>", "-", "```", "```python", "<!-- note -->", "> ", "## ", "`")
WORDS = ("Cache keys", "支払い照合", "**Binding:** writes", "<b>why</b>", "`a_b` c", "- [ ] item")


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(MARKUP), st.lists(st.sampled_from(WORDS + MARKUP), max_size=3)),
        min_size=8,
        max_size=30,
    ),
    st.integers(min_value=400, max_value=1500),
)
@example([("**", ["Cache keys"])] * 30, 900)
def test_every_index_line_carries_words(facts: list[tuple[str, list[str]]], budget: int) -> None:
    """Whatever a fact's first line holds, its one line has a letter or digit after its id:
    the first line of its text that has one, its markup set aside."""
    body = "".join(
        f"- {first}\n"
        + "".join(f"  {line}\n" for line in lines)
        + f"  {FOOT.format(f'f{i}', 1 + i % 28, 'working')}\n"
        for i, (first, lines) in enumerate(facts)
    )
    doc = parse("memory/continuity.md", f"# C\n\n## Key Decisions\n{body}".encode())
    seen = view([doc], "", None, budget)
    for line in seen.text.splitlines():
        found = re.fullmatch(r"- `(f\d+)`(?: — (.*))?", line)
        if found is None or found.group(1) in seen.full:  # its text's own first line
            continue
        first, lines = facts[int(found.group(1)[1:])]
        if any(line_words(text) for text in (first, *lines)):
            assert found.group(2) and any(char.isalnum() for char in found.group(2)), line


def test_vision_without_a_title_is_named_by_its_first_line_with_words() -> None:
    foot = FOOT.format("vision-x", 1, "core")
    doc = parse_file("memory/vision.md", f"<div>\n\n**Ship** the relay.\n\n> {foot}\n".encode())
    assert first_words(doc, doc.facts[0]) == "Ship the relay."
    assert one_line("vision-x", first_words(doc, doc.facts[0]), 40) == (
        "- `vision-x` — Ship the relay.\n"
    )


def test_words_set_markup_aside_and_keep_code_spans() -> None:
    assert line_words("**Decision:** use `List<String>` and <b>bold</b>") == (
        "Decision: use `List<String>` and bold"
    )
    assert line_words("- [ ] fetch_all_rows") == "fetch_all_rows"
    assert [line_words(line) for line in ("**", "<details>", "-", "```python", "<!-- x -->")] == [
        ""
    ] * 5


@settings(max_examples=300, deadline=None)
@given(st.text(min_size=1, max_size=400), st.integers(min_value=8, max_value=600))
def test_a_cut_line_keeps_its_words_within_the_bytes(line: str, most: int) -> None:
    """Never past ``most`` bytes, never inside a UTF-8 sequence; a line with no space after
    its list marker (CJK text, a URL) keeps all that fits."""
    line = "- " + "".join(char for char in line if not 0xD800 <= ord(char) <= 0xDFFF)
    shown = cut(line, most)
    assert len(shown.encode()) <= most and shown.endswith(" …")
    kept = shown.removesuffix(" …")
    assert line.startswith(kept)
    fits = line.encode()[: most - 4].decode(errors="ignore")
    if " " not in fits[2:]:  # no space but the list marker's: cut after its last character
        assert kept == fits.rstrip()


def test_an_excerpt_of_a_text_without_spaces_keeps_its_text(tmp_path: Path) -> None:
    _enabled(tmp_path, {})
    cjk = "支払い照合ワーカーは毎晩台帳をまとめる。" * 20
    assert cli("fact", "add", cjk, "--id", "jp", tmp_path).exit_code == 0
    url = "https://example.com/" + "a" * 1500
    assert cli("fact", "add", url, "--id", "url", tmp_path).exit_code == 0
    for i in range(10):
        cli("fact", "add", f"Short filler fact {i} about the relay.", "--id", f"f{i}", tmp_path)
    out = cli("context", tmp_path, "--max-bytes", "2500").output
    first = {line.rsplit("`", 2)[-2]: line for line in out.splitlines() if line.endswith("`")}
    assert (
        first["jp"].startswith("- 支払い照合ワーカーは毎晩台帳をまとめる。支払い")
        and "…" in first["jp"]
    )
    assert first["url"].startswith("- https://example.com/aaaa") and "…" in first["url"]
    assert len(first["jp"].encode()) > 400 and len(first["url"].encode()) > 400


def test_a_binding_fact_comes_first_in_its_share_of_max_bytes(tmp_path: Path) -> None:
    """Its share is of --max-bytes, not of what the headings leave: recent working facts do not
    push it out."""
    _enabled(tmp_path, {})
    binding = "All writes go through the repository layer; never call SQL from handlers."
    add = ("fact", "add", binding, "--section", "Architectural Invariants", "--id", "repo-layer")
    assert cli(*add, tmp_path).exit_code == 0
    for i in range(1, 9):
        text = f"Working fact number {i} about the build pipeline stage {i}."
        assert cli("fact", "add", text, "--id", f"w{i}", tmp_path).exit_code == 0
    used = ", ".join(f"w{i}" for i in range(1, 9))
    log = f"# s\n\n## Memory References\n- Referenced: {used}\n"
    build_tree(tmp_path, {"memory/sessions/2099-01-01-000000.md": log})
    for budget in (600, 700, 800, 900, 1200):
        out = cli("context", tmp_path, "--max-bytes", str(budget)).output
        assert f"- {binding} `repo-layer`\n" in out, budget


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 900), st.booleans(), st.booleans()), min_size=1, max_size=16),
    st.integers(min_value=256, max_value=4000),
)
def test_a_binding_fact_is_named_before_any_other_is_shown(
    facts: list[tuple[int, bool, bool]], budget: int
) -> None:
    """Whatever the sizes and the recent uses: once any fact not binding is in the view (in
    full or by excerpt), every binding fact is in it too, at least by its line with words."""
    body = "".join(
        f"- Fact {i} about the relay\n  {'word ' * (size // 5)}\n  "
        f"{FOOT.format(f'f{i}', 1 + i, 'core' if core else 'working')}\n"
        for i, (size, core, _) in enumerate(facts)
    )
    doc = parse("memory/continuity.md", f"# C\n\n## Key Decisions\n{body}".encode())
    recent = [frozenset(f"f{i}" for i, (_, _, used) in enumerate(facts) if used)]
    seen = view([doc], "", None, budget, recent=recent)
    binding = {f"f{i}" for i, (_, core, _) in enumerate(facts) if core}
    shown = set(seen.full) | {i for i in seen.named if f"fact show {i}` prints" in seen.text}
    if shown - binding:
        assert not binding & set(seen.cut), seen.text


def test_open_threads_take_their_share_and_the_rest_are_named(tmp_path: Path) -> None:
    _enabled(tmp_path, {})
    for i in range(1, 11):
        text = f"Decision {i}: service {i} stores state in store {i}."
        assert cli("fact", "add", text, "--id", f"d{i}", tmp_path).exit_code == 0
    notes = "reproduction notes and logs. " * 4
    for i in range(1, 41):
        text = f"Thread {i}: investigate failure {i}; {notes}"
        assert cli("fact", "add", "--thread", text, "--id", f"t{i}", tmp_path).exit_code == 0
    out = cli("context", tmp_path).output
    threads = out.split("## Open threads\n\n", 1)[1].split("\n## ", 1)[0]
    in_full = [line for line in threads.splitlines() if line.startswith("- [ ] Thread")]
    assert 0 < sum(len(line.encode()) + 1 for line in in_full) <= 8192 // 4
    named = re.findall(r"^- `(t\d+)` — Thread \d+: investigate", threads, re.MULTILINE)
    assert len(in_full) + len(named) == 40
    assert all(f"`d{i}`\n" in out.split("## Facts", 1)[1] for i in range(1, 11))


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 900), st.booleans()), min_size=1, max_size=20),
    st.integers(min_value=256, max_value=6000),
)
def test_open_threads_never_take_more_than_their_share(
    threads: list[tuple[int, bool]], budget: int
) -> None:
    body = "".join(
        f"- [ ] Thread {i} on the relay\n  {'word ' * (size // 5)}\n  "
        f"{FOOT.format(f't{i}', 1 + i, 'active')}\n"
        for i, (size, _) in enumerate(threads)
    )
    doc = parse("memory/continuity.md", f"# C\n\n## Open Threads\n{body}".encode())
    recent = [frozenset(f"t{i}" for i, (_, used) in enumerate(threads) if used)]
    seen = view([doc], "", None, budget, recent=recent)
    part = seen.text.partition("## Open threads\n\n")[2].split("\n## ", 1)[0]
    # in full or by excerpt: the thread's lines (a one line starts with its id); a thread a
    # recent session used is weighed as any fact, outside the share
    spent, which = 0, None
    for line in part.splitlines():
        if line.startswith("- [ ] Thread "):
            which = int(line.split()[4])
        elif not line.startswith("  "):
            which = None
            continue
        if which is not None and not threads[which][1]:
            spent += len(line.encode()) + 1
    assert spent <= budget // 4


def test_the_facts_spend_the_budget_less_every_heading_and_the_notes_hooks_md_names(
    tmp_path: Path,
) -> None:
    """HOOKS.md § Session start as a person computes it: the facts' budget is ``--max-bytes``
    less the head, every heading the view may hold (printed or not) and the note for no fact
    named; one fact in full fits that exactly."""
    doc = " ".join((Path(__file__).parent.parent / "HOOKS.md").read_text().split())
    headings = re.findall(r"`## ([^`]+)`", doc.split("every heading the view may hold")[1][:400])
    assert headings == [
        "Core and invariants",
        "Open threads",
        "Facts",
        "Recently closed threads",
        "Also in memory (one line each)",
    ]
    fact = "- Use pnpm, not npm, in every package\n  " + FOOT.format("use-pnpm", 2, "active")
    build_tree(tmp_path, {"memory/continuity.md": f"# Continuity\n\n## Key Decisions\n{fact}\n"})
    full = "- Use pnpm, not npm, in every package `use-pnpm`\n"
    head = cli("context", tmp_path).output.split("\n## Facts\n")[0]  # the title to the review
    note = (
        "\n_1 of 1 fact not named (over --max-bytes); `agent-memory recall QUERY` finds them, "
        "or read memory/continuity.md._\n"
    )
    most = len((head + "".join(f"\n## {h}\n\n" for h in headings) + note + full).encode())
    assert cli("context", tmp_path, "--max-bytes", str(most)).output == (
        f"{head}\n## Facts\n\n{full}"
    )
    # a byte less, and its one line (longer than the fact itself) has no room either, though
    # the view printed is far below the budget: the headings it does not print were set aside
    short = cli("context", tmp_path, "--max-bytes", str(most - 1)).output
    assert short == head + note
