"""The hooks' and git's command lines answered without click (cli/quick.py) print what the full
command line prints, byte for byte, with the same exit code; every other line is left to it."""

from __future__ import annotations

import contextlib
import io
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_memory.cli import quick
from agent_memory.cli.app import main
from conftest import PROJECT

EXAMPLE = PROJECT / "examples/evolving-memory-example/after"


def quick_answer(argv: list[str]) -> tuple[str, str, int] | None:
    """What the quick path prints on stdout and stderr and its exit code; None when it leaves
    the line to click."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(_Utf8(out)), contextlib.redirect_stderr(err):
        try:
            quick.answer(argv)
        except SystemExit as exc:
            return out.getvalue(), err.getvalue(), int(exc.code or 0)
    assert out.getvalue() == err.getvalue() == "", "declined after printing"
    return None


class _Utf8:
    """A stdout that says it is UTF-8, as a terminal's or a pipe's is."""

    encoding = "utf-8"

    def __init__(self, sink: object) -> None:
        self._sink = sink

    def write(self, text: str) -> int:
        return self._sink.write(text)  # type: ignore[attr-defined, no-any-return]

    def flush(self) -> None:
        pass


def full_answer(argv: list[str]) -> tuple[str, str, int]:
    result = CliRunner().invoke(main, argv, catch_exceptions=False)
    return result.stdout, result.stderr, result.exit_code


@pytest.fixture(scope="module")
def repos(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("quick")
    quiet = root / "quiet"
    shutil.copytree(EXAMPLE, quiet)
    assert full_answer(["review", str(quiet), "--today", "2026-06-01"])[2] == 0  # now not due
    due = root / "due"
    shutil.copytree(EXAMPLE, due)
    policy = due / "memory/decay-policy.md"
    policy.write_text(
        policy.read_text().replace("continuity_max_facts: 30", "continuity_max_facts: 1")
    )
    (root / "a-file").write_text("not a repo\n")
    return {"quiet": quiet, "due": due, "file": root / "a-file", "missing": root / "missing"}


WORDS = [
    "--json",
    "--hook",
    "--if-due",
    "--max-bytes",
    "--max-bytes=300",
    "--max-bytes=100",
    "300",
    "0300",
    "٣٠٠",
    "--today",
    "2026-06-01",
    "2026-13-01",
    "--",
    "-h",
    "--help",
    "--check",
    "--full",
    "quiet",
    "due",
    "file",
    "missing",
]


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    command=st.sampled_from(["context", "review", "status"]),
    words=st.lists(st.sampled_from(WORDS), max_size=5),
)
def test_a_line_answered_quickly_prints_what_click_prints(
    repos: dict[str, Path], command: str, words: list[str]
) -> None:
    argv = [command, *(str(repos[w]) if w in repos else w for w in words)]
    answered = quick_answer(argv)
    if answered is not None:
        assert answered == full_answer(argv), argv


@pytest.mark.parametrize(
    "argv",
    [
        ["context", "{quiet}"],
        ["context", "--hook", "{quiet}"],
        ["context", "{due}", "--max-bytes", "300", "--json"],
        ["context", "--max-bytes=1000", "{due}"],
        ["review", "--if-due", "{quiet}"],
        ["review", "{quiet}", "--if-due", "--json", "--today", "2026-06-01"],
        ["context", "{missing}"],  # the command's error, said as the full command line says it
        ["context", "--json", "{missing}"],
    ],
)
def test_the_hooks_lines_are_answered_quickly(repos: dict[str, Path], argv: list[str]) -> None:
    """The lines hooks run are answered here (a test that always declined would pass above)."""
    line = [word.format(**repos) for word in argv]
    answered = quick_answer(line)
    assert answered is not None
    assert answered == full_answer(line)


@pytest.mark.parametrize(
    "argv",
    [
        ["review", "--if-due", "{due}"],  # due: the review runs
        ["context", "{file}"],  # click refuses a file
        ["context", "--max-bytes", "100", "{quiet}"],  # under the minimum
        ["context", "--max-bytes", "0300", "{quiet}"],  # a number only click reads
        ["review", "--if-due", "--today", "2026-13-01", "{quiet}"],
        ["context", "--", "{quiet}"],
        ["context", "--hook", "--hook", "{quiet}"],
        ["context", "{quiet}", "{quiet}"],
        ["--version"],
        [],
    ],
)
def test_other_lines_are_left_to_click(repos: dict[str, Path], argv: list[str]) -> None:
    assert quick_answer([word.format(**repos) for word in argv]) is None


def test_a_bad_source_date_epoch_is_left_to_click(
    repos: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "yesterday")
    assert quick_answer(["review", "--if-due", str(repos["quiet"])]) is None
    assert full_answer(["review", "--if-due", str(repos["quiet"])])[2] == 2


def test_terminal_escapes_are_left_to_click(tmp_path: Path) -> None:
    """click removes them from piped output; the quick path does not know how, so declines."""
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo)
    continuity = repo / "memory/continuity.md"
    continuity.write_text(
        continuity.read_text().replace(
            "## Key Decisions\n", "## Key Decisions\n- A \x1b[31mred\x1b[0m fact\n", 1
        )
    )
    assert quick_answer(["context", str(repo)]) is None
    assert "\x1b" not in full_answer(["context", str(repo)])[0]


def _sides(tmp_path: Path, conflict: bool) -> list[Path]:
    base = (EXAMPLE / "memory/continuity.md").read_text()
    ours = base.replace("## Key Decisions\n", "## Key Decisions\n- Ours added this\n", 1)
    theirs = base.replace("## Conventions\n", "## Conventions\n- Theirs added that\n", 1)
    if conflict:
        theirs = base.replace("## Key Decisions\n", "## Key Decisions\n- Theirs wrote that\n", 1)
    paths = [tmp_path / name for name in ("base", "ours", "theirs")]
    for path, text in zip(paths, (base, ours, theirs), strict=True):
        path.write_text(text)
    return paths


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
        ours = _sides(folder, case == "conflict")[1]
        if case == "ours missing":
            ours.unlink()
        argv = ["merge-file", "base", "ours", "theirs", "memory/continuity.md"]
        argv += ["--json"] if as_json else []
        answered = quick_answer(argv) if way == "quick" else full_answer(argv)
        assert answered is not None
        results.append((answered, ours.read_bytes() if ours.exists() else None))
    assert results[0] == results[1]
    assert results[0][0][2] == {"clean": 0, "conflict": 1, "ours missing": 1}[case]


def test_session_start_does_not_import_click(repos: dict[str, Path]) -> None:
    probe = (
        "import atexit, sys\n"
        "atexit.register(lambda: print('click' in sys.modules, file=sys.stderr))\n"
        "sys.argv = ['agent-memory', *sys.argv[1:]]\n"
        "from agent_memory.cli import entry\n"
        "entry()\n"
    )
    for argv in (["context", "--hook"], ["review", "--if-due"]):
        ran = subprocess.run(
            [sys.executable, "-c", probe, *argv, str(repos["quiet"])],
            capture_output=True,
            text=True,
            check=False,
        )
        assert ran.returncode == 0, ran.stderr
        assert ran.stderr.splitlines()[-1] == "False"
