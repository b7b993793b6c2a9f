"""``agent-memory hooks install`` / ``hooks remove``: an agent's repo-level hook settings.

Opt-in: ``enable`` never calls this. Both write through the normal plan and lock, and record
what they did in the manifest's ``## Agent hooks`` section (``core/agents/hooks.py``).
"""

from __future__ import annotations

from ..core.agents import hooks, jsontext
from ..core.agents.doctor import unshared
from ..core.agents.hook_entries import COMMAND
from ..core.agents.jsontext import BadJSON
from ..core.plan import FileEdit, Outcome, Plan
from ..errors import AgentMemoryError, InputError
from ..layout import MANIFEST
from ..shell.git import ignore_rules
from ..shell.installed import path_hint
from ..shell.repo import Repo
from .report import Report, Result
from .settle import Options, settle

_TRUST = {
    "codex": "Codex runs a project's hooks only once you trust the project and them (/hooks)",
    "gemini": "Gemini CLI reads a project's settings only in a trusted folder",
}


def hooks_install(repo: Repo, agent: str, options: Options, prompt: bool = False) -> Result:
    """Our groups into the agent's settings; the groups a 5.0.0 install left there are taken
    out first (as ``hooks remove`` would), so the file holds one set of ours, recorded against
    the bytes from before the first install."""
    manifest = _manifest(repo)
    where = hooks.AGENTS[agent].path
    before = _read(repo, where)
    text = _text(where, before)
    previous = hooks.recorded(manifest).get(agent)
    try:
        if previous is not None and text is not None and hooks.legacy(text, agent):
            text, _ = hooks.remove(text, agent, previous.original, previous.added)
            previous = previous._replace(added=frozenset())
        after, added = hooks.install(text, agent, hooks.wanted(agent, prompt))
    except (BadJSON, hooks.NotAnObject) as exc:
        line = exc.line if isinstance(exc, BadJSON) else None
        raise InputError(where, line, str(exc), "fix the file, then install again") from None
    entry = _entry(previous, where, text, added)
    stamped = hooks.record(manifest, agent, entry)
    edits = [
        _edit(where, before, after.encode("utf-8"), f"{agent} hooks"),
        _edit(MANIFEST, manifest.encode("utf-8"), stamped.encode("utf-8"), "hooks recorded"),
    ]
    trust = (f"note: {_TRUST[agent]}",) if agent in _TRUST else ()
    notes = (*trust, *filter(None, [not_on_path()]), *ignored_notes(repo, [where]))
    return _settled(repo, "hooks install", edits, options, notes)


def ignored_notes(repo: Repo, paths: list[str]) -> tuple[str, ...]:
    """A warning for each file written for the team that git ignores (HOOKS.md)."""
    rules = ignore_rules(repo.root, paths)
    return tuple("warning: {} — {}".format(*unshared(p, rules[p])) for p in paths if p in rules)


def not_on_path(command: str = COMMAND) -> str | None:
    """The warning when ``command`` does not resolve on PATH here: the agent's settings (and
    MCP configuration) name it bare, as they are shared across machines (HOOKS.md)."""
    import shutil  # 2 ms, paid only by the installs

    if shutil.which(command) is not None:
        return None
    return f"warning: {command} is not on PATH here, so the agent will not find it; {path_hint()}"


def _entry(
    previous: hooks.Record | None, where: str, text: str | None, added: frozenset[str]
) -> hooks.Record:
    """The manifest's line after an install: the file as it was before the first install, and
    everything installs have added since (a file install creates starts the record afresh)."""
    if previous is None:
        return hooks.Record(where, hooks.sha256(text), added)
    if text is None:
        return hooks.Record(where, "absent", added)
    merged = None if previous.added is None else previous.added | added
    return hooks.Record(where, previous.original, merged)


def hooks_remove(repo: Repo, agent: str, options: Options) -> Result:
    manifest = _manifest(repo)
    entry = hooks.recorded(manifest).get(agent)
    if entry is None:
        nothing = (f"no {agent} hooks recorded; nothing to remove",)
        return _settled(repo, "hooks remove", [], options, nothing)
    where = hooks.AGENTS[agent].path  # never the path the line names: the stamp is input
    before = _read(repo, where)
    edits = [_edit(MANIFEST, manifest.encode(), hooks.record(manifest, agent, None).encode(), "")]
    notes: tuple[str, ...] = ()
    if before is not None:
        try:
            text = _text(where, before) or ""
            after, exact = hooks.remove(text, agent, entry.original, entry.added)
        except (BadJSON, hooks.NotAnObject) as exc:
            line = exc.line if isinstance(exc, BadJSON) else None
            raise InputError(where, line, str(exc), "fix the file, then remove again") from None
        data = after.encode("utf-8") if after is not None else None
        edits.append(_edit(where, before, data, f"{agent} hooks removed"))
        if not exact:
            notes = (f"{where} changed since install: took out our hooks, kept the rest",)
    return _settled(repo, "hooks remove", edits, options, notes)


def _manifest(repo: Repo) -> str:
    data = repo.read(MANIFEST)
    if data is None:
        raise AgentMemoryError(
            "not found: the memory has no stamp yet (enabled by hand, or by 2.x); run "
            "agent-memory enable to adopt it, then install hooks",
            MANIFEST,
        )
    return data.decode("utf-8", errors="replace")


def _read(repo: Repo, where: str) -> bytes | None:
    """An agent's settings, read only up to the size ``jsontext`` edits (HOOKS.md)."""
    return repo.read(where, limit=jsontext.MAX_BYTES)


def _text(where: str, data: bytes | None) -> str | None:
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(where, None, "is not UTF-8", "restore it as UTF-8 JSON") from None


def _edit(where: str, before: bytes | None, after: bytes | None, reason: str) -> FileEdit:
    if before == after:
        return FileEdit(where, before, after, Outcome.UNCHANGED, reason or "hooks recorded")
    if before is None:
        return FileEdit(where, before, after, Outcome.CREATED, reason)
    if after is None:
        return FileEdit(where, before, after, Outcome.REMOVED, reason or "hooks recorded")
    return FileEdit(where, before, after, Outcome.UPDATED, reason or "hooks record removed")


def _settled(
    repo: Repo,
    command: str,
    edits: list[FileEdit],
    options: Options,
    notes: tuple[str, ...],
) -> Result:
    plan = Plan.of(edits)
    settled = settle(repo, [plan], options, "unchanged")
    report = Report(command, repo.shown, settled.outcome, plan, (), {})
    return Result(report._replace(closing=notes), settled.exit_code, settled.diff)
