"""``agent-memory doctor``: per agent, what is wired and whether it would run. Read-only.

It reads the agents' settings in the repo, their own trust files in the user's home
(``shell/homes.py``), PATH, and the git config; ``core/agents/doctor.py`` says what that means,
one line per finding with its fix. Exit 1 when something would not run.
"""

from __future__ import annotations

from ..core.agents import doctor as rules
from ..core.agents import hooks
from ..core.agents.doctor import Finding
from ..core.install.attributes import routes_to_driver
from ..errors import Problem
from ..layout import AGENTS_MD, CONTINUITY, GITATTRIBUTES, MANIFEST, MERGE_DRIVER_KEY
from ..shell.git import git_dirs, ignore_rules, local_config
from ..shell.load import load
from ..shell.repo import Repo
from ..shell.wiring import machine_of, wired_of
from .report import Report, Result


def doctor(repo: Repo) -> Result:
    machine = machine_of(repo)
    command = machine.command
    logs = load(repo, archives=False).logs
    found: list[Finding] = []
    for agent in hooks.AGENTS:
        wired = wired_of(repo, agent)
        found += rules.agent_findings(agent, wired, machine)
        found += rules.newest_findings(agent, logs, wired)
    in_git = git_dirs(repo.root) is not None
    routed = bool(routes_to_driver(repo.read(GITATTRIBUTES))) if in_git else None
    value = local_config(repo.root, MERGE_DRIVER_KEY) if in_git else None
    found.append(rules.merge_driver_findings(routed, value, command))
    found += _unshared(repo)
    problems = [
        Problem(f.scope, None, f.severity, "doctor", f"{f.what}" + (f" — {f.fix}" if f.fix else ""))
        for f in found
        if f.severity != rules.OK
    ]  # fmt: skip
    failing = any(f.severity == rules.ERROR for f in found)
    summary = {"findings": [f._asdict() for f in found]}
    outcome = "problems" if failing else "ok"
    report = Report("doctor", repo.shown, outcome, None, problems, summary)
    return Result(report._replace(findings=(), closing=tuple(map(str, found))), int(failing))


def _unshared(repo: Repo) -> list[Finding]:
    """The files enable wrote for the team that git ignores (the agents' are theirs)."""
    ours = [rel for rel in (AGENTS_MD, MANIFEST, CONTINUITY) if repo.exists(rel)]
    ignored = ignore_rules(repo.root, ours)
    warn = rules.WARNING
    return [
        Finding("memory", warn, *rules.unshared(p, r, "or take the rule out"))
        for p, r in ignored.items()
    ]
