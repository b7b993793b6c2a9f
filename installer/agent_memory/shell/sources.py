"""An agent's own memory, read where that agent keeps it: the one place ``import`` reads outside
the repo, and only the source the command names (MIGRATE.md § Importing an agent's memory).

Claude Code keeps a repo's auto memory in ``<config>/projects/<slug>/memory/``, the slug being
the absolute path of the repo's main work tree with every character but ASCII letters and digits
made ``-`` (each UTF-16 unit of one); Codex keeps ``<CODEX_HOME>/memories/MEMORY.md`` for every
repo (or one per work folder); Gemini CLI's ``save_memory`` appends to ``~/.gemini/GEMINI.md``.
The other sources live in the repo. Files are read whole only when regular and under 8 MiB,
never through a symlink, at most 10,000 of them, in name order.
"""

import hashlib
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

from ..errors import AgentMemoryError
from .files import read_regular
from .git import git_dirs
from .repo import Repo

SOURCE_BYTES = 8 * 1024 * 1024
SOURCE_FILES = 10_000
SLUG_MAX = 200  # Claude Code cuts a longer slug there and adds a hash of the path
# kind → (the file or folder in the repo, whether a folder of *.md)
IN_REPO = {
    "serena": (".serena/memories", True),
    "cline": ("memory-bank", True),
    "context-yaml": ("CONTEXT.yaml", False),
    "co-cli": (".co-cli/knowledge/memories", True),
}
FOLDERS = frozenset({"claude", "serena", "cline", "co-cli"})


class Source(NamedTuple):
    shown: str  # where it was read, as the report names it
    files: tuple[tuple[str, bytes], ...]  # (name relative to the source, bytes), by name
    own: bool = False  # it holds this repo's memories only (Codex's per-folder memories)


def read(kind: str, repo: Repo, given: str | None, env: Mapping[str, str]) -> Source:
    """The files of the source: ``given`` (a folder or a file), else the kind's own place."""
    if given is None and kind in IN_REPO:
        return _in_repo(repo, *IN_REPO[kind])
    place = Path(given).expanduser() if given is not None else _home_place(kind, repo, env)
    own = given is None and kind == "codex" and place.parent.name == "memory"
    if kind in FOLDERS:
        return _folder(place)
    if place.is_dir():
        place = place / ("GEMINI.md" if kind == "gemini" else "MEMORY.md")
    data = read_regular(place, str(place), follow=False, limit=SOURCE_BYTES)
    if data is None:
        raise AgentMemoryError(f"no {kind} memory here; pass --from FILE", str(place))
    return Source(str(place), ((place.name, data),), own)


def claude_slug(path: str) -> str:
    """Claude Code's folder name for a project path: each UTF-16 unit not an ASCII letter or
    digit becomes ``-``."""
    return "".join(
        c if c.isascii() and c.isalnum() else "--" if ord(c) > 0xFFFF else "-" for c in path
    )


def _home_place(kind: str, repo: Repo, env: Mapping[str, str]) -> Path:
    home = Path(env.get("HOME") or Path.home())
    if kind == "codex":
        return _codex_place(Path(env.get("CODEX_HOME") or home / ".codex") / "memories", repo)
    if kind == "gemini":
        return home / ".gemini" / "GEMINI.md"
    projects = Path(env.get("CLAUDE_CONFIG_DIR") or home / ".claude") / "projects"
    tried = []
    for root in repo_roots(repo.root):
        slug = claude_slug(str(root))
        folder = projects / slug / "memory"
        if len(slug) > SLUG_MAX:
            folder = _long_slug(projects, slug) / "memory"
        if folder.is_dir():
            return folder
        tried.append(str(folder))
    raise AgentMemoryError(
        f"no Claude Code auto memory for this repo (looked in {', '.join(tried)}); pass "
        "--from DIR, the folder that holds its MEMORY.md"
    )


def repo_roots(root: Path) -> list[Path]:
    """The paths Claude Code may have named the repo by: its main work tree (worktrees share
    one memory), this work tree's top, the repo's own folder."""
    found = git_dirs(root)
    roots = [root]
    if found is not None:
        top, _git_dir, common = found
        main = common.parent if common.name == ".git" else top
        roots = [main, top, root]
    return list(dict.fromkeys(roots))


def _codex_place(memories: Path, repo: Repo) -> Path:
    """Codex's MEMORY.md: in the folder of this repo's own memories when Codex keeps one per
    work folder (``<16 hex of the path's SHA-256>/memory/``), else the one for every repo."""
    for root in repo_roots(repo.root):
        bucket = hashlib.sha256(str(root).encode()).hexdigest()[:16]
        place = memories / bucket / "memory" / "MEMORY.md"
        if place.is_file():
            return place
    return memories / "MEMORY.md"


def _long_slug(projects: Path, slug: str) -> Path:
    """The one folder whose name is the slug's first 200 characters, a dash and a hash."""
    try:
        names = sorted(
            p.name for p in projects.iterdir() if p.name.startswith(slug[:SLUG_MAX] + "-")
        )
    except OSError:
        names = []
    return projects / (names[0] if len(names) == 1 else slug[:SLUG_MAX])


def _folder(place: Path) -> Source:
    if not place.is_dir():
        raise AgentMemoryError("is not a folder; pass --from DIR, the memory folder", str(place))
    try:
        names = sorted(p.name for p in place.iterdir() if p.name.endswith(".md"))
    except OSError as exc:
        raise AgentMemoryError(f"cannot list it ({exc.strerror})", str(place)) from None
    if len(names) > SOURCE_FILES:
        raise AgentMemoryError(
            f"holds over {SOURCE_FILES} files; import a smaller folder", str(place)
        )
    files = []
    for name in names:
        data = read_regular(place / name, str(place / name), follow=False, limit=SOURCE_BYTES)
        if data is not None:
            files.append((name, data))
    return Source(str(place), tuple(files))


def _in_repo(repo: Repo, rel: str, folder: bool) -> Source:
    if not folder:
        data = repo.read(rel, limit=SOURCE_BYTES)
        if data is None:
            raise AgentMemoryError("not found; pass --from FILE", rel)
        return Source(rel, ((rel.rsplit("/", 1)[-1], data),))
    if not repo.exists(rel):
        raise AgentMemoryError("not found; pass --from DIR", rel)
    names = [n for n in repo.list_dir(rel) if n.endswith(".md")][:SOURCE_FILES]
    files = [
        (n, data) for n in names if (data := repo.read(f"{rel}/{n}", SOURCE_BYTES)) is not None
    ]
    return Source(rel, tuple(files))
