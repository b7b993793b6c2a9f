"""Mode C consolidation at the level of rules: said once, noted elsewhere, bytes kept."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_memory.core.vendors.rules import units
from conftest import build_tree, cli, stats, tree

TODAY = "2026-06-13"
BEGIN = "<!-- agent-memory:begin -->"


def enable(repo: Path, *args: str) -> str:
    result = cli("enable", repo, "--today", TODAY, *args)
    assert result.exit_code == 0, result.output
    return result.output


def test_a_list_item_said_in_two_files_is_kept_once_and_noted(repo: Path) -> None:
    build_tree(
        repo,
        {
            "CLAUDE.md": "# Rules\n\n- Run `make lint` before pushing.\n- Keep PRs small.\n",
            ".cursorrules": "* Keep   PRs small.\n1. Run `make lint` before pushing.\n- Tabs.\n",
        },
    )
    enable(repo)
    agents = (repo / "AGENTS.md").read_text()
    assert agents.count("Keep PRs small.") == 1 and agents.count("make lint") == 1
    cursor = agents.split("## From `.cursorrules`", 1)[1]
    assert "* (a rule already said in the section From `CLAUDE.md`)\n" in cursor
    assert "1. (a rule already said in the section From `CLAUDE.md`)\n" in cursor
    assert "- Tabs.\n" in cursor


def test_rules_dropped_one_after_another_share_one_note(repo: Path) -> None:
    build_tree(
        repo,
        {
            "CLAUDE.md": "- One.\n- Two.\n- Three.\n",
            "GEMINI.md": "- One.\n- Two.\n- Three.\n- Four.\n",
        },
    )
    enable(repo)
    gemini = (repo / "AGENTS.md").read_text().split("## From `GEMINI.md`", 1)[1]
    assert gemini == "\n\n- (3 rules already said in the section From `CLAUDE.md`)\n- Four.\n"


def test_a_line_inside_a_paragraph_is_matched(repo: Path) -> None:
    build_tree(
        repo,
        {
            "AGENTS.md": "# Team\n\nNever commit secrets.\n",
            "CLAUDE.md": "Be terse.\nNever commit secrets.\nAsk before deleting files.\n",
        },
    )
    enable(repo)
    agents = (repo / "AGENTS.md").read_text()
    assert agents.count("Never commit secrets.") == 1
    assert "Be terse.\n(a rule already said in AGENTS.md)\nAsk before deleting files.\n" in agents


def test_an_introduction_is_never_dropped(repo: Path) -> None:
    build_tree(
        repo,
        {
            "CLAUDE.md": "## API\n\nKey features:\n\n- REST endpoints\n- JSON bodies\n",
            "GEMINI.md": "## CLI\n\nKey features:\n\n- Subcommands\n- Shell completion\n",
        },
    )
    enable(repo)
    agents = (repo / "AGENTS.md").read_text()
    assert agents.count("Key features:\n\n- ") == 2
    assert "#### CLI\n\nKey features:\n\n- Subcommands\n" in agents


def test_moved_lines_keep_their_bytes(repo: Path) -> None:
    claude = "Line with two trailing spaces  \nTab\tinside and trailing tab\t\n"
    build_tree(repo, {"CLAUDE.md": claude})
    enable(repo)
    agents = (repo / "AGENTS.md").read_bytes()
    assert claude.encode() in agents


def test_an_existing_agents_import_is_not_doubled(repo: Path) -> None:
    build_tree(repo, {"CLAUDE.md": "@AGENTS.md\n@docs/style.md\n@docs/style.md\n\nBe terse.\n"})
    enable(repo)
    claude = (repo / "CLAUDE.md").read_text()
    assert claude.count("@AGENTS.md") == 1 and claude.count("@docs/style.md") == 1
    assert (repo / ".agent/migrated/CLAUDE.md").read_text().count("@docs/style.md") == 2


def test_an_agents_import_written_from_the_folder_is_not_doubled(repo: Path) -> None:
    # `@./AGENTS.md` is the thin pointer many repos write: the same file as the block's import.
    build_tree(
        repo,
        {"CLAUDE.md": "@./AGENTS.md\n@./docs/x.md\n@docs/x.md\n", "GEMINI.md": "@./AGENTS.md\n"},
    )
    enable(repo)
    for name in ("CLAUDE.md", "GEMINI.md"):
        text = (repo / name).read_text()
        assert "@./AGENTS.md" not in text and text.count("@AGENTS.md") == 1, text
    assert (repo / "CLAUDE.md").read_text().endswith("\n\n@./docs/x.md\n")


def test_markers_in_a_fence_of_agents_md_stay_an_example(repo: Path) -> None:
    example = f"# Tooling\n\n```md\n{BEGIN}\nexample\n<!-- agent-memory:end -->\n```\n"
    build_tree(repo, {"AGENTS.md": example, "CLAUDE.md": "Be terse.\n"})
    enable(repo)
    agents = (repo / "AGENTS.md").read_text()
    top = agents.index(BEGIN)
    assert top < agents.index("```md") and agents.count(BEGIN) == 2
    assert example[len("# Tooling\n") :] in agents


END = "<!-- agent-memory:end -->"


@pytest.mark.parametrize(
    ("files", "where"),
    [
        ({"CLAUDE.md": f"# Rules\n{BEGIN}\n- x\n"}, "CLAUDE.md:2: has an agent-memory block"),
        ({"CLAUDE.md": f"# Rules\n- x\n{END}\n"}, f"CLAUDE.md:3: has {END} without"),
        (
            {"AGENTS.md": "# Mine\n", ".cursorrules": f"- a\n{BEGIN}\n{END}\n{BEGIN}\n{END}\n"},
            f".cursorrules:4: has a second {BEGIN} marker",
        ),
    ],
)
def test_a_bad_marker_in_a_source_is_named_at_its_own_line(
    repo: Path, files: dict[str, str], where: str
) -> None:
    """An error about a source's markers names the source and its line, not AGENTS.md's line
    the consolidation would have moved it to; nothing is written."""
    build_tree(repo, files)
    before = stats(repo)
    result = cli("enable", repo, "--today", TODAY)
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and where in lines[0], lines
    assert stats(repo) == before


def test_a_block_in_a_source_stays_ours_and_never_becomes_agents_md_s(repo: Path) -> None:
    """A source's balanced block is ours (a re-sync would replace it): it is not moved into
    AGENTS.md, where it would be taken for AGENTS.md's block; the original keeps it."""
    claude = f"# Rules\n- keep me\n{BEGIN}\n- not a rule of the user's\n{END}\n"
    build_tree(repo, {"CLAUDE.md": claude})
    output = enable(repo)
    agents = (repo / "AGENTS.md").read_text()
    assert agents.count(BEGIN) == 1 and "- keep me\n" in agents
    assert "not a rule of the user's" not in agents
    assert (repo / ".agent/migrated/CLAUDE.md").read_text() == claude
    assert "its agent-memory block stays ours, not moved" in output
    assert "up to date" in enable(repo)


def test_enabling_again_after_the_memory_was_deleted_keeps_agents_md(repo: Path) -> None:
    """The bootstraps of an earlier enable hold our blocks: with .agent/ and memory/ deleted,
    enable migrates them (Mode C) and leaves AGENTS.md as it was, one block in it."""
    enable(repo)
    agents = (repo / "AGENTS.md").read_bytes()
    shutil.rmtree(repo / ".agent")
    shutil.rmtree(repo / "memory")
    assert "(mode C)" in enable(repo)
    assert (repo / "AGENTS.md").read_bytes() == agents
    assert "up to date" in enable(repo)


def test_the_report_says_what_moved_and_how_big_agents_md_is(repo: Path) -> None:
    build_tree(repo, {"CLAUDE.md": "- A\n- B\n", ".cursorrules": "- A\n- C\n"})
    output = enable(repo)
    size = (repo / "AGENTS.md").stat().st_size
    assert "2 lines from CLAUDE.md, 1 line from .cursorrules (1 already said, noted)" in output
    assert f"AGENTS.md is now {size:,} bytes" in output


def test_units_cover_every_line_once() -> None:
    lines = ["- a\n", "  more\n", "```\n", "- x\n", "```\n", "", "text\n", "  - nested\n"]
    got = [line for unit in units(lines) for line in unit.lines]
    assert got == [line.rstrip("\n") for line in lines]


# -- property: random vendor files with shared and distinct rules ------------------------------

RULES = [f"Rule {word} applies." for word in ("alpha", "beta", "gamma", "delta", "eps", "zeta")]
VENDOR_FILES = ["CLAUDE.md", "GEMINI.md", ".cursorrules", ".windsurfrules", "CONVENTIONS.md"]


@st.composite
def vendor_trees(draw: st.DrawFn) -> dict[str, str]:
    files = {}
    if draw(st.booleans()):  # the user's own AGENTS.md (its own text is never changed)
        files["AGENTS.md"] = "# Team\n\n" + "".join(
            f"- {rule}\n"
            for rule in draw(st.lists(st.sampled_from(RULES), max_size=3, unique=True))
        )
    for path in draw(st.lists(st.sampled_from(VENDOR_FILES), min_size=1, unique=True)):
        picked = draw(st.lists(st.sampled_from(RULES), min_size=1, max_size=5))
        bullet = draw(st.sampled_from(["- ", "* ", "1. ", ""]))
        spaces = draw(st.sampled_from(["", "  ", "\t"]))
        title = draw(st.sampled_from(["", f"# {path}\n\n", "Notes:\n\n"]))
        head = draw(st.sampled_from(["", "---\ndescription: team rules\n---\n"]))
        block = draw(st.sampled_from(["", *OPAQUE]))
        rules = "".join(f"{bullet}{rule}{spaces}\n" for rule in picked)
        files[path] = head + title + rules + block
    return files


# Blocks the one Markdown rule reads whole: a heading inside one is never shifted.
OPAQUE = ["\n```md\n~~~\n# inside\n~~~\n```\n", "\n<details>\n# inside\n</details>\n"]


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(vendor_trees(), st.booleans())
def test_nothing_lost_no_rule_twice_second_run_writes_nothing(
    tmp_path_factory: object, files: dict[str, str], keep: bool
) -> None:
    repo: Path = tmp_path_factory.mktemp("repo")  # type: ignore[attr-defined]
    build_tree(repo, files)
    free = [name for name in ("CLAUDE.md", "GEMINI.md") if name not in files]
    if free and files:  # one of them, when free, is a link to a file of the tree
        (repo / free[0]).symlink_to(sorted(files)[0])
    enable(repo, *(["--keep-vendor-files"] if keep else []))
    after = tree(repo)
    agents = after["AGENTS.md"].decode()
    for data in after.values():
        assert data.count(BEGIN.encode()) <= 1
    for path, text in files.items():
        kept = after[path].decode() + after.get(f".agent/migrated/{path}", b"").decode()
        for line in text.splitlines():
            if line.strip():
                assert line in agents or line in kept, (path, line)
    assert "### inside" not in agents and "description: team rules" not in agents
    outside_block = agents.split("<!-- agent-memory:end -->", 1)[1]

    said = [" ".join(u.key.split()) for u in units(outside_block.splitlines()) if u.key]
    said = [key for key in said if not re.match(r"\((a rule|\d+ rules) already said in ", key)]
    assert len(said) == len(set(said))
    before = stats(repo)
    assert "up to date" in cli("enable", repo, "--today", TODAY).output
    assert stats(repo) == before


def test_detecting_one_tool_keeps_the_default_bootstraps(repo: Path) -> None:
    build_tree(repo, {".cursorrules": "Use tabs.\n"})
    enable(repo)
    assert BEGIN in (repo / "CLAUDE.md").read_text() and BEGIN in (repo / "GEMINI.md").read_text()
    assert (repo / ".cursor/rules/agent-memory.mdc").exists()


def test_every_vendor_piece_says_the_instructions_live_in_agents_md() -> None:
    from agent_memory.layout import VENDORS
    from conftest import PROJECT

    for _path, template, _kind in VENDORS.values():
        text = " ".join((PROJECT / template).read_text().split())
        assert "instructions for coding agents" in text and "now live" in text, template
        assert "AGENTS.md" in text


def test_migrate_md_shows_the_note_the_code_writes() -> None:
    from agent_memory.core.vendors.rules import note
    from conftest import PROJECT

    migrate_md = " ".join((PROJECT / "MIGRATE.md").read_text().split())
    assert f"`{note(1, '<where>')}`" in migrate_md and f"`{note(3, '<where>')}`" in migrate_md


# A real CLAUDE.md as projects write it (frontmatter included), and a Junie copy of it.
REAL_CLAUDE = """---
description: Working agreements for this repo
globs:
---

# Project

Monorepo: `apps/web` (Next.js) and `packages/*` (shared libraries).

## Commands

- Install with `pnpm install`; never `npm install`.
- Run `pnpm test --filter <pkg>` before pushing.
- Lint with `pnpm lint`.

## Style

- TypeScript strict mode; no `any` without a comment saying why.
- Prefer named exports.

```md
~~~
# Title of a README template, not a heading of ours
~~~
```
"""


def test_a_file_identical_to_one_consolidated_is_one_note(repo: Path) -> None:
    build_tree(repo, {"CLAUDE.md": REAL_CLAUDE, ".junie/guidelines.md": REAL_CLAUDE})
    enable(repo)
    agents = (repo / "AGENTS.md").read_text()
    junie = agents.split("## From `.junie/guidelines.md`", 1)[1]
    assert junie == "\n\n(7 rules already said in the section From `CLAUDE.md`)\n"
    assert agents.count("Prefer named exports.") == 1


def test_frontmatter_of_a_plain_file_stays_whole_where_it_was(repo: Path) -> None:
    build_tree(repo, {"CLAUDE.md": REAL_CLAUDE, ".junie/guidelines.md": REAL_CLAUDE})
    enable(repo)
    agents = (repo / "AGENTS.md").read_text()
    assert "description:" not in agents and "---\n(" not in agents
    for path in ("CLAUDE.md", ".junie/guidelines.md"):
        pointer = (repo / path).read_text()
        assert pointer.startswith(REAL_CLAUDE[: REAL_CLAUDE.index("---\n", 4) + 4])
        assert (repo / ".agent/migrated" / path).read_text() == REAL_CLAUDE


def test_a_heading_inside_a_fence_stays_as_written_whatever_fence_is_nested() -> None:
    from agent_memory.core.vendors.rules import _shifted

    assert _shifted(["```md", "~~~", "# inside", "~~~"]) == ["```md", "~~~", "# inside", "~~~"]
    assert _shifted(["<details>", "# in html", "</details>", "", "# out"]) == [
        "<details>", "# in html", "</details>", "", "### out",
    ]  # fmt: skip


def test_a_nested_fence_in_a_real_file_is_moved_verbatim(repo: Path) -> None:
    build_tree(repo, {"CLAUDE.md": REAL_CLAUDE})
    enable(repo)
    agents = (repo / "AGENTS.md").read_text()
    assert "\n# Title of a README template, not a heading of ours\n" in agents
    assert "\n#### Commands\n" in agents


def test_keep_vendor_files_never_says_the_instructions_moved(repo: Path) -> None:
    """With --keep-vendor-files CLAUDE.md's block said its instructions "now live in
    AGENTS.md" while they stayed in CLAUDE.md."""
    build_tree(repo, {"CLAUDE.md": REAL_CLAUDE, ".github/copilot-instructions.md": "Use tabs.\n"})
    enable(repo, "--keep-vendor-files")
    for path in ("CLAUDE.md", ".github/copilot-instructions.md"):
        text = (repo / path).read_text()
        assert "now live" not in text and "this file" in text, path
    assert (repo / "CLAUDE.md").read_text().startswith(REAL_CLAUDE)
    assert "up to date" in enable(repo)
    assert "0 errors, 0 warnings, 0 advisories" in cli("lint", repo).output


def test_every_vendor_block_has_words_for_a_file_that_keeps_its_text() -> None:
    from agent_memory.core.blocks import worded
    from agent_memory.layout import VENDORS
    from conftest import PROJECT

    for path, template, kind in VENDORS.values():
        if kind == "block":
            data = (PROJECT / template).read_bytes()
            assert worded(data, None, path) == data
            assert b"now live" not in worded(data, b"Own text.\n", path), template
            assert worded(data, b"@docs/style.md\n", path) == data  # imports only: moved


# What a file may leave open at its end: a fence, an HTML block that runs to its end marker.
UNCLOSED = ["```", "~~~~ sh\n# not a heading", "<!-- a note", "<pre>", "<script>", "- item\n  ```"]


def _from_headings(agents: str) -> list[str]:
    """The ``## From`` headings markdown-it reads in AGENTS.md (as headings, not code)."""
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").parse(agents)
    return [
        tokens[n + 1].content
        for n, token in enumerate(tokens)
        if token.type == "heading_open" and token.tag == "h2" and token.level == 0
    ]


@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.sampled_from(UNCLOSED), st.sampled_from(UNCLOSED), st.booleans())
def test_a_block_a_file_leaves_open_ends_with_its_section(
    tmp_path_factory: object, claude: str, gemini: str, crlf: bool
) -> None:
    """MIGRATE.md § Instruction files: CLAUDE.md and GEMINI.md end inside a block; rendered,
    each ``## From`` section of AGENTS.md is still a heading, and the text stays in its own."""
    repo: Path = tmp_path_factory.mktemp("repo")  # type: ignore[attr-defined]
    newline = "\r\n" if crlf else "\n"
    build_tree(
        repo,
        {
            "CLAUDE.md": f"- Rule alpha applies.\n\n{claude}\nsome code\n".replace("\n", newline),
            "GEMINI.md": f"- Rule beta applies.\n\n{gemini}\n".replace("\n", newline),
            ".cursorrules": "- Rule gamma applies.\n",
        },
    )
    enable(repo)
    agents = (repo / "AGENTS.md").read_text()
    froms = ["From `CLAUDE.md`", "From `GEMINI.md`", "From `.cursorrules`"]
    assert [h for h in _from_headings(agents) if h.startswith("From")] == froms
    before = stats(repo)
    assert "up to date" in cli("enable", repo, "--today", TODAY).output
    assert stats(repo) == before
