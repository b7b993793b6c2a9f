"""Running git (the session's focus aside: ``focus``). User text never reaches git as an option."""

import os
import re
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from ..errors import AgentMemoryError
from ..layout import TMP_SUFFIX
from ..parse.rawlog import Commit, commits

if TYPE_CHECKING:
    import subprocess

# Every git run is bounded in time: a FIFO for a config file or a hung mount never hangs us.
_QUICK = 10.0  # seconds: questions about the repository and its config
_SLOW = 120.0  # seconds: diffs, blobs and text merges of files up to 512 MiB
_WALK = 600.0  # seconds: one walk of a folder's whole history (10,000 logs: about 10 s)
_PATHS_PER_CALL = 500  # paths on one git command line, far below the system's limit
# The tool makes no network connection (SECURITY.md): a partial clone's git would fetch each
# blob it lacks when asked for one. GIT_NO_LAZY_FETCH says no from git 2.44; an empty list of
# allowed protocols refuses every transport from git 2.12 on, so that an older git's fetch fails
# at once (the blob is then missing: the question has no answer). Nothing may prompt. Every git
# the tool starts gets these (``focus`` starts its own).
OFFLINE = {"GIT_NO_LAZY_FETCH": "1", "GIT_ALLOW_PROTOCOL": "", "GIT_TERMINAL_PROMPT": "0"}
# git takes no committed folder for a bare repository, whose config runs programs (SECURITY.md)
SAFE = ("-c", "safe.bareRepository=explicit")


def changed_paths(root: Path, base: str, folder: str) -> list[tuple[str, str]]:
    """(status letter, path) of each file under ``folder`` that differs from revision ``base``
    (the error names no path: the report names the repo, as the user gave it)."""
    args = ["diff", "--name-status", "--no-renames", "--relative", "--end-of-options", base]
    done = _run(root, [*args, "--", folder])
    if done.returncode != 0:
        raise AgentMemoryError(f"{_last_error(done)}; run inside a git repo that has that revision")
    rows = []
    for line in done.stdout.decode(errors="replace").splitlines():
        status, _, name = line.partition("\t")
        rows.append((status, name))
    return rows


def blob(root: Path, base: str, path: str) -> bytes:
    """The bytes of ``path`` (relative to ``root``) at revision ``base``."""
    done = _run(root, ["cat-file", "blob", "--end-of-options", f"{base}:./{path}"])
    if done.returncode != 0:
        raise AgentMemoryError(f"git cat-file: {_last_error(done)}", path)
    return done.stdout


class Entry(NamedTuple):
    """A path of a revision's tree, as ``git ls-tree -l`` lists it."""

    mode: str
    kind: str  # blob, tree, commit
    object: str
    size: int | None  # a blob's bytes


def entries(root: Path, rev: str, paths: Sequence[str]) -> dict[str, Entry]:
    """The tree entries of ``paths`` (relative to ``root``) at revision ``rev`` (a folder's
    path ending in "/": the entries in it); a path missing there is absent. Paths are literal
    (no pathspec magic) and never read as options."""
    found: dict[str, Entry] = {}
    for first in range(0, len(paths), _PATHS_PER_CALL):
        chunk = paths[first : first + _PATHS_PER_CALL]
        args = ["--literal-pathspecs", "ls-tree", "-z", "-l", "--end-of-options", rev, "--"]
        done = _run(root, [*args, *chunk])
        if done.returncode != 0:
            raise AgentMemoryError(
                f"git ls-tree: {_last_error(done)}; pass a revision of this repo (git log "
                "shows them)",
                rev,
            )
        for record in done.stdout.split(b"\0"):
            head, tab, name = record.partition(b"\t")
            parts = head.split()
            if not tab or len(parts) != 4:
                continue
            size = int(parts[3]) if parts[3].isdigit() else None
            entry = Entry(parts[0].decode(), parts[1].decode(), parts[2].decode(), size)
            found[name.decode("utf-8", errors="replace")] = entry
    return found


def sizes(root: Path, objects: Collection[str]) -> dict[str, int]:
    """The size of each blob of ``objects`` that git holds, asked of one ``git cat-file``."""
    wanted = sorted(objects)
    if not wanted:
        return {}
    done = _run(
        root, ["cat-file", "--batch-check"], stdin="".join(f"{o}\n" for o in wanted).encode()
    )
    found = {}
    for line in done.stdout.decode(errors="replace").splitlines():
        parts = line.split()  # <object> blob <size>, or <object> missing
        if len(parts) == 3 and parts[1] == "blob" and parts[2].isdigit():
            found[parts[0]] = int(parts[2])
    return found


def blobs(root: Path, objects: Sequence[str]) -> dict[str, bytes]:
    """The bytes of each blob object (ids from ``entries``), read by one ``git cat-file``."""
    if not objects:
        return {}
    done = _run(root, ["cat-file", "--batch"], stdin="".join(f"{o}\n" for o in objects).encode())
    if done.returncode != 0:
        raise AgentMemoryError(f"git cat-file: {_last_error(done)}")
    found, out, at = {}, done.stdout, 0
    for wanted in objects:
        end = out.find(b"\n", at)
        header = out[at:end].split() if end != -1 else []
        if len(header) != 3 or header[1] != b"blob" or not header[2].isdigit():
            raise AgentMemoryError(f"git cat-file: {wanted} is not a blob")
        size = int(header[2])
        found[wanted] = out[end + 1 : end + 1 + size]
        at = end + 1 + size + 1
    return found


def folder_history(root: Path, folder: str) -> list[Commit]:
    """Every commit of HEAD's history, each after its parents, with what it changed directly
    in ``folder`` (relative to ``root``): one ``git log`` whatever the history's length. A
    merge's change is against its first parent; a root commit's, and a shallow clone's edge's,
    against nothing. Whatever the user's configuration says (``log.follow``, an output
    encoding), no path is followed and no rename looked for: a file moved there is added by the
    commit that moved it. Empty without git, a commit or an answer in time, a git before 2.31
    (no ``--diff-merges``), and in a partial clone, whose missing blobs are never fetched."""
    args = [
        "--literal-pathspecs", "log", "--topo-order", "--reverse", "--full-history", "--sparse",
        "--diff-merges=first-parent", "--root", "--no-renames", "--raw", "--no-abbrev",
        "--relative", "--no-ext-diff", "--no-textconv", "--no-color", "--no-show-signature",
        "-z", "--format=%x01%H %P", "--no-follow", "--encoding=UTF-8", "--end-of-options",
        "HEAD", "--", folder + "/",
    ]  # fmt: skip
    if not in_work_tree(root):
        return []
    try:
        if _partial(root):
            return []
        done = _run(root, args, timeout=_WALK)
    except AgentMemoryError:  # no git, or no answer in time
        return []
    if done.returncode != 0:
        return []  # no commit yet, or an older git
    return commits(done.stdout.decode("utf-8", errors="surrogateescape").split("\0"), folder)


def file_before(root: Path, moment: str, path: str) -> bytes | None:
    """``path`` as committed at ``moment`` (ISO time): its last commit before then, or None when
    there is none, or no git, or no repository (the caller then has no start state)."""
    try:
        listed = _run(root, ["rev-list", "-1", f"--before={moment}", "HEAD", "--", path])
        rev = listed.stdout.decode(errors="replace").strip() if listed.returncode == 0 else ""
        if not rev:
            return None
        done = _run(root, ["show", "--end-of-options", f"{rev}:{path}"])
    except AgentMemoryError:  # no git at all
        return None
    return done.stdout if done.returncode == 0 else None


def text_merge(ours: Path, base: Path, theirs: Path) -> tuple[bytes, int]:
    """git's own three-way text merge of three files: (merged bytes, conflicts), nothing written.

    The merge driver's fallback for input it cannot read by fact id; the paths come after
    ``--``, so none of them is ever taken for an option.
    """
    labels = ["-L", "ours", "-L", "base", "-L", "theirs"]
    done = _run(None, ["merge-file", "-p", *labels, "--", str(ours), str(base), str(theirs)])
    if done.returncode < 0 or done.returncode > 127:
        raise AgentMemoryError(f"git merge-file: {_last_error(done)}", str(ours))
    return done.stdout, done.returncode


def _partial(root: Path) -> bool:
    """Whether the repo is a partial clone: a remote promises the objects it lacks (git names
    it in ``extensions.partialClone`` or, before 2.40 or so, ``remote.<name>.promisor``)."""
    keys = r"^(extensions\.partialclone|remote\..*\.promisor)$"
    done = _run(root, ["config", "--local", "--get-regexp", keys], timeout=_QUICK)
    values = [line.partition(b" ")[2].strip().lower() for line in done.stdout.splitlines()]
    return any(value not in (b"", b"false", b"no", b"off", b"0") for value in values)


def local_config(root: Path, key: str, value: str | None = None) -> str | None:
    """Read (``value`` None) or set a key of the repo's own git config, never the global one."""
    args = ["config", "--local", *(["--get", key] if value is None else [key, value])]
    done = _run(root, args, timeout=_QUICK)
    if value is not None and done.returncode != 0:
        raise AgentMemoryError(f"{_last_error(done)}; could not set {key}", str(root))
    return done.stdout.decode(errors="replace").strip() if done.returncode == 0 else None


def unset_local_config(root: Path, key: str) -> None:
    """Remove a key from the repo's own git config (``disable``: what ``enable`` set)."""
    done = _run(root, ["config", "--local", "--unset", key], timeout=_QUICK)
    if done.returncode not in (0, 5):  # 5: the key was not set
        raise AgentMemoryError(f"{_last_error(done)}; could not unset {key}", str(root))


def git_dirs(root: Path) -> tuple[Path, Path, Path] | None:
    """The real paths of the work tree's top, the git folder and the common git folder git
    finds from ``root``; None outside a work tree (or with no git at all)."""
    args = ["rev-parse", "--show-toplevel", "--absolute-git-dir", "--git-common-dir"]
    try:
        done = _run(root, args, timeout=_QUICK)
    except AgentMemoryError:
        return None
    lines = done.stdout.decode(errors="surrogateescape").splitlines()
    if done.returncode != 0 or len(lines) != 3 or not all(lines):
        return None
    top, git_dir, common = ((root / line).resolve() for line in lines)  # relative: to root
    return top, git_dir, common


def refusal(root: Path) -> str:
    """What git says first when it will not work in ``root`` (a repository another user owns:
    its "dubious ownership"; the lines after it are advice)."""
    try:
        done = _run(root, ["rev-parse", "--show-toplevel"], timeout=_QUICK)
    except AgentMemoryError as exc:
        return exc.message
    said = done.stderr.decode(errors="replace").strip().splitlines()
    return said[0].strip() if said else "git failed"


class Introduced(NamedTuple):
    """The commit that first wrote a fact's footer."""

    commit: str
    author: str
    date: str  # the author date, ISO 8601
    subject: str


def introduced(root: Path, fact_id: str, paths: Sequence[str]) -> Introduced | None:
    """The oldest commit whose change to ``paths`` added or removed a footer naming
    ``fact_id`` (pickaxe: the count of ``id: <fact_id>`` in a file changed), or None: no such
    commit, no history, no git, or an id that is not one (it becomes a regular expression).
    Diff and text-conversion drivers are not run; bounded in time. The expression is read byte
    by byte (the C locale): the same answer in every locale, and in a UTF-8 one glibc's matcher
    took three times as long (14 ms over a 1.5 MB archive quarter)."""
    if _NOT_AN_ID.search(fact_id) or not in_work_tree(root):
        return None
    pattern = "id:[[:space:]]*" + fact_id.replace(".", "[.]") + "([^a-z0-9.-]|$)"
    args = [
        "--literal-pathspecs", "log", "--no-ext-diff", "--no-textconv", "--no-color",
        "--no-show-signature", "--no-follow", "--encoding=UTF-8", "--pickaxe-regex", f"-S{pattern}",
        "--format=%H%x00%an%x00%aI%x00%s%x00", "--", *paths,
    ]  # fmt: skip
    try:
        done = _run(root, args, timeout=_QUICK, env={**os.environ, "LC_ALL": "C"})
    except AgentMemoryError:  # no git, or no answer in time
        return None
    records = done.stdout.decode("utf-8", errors="replace").split("\0")
    if done.returncode != 0 or len(records) < 5:
        return None
    commit, author, date, subject = records[-5:-1]  # git lists the newest first
    return Introduced(commit.strip(), author, date, subject)


_NOT_AN_ID = re.compile(r"[^a-z0-9.-]|^$")


def line_dates(root: Path, paths: Sequence[str]) -> dict[str, str] | None:
    """Each line ever added to ``paths``, stripped -> the date (``YYYY-MM-DD``, as its author
    wrote it) of the oldest commit that added it: one ``git log -p`` of those files, oldest
    first, bounded in time. None without a whole history to ask: no git, not a work tree, no
    commit yet, a shallow clone (its oldest commit adds what it did not write), no answer in
    time. Diff and text-conversion drivers are not run; a merge's own lines are not read."""
    if not paths or git_dirs(root) is None:
        return None
    args = [
        "--literal-pathspecs", "log", "--reverse", "--no-renames", "--no-ext-diff",
        "--no-textconv", "--no-color", "--no-show-signature", "--unified=0", "--format=%x00%aI",
        "-p", "--no-follow", "--", *paths,
    ]  # fmt: skip
    try:
        shallow = _run(root, ["rev-parse", "--is-shallow-repository"], timeout=_QUICK)
        done = _run(root, args)
    except AgentMemoryError:  # no answer in time
        return None
    if shallow.stdout.strip() != b"false" or done.returncode != 0:
        return None
    found: dict[str, str] = {}
    for commit in done.stdout.split(b"\0")[1:]:
        day = commit[:10].decode("ascii", errors="replace")
        in_hunk = False
        for line in commit.split(b"\n"):
            if line.startswith((b"diff ", b"@@")):
                in_hunk = line.startswith(b"@@")
            elif in_hunk and line.startswith(b"+"):
                found.setdefault(line[1:].decode("utf-8", errors="replace").strip(), day)
    return found


def head_commit(root: Path) -> str | None:
    """The commit HEAD names, or None: no git, no commit yet, or no answer in time. What git's
    history says of the repo changes with it, though no file of the work tree does."""
    if not in_work_tree(root):
        return None
    try:
        done = _run(root, ["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], timeout=_QUICK)
    except AgentMemoryError:
        return None
    named = done.stdout.decode(errors="replace").strip()
    return named if done.returncode == 0 and named else None


def in_work_tree(root: Path) -> bool:
    """Whether ``root`` is in a git work tree (its own or a parent's ``.git``): else no git
    process need start."""
    return any((folder / ".git").exists() for folder in (root, *root.parents))


def _run(
    root: Path | None,
    args: Sequence[str],
    timeout: float = _SLOW,
    stdin: bytes | None = None,
    env: Mapping[str, str] | None = None,
) -> "subprocess.CompletedProcess[bytes]":
    # Imported here: subprocess (with signal, selectors) costs 3-4 ms, a twentieth of the tool's
    # start-up, and the merge driver imports this module for a fallback it rarely runs.
    import subprocess

    try:
        return subprocess.run(
            ["git", *SAFE, *args],
            cwd=root,
            input=stdin,
            capture_output=True,
            check=False,
            timeout=timeout,
            env={**(os.environ if env is None else env), **OFFLINE},
        )
    except FileNotFoundError:
        raise AgentMemoryError("git: not found; this command runs git") from None
    except subprocess.TimeoutExpired:
        raise AgentMemoryError(
            f"git {args[0]}: no answer in {timeout:.0f} s (a FIFO or a hung file system in the "
            "repository?); stopped it",
            str(root or "."),
        ) from None


def _last_error(done: "subprocess.CompletedProcess[bytes]") -> str:
    return (done.stderr.decode(errors="replace").strip().splitlines() or ["git failed"])[-1]


def recorded(root: Path, rel: str) -> bool:
    """Whether git holds ``rel``: in the commit HEAD names or staged for the next one (a staged
    file is what the next commit records). False outside git, and for a file git does not know."""
    if not in_work_tree(root):
        return False  # not in a work tree: no process to start (the MCP server asks often)
    try:  # --with-tree: a file staged for removal still counts as HEAD's
        args = ["--literal-pathspecs", "ls-files", "--error-unmatch", "--with-tree=HEAD"]
        done = _run(root, [*args, "--", rel], timeout=_QUICK)
        if done.returncode not in (0, 1):  # no HEAD yet: only the index can hold it
            done = _run(root, ["--literal-pathspecs", "ls-files", "--", rel], timeout=_QUICK)
            return done.returncode == 0 and bool(done.stdout.strip())
    except AgentMemoryError:  # no git at all
        return False
    return done.returncode == 0


def ignore_rules(root: Path, rels: Sequence[str]) -> dict[str, str]:
    """The rule that keeps each of ``rels`` out of git, as ``source:line: pattern``, for those
    git ignores (and does not track): a file we write for the team there never reaches it.
    Empty outside a work tree or without git."""
    if not rels or not in_work_tree(root):
        return {}
    args = ["check-ignore", "-v", "-z", "--stdin"]  # paths on stdin: never an option
    try:
        done = _run(root, args, timeout=_QUICK, stdin="".join(f"{rel}\0" for rel in rels).encode())
    except AgentMemoryError:
        return {}
    if done.returncode != 0:
        return {}  # 1: none ignored; 128: not a work tree, or a path outside it
    fields = done.stdout.decode("utf-8", errors="replace").split("\0")
    rules = {}
    for at in range(0, len(fields) - 3, 4):
        source, line, pattern, path = fields[at : at + 4]
        if pattern and not pattern.startswith("!"):  # a negated rule keeps the file in
            rules[path] = f"{source}:{line}: {pattern}"
    return rules


def untracked_temps(root: Path) -> list[str]:
    """The files git does not track whose names end as our temp files' do (ignored ones too):
    where a killed write may have left one; none outside git."""
    try:
        done = _run(root, ["ls-files", "-z", "--others", "--", f":(glob)**/*{TMP_SUFFIX}"], _QUICK)
    except AgentMemoryError:
        return []
    if done.returncode != 0:
        return []
    return [os.fsdecode(name) for name in done.stdout.split(b"\0") if name]
