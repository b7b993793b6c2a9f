"""Every command, declared once: its words, options, help, what it needs, its call, and whether
(and how) an MCP tool takes it.

The front ends are built from this table: ``app`` makes the click commands from it, ``quick``
parses the same grammar without importing click, and ``mcp/tools`` makes the MCP tools (name,
input schema, whether it writes) and MCP.md's reference of them. Importing it costs no command
module: each ``build`` imports its own when it runs. Nothing here touches the disk or imports
click.
"""

import enum
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from ..commands.runner import Call, Command
    from ..commands.settle import Options

    Progress = Callable[[Sequence[str]], Iterable[str]] | None
    Built = tuple[Path | None, Call]  # the PATH given (None: none), and the call to run

Values = Mapping[str, Any]


class Kind(enum.Enum):
    """How a parameter's words are read (click's types and callbacks; ``app`` maps each)."""

    TEXT = "text"
    FOLDER = "a folder path"  # click.Path(file_okay=False)
    FILE = "a file path"  # click.Path(dir_okay=False)
    ANY_PATH = "a path, whatever it names"  # click.Path(): the command says what it refuses
    COUNT = "a whole number, at least ``low``"  # click.IntRange(min=low)
    SECONDS = "a number of seconds"  # click.FloatRange(min=0)
    CHOICE = "one of ``choices``"
    DATE = "YYYY-MM-DD"  # parse_today; unset: the runner's date (--today) or none (--until)
    MOMENT = "YYYY-MM-DDTHH:MM:SS"  # parse_now
    SLUG = "a short word"  # check_slug
    FLAG = "present or not"
    SWITCH = "--on/--off"


class Arg(NamedTuple):
    """How a command's MCP tool takes a parameter: its name among the tool's arguments, and the
    JSON Schema keywords that bound it beyond what its kind says (each item's, for a repeatable
    one; ``most``: how many items at most). A parameter without one is not taken over MCP."""

    name: str | None = None  # default: the parameter's
    bounds: Mapping[str, Any] = MappingProxyType({})
    most: int | None = None


ID_BOUNDS: Mapping[str, Any] = MappingProxyType({"minLength": 1, "maxLength": 200})
TEXT_BOUNDS: Mapping[str, Any] = MappingProxyType({"minLength": 1, "maxLength": 4000})


class Param(NamedTuple):
    name: str  # the value's name in ``Values``
    kind: Kind
    flags: tuple[str, ...] = ()  # none: a positional argument
    help: str | None = None
    default: Any = None
    required: bool = False
    multiple: bool = False  # an option given again; a positional: the rest of the words
    metavar: str | None = None
    choices: tuple[str, ...] = ()
    low: int = 0
    show_default: bool = False
    arg: Arg | None = None  # over MCP


class Declared(NamedTuple):
    words: tuple[str, ...]  # ("fact", "add")
    help: str
    command: "Command"
    params: tuple[Param, ...]
    build: "Callable[[Values, Progress], Built]"
    progress: bool = False  # shows a progress bar on a terminal (click's own)
    tool: str | None = (
        None  # the description of its MCP tool, ``memory_`` and its words; None: none
    )


# The options many commands share, in the order click shows them.
PATH = Param("path", Kind.FOLDER)
JSON = Param("as_json", Kind.FLAG, ("--json",), "Print one JSON document.")
CHECK = Param(
    "check", Kind.FLAG, ("--check",), "Write nothing; exit 1 if the command would change anything."
)
DRY_RUN = Param(
    "dry_run", Kind.FLAG, ("--dry-run",), "Print the plan and a unified diff; write nothing."
)
TODAY = Param(
    "today",
    Kind.DATE,
    ("--today",),
    "Date to use instead of today (default: SOURCE_DATE_EPOCH, else the UTC date).",
    metavar="YYYY-MM-DD",
)
WAIT = Param(
    "wait",
    Kind.SECONDS,
    ("--wait",),
    "Wait up to SECONDS for another run's lock instead of failing at once.",
    default=0.0,
    metavar="SECONDS",
)
WRITING = (CHECK, DRY_RUN, JSON, TODAY, WAIT)
AGENTS = ("claude", "codex", "gemini")
HOOK = Param(
    "hook", Kind.FLAG, ("--hook",), "Run as an agent's hook: read or answer its JSON (HOOKS.md)."
)


def options(values: Values, progress: "Progress" = None) -> "Options":
    """The writing options of ``values`` (absent ones take their defaults)."""
    from ..commands.settle import Options

    return Options(
        bool(values.get("dry_run")),
        bool(values.get("check")),
        values.get("today"),
        float(values.get("wait") or 0.0),
        progress,
    )


GROUPS: Mapping[tuple[str, ...], str] = {
    ("hooks",): "An agent's repo-level hooks: context at session start, capture at its end "
    "(HOOKS.md).",
    ("hook",): "What an agent's hooks run: one command per event, reading the hook's JSON on "
    "stdin (HOOKS.md).",
    ("fact",): "Facts in memory/continuity.md.",
    ("session",): "Session logs: the memory's event log.",
    ("mcp",): "Serve the memory to agents as MCP tools (needs the mcp extra, installed as the "
    "tool was: from a clone, pipx install --force '.[mcp]').\n\n`agent-memory mcp [--wait SECONDS] "
    "[PATH]` runs the stdio server (`mcp serve --help`); MCP.md lists its tools.",
}
