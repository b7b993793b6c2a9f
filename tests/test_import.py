"""``agent-memory import``: agents' own memories, in the shapes the agents write them, become
facts with ``origin:``; twice adds nothing; a wrong or secret-holding source writes nothing."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agent_memory.shell.sources import claude_slug
from conftest import build_tree, cli, run_console, tree

DAY = ("--today", "2026-03-02")

# Claude Code's auto memory: MEMORY.md the index, one topic file per memory (its frontmatter
# name, description and type), as Claude Code writes them.
CLAUDE = {
    "MEMORY.md": (
        "- [Testing](feedback_testing.md) — integration tests hit a real database\n"
        "- [Role](user_role.md) — data scientist, new to the frontend\n"
        "- [Linear](reference_linear.md) — pipeline bugs live in Linear INGEST\n"
        "- The staging deploy needs the VPN\n"
    ),
    "feedback_testing.md": (
        "---\nname: integration tests use a real database\n"
        "description: Integration tests must hit a real database, not mocks\ntype: feedback\n"
        "---\n\nIntegration tests must hit a real database, not mocks.\n\n"
        "**Why:** mocked tests passed but the prod migration failed last quarter.\n"
        "**How to apply:** in tests/integration use the compose Postgres.\n"
    ),
    "user_role.md": (
        "---\nname: user role\ndescription: The user is a data scientist, new to React\n"
        "type: user\n---\nExplain frontend changes as data flow.\n"
    ),
    "reference_linear.md": (
        "---\nname: pipeline bugs\ndescription: Pipeline bugs are tracked in Linear project "
        "INGEST\ntype: reference\n---\nCheck INGEST before filing a new one.\n"
    ),
}
# Codex's MEMORY.md: blocks of a --- header naming the rollouts (with their cwd) and bullets.
CODEX = """---
rollout_summary_files:
  - 2026-02-12T10-30-00-flaky.md (success, cwd={root}, updated_at=2026-02-12T10:30:00Z)
description: fixing flaky integration tests in the API service
keywords: pytest, flaky, xdist
---

- Run the API tests with `pytest -p no:randomly -n 4`; random order exposed a shared fixture.
- Symptom: `database is locked` -> cause: two workers on one sqlite file -> fix: tmp_path.
  Verified by running the suite 20 times.

---
rollout_summary_files:
  - 2026-02-10T09-00-00-other.md (partial, cwd=/home/someone/other, updated_at=2026-02-10T09:00:00Z)
description: work in another repo
keywords: other
---

- Another repo's lesson, not this one's.
"""
# ~/.gemini/GEMINI.md after save_memory: the user's text, then the section it appends to.
GEMINI = (
    "# My global context\n\nI like terse answers.\n\n## Gemini Added Memories\n"
    "- The project uses pnpm workspaces\n- Releases are tagged vX.Y.Z from main\n\n"
    "## Later notes\n- not a memory\n"
)


@pytest.fixture
def enabled(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    assert cli("enable", root, *DAY, "--vendor", "none").exit_code == 0
    return root


def continuity(root: Path) -> str:
    return (root / "memory/continuity.md").read_text()


def test_claude_memory_is_found_from_the_repo_path_and_imported_once(
    enabled: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    folder = home / ".claude/projects" / claude_slug(str(enabled.resolve())) / "memory"
    build_tree(folder, CLAUDE)
    source = tree(folder)
    first = run_console("import", "claude", enabled, *DAY, cwd=tmp_path, HOME=str(home))
    assert first.returncode == 0, first.stderr
    text = continuity(enabled)
    assert (
        "## Conventions\n- integration tests use a real database — Integration tests must hit a "
        "real database, not mocks\n  Integration tests must hit a real database, not mocks.\n"
        "  **Why:** mocked tests passed but the prod migration failed last quarter.\n"
    ) in text
    assert "origin: claude:feedback_testing.md -->" in text
    assert "## User Preferences\n- user role — The user is a data scientist" in text
    assert "## Stack & Tools\n- pipeline bugs — Pipeline bugs are tracked in Linear" in text
    assert "- The staging deploy needs the VPN\n" in text  # an index line with no topic file
    assert "[Testing](feedback_testing.md)" not in text  # a link is its file's entry
    after = tree(enabled)
    again = run_console("import", "claude", enabled, *DAY, "--json", cwd=tmp_path, HOME=str(home))
    report = json.loads(again.stdout)
    assert report["outcome"] == "unchanged" and len(report["summary"]["skipped"]) == 4
    assert tree(enabled) == after and tree(folder) == source


def test_codex_memories_of_this_repo_only(enabled: Path, tmp_path: Path) -> None:
    codex = build_tree(tmp_path / "codex" / "memories", {
        "MEMORY.md": CODEX.format(root=enabled.resolve())
    })  # fmt: skip
    done = run_console("import", "codex", enabled, *DAY, cwd=tmp_path, CODEX_HOME=str(codex.parent))
    assert done.returncode == 0, done.stderr
    text = continuity(enabled)
    assert "- Symptom: `database is locked` -> cause: two workers on one sqlite file" in text
    assert "  Verified by running the suite 20 times.\n" in text
    assert "Another repo" not in text and text.count("origin: codex:MEMORY.md") == 2


def _import_codex(repo: Path, tmp_path: Path, memory: str) -> None:
    """``import codex --from`` a folder whose MEMORY.md is ``memory``, which must succeed."""
    build_tree(tmp_path / "codex", {"memories/MEMORY.md": memory})
    where = tmp_path / "codex/memories"
    done = run_console("import", "codex", repo, "--from", where, *DAY, cwd=tmp_path)
    assert done.returncode == 0, done.stderr


def _import_gemini(repo: Path, tmp_path: Path, memory: str) -> None:
    """``import gemini`` of ``memory`` as ~/.gemini/GEMINI.md, which must succeed."""
    home = build_tree(tmp_path / "home", {".gemini/GEMINI.md": memory})
    done = run_console("import", "gemini", repo, *DAY, cwd=tmp_path, HOME=str(home))
    assert done.returncode == 0, done.stderr


def test_gemini_added_memories_section_only(enabled: Path, tmp_path: Path) -> None:
    _import_gemini(enabled, tmp_path, GEMINI)
    text = continuity(enabled)
    assert "- The project uses pnpm workspaces\n  <!-- id: the-project-uses-pnpm-workspaces" in text
    assert "- Releases are tagged vX.Y.Z from main\n" in text
    assert "terse" not in text and "not a memory" not in text


def test_a_gemini_memory_a_person_wrapped_is_one_fact_per_item(
    enabled: Path, tmp_path: Path
) -> None:
    """A person edits GEMINI.md by hand between saves: a wrapped line goes on with its item
    (as Markdown reads it), a paragraph after a blank line is an entry of its own."""
    memory = (
        "## Gemini Added Memories\n- Deploys go through the staging cluster\nbefore production\n"
        "- Tests run with pytest -x\n\nA note written by hand\nover two lines\n"
    )
    _import_gemini(enabled, tmp_path, memory)
    text = continuity(enabled)
    assert "- Deploys go through the staging cluster\n  before production\n" in text
    assert "- A note written by hand\n  over two lines\n" in text
    assert "- before production" not in text and "- over two lines" not in text


@pytest.mark.parametrize("fence", ["````", "~~~~"])
def test_a_fenced_block_in_a_memory_is_read_whole_with_its_item(
    enabled: Path, tmp_path: Path, fence: str
) -> None:
    """The lines of a code block are code: a shell comment is no heading (it was dropped), an
    item or a blank line in it starts no entry (it was split into several); a closing mark
    shorter than the opening one does not close it."""
    short = fence[:3]
    memory = (
        f"## Gemini Added Memories\n- Set up the dev database with:\n{fence}bash\n"
        "# start the container first\ndocker compose up -d db\n\n- not a new memory\n"
        f"{short}\n{fence}\n- Tests run with pytest -x\n``inline`` code is a line\n"
    )
    _import_gemini(enabled, tmp_path, memory)
    text = continuity(enabled)
    block = (
        f"- Set up the dev database with:\n  {fence}bash\n  # start the container first\n"
        f"  docker compose up -d db\n  - not a new memory\n  {short}\n  {fence}\n  <!-- id:"
    )
    assert block in text, text
    assert "- Tests run with pytest -x\n  ``inline`` code is a line\n" in text
    assert text.count("origin: gemini:") == 2


def test_a_code_block_ends_with_its_item_and_ends_no_section(enabled: Path, tmp_path: Path) -> None:
    """Where Markdown puts a code block: a ``## `` or ``---`` line in it ends no section or
    Codex block; a fence left open ends with its item (and is closed in the fact); the line
    after a fence starts an entry."""
    gemini = (
        "## Gemini Added Memories\n- Use this template:\n```md\n## Heading\n```\nafter it\n"
        "- Run:\n  ```sh\n  make\n- Second fact\n"
    )
    rollout = "rollout_summary_files:\n  - r.md (cwd=/elsewhere)\ndescription: other repo"
    ours = f"rollout_summary_files:\n  - r.md (cwd={enabled})\ndescription: ours"
    codex = f"---\n{ours}\n---\n- Front matter:\n```\n---\n{rollout}\n```\n- Third\n"
    _import_gemini(enabled, tmp_path, gemini)
    _import_codex(enabled, tmp_path, codex)
    text = continuity(enabled)
    assert "- Use this template:\n  ```md\n  ## Heading\n  ```\n  <!-- id:" in text
    assert "- Run:\n  ```sh\n  make\n  ```\n  <!-- id:" in text
    assert "- after it\n" in text and "- Second fact\n" in text and "- Third\n" in text
    assert f"- Front matter:\n  ```\n  ---\n  {rollout.splitlines()[0]}" in text


def test_a_fence_left_open_ends_with_its_block_or_section(enabled: Path, tmp_path: Path) -> None:
    """An answer cut short leaves a fence open to the file's end: it ends with its Codex block
    or Gemini section (the next repo's block, the user's own section, are not read into it);
    a fence opened on an item's own line is that item."""
    gemini = (
        "## Gemini Added Memories\n- Use pnpm\n- ```sh\n  make test\n  ```\n- Build with:\n"
        "```\nunclosed\n## Mine\n- private note\n"
    )
    _import_gemini(enabled, tmp_path, gemini)
    codex = (
        f"---\nrollout_summary_files:\n  - r.md (cwd={enabled})\ndescription: ours\n---\n"
        "- Run:\n```sh\nmake\n---\nrollout_summary_files:\n  - r.md (cwd=/elsewhere)\n"
        "description: theirs\n---\n- Secret of another repo\n"
    )
    _import_codex(enabled, tmp_path, codex)
    text = continuity(enabled)
    assert "- Use pnpm\n  <!-- id:" in text
    assert "- ```sh\n  make test\n  ```\n  <!-- id:" in text
    assert "- Build with:\n  ```\n  unclosed\n  ```\n  <!-- id:" in text
    assert "- Run:\n  ```sh\n  make\n  ```\n  <!-- id:" in text
    assert "private note" not in text and "Secret of another repo" not in text


def test_serena_and_the_mode_c_stores_of_an_enabled_repo(enabled: Path) -> None:
    build_tree(
        enabled,
        {
            ".serena/memories/suggested_commands.md": "# Commands\n\n- `uv run pytest` tests\n",
            ".serena/memories/code_style.md": "Type hints everywhere; docstrings say why.\n",
            "memory-bank/activeContext.md": "## Now\n- [ ] Move auth to OIDC\n- [x] Drop it\n",
            "CONTEXT.yaml": (
                "core:\n  - id: pg_only\n    type: decision\n    content: Postgres is the only"
                " datastore\n    use_count: 3\n    last_used: 2026-02-01\n"
                "archive:\n  - id: memcached\n    type: gotcha\n    content: Memcached is gone\n"
            ),
        },
    )
    for kind in ("serena", "cline", "context-yaml"):
        assert cli("import", kind, enabled, *DAY).exit_code == 0
    text = continuity(enabled)
    assert "## Stack & Tools\n- `uv run pytest` tests\n" in text
    assert "## Conventions\n- Type hints everywhere; docstrings say why.\n" in text
    assert "- [ ] Move auth to OIDC\n" in text and "- [x] Drop it\n" in text
    assert "| uses: 3 | tier: core | origin: context-yaml:CONTEXT.yaml#pg_only" in text
    assert (
        "tier: archived | archived-by: hand | origin: context-yaml:CONTEXT.yaml#memcached" in text
    )
    assert cli("review", enabled, *DAY).exit_code == 0  # the review archives it
    assert "Memcached is gone" not in continuity(enabled)
    lint = cli("lint", enabled).output
    assert "error" not in lint.splitlines()[-1].split(",")[0].replace("0 errors", "")


@pytest.mark.parametrize(
    ("kind", "files", "words"),
    [
        ("claude", {"notes.md": "just notes\n"}, "is not Claude Code auto memory"),
        ("codex", {"MEMORY.md": "# Some file\n\ntext\n"}, "is not Codex's MEMORY.md"),
        ("gemini", {"GEMINI.md": "# Context\n\nprose\n"}, "is not Gemini's memory"),
        ("context-yaml", {"CONTEXT.yaml": "- a\n- b\n"}, "is not a mapping"),
    ],
)
def test_a_source_not_of_the_named_kind_is_one_line_and_writes_nothing(
    enabled: Path, tmp_path: Path, kind: str, files: dict[str, str], words: str
) -> None:
    source = build_tree(tmp_path / "source", files)
    place = source if kind == "claude" else source / next(iter(files))
    before = tree(enabled)
    done = cli("import", kind, enabled, "--from", place, *DAY)
    assert done.exit_code == 1 and words in done.output and done.output.count("\n") == 1
    assert tree(enabled) == before


def test_a_secret_in_the_source_is_refused_before_anything_is_written(
    enabled: Path, tmp_path: Path
) -> None:
    key = "AKIA" + "IOSFODNN7EXAMPLF"
    files = {**CLAUDE, "reference_keys.md": f"---\ntype: reference\n---\nDeploy key {key}\n"}
    source = build_tree(tmp_path / "memory", files)
    before = tree(enabled)
    done = cli("import", "claude", enabled, "--from", source, *DAY, "--json")
    assert done.exit_code == 1 and key not in done.output
    finding = json.loads(done.stdout)["findings"][0]
    assert finding["path"].endswith("reference_keys.md") and finding["line"] == 4
    assert tree(enabled) == before


def test_a_secret_in_a_folder_of_one_file_names_that_file(enabled: Path, tmp_path: Path) -> None:
    key = "AKIA" + "IOSFODNN7EXAMPLF"
    bank = build_tree(tmp_path / "memory-bank", {"techContext.md": f"- one\n- key {key}\n"})
    done = cli("import", "cline", enabled, "--from", bank, *DAY)
    assert done.exit_code == 1 and f"{bank}/techContext.md:2: holds a credential" in done.output


def test_a_topic_name_that_is_not_text_is_one_line(enabled: Path, tmp_path: Path) -> None:
    topic = "---\ntype: project\nname: {a: b}\n---\nbody\n"
    source = build_tree(tmp_path / "memory", {"MEMORY.md": "# Index\n", "t.md": topic})
    before = tree(enabled)
    done = cli("import", "claude", enabled, "--from", source, *DAY)
    assert done.exit_code == 1 and f"{source}/t.md:3: name is not text" in done.output
    assert tree(enabled) == before


def test_dry_run_shows_the_facts_and_writes_nothing(enabled: Path, tmp_path: Path) -> None:
    source = build_tree(tmp_path / "memory", CLAUDE)
    before = tree(enabled)
    done = cli("import", "claude", enabled, "--from", source, *DAY, "--dry-run")
    assert done.exit_code == 0 and "+- The staging deploy needs the VPN" in done.output
    assert tree(enabled) == before


def test_an_entry_a_fact_already_says_is_skipped_and_a_similar_one_listed(
    enabled: Path, tmp_path: Path
) -> None:
    cli("fact", "add", "The staging deploy needs the VPN!", enabled, *DAY)
    cli("fact", "add", "Releases are tagged vX.Y.Z from the main branch", enabled, *DAY)
    home = build_tree(tmp_path / "home", {".gemini/GEMINI.md": GEMINI})
    done = run_console("import", "gemini", enabled, *DAY, "--json", cwd=tmp_path, HOME=str(home))
    added = json.loads(done.stdout)["summary"]["added"]
    tagged = next(a for a in added if a["id"].startswith("releases"))
    assert tagged["similar"][0]["id"] == "releases-are-tagged-vx-y-z"
    source = build_tree(tmp_path / "memory", CLAUDE)
    report = json.loads(cli("import", "claude", enabled, "--from", source, *DAY, "--json").stdout)
    assert {
        "origin": "claude:MEMORY.md",
        "line": 4,
        "existing": "the-staging-deploy-needs-the-vpn",
    } in (report["summary"]["skipped"])


def test_a_topic_file_whose_body_a_fact_already_says_is_skipped(
    enabled: Path, tmp_path: Path
) -> None:
    # A fact the team wrote, then the same lesson in Claude's own memory: "name — description"
    # before its body made it only similar, and it was added a second time.
    body = "Explain frontend changes as data flow."
    assert cli("fact", "add", body, enabled, *DAY).exit_code == 0
    source = build_tree(tmp_path / "memory", CLAUDE)
    report = json.loads(cli("import", "claude", enabled, "--from", source, *DAY, "--json").stdout)
    skipped = report["summary"]["skipped"]
    assert {
        "origin": "claude:user_role.md",
        "line": 1,
        "existing": "explain-frontend-changes-as-data-flow",
    } in skipped
    assert all(a["origin"] != "claude:user_role.md" for a in report["summary"]["added"])
    assert continuity(enabled).count(body) == 1


def test_the_same_bytes_under_any_hash_seed(enabled: Path, tmp_path: Path) -> None:
    source = build_tree(tmp_path / "memory", CLAUDE)
    results = set()
    for seed in ("0", "7", "12345"):
        copy = tmp_path / f"copy-{seed}"
        shutil.copytree(enabled, copy)
        subprocess.run(
            [sys.executable, "-m", "agent_memory", "import", "claude", str(copy), "--from",
             str(source), *DAY],
            check=True, capture_output=True, env={**os.environ, "PYTHONHASHSEED": seed},
        )  # fmt: skip
        results.add((copy / "memory/continuity.md").read_bytes())
    assert len(results) == 1


@pytest.mark.parametrize(
    ("path", "slug"),
    [
        ("/home/user/code/my.app_dev", "-home-user-code-my-app-dev"),
        ("/Users/ann smith/repo", "-Users-ann-smith-repo"),
        ("/srv/café/\U0001d4c1", "-srv-caf----"),  # an astral character: two UTF-16 units
    ],
)
def test_claude_slug_is_every_other_utf16_unit_made_a_dash(path: str, slug: str) -> None:
    assert claude_slug(path) == slug


def test_a_worktree_reads_the_memory_of_its_main_work_tree(tmp_path: Path) -> None:
    """Claude Code keeps one auto memory for all worktrees of a repo: its main work tree's."""
    main = tmp_path / "main"
    main.mkdir()
    git = ["git", "-c", "user.name=A", "-c", "user.email=a@b.c"]
    subprocess.run([*git, "init", "-q", str(main)], check=True)
    assert cli("enable", main, *DAY, "--vendor", "none").exit_code == 0
    subprocess.run([*git, "-C", str(main), "add", "-A"], check=True)
    subprocess.run([*git, "-C", str(main), "commit", "-qm", "enable"], check=True)
    worktree = tmp_path / "feature"
    subprocess.run([*git, "-C", str(main), "worktree", "add", "-q", str(worktree)], check=True)
    home = tmp_path / "home"
    build_tree(home / ".claude/projects" / claude_slug(str(main.resolve())) / "memory", CLAUDE)
    done = run_console("import", "claude", *DAY, cwd=worktree, HOME=str(home))
    assert done.returncode == 0, done.stderr
    assert "The staging deploy needs the VPN" in continuity(worktree)
    assert "VPN" not in continuity(main)


def test_codex_memories_kept_per_work_folder_are_read_first(enabled: Path, tmp_path: Path) -> None:
    import hashlib

    codex = tmp_path / "codex"
    bucket = hashlib.sha256(str(enabled.resolve()).encode()).hexdigest()[:16]
    own = "---\ndescription: this repo\n---\n\n- Only this folder's lesson.\n"
    build_tree(codex / "memories", {f"{bucket}/memory/MEMORY.md": own, "MEMORY.md": CODEX})
    done = run_console("import", "codex", enabled, *DAY, cwd=tmp_path, CODEX_HOME=str(codex))
    assert done.returncode == 0, done.stderr
    assert "- Only this folder's lesson.\n" in continuity(enabled)


@pytest.mark.parametrize("shape", ["fifo", "symlink", "folder"])
def test_a_source_file_that_is_not_a_regular_file_is_one_line(
    enabled: Path, tmp_path: Path, shape: str
) -> None:
    source = build_tree(tmp_path / "memory", CLAUDE)
    odd = source / "odd.md"
    if shape == "fifo":
        os.mkfifo(odd)
    elif shape == "symlink":
        odd.symlink_to(tmp_path / "memory/user_role.md")
    else:
        odd.mkdir()
    before = tree(enabled)
    done = cli("import", "claude", enabled, "--from", source, *DAY)
    assert done.exit_code == 1 and done.output.count("\n") == 1 and "odd.md" in done.output
    assert tree(enabled) == before
