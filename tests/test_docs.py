"""The docs are true of the command line: the generated reference is its help, and every
``agent-memory …`` line in README.md and docs/ names a real command with real options."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path

import click
import pytest
from ruamel.yaml import YAML

from agent_memory.cli.app import main
from cli_reference import COMMAND, PAGE, render
from conftest import PROJECT

PAGES = [PROJECT / "README.md", *sorted((PROJECT / "docs").glob("*.md"))]
CHECKED = [page for page in PAGES if page != PAGE]  # the reference is the help itself
SHELL_BLOCKS = {"sh", "bash", "shell", "yaml", "toml"}
PLACEHOLDER = re.compile(r"\[.*\]|<.*>|.*….*|[A-Z][A-Z0-9_:-]*")
OPERATORS = {"&&", "||", ";", "|", "(", ")", ">", ">&", ">>", "<", "&"}


def test_the_reference_is_the_help_of_every_command() -> None:
    assert PAGE.exists() and PAGE.read_text() == render(), f"docs/reference.md is stale: {COMMAND}"


def _blocks(text: str) -> Iterator[tuple[str, str]]:
    """(info string, body) of each fenced code block."""
    for match in re.finditer(r"^```([\w-]*)\n(.*?)^```", text, re.M | re.S):
        yield match.group(1), match.group(2)


def _shell_commands(body: str) -> Iterator[list[str]]:
    """The words of each ``agent-memory`` command in a shell or YAML block: the line split as
    the shell splits it, at its operators, each part led by the command (after ``X=1`` or a
    YAML key such as ``entry:``)."""
    for line in body.splitlines():
        if "agent-memory" not in line:
            continue
        lexer = shlex.shlex(line.removeprefix("$ "), posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        part: list[str] = []
        for word in [*lexer, ";"]:
            if word not in OPERATORS:
                part.append(word)
                continue
            prefix = [bool(re.fullmatch(r"\w+=.*|[\w-]+:|-", w)) for w in part]
            start = prefix.index(False) if False in prefix else len(part)
            if part[start : start + 1] == ["agent-memory"]:
                yield part[start + 1 :]
            part = []


def _inline_commands(text: str) -> Iterator[list[str]]:
    """The words of each inline code span that is an ``agent-memory`` line; ``a|b`` in a word
    stands for each of its choices."""
    prose = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)
    for span in re.findall(r"`([^`\n]+)`", prose):
        if span == "agent-memory" or span.startswith("agent-memory "):
            words = shlex.split(span.replace("\\|", "|"))[1:]
            choices = next((w for w in words if "|" in w), None)
            if choices is None:
                yield words
            else:
                for choice in choices.split("|"):
                    yield [choice if w == choices else w for w in words]


def command_lines(text: str) -> list[list[str]]:
    """Every ``agent-memory`` command line a page shows: console ``$`` lines, shell and YAML
    blocks, and inline code."""
    found = list(_inline_commands(text))
    for info, body in _blocks(text):
        if info == "console":
            body = "\n".join(line for line in body.splitlines() if line.startswith("$ "))
        if info == "console" or info in SHELL_BLOCKS:
            found += _shell_commands(body)
    return found


def _options(command: click.Command, ctx: click.Context) -> dict[str, click.Parameter]:
    known: dict[str, click.Parameter] = {}
    for param in command.get_params(ctx):
        if isinstance(param, click.Option):
            for name in (*param.opts, *param.secondary_opts):
                known[name] = param
    return known


def _check_words(command: click.Command, ctx: click.Context, words: Sequence[str]) -> list[str]:
    """Check the options and their values against the command's parameters; return the
    positional words (placeholders included)."""
    known = _options(command, ctx)
    positional: list[str] = []
    rest = list(words)
    while rest:
        word = rest.pop(0)
        if word == "--":
            return positional + rest
        if not word.startswith("-") or word == "-":
            positional.append(word)
            continue
        name, _, attached = word.strip("[]").partition("=")
        param = known.get(name)
        assert param is not None, f"{ctx.command_path} has no option {name}"
        if isinstance(param, click.Option) and (param.is_flag or param.count):
            continue
        value = attached or (rest.pop(0) if rest else "")
        assert value, f"{ctx.command_path} {name} needs a value"
        if isinstance(param.type, click.Choice) and not PLACEHOLDER.fullmatch(value):
            assert value in param.type.choices, f"{ctx.command_path} {name} {value}"
    return positional


def _route(group: click.Group, ctx: click.Context, words: list[str]) -> list[str]:
    """The words after the group's own options, as the group parses them: a group may put its
    default command's name first (``mcp [PATH]`` serves)."""
    routed = group.make_context(
        ctx.info_name, list(words), parent=ctx.parent, resilient_parsing=True
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        remaining = [*getattr(routed, "protected_args", []), *routed.args]
    inserted = bool(remaining) and remaining[0] not in words
    own = words[: len(words) - len(remaining) + inserted]
    assert not _check_words(group, ctx, own), f"{ctx.command_path}: {own} is no command"
    return remaining


def _leaf(words: Sequence[str]) -> tuple[click.Command, click.Context, list[str]]:
    """The command a line runs, its context, and the words left for it."""
    command: click.Command = main
    ctx = main.make_context("agent-memory", [], resilient_parsing=True)
    rest = list(words)
    while isinstance(command, click.Group) and rest:
        if command.get_command(ctx, rest[0]) is None:
            remaining = _route(command, ctx, rest)
            if not remaining or command.get_command(ctx, remaining[0]) is None:
                break  # the group's own words: checked as a command's
            rest = remaining
        name, rest = rest[0], rest[1:]
        sub = command.get_command(ctx, name)
        assert sub is not None
        ctx = sub.make_context(name, [], parent=ctx, resilient_parsing=True)
        command = sub
    return command, ctx, rest


def check_line(words: Sequence[str]) -> None:
    """Fail unless ``agent-memory WORDS`` names a command, its options and its arguments; a
    line without placeholders is also parsed as the command line parses it."""
    command, ctx, rest = _leaf(words)
    positional = _check_words(command, ctx, rest)
    arguments = [p for p in command.get_params(ctx) if isinstance(p, click.Argument)]
    if all(p.nargs >= 0 for p in arguments):
        limit = sum(p.nargs for p in arguments)
        assert len(positional) <= limit, f"{ctx.command_path}: too many arguments {positional}"
    if isinstance(command, click.Group) or any(PLACEHOLDER.fullmatch(w) for w in words):
        return
    try:
        main.make_context("agent-memory", list(words))
        command.make_context(ctx.info_name, list(rest), parent=ctx.parent)
    except click.exceptions.Exit:
        pass  # --help, --version
    except click.MissingParameter:
        pass  # the command named in prose, without its arguments


@pytest.mark.parametrize("page", CHECKED, ids=lambda p: p.relative_to(PROJECT).as_posix())
def test_every_command_line_in_the_docs_is_a_real_command(page: Path) -> None:
    lines = command_lines(page.read_text())
    assert lines, f"{page.name} shows no agent-memory command"
    for words in lines:
        try:
            check_line(words)
        except (AssertionError, click.ClickException) as exc:
            raise AssertionError(f"{page.name}: `agent-memory {shlex.join(words)}`: {exc}") from exc


@pytest.mark.parametrize(
    "text",
    [
        "Run `agent-memory reveiw` now.",
        "Run `agent-memory review --ful`.",
        "Run `agent-memory enable --vendor emacs`.",
        "Run `agent-memory hooks install --agent claude|cursor`.",
        "Run `agent-memory fact add TEXT [PATH] EXTRA`.",
        "Run `agent-memory --verison`.",
        "```sh\ncd repo && agent-memory lint --only nothing x y\n```\n",
        "```yaml\n  entry: agent-memory check-logs --bsae HEAD\n```\n",
        "```console\n$ agent-memory session new --slug\n```\n",
        "```sh\nagent-memory mcp --wiat 3\n```\n",
    ],
)
def test_a_wrong_command_line_is_caught(text: str) -> None:
    def fails(words: list[str]) -> bool:
        try:
            check_line(words)
        except (AssertionError, click.ClickException):
            return True
        return False

    assert any(fails(words) for words in command_lines(text))


def test_the_line_finder_reads_each_form_and_skips_what_is_not_a_command() -> None:
    text = (
        "Use `agent-memory review --if-due` or `agent-memory[mcp]`.\n"
        "```sh\npipx install 'agent-memory[mcp]'   # agent-memory lint in a comment\n"
        'X=1 agent-memory status . && agent-memory lint | cat\neval "$(agent-memory)"\n```\n'
        "```console\n$ agent-memory recall pnpm\nagent-memory 5.0.0: output, not a command\n```\n"
        "```yaml\n- entry: agent-memory lint --only secret\n```\n"
    )
    assert command_lines(text) == [
        ["review", "--if-due"],
        ["status", "."],
        ["lint"],
        ["recall", "pnpm"],
        ["lint", "--only", "secret"],
    ]
    for words in command_lines(text):
        check_line(words)


def _yaml_blocks(page: str) -> list[object]:
    text = (PROJECT / page).read_text()
    return [YAML(typ="safe").load(body) for info, body in _blocks(text) if info == "yaml"]


def test_the_pre_commit_snippet_is_a_local_repo_running_the_shipped_hooks() -> None:
    (config,) = _yaml_blocks("docs/teams.md")
    (repo,) = config["repos"]  # type: ignore[index]
    assert repo == {"repo": "local", "hooks": repo["hooks"]}
    shipped = YAML(typ="safe").load((PROJECT / ".pre-commit-hooks.yaml").read_text())
    assert [h["language"] for h in repo["hooks"]] == ["system"] * len(shipped)
    drop = ("language", "description")
    assert [{k: v for k, v in h.items() if k not in drop} for h in repo["hooks"]] == [
        {k: v for k, v in h.items() if k not in drop} for h in shipped
    ]


@pytest.mark.parametrize("page", CHECKED, ids=lambda p: p.relative_to(PROJECT).as_posix())
def test_no_snippet_pins_a_tag_or_names_a_placeholder_address(page: Path) -> None:
    text = page.read_text()
    assert not re.search(r"^\s*rev:|@v[0-9]|git\+|<[^>]*(?:URL|url)[^>]*>", text, re.M), page.name


def test_completion_works_as_documented() -> None:
    usage = (PROJECT / "docs/usage.md").read_text()
    assert "_AGENT_MEMORY_COMPLETE=bash_source agent-memory" in usage
    env = {
        **os.environ,
        "PYTHONPATH": str(PROJECT / "installer"),
        "_AGENT_MEMORY_COMPLETE": "bash_source",
    }
    done = subprocess.run(
        [sys.executable, "-m", "agent_memory"], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0 and "complete -o nosort -F" in done.stdout
    assert "agent-memory" in done.stdout


def test_the_writing_commands_take_the_options_the_usage_guide_says_they_share() -> None:
    usage = (PROJECT / "docs/usage.md").read_text()
    section = usage.split("## Options the writing commands share", 1)[1].split("\n## ", 1)[0]
    shared = set(re.findall(r"^- `(--[a-z-]+)", section, re.M))
    assert shared == {"--dry-run", "--check", "--json", "--today", "--wait"}
    for line in ("enable", "review", "fact add", "disable", "hooks install", "hooks remove"):
        command, ctx, _ = _leaf(line.split())
        assert shared <= set(_options(command, ctx)), line
    for line in ("mcp install", "mcp remove"):
        command, ctx, _ = _leaf(line.split())
        assert set(_options(command, ctx)) & shared == shared - {"--today"}, line
