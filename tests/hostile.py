"""Hostile trees for tests/corpus/: what a clone may hold where the tool reads and writes.

Each setup takes the repo and the sentinel folder beside it (``outside``, hashed before and after
every case); ``SETUPS`` maps the names that case.json files use.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path

from agent_memory.layout import JOURNAL_DIR, LOCK_FILE
from agent_memory.shell.journal_format import Entry, dump

LOG = "memory/sessions/2026-06-10-100000.md"
CONTINUITY = "memory/continuity.md"
OLD_FACT = (
    "# Continuity\n\n## Project State\n- last_review: (none yet)\n\n## Key Decisions\n"
    "- Keep the old build scripts\n"
    "  <!-- id: old-build | created: 2026-01-01 | last_used: 2026-01-01 | uses: 1 | tier: active"
    " -->\n"
)


def _journal(repo: Path, data: bytes) -> None:
    (repo / JOURNAL_DIR).mkdir()
    (repo / JOURNAL_DIR / "entries").write_bytes(data)


def _entries(repo: Path, *entries: dict[str, object], originals: bytes = b"") -> None:
    header = json.dumps(list(entries)).encode()
    _journal(repo, _signed(header + b"\n" + originals))


def _signed(body: bytes) -> bytes:
    """A journal with a right checksum over whatever it says (a hostile clone can sign too)."""
    return b"agent-memory journal 2 crc32:%08x\n" % zlib.crc32(body) + body


def _entry(path: str, existed: bool = True, size: int = 3) -> dict[str, object]:
    return {"path": path, "existed": existed, "created_dirs": [], "size": size}


def _valid(repo: Path) -> None:
    """A journal a killed review would leave: continuity.md's original, before the kill."""
    original = (repo / CONTINUITY).read_bytes()
    (repo / CONTINUITY).write_bytes(original + b"\n- half-written\n")
    _journal(repo, dump([Entry(CONTINUITY, True, [], len(original))], original))


def _fifo(rel: str) -> Callable[[Path, Path], None]:
    def make(repo: Path, _outside: Path) -> None:
        path = repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        os.mkfifo(path)

    return make


@contextlib.contextmanager
def _cwd(path: Path) -> Iterator[None]:
    old = Path.cwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


def _socket_log(repo: Path, _outside: Path) -> None:
    with _cwd(repo / "memory/sessions"):  # a relative name: socket paths are short
        server = socket.socket(socket.AF_UNIX)
        server.bind(Path(LOG).name)
        server.close()


def _link(rel: str, target: str | Callable[[Path, Path], str]) -> Callable[[Path, Path], None]:
    def make(repo: Path, outside: Path) -> None:
        path = repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        path.symlink_to(target(repo, outside) if callable(target) else target)

    return make


def _moved_continuity(repo: Path, _outside: Path) -> None:
    (repo / "docs").mkdir()
    (repo / CONTINUITY).rename(repo / "docs/memory.md")
    (repo / CONTINUITY).symlink_to("../docs/memory.md")


def _moved_memory(repo: Path, _outside: Path) -> None:
    (repo / "data").mkdir()
    (repo / "memory").rename(repo / "data/memory")
    (repo / "memory").symlink_to("data/memory", target_is_directory=True)


def _archivable(repo: Path) -> None:
    """A fact the next review archives into memory/archive/2026-Q2.md, and 25 logs after it."""
    (repo / CONTINUITY).write_text(OLD_FACT)
    for day in range(1, 26):
        log = repo / f"memory/sessions/2026-05-{day:02d}-100000.md"
        log.write_text("## Memory References\n- Referenced: none\n")
    (repo / LOG).write_text("## Memory References\n- Referenced: none\n")


def _quarter_to_log(repo: Path, _outside: Path) -> None:
    _archivable(repo)
    (repo / "memory/archive/2026-Q2.md").symlink_to(f"../sessions/{Path(LOG).name}")


def _dangling_quarter(repo: Path, _outside: Path) -> None:
    _archivable(repo)
    (repo / "memory/archive/2026-Q2.md").symlink_to("2026-Q9.md")


def _journal_to_outside(repo: Path, outside: Path) -> None:
    (outside / "journal").mkdir()
    data = dump([Entry(CONTINUITY, True, [], 3)], b"pwn")
    (outside / "journal/entries").write_bytes(data)
    (repo / JOURNAL_DIR).symlink_to(outside / "journal", target_is_directory=True)


def _journal_through_link(repo: Path, outside: Path) -> None:
    (repo / "docs").symlink_to(outside, target_is_directory=True)
    _journal(repo, dump([Entry("docs/sentinel.txt", True, [], 3)], b"pwn"))


def _stray_in_journal(repo: Path, _outside: Path) -> None:
    _valid(repo)
    (repo / JOURNAL_DIR / "evil").write_text("x\n")


def _flipped(repo: Path, _outside: Path) -> None:
    data = bytearray(dump([Entry(CONTINUITY, True, [], 3)], b"abc"))
    data[-1] ^= 1
    _journal(repo, bytes(data))


def _write(rel: str, text: str) -> Callable[[Path, Path], None]:
    def make(repo: Path, _outside: Path) -> None:
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_bytes(text.encode())

    return make


def _edit(rel: str, old: str, new: str) -> Callable[[Path, Path], None]:
    def make(repo: Path, _outside: Path) -> None:
        text = (repo / rel).read_text()
        assert old in text
        (repo / rel).write_text(text.replace(old, new, 1))

    return make


def _cr_only(repo: Path, _outside: Path) -> None:
    (repo / CONTINUITY).write_bytes(OLD_FACT.replace("\n", "\r").encode())


REFS = "# Session\n\n## Memory References\n"
HUGE = "9" * 4301
SETUPS: dict[str, Callable[[Path, Path], None]] = {
    "arabic-indic-log-name": _write(
        "memory/sessions/\u0662\u0660\u0662\u0666-\u0660\u0666-\u0661\u0660-"
        "\u0661\u0660\u0660\u0660\u0660\u0660.md",
        REFS + "- Referenced: none\n",
    ),
    "superscript-policy": _edit(
        "memory/decay-policy.md", "review_every:         10", "review_every: \u00b2"
    ),
    "huge-number-policy": _edit(
        "memory/decay-policy.md", "review_every:         10", f"review_every: {HUGE}"
    ),
    "huge-number-footer": _write(CONTINUITY, OLD_FACT.replace("uses: 1", f"uses: {HUGE}")),
    "superscript-footer": _write(CONTINUITY, OLD_FACT.replace("uses: 1", "uses: \u00b3")),
    "cr-only-continuity": _cr_only,
    "log-after-today": _write(LOG, REFS + "- Referenced: none\n"),
    "spaces-label-log": _write(LOG, REFS + "- Referenced" + " " * 100_000 + "x\n"),
    "nested-parens-log": _write(
        LOG, REFS + "- Referenced: a (" + "(" * 40_000 + "b" + ")" * 40_001 + ", c\n"
    ),
    "fenced-heading-spaces-log": _write(
        LOG, "```\nx\n```\n" + "## a" + " " * 100_000 + "x\n" + REFS + "- Referenced: a\n"
    ),
    "comment-opens-continuity": _write(
        CONTINUITY, OLD_FACT.replace("- Keep", "- " + "<!-- id" * 20_000 + " Keep")
    ),
    "journal-dotdot": lambda r, o: _journal(
        r, dump([Entry("../outside/sentinel.txt", True, [], 3)], b"pwn")
    ),
    "journal-absolute": lambda r, o: _journal(
        r, dump([Entry(str(o / "sentinel.txt"), True, [], 3)], b"pwn")
    ),
    "journal-size-exceeds": lambda r, o: _journal(
        r, dump([Entry(CONTINUITY, True, [], 1_000_000)], b"# Continuity\n")
    ),
    "journal-garbage": lambda r, o: _journal(r, bytes(range(256)) * 4),
    "journal-empty": lambda r, o: _journal(r, b""),
    "journal-missing-keys": lambda r, o: _entries(r, {"path": CONTINUITY}),
    "journal-regular-file": lambda r, o: (r / JOURNAL_DIR).write_text("entries\n"),
    "journal-symlink-outside": _journal_to_outside,
    "journal-dot-git": lambda r, o: _journal(
        r, dump([Entry(".git/hooks/pre-commit", False, [], 0)], b"")
    ),
    "journal-dot-git-upper": lambda r, o: _journal(
        r, dump([Entry("sub/.GIT/config", True, [], 3)], b"pwn")
    ),
    "journal-through-symlink": _journal_through_link,
    "journal-checksum": _flipped,
    "journal-valid": lambda r, o: _valid(r),
    "journal-stray-file": _stray_in_journal,
    "journal-duplicate": lambda r, o: _entries(
        r, _entry(CONTINUITY), _entry(CONTINUITY), originals=b"abcdef"
    ),
    "journal-bool-size": lambda r, o: _entries(r, _entry(CONTINUITY, size=True), originals=b"a"),
    "journal-created-dir-elsewhere": lambda r, o: _entries(
        r, {"path": "memory/x.md", "existed": False, "created_dirs": ["docs"], "size": 0}
    ),
    "lock-symlink-outside": _link(LOCK_FILE, lambda r, o: str(o / "sentinel.txt")),
    "lock-dangling": _link(LOCK_FILE, lambda r, o: str(o / "created-by-the-tool")),
    "lock-directory": lambda r, o: (r / LOCK_FILE).mkdir(),
    "lock-fifo": _fifo(LOCK_FILE),
    "old-tmp-name-outside": _link(
        f"{CONTINUITY}.agent-memory-tmp", lambda r, o: str(o / "sentinel.txt")
    ),
    "continuity-symlink-in-repo": _moved_continuity,
    "memory-symlink-in-repo": _moved_memory,
    "quarter-symlink-to-log": _quarter_to_log,
    "quarter-dangling": _dangling_quarter,
    "fifo-log": _fifo(LOG),
    "fifo-continuity": _fifo(CONTINUITY),
    "fifo-policy": _fifo("memory/decay-policy.md"),
    "fifo-manifest": _fifo(".agent/version.md"),
    "socket-log": _socket_log,
    "loop-continuity": _link(CONTINUITY, "continuity.md"),
    "loop-log": _link(LOG, Path(LOG).name),
    "cursor-rules-loop": _link(".cursor/rules/sub", "."),
    "log-symlink-to-log": _link("memory/sessions/2026-06-11-100000.md", Path(LOG).name),
}
