"""The command lines answered without click (cli/quick.py) print what the full command line
prints, byte for byte, with the same exit code, and leave the same files; every other line is
left to it before anything runs."""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_memory.cli import quick
from agent_memory.cli.app import main
from agent_memory.cli.declared import Declared, Kind
from agent_memory.cli.table import LINES
from conftest import PROJECT, tree

EXAMPLE = PROJECT / "examples/evolving-memory-example/after"
NEWEST_LOG = "quiet/memory/sessions/2026-05-07-100000.md"
Answer = tuple[str, str, int]


class _Utf8:
    """A stdout that says it is UTF-8 and no terminal, as a pipe's is."""

    encoding = "utf-8"

    def __init__(self, sink: io.StringIO) -> None:
        self._sink = sink

    def write(self, text: str) -> int:
        return self._sink.write(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False


@contextlib.contextmanager
def _inside(folder: Path) -> Iterator[None]:
    """contextlib.chdir, which Python 3.10 lacks."""
    before = Path.cwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


def quick_answer(argv: list[str]) -> Answer | None:
    """What the quick path prints on stdout and stderr and its exit code; None when it leaves
    the line to click."""
    out, err = io.StringIO(), io.StringIO()
    stdin, sys.stdin = sys.stdin, io.StringIO()  # as CliRunner's: empty (the hooks read it)
    with contextlib.redirect_stdout(_Utf8(out)), contextlib.redirect_stderr(err):  # type: ignore[type-var]
        try:
            quick.answer(argv)
        except SystemExit as exc:
            return out.getvalue(), err.getvalue(), int(exc.code or 0)
        finally:
            sys.stdin = stdin
    assert out.getvalue() == err.getvalue() == "", "declined after printing"
    return None


def full_answer(argv: list[str]) -> Answer:
    result = CliRunner().invoke(main, argv, catch_exceptions=False)
    return result.stdout, result.stderr, result.exit_code


def world(root: Path) -> Path:
    """Two repos side by side: "quiet" (reviewed, no review due) and "due" (one is)."""
    root.mkdir()
    quiet, due = root / "quiet", root / "due"
    shutil.copytree(EXAMPLE, quiet)
    shutil.copytree(EXAMPLE, due)
    with _inside(root):
        assert full_answer(["review", "quiet", "--today", "2026-06-01"])[2] == 0
    policy = due / "memory/decay-policy.md"
    policy.write_text(
        policy.read_text().replace("continuity_max_facts: 30", "continuity_max_facts: 1")
    )
    (root / "a-file").write_text("not a repo\n")
    return root


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return world(tmp_path_factory.mktemp("quick") / "world")


def both_ways(pristine: Path, scratch: Path, argv: list[str]) -> tuple[Answer, Answer] | None:
    """The line run the quick way and the full way, each in its own copy of the world (named
    alike, so the two print the same paths); None when the quick way leaves it to click."""
    answers, trees = [], []
    for way in ("quick", "full"):
        root = scratch / way / "world"
        shutil.copytree(pristine, root)
        with _inside(root):
            answer = quick_answer(argv) if way == "quick" else full_answer(argv)
        if answer is None:
            return None
        # A message naming the repo by its absolute path (git's, check-logs') names the copy.
        answers.append(
            tuple(
                part.replace(str(root.resolve()), "<world>") if isinstance(part, str) else part
                for part in answer
            )
        )
        trees.append(tree(root))
    assert trees[0] == trees[1], argv
    return answers[0], answers[1]


# Words for each kind of value the table declares: some click takes, some it refuses, some only
# click reads (a leading zero, an Arabic-Indic digit, an exponent), and names of the world's
# folders and files.
VALUES = {
    Kind.FOLDER: ["quiet", "due", "a-file", "missing"],
    Kind.FILE: [NEWEST_LOG, "quiet", "missing.md", "a-file"],
    Kind.COUNT: ["300", "0300", "100", "1", "0", "\u0663\u0660\u0660"],
    Kind.SECONDS: ["1.5", "1e3", "0"],
    Kind.DATE: ["2026-06-01", "2026-13-01"],
    Kind.MOMENT: ["2026-06-01T10:00:00", "noon"],
    Kind.SLUG: ["x", "y" * 100],
    Kind.TEXT: ["outbox", "outbox-writes"],
}
JUNK = ["--", "-h", "--help", "--unknown", "-", ""]
# The lines the quick path answers (mcp's group reads its own; a log named by the clock differs
# between two runs, so session new is drawn with --now). ui serves until Ctrl-C: a valid line of
# it would never return (tests/test_ui.py runs it).
ANSWERED = [line for line in LINES if line.words[0] not in ("mcp", "ui")]


def _words(line: Declared) -> list[str]:
    """Every word a line's declaration allows, and values for each of its options."""
    words = list(JUNK)
    for param in line.params:
        values = [*param.choices, "nobody"] if param.kind is Kind.CHOICE else []
        values += VALUES.get(param.kind, [])
        words += values
        for flag in param.flags:
            words.append(flag)
            words += [f"{flag}={value}" for value in values[:2]]
    return words


@st.composite
def _lines(draw: st.DrawFn) -> list[str]:
    line = draw(st.sampled_from(ANSWERED))
    words = draw(st.lists(st.sampled_from(_words(line)), max_size=6))
    if line.words == ("session", "new"):
        words += ["--now", "2026-06-01T10:00:00"]
    return [*line.words, *words]


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(argv=_lines())
def test_a_line_answered_quickly_prints_and_writes_what_click_does(
    pristine: Path, tmp_path_factory: pytest.TempPathFactory, argv: list[str]
) -> None:
    answered = both_ways(pristine, tmp_path_factory.mktemp("line"), argv)
    if answered is not None:
        assert answered[0] == answered[1], argv


@pytest.mark.parametrize(
    "argv",
    [
        ["context", "quiet"],
        ["context", "--hook", "quiet"],
        ["context", "due", "--max-bytes", "300", "--json"],
        ["context", "--max-bytes=1000", "due"],
        ["context", "missing"],  # the command's error, said as the full command line says it
        ["context", "--json", "missing"],
        ["review", "--if-due", "quiet"],
        ["review", "quiet", "--if-due", "--json", "--today", "2026-06-01"],
        ["review", "--if-due", "due", "--today", "2026-06-01"],  # due: the review runs
        ["review", "due", "--full", "--check", "--today", "2026-06-01"],
        ["review", "due", "--dry-run", "--today", "2026-06-01", "--wait", "1.5"],
        ["review", "quiet", "--today", "2026-06-02", "--session", NEWEST_LOG, "--json"],
        ["review", "missing"],
        ["status", "quiet"],
        ["status", "--json", "due"],
        ["recall", "outbox", "quiet"],
        ["recall", "outbox", "quiet", "--limit", "2", "--json"],
        ["recall", "outbox", "writes", "quiet"],  # words, then a folder: PATH
        ["recall", "outbox", "writes", "nowhere"],  # no folder: every word is the query
        ["explain", "outbox-writes", "quiet"],
        ["explain", "outbox-writes", "quiet", "--full", "--today", "2026-06-01"],
        ["fact", "add", "A new fact", "quiet", "--today", "2026-06-01"],
        ["lint", "due"],
        ["check-logs", "quiet"],  # no git here: the error names the repo as given
    ],
)
def test_the_agents_lines_are_answered_quickly(
    pristine: Path, tmp_path: Path, argv: list[str]
) -> None:
    """The lines agents and hooks run are answered here (a property test that always declined
    would pass above)."""
    answered = both_ways(pristine, tmp_path, argv)
    assert answered is not None
    assert answered[0] == answered[1]


@pytest.mark.parametrize(
    "argv",
    [
        ["context", "a-file"],  # click refuses a file
        ["context", "--max-bytes", "100", "quiet"],  # under the minimum
        ["context", "--max-bytes", "0300", "quiet"],  # a number only click reads
        ["review", "--if-due", "--today", "2026-13-01", "quiet"],
        ["review", "--wait", "1e3", "quiet"],  # a number only click reads
        ["review", "--session", "quiet", "quiet"],  # a folder for a file
        ["context", "--", "quiet"],
        ["context", "--hook", "--hook", "quiet"],
        ["context", "quiet", "quiet"],
        # A value option before a flag: click reads the flag as the value, and refuses it.
        ["context", "--max-bytes", "--hook", "300", "quiet"],
        ["review", "--today", "--dry-run", "2024-01-01", "quiet"],
        ["review", "--wait", "--check", "1", "quiet"],
        ["review", "--session", "--full", "x.md", "--dry-run", "quiet"],
        ["context", "a" * 300],  # a name too long to look at: click says so
        ["status", "--help"],
        ["fact", "add", "--section", "--thread", "x", "quiet"],
        ["recall", "--limit", "2", "--limit", "3", "x", "quiet"],
        ["mcp", "quiet"],
        ["--version"],
        [],
    ],
)
def test_other_lines_are_left_to_click(pristine: Path, argv: list[str]) -> None:
    with _inside(pristine):
        assert quick_answer(argv) is None


@pytest.mark.parametrize("argv", [["review", "--if-due", "quiet"], ["status", "quiet"]])
def test_a_bad_source_date_epoch_is_one_line_both_ways(
    pristine: Path, tmp_path: Path, argv: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The runner refuses it (exit 1): it is no option of the line, so it is no usage error
    that only click may word."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "yesterday")
    answers = both_ways(pristine, tmp_path, argv)
    assert answers is not None
    quick_said, full_said = answers
    assert quick_said == full_said
    assert quick_said[2] == 1 and quick_said[1].startswith("agent-memory: SOURCE_DATE_EPOCH=")


class _Terminal(_Utf8):
    def isatty(self) -> bool:
        return True


def test_a_review_on_a_terminal_is_left_to_click(pristine: Path) -> None:
    """There the full command line shows its progress bar."""
    with contextlib.redirect_stderr(_Terminal(io.StringIO())):  # type: ignore[type-var]
        quick.answer(["review", "--check", str(pristine / "quiet")])  # returns: not answered


def test_terminal_escapes_are_shown_escaped_by_both_paths(tmp_path: Path) -> None:
    root = tmp_path / "pristine"
    world(root)
    continuity = root / "quiet/memory/continuity.md"
    red = "## Key Decisions\n- A \x1b[31mred\x1b[0m fact\n"
    continuity.write_text(continuity.read_text().replace("## Key Decisions\n", red, 1))
    answered = both_ways(root, tmp_path, ["context", "quiet"])
    assert answered is not None
    assert answered[0] == answered[1]
    assert (
        "A \\x1b[31mred\\x1b[0m fact" in answered[0][0]
    )  # a memory file never drives the terminal


def _sides(folder: Path, conflict: bool) -> Path:
    """base, ours and theirs of continuity.md in ``folder``; the path of ours."""
    base = (EXAMPLE / "memory/continuity.md").read_text()
    ours = base.replace("## Key Decisions\n", "## Key Decisions\n- Ours added this\n", 1)
    theirs = base.replace("## Conventions\n", "## Conventions\n- Theirs added that\n", 1)
    if conflict:
        theirs = base.replace("## Key Decisions\n", "## Key Decisions\n- Theirs wrote that\n", 1)
    for name, text in (("base", base), ("ours", ours), ("theirs", theirs)):
        (folder / name).write_text(text)
    return folder / "ours"


@pytest.mark.parametrize("case", ["clean", "conflict", "ours missing"])
@pytest.mark.parametrize("as_json", [False, True])
def test_merge_file_quickly_merges_as_click_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str, as_json: bool
) -> None:
    results = []
    for way in ("quick", "full"):
        folder = tmp_path / way
        folder.mkdir()
        monkeypatch.chdir(folder)  # relative paths: the two ways print the same names
        ours = _sides(folder, case == "conflict")
        if case == "ours missing":
            ours.unlink()
        argv = ["merge-file", "base", "ours", "theirs", "memory/continuity.md"]
        argv += ["--json"] if as_json else []
        answered = quick_answer(argv) if way == "quick" else full_answer(argv)
        assert answered is not None
        results.append((answered, ours.read_bytes() if ours.exists() else None))
    assert results[0] == results[1]
    assert results[0][0][2] == {"clean": 0, "conflict": 1, "ours missing": 1}[case]


def test_session_start_does_not_import_click(pristine: Path) -> None:
    probe = (
        "import atexit, sys\n"
        "atexit.register(lambda: print('click' in sys.modules, file=sys.stderr))\n"
        "sys.argv = ['agent-memory', *sys.argv[1:]]\n"
        "from agent_memory.cli import entry\n"
        "entry()\n"
    )
    for argv in (["context", "--hook"], ["review", "--if-due"]):
        ran = subprocess.run(
            [sys.executable, "-c", probe, *argv, str(pristine / "quiet")],
            capture_output=True,
            text=True,
            check=False,
        )
        assert ran.returncode == 0, ran.stderr
        assert ran.stderr.splitlines()[-1] == "False"


def test_a_reader_that_went_away_ends_the_quick_way_as_the_full_one(pristine: Path) -> None:
    """``agent-memory context | head``: exit 1 and no traceback, as click does for status."""
    answers = []
    for command in ("context", "status"):  # answered quickly; by click
        read, write = os.pipe()
        os.close(read)  # the reader is gone before a byte is written
        ran = subprocess.run(
            [sys.executable, "-m", "agent_memory", command, str(pristine / "quiet")],
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
        )
        os.close(write)
        answers.append((ran.returncode, ran.stderr))
    assert answers[0] == answers[1] == (1, "")


def test_an_interrupted_command_ends_the_quick_way_as_the_full_one(
    pristine: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import agent_memory.commands.context

    def interrupted(*_args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(agent_memory.commands.context, "context", interrupted)
    argv = ["context", str(pristine / "quiet")]
    assert quick_answer(argv) == full_answer(argv) == ("", "\nAborted!\n", 1)


def test_a_closed_stdout_is_left_to_click(pristine: Path) -> None:
    """``agent-memory context >&-``: Python gives no stdout at all; click copes, so it answers."""
    for command in ("context", "status"):
        ran = subprocess.run(
            [sys.executable, "-m", "agent_memory", command, str(pristine / "quiet")],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
            preexec_fn=lambda: os.close(1),  # the child starts with its stdout closed
        )
        assert (ran.returncode, ran.stderr) == (0, ""), command


def test_the_quick_path_finds_each_line_in_its_family_alone() -> None:
    from agent_memory.cli.families import FAMILIES, declared
    from agent_memory.cli.table import BY_WORDS, LINES

    assert {line.words[0] for line in LINES} == set(FAMILIES)
    for line in LINES:
        assert declared([*line.words, "x"]) is BY_WORDS[line.words]
    assert declared(["nothing"]) is None
