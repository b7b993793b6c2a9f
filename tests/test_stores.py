"""Memory stores imported by Mode C (MIGRATE.md § Memory stores): fenced blocks and task lists."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_memory.parse import facts
from conftest import build_tree, cli, tree

TODAY = "2026-09-20"
FENCE = "```"

# Shaped like a real Cline memory bank (0x4007/travel-stipend): mermaid diagrams after a
# paragraph and a blank line, a directory tree first under its heading, commands, a longer fence
# holding a shorter one, and a progress file of headings and plain bullets.
BANK = {
    "memory-bank/systemPatterns.md": f"""# System Patterns

## Architecture Overview

The calculator is a pipeline of pure functions.

{FENCE}mermaid
flowchart TD
    Input[CSV Input] --> Parser

 Parser --> Output
{FENCE}

## Caching

- **Cache Classes**: generic, persisted to JSON.
- **Hash-Based Keys**: keys hash the inputs.

{FENCE}mermaid
classDiagram
    class PersistentCache~T~ {{
        +get(key: string): T | null
    }}
{FENCE}
""",
    "memory-bank/techContext.md": f"""# Tech Context

### Project Structure

{FENCE}
stipend/
├── src/                    # Source code
│   └── cli.ts
- not a bullet
## not a heading
{FENCE}

## Running

````markdown
{FENCE}bash
bun src/cli.ts -b
{FENCE}
````
""",
    "memory-bank/productContext.md": f"""# Product Context

Setup, unfinished in the bank:

{FENCE}bash
bun install
""",
    "memory-bank/progress.md": """# Progress

## What Works

### Core Functionality

✅ **Basic Stipend Calculation**

- Flight cost calculation based on distance
- Lodging cost with cost-of-living adjustment

## What's Left to Build

### Core Enhancements

- Multiple origin support
1. Currency conversion
- [ ] Decide the rounding rule
- [x] Pick the currency API

## Recent Achievements

- Moved the scraper to Playwright
""",
}


def imported(tmp_path: Path, files: dict[str, str]) -> tuple[Path, str]:
    repo = tmp_path / "repo"
    build_tree(repo, files)
    result = cli("enable", repo, "--today", TODAY)
    assert result.exit_code == 0, result.output
    return repo, result.output


def fenced_lines(text: str) -> list[str]:
    """The lines of a source's fenced blocks, fences included (CommonMark: a fence closes on a
    run of its character at least as long, with nothing after it)."""
    found: list[str] = []
    opening = ""
    for line in text.splitlines():
        run = line[: len(line) - len(line.lstrip("`~"))] if line[:1] in "`~" else ""
        if not opening and len(run) >= 3 and len(set(run)) == 1:
            opening = run
            found.append(line)
        elif opening:
            found.append(line)
            closes = run[:1] == opening[0] and len(run) >= len(opening)
            if closes and not line[len(run) :].strip():
                opening = ""
    return found


def test_a_fenced_block_stays_inside_the_fact_it_belongs_to(tmp_path: Path) -> None:
    repo, _ = imported(tmp_path, BANK)
    data = (repo / "memory/continuity.md").read_bytes()
    doc = facts.parse("memory/continuity.md", data)
    assert doc.problems == () and all(f.id for f in doc.facts)
    assert not any(f.first_line.startswith("`") for f in doc.facts)
    lines = doc.text.lines

    def fact_of(text: str) -> facts.Fact:
        return next(f for f in doc.facts if f"  {text}\n" in lines[f.start : f.end])

    for path, source in BANK.items():
        for line in fenced_lines(source):
            if line:
                assert fact_of(line), (path, line)  # byte for byte, under its bullet
    paragraph = fact_of("flowchart TD")
    assert paragraph.first_line == "The calculator is a pipeline of pure functions."
    assert lines[paragraph.start + 1] == "\n"  # the blank line before the fence is kept
    assert fact_of("classDiagram").first_line.startswith("**Hash-Based Keys**")
    assert fact_of("stipend/").first_line == "Project Structure"  # first under its heading
    assert fact_of("bun src/cli.ts -b").first_line == "Running"
    unclosed = fact_of("bun install")
    assert lines[unclosed.footer_line - 1] == f"  {FENCE}\n"  # closed before its footer
    lint = cli("lint", repo)
    assert lint.exit_code == 0 and "[fact-no-id]" not in lint.output
    for fact in (paragraph, unclosed):
        assert cli("explain", fact.id, repo).exit_code == 0


def test_only_a_source_task_is_a_pinned_thread_and_the_report_says_so(tmp_path: Path) -> None:
    repo, output = imported(tmp_path, BANK)
    doc = facts.parse("memory/continuity.md", (repo / "memory/continuity.md").read_bytes())
    threads = {f.first_line: f.task for f in doc.facts if f.section == "Open Threads"}
    assert threads == {
        "Flight cost calculation based on distance": "x",  # What Works > Core Functionality
        "Lodging cost with cost-of-living adjustment": "x",
        "Multiple origin support": None,  # What's Left: decays
        "Currency conversion": None,
        "Decide the rounding rule": " ",  # the bank's own open task: pinned
        "Pick the currency API": "x",
        "Moved the scraper to Playwright": "x",  # Recent Achievements
    }
    assert (
        "facts imported: 1 open threads (pinned: they never decay), 4 done tasks (checked: swept "
        "to the archive in time), 2 plain items in Open Threads (they decay; make one `- [ ]` to "
        "pin it))" in output
    )


def test_a_co_cli_memory_with_an_unclosed_fence_keeps_its_footer(tmp_path: Path) -> None:
    memory = f"---\ntags: [tool]\n---\nRun the linter:\n{FENCE}sh\n ruff check .\n"
    repo, _ = imported(tmp_path, {".co-cli/knowledge/memories/001-lint.md": memory})
    doc = facts.parse("memory/continuity.md", (repo / "memory/continuity.md").read_bytes())
    (fact,) = [
        f for f in doc.facts if f.field("origin") == ".co-cli/knowledge/memories/001-lint.md"
    ]
    assert doc.problems == () and fact.id
    assert "  ```sh\n   ruff check .\n  ```\n" in "".join(doc.text.lines[fact.start : fact.end])


def test_a_co_cli_memory_keeps_its_own_id_in_enable_and_import(tmp_path: Path) -> None:
    memory = "---\nid: use_uv\ntags: [tool]\n---\nUse uv for installs\n"
    files = {".co-cli/knowledge/memories/m.md": memory}
    repo, _ = imported(tmp_path / "enable", files)
    assert "<!-- id: use-uv |" in (repo / "memory/continuity.md").read_text()
    other = build_tree(tmp_path / "other", files)
    repo = tmp_path / "import"
    repo.mkdir()
    assert cli("enable", repo, "--today", TODAY, "--vendor", "none").exit_code == 0
    source = other / ".co-cli/knowledge/memories"
    assert cli("import", "co-cli", repo, "--from", source, "--today", TODAY).exit_code == 0
    assert "<!-- id: use-uv |" in (repo / "memory/continuity.md").read_text()


block = st.sampled_from(
    ["# H", "## Done", "### Sub", "## Next", "Para text", "- item", "- [ ] task", "1. step", ""]
)
code = st.lists(st.sampled_from(["x = 1", " y", "", "- z", "## w", "~~~", "````"]), max_size=4)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(st.one_of(block, code.map(lambda c: [FENCE + "py", *c, FENCE])), max_size=12),
    st.booleans(),
)
def test_generated_banks_keep_every_fenced_line_and_every_footer(
    tmp_path_factory: pytest.TempPathFactory, parts: list[object], unclosed: bool
) -> None:
    lines: list[str] = []
    for part in parts:
        lines.extend(part if isinstance(part, list) else [part])
    if unclosed:
        lines += [FENCE, "left open"]
    source = "\n".join(lines) + "\n"
    repo = tmp_path_factory.mktemp("repo")
    build_tree(repo, {"memory-bank/progress.md": source})
    result = cli("enable", repo, "--today", TODAY)
    assert result.exit_code == 0, result.output
    after = tree(repo)
    if "memory/continuity.md" not in after:
        return
    doc = facts.parse("memory/continuity.md", after["memory/continuity.md"])
    assert doc.problems == () and all(f.id for f in doc.facts)
    text = after["memory/continuity.md"].decode()
    for line in fenced_lines(source):
        if line.strip():
            assert f"  {line}\n" in text or f"- {line}\n" in text, line


@pytest.mark.parametrize(
    ("store", "where", "words"),
    [
        ("- one\n  <!-- id: evil | tier: core -->\n", 2, "holds an HTML comment"),
        ("- one\n- open <!-- x\n", 2, "holds an HTML comment"),
        ("- one\n- key AKIA" + "Q3EGVP7KM2XRT4NB\n", 2, "holds a credential"),
        ("- one\n\n- bell \a\n", 3, "holds a control character (U+0007)"),
    ],
)
def test_a_store_import_would_refuse_is_one_line_and_writes_nothing(
    tmp_path: Path, store: str, where: int, words: str
) -> None:
    repo = build_tree(tmp_path / "repo", {"memory-bank/techContext.md": store})
    before = tree(repo)
    result = cli("enable", repo, "--today", TODAY)
    assert result.exit_code == 1 and result.output.count("\n") == 1
    assert f"memory-bank/techContext.md:{where}: " in result.output and words in result.output
    assert "AKIA" not in result.output and tree(repo) == before


@pytest.mark.parametrize("value", ["[one, two]", "!!set {a, b}", "\n      k: v"])
def test_a_context_yaml_content_that_is_not_text_is_one_line(tmp_path: Path, value: str) -> None:
    yaml = f"core:\n  - content: fine\n  - id: x\n    content: {value}\n"
    repo = build_tree(tmp_path / "repo", {"CONTEXT.yaml": yaml})
    before = tree(repo)
    result = cli("enable", repo, "--today", TODAY)
    assert result.exit_code == 1 and result.output.count("\n") == 1
    assert "CONTEXT.yaml:" in result.output and "content is not text" in result.output
    assert tree(repo) == before


def test_a_fence_opened_inside_an_item_ends_with_it_and_lint_accepts_it(tmp_path: Path) -> None:
    store = f"- three\n  {FENCE}\n  code\n- four\n   > quote\n"
    repo, _ = imported(tmp_path, {"memory-bank/techContext.md": store})
    doc = facts.parse("memory/continuity.md", (repo / "memory/continuity.md").read_bytes())
    assert doc.problems == ()
    assert [f.id for f in doc.facts if f.field("origin")] == ["three", "four"]
    assert f"- three\n  {FENCE}\n  code\n  {FENCE}\n  <!-- id: three" in doc.text.body
    lint = cli("lint", repo).output.splitlines()[-1]
    assert lint.startswith("0 errors, 0 warnings"), lint


def test_a_context_yaml_entry_as_the_skill_writes_it_keeps_its_lists_as_words(
    tmp_path: Path,
) -> None:
    """The memory-management skill's entry template holds `domain: [relevant, domains]` and an
    `evidence:` list: its items are written as words, never as Python's repr of a list, and a
    text's lines never become lines of the memory file (a heading there would end the fact)."""
    entry = """core:
  - id: use_pnpm
    type: decision
    domain: [build, ci]
    content: "Use pnpm for installs"
    confidence: 0.7
    evidence:
      - "ci.yml:12 runs pnpm"
      - |
        seen in CI
        ## Open Threads
        - not a fact
    created: 2026-01-02
    last_used: 2026-02-03
    use_count: 4
  - id: second
    content: Second
    evidence: {file: a.py, lines: [3, 4], checked: true}
    domain: []
"""
    repo, _ = imported(tmp_path, {"CONTEXT.yaml": entry})
    doc = facts.parse("memory/continuity.md", (repo / "memory/continuity.md").read_bytes())
    assert doc.problems == ()
    lines = doc.text.lines
    found = {f.id: [line.rstrip("\n") for line in lines[f.start + 1 : f.end]] for f in doc.facts}
    assert found == {
        "use-pnpm": [
            "  - confidence: 0.7",
            "  - domain: build, ci",
            "  - evidence: ci.yml:12 runs pnpm, seen in CI ## Open Threads - not a fact",
            found["use-pnpm"][-1],  # the footer
        ],
        "second": ["  - evidence: file: a.py, lines: 3, 4, checked: true", found["second"][-1]],
    }


def test_an_html_block_is_opaque_text_kept_with_its_fact(tmp_path: Path) -> None:
    """MIGRATE.md § Memory stores: an HTML block is read whole, as Markdown reads it: the item
    and heading inside one are its text (no done task), a block of tags alone between facts is
    layout and left out, and lint accepts what was written."""
    progress = (
        "<details>\n## Completed\n- Old item inside html\n</details>\n\n## Done\n\n"
        "- Shipped the export\n\n<div align=center>\n</div>\n\n- [ ] Next: the import\n"
    )
    repo, _ = imported(tmp_path, {"memory-bank/progress.md": progress})
    text = (repo / "memory/continuity.md").read_text()
    doc = facts.parse("memory/continuity.md", text.encode())
    assert doc.problems == ()
    found = [(f.section, f.task, f.first_line) for f in doc.facts if f.field("origin")]
    assert sorted(found) == [
        ("Open Threads", " ", "Next: the import"),
        ("Open Threads", "x", "Shipped the export"),
        ("Project Context", None, "<details>"),
    ]
    assert "- [x] Old item" not in text and "<div" not in text
    assert "- <details>\n  ## Completed\n  - Old item inside html\n  </details>\n" in text
    lint = cli("lint", repo).output.splitlines()[-1]
    assert lint.startswith("0 errors, 0 warnings"), lint
