"""Symlinks among the bootstrap files: every layout, every mode, no byte of user text lost."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
from pathlib import Path

import pytest

from agent_memory.core.install import enable as core
from agent_memory.layout import BLOCK_BEGIN
from agent_memory.parse import manifest
from conftest import build_tree, cli, git_init, stats, tree

TODAY = "2026-06-13"
RULES = "# Project\r\n\r\nUse the repo's own task runner.  \r\n- Run `make check` before a PR.\r\n"
OTHER = "Claude: prefer small commits.\n"

# layout name -> (real files, links as path -> target, relative to the link's folder)
LAYOUTS = {
    "claude-to-agents": ({"AGENTS.md": RULES}, {"CLAUDE.md": "AGENTS.md"}),
    "agents-to-claude": ({"CLAUDE.md": RULES}, {"AGENTS.md": "CLAUDE.md"}),
    "gemini-to-agents": (
        {"AGENTS.md": RULES, "CLAUDE.md": OTHER},
        {"GEMINI.md": "AGENTS.md"},
    ),
    "both-to-a-third": (
        {"docs/AI.md": RULES},
        {"AGENTS.md": "docs/AI.md", "CLAUDE.md": "docs/AI.md"},
    ),
}


def make(repo: Path, layout: str) -> dict[str, str]:
    real, links = LAYOUTS[layout]
    build_tree(repo, real)
    for link, target in links.items():
        (repo / link).symlink_to(target)
    return real


def physical_files(repo: Path) -> dict[str, bytes]:
    """Every regular file (links skipped), by path."""
    out = {}
    for dirpath, _dirs, names in os.walk(repo):
        for name in names:
            path = Path(dirpath) / name
            if ".git" in path.relative_to(repo).parts[:1] or path.is_symlink():
                continue
            out[path.relative_to(repo).as_posix()] = path.read_bytes()
    return out


def assert_sound(repo: Path, layout: str, real: dict[str, str]) -> None:
    """Links intact, user text all there, one block per file, no file importing itself."""
    for link, target in LAYOUTS[layout][1].items():
        assert (repo / link).is_symlink() and str((repo / link).readlink()) == target
    files = physical_files(repo)
    for path, text in real.items():
        kept = files[path].decode()
        migrated = files.get(f".agent/migrated/{path}", b"").decode()
        for line in text.splitlines(keepends=True):
            assert line in kept or line in migrated, (path, line)
    for path, data in files.items():
        assert data.count(BLOCK_BEGIN.encode()) <= 1, path
    agents = (repo / "AGENTS.md").resolve()
    for name in ("CLAUDE.md", "GEMINI.md"):
        if (repo / name).exists() and (repo / name).resolve() == agents:
            text = agents.read_text()
            assert BLOCK_BEGIN in text and "\n@AGENTS.md" not in text


def run_twice(repo: Path, *args: str) -> dict[str, object]:
    """--dry-run, then the run: the same plan; then a third run writes nothing."""
    before = stats(repo)
    dry = json.loads(cli("enable", repo, "--dry-run", "--json", "--today", TODAY, *args).output)
    assert stats(repo) == before
    done = cli("enable", repo, "--json", "--today", TODAY, *args)
    assert done.exit_code == 0, done.output
    real = json.loads(done.output)
    assert dry["plan"] == real["plan"]
    after = stats(repo)
    again = cli("enable", repo, "--today", TODAY)
    assert "up to date" in again.output, again.output
    assert stats(repo) == after
    assert cli("enable", repo, "--check").exit_code == 0
    return real


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("keep", [False, True], ids=["consolidate", "keep-vendor-files"])
def test_mode_c_on_every_link_layout(repo: Path, layout: str, keep: bool) -> None:
    real = make(repo, layout)
    doc = run_twice(repo, *(["--keep-vendor-files"] if keep else []))
    assert_sound(repo, layout, real)
    outcomes = {e["path"]: (e["outcome"], e["reason"]) for e in doc["plan"]}
    for link, _target in LAYOUTS[layout][1].items():
        assert outcomes[link][0] == "linked"
    if layout in ("claude-to-agents", "gemini-to-agents"):
        link = "CLAUDE.md" if layout == "claude-to-agents" else "GEMINI.md"
        assert outcomes[link][1].startswith("links to AGENTS.md")


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_mode_a_plans_one_block_per_physical_file(layout: str) -> None:
    real, link_map = LAYOUTS[layout]
    links = dict(link_map)
    files: dict[str, bytes | None] = {p: t.encode() for p, t in real.items()}
    for link, target in links.items():
        files[link] = files.get(target)
    plan = core.fresh_install(files, ("claude", "gemini"), dt.date(2026, 6, 13), "3.0.0", links)
    written = {e.path: e.after for e in plan.writes}
    assert not set(written) & set(links)  # never through a link
    for data in written.values():
        assert data is not None and data.count(BLOCK_BEGIN.encode()) <= 1
    agents = links.get("AGENTS.md", "AGENTS.md")
    assert BLOCK_BEGIN.encode() in (written.get(agents) or files[agents] or b"")
    assert b"@AGENTS.md" not in (written.get(agents) or b"")


def _stamped(repo: Path, version: str, vendors: str) -> None:
    text = (
        f"# agent-memory install manifest\n- version:       {version}\n"
        f"- enabled_with:  {version}\n- last_upgraded: 2026-01-01\n- mode:          A\n"
        f"- vendors:       {vendors}\n\n## Managed files\n\n## Upgrade history\n"
    )
    build_tree(repo, {".agent/version.md": text, "memory/continuity.md": "# Continuity\n"})


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_mode_b_upgrade_and_repair_on_every_link_layout(repo: Path, layout: str) -> None:
    real = make(repo, layout)
    _stamped(repo, "2.5.0", "claude, gemini")
    doc = run_twice(repo)
    assert_sound(repo, layout, real)
    assert any(e["outcome"] == "linked" for e in doc["plan"])
    stamp = manifest.parse((repo / ".agent/version.md").read_bytes())
    assert "claude" in stamp.vendors


@pytest.mark.parametrize("name", ["CLAUDE.md", "AGENTS.md"])
def test_a_link_outside_the_repo_is_refused_in_one_line(
    repo: Path, tmp_path: Path, name: str
) -> None:
    outside = tmp_path / "elsewhere.md"
    outside.write_text("theirs\n")
    build_tree(repo, {"GEMINI.md": "Gemini rules.\n"})
    (repo / name).symlink_to(outside)
    before = stats(repo)
    result = cli("enable", repo, "--today", TODAY)
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and name in lines[0] and "outside the repo" in lines[0]
    assert stats(repo) == before and outside.read_text() == "theirs\n"


def test_a_loop_of_links_is_refused_in_one_line(repo: Path) -> None:
    (repo / "CLAUDE.md").symlink_to("GEMINI.md")
    (repo / "GEMINI.md").symlink_to("CLAUDE.md")
    result = cli("enable", repo, "--today", TODAY)
    assert result.exit_code == 1 and len(result.output.strip().splitlines()) == 1
    assert "symlink loop" in result.output


def test_enable_md_lists_every_outcome_the_tool_reports() -> None:
    from agent_memory.core.plan import Outcome
    from conftest import PROJECT

    step4 = (PROJECT / "ENABLE.md").read_text().split("## Step 4", 1)[1]
    for outcome in Outcome:
        assert f"`{outcome.value}`" in step4, outcome


def test_the_console_script_keeps_agents_md_through_a_claude_link(repo: Path) -> None:
    from conftest import run_console

    make(repo, "claude-to-agents")
    done = run_console("enable", ".", "--today", TODAY, cwd=repo)
    assert done.returncode == 0, done.stderr
    assert "linked" in done.stdout and "CLAUDE.md  (links to AGENTS.md" in done.stdout
    text = (repo / "AGENTS.md").read_bytes()
    assert text.count(BLOCK_BEGIN.encode()) == 1 and RULES.encode().split(b"\r\n\r\n", 1)[1] in text
    again = run_console("enable", ".", "--check", cwd=repo)
    assert again.returncode == 0, again.stdout


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_disable_on_every_link_layout_then_enable_gives_it_back(repo: Path, layout: str) -> None:
    """Real repos (CLAUDE.md -> AGENTS.md) are disabled like any other: the links stay links,
    our block leaves the file they lead to, --dry-run shows the plan the run applies, and
    enable gives every byte back."""
    real = make(repo, layout)
    assert cli("enable", repo, "--today", TODAY).exit_code == 0
    enabled = stats(repo)
    dry = cli("disable", repo, "--dry-run", "--json", "--today", "2026-06-14")
    assert dry.exit_code == 0, dry.output
    assert stats(repo) == enabled
    enabled_tree = tree(repo)
    done = cli("disable", repo, "--json", "--today", "2026-06-14")
    assert done.exit_code == 0, done.output
    assert json.loads(dry.output)["plan"] == json.loads(done.output)["plan"]
    outcomes = {e["path"]: e["outcome"] for e in json.loads(done.output)["plan"]}
    for link, target in LAYOUTS[layout][1].items():
        assert (repo / link).is_symlink() and str((repo / link).readlink()) == target
        assert outcomes[link] == "linked"
    if layout != "gemini-to-agents":  # there, enable consolidated CLAUDE.md into AGENTS.md
        for path, text in real.items():  # the user's files are theirs again, byte for byte
            assert (repo / path).read_bytes() == text.encode(), path
    files = physical_files(repo).items()
    assert not any(BLOCK_BEGIN.encode() in d for p, d in files if not p.startswith(".agent/"))
    back = cli("enable", repo, "--today", "2026-06-15")
    assert back.exit_code == 0 and "restored" in back.output, back.output
    copies = ".agent/backup/disable-2026-06-14/"
    assert {p: v for p, v in tree(repo).items() if not p.startswith(copies)} == enabled_tree


def test_a_dry_run_refuses_what_the_run_would_refuse(repo: Path) -> None:
    """--dry-run and --check check where a plan writes as the real run does: a continuity.md
    that is a link (inside the repo) is refused by all three, in the same one line."""
    assert cli("enable", repo, "--today", TODAY).exit_code == 0
    continuity = repo / "memory/continuity.md"
    continuity.rename(repo / "memory/real.md")
    continuity.symlink_to("real.md")
    before = stats(repo)
    answers = [
        cli("fact", "add", "Use tabs.", repo, *extra, "--today", TODAY)
        for extra in (("--dry-run",), ("--check",), ())
    ]
    assert {(a.exit_code, a.output) for a in answers} == {(1, answers[2].output)}
    assert "memory/continuity.md: is a symlink" in answers[2].output
    assert stats(repo) == before


def _commit(root: Path) -> None:
    subprocess.run(["git", "-C", root, "add", "-A"], check=True)
    who = ["-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run(["git", "-C", root, *who, "commit", "-qm", "x"], check=True)


# Where a committed CLAUDE.md may lead in a clone: git's own files (a hook is code run on the next
# commit; the config may hold a remote's token) and the files the tool writes itself.
HOSTILE_TARGETS = [
    ".git/config",
    ".git/hooks/pre-commit",
    ".git/HEAD",
    ".git/info/attributes",
    ".agent-memory.lock",
    "memory/continuity.md",
    ".agent/DECAY.md",
    ".gitignore",
]


@pytest.mark.parametrize("enabled", [True, False], ids=["mode-b", "mode-a"])
@pytest.mark.parametrize("target", HOSTILE_TARGETS)
def test_a_link_into_git_or_onto_our_own_files_is_refused_in_a_clone(
    tmp_path: Path, target: str, enabled: bool
) -> None:
    upstream = git_init(tmp_path / "upstream")
    if enabled:
        assert cli("enable", upstream, "--today", TODAY).exit_code == 0
        (upstream / "CLAUDE.md").unlink()
    (upstream / "CLAUDE.md").symlink_to(target)
    _commit(upstream)
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", upstream, clone], check=True)
    git_before = {p: (clone / ".git" / p).read_bytes() for p in ("config", "HEAD")}
    before = stats(clone)
    for extra in (("--dry-run",), ()):
        result = cli("enable", clone, "--today", TODAY, *extra)
        assert result.exit_code == 1, result.output
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and f"CLAUDE.md: is a symlink to {target}" in lines[0], lines
    assert stats(clone) == before
    assert {p: (clone / ".git" / p).read_bytes() for p in git_before} == git_before
    assert not (clone / ".git/hooks/pre-commit").exists()
    assert not (clone / ".git/info/attributes").exists()


def test_a_link_into_the_git_folder_a_dot_git_file_names_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", f"--separate-git-dir={root}/store", root], check=True)
    (root / "CLAUDE.md").symlink_to("store/config")
    before = stats(root)
    result = cli("enable", root, "--today", TODAY)
    assert result.exit_code == 1 and "inside git's own folder" in result.output, result.output
    assert stats(root) == before


@pytest.mark.parametrize(
    ("link", "to", "args"),
    [
        (".agent/migrated/CLAUDE.md", "../../.git/config", ("disable",)),
        ("memory/continuity.md", "../.git/config", ("status",)),
        ("memory/vision.md", "../.git/HEAD", ("context",)),
    ],
)
def test_no_command_reads_git_s_files_through_a_link(
    tmp_path: Path, link: str, to: str, args: tuple[str, ...]
) -> None:
    """Only what a bootstrap file links to was checked: disable read .agent/migrated/CLAUDE.md
    through a link to .git/config and gave it back as CLAUDE.md, a remote's password with it."""
    root = git_init(tmp_path / "r")
    subprocess.run(["git", "-C", str(root), "config", "remote.origin.url", "https://u:PASS@h/r"])
    build_tree(root, {"CLAUDE.md": "# C\n- rule\n"})
    assert cli("enable", root, "--today", "2026-01-01").exit_code == 0
    (root / link).unlink(missing_ok=True)
    (root / link).symlink_to(to)
    before = tree(root)
    done = cli(*args, root)
    assert done.exit_code == 1, done.output
    assert (
        f"{link}: is a symlink to .git/" in done.output and "inside git's own folder" in done.output
    )
    assert tree(root) == before and "PASS" not in done.output
