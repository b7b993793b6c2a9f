"""``agent-memory status``: versions, facts per tier, and whether a review is due and why."""

from __future__ import annotations

from collections import Counter
from typing import Any

from .. import resources
from ..core.review.tiers import decays
from ..core.review.triggers import advice, unread
from ..layout import BACKUP_DIR, DISABLE_FOLDER, MANIFEST
from ..parse import facts, manifest
from ..parse.continuity import cursor, last_review
from ..parse.memory import Memory
from ..shell.cited import stale_marks
from ..shell.load import archive_files
from ..shell.repo import Repo
from .due import why_due
from .report import Report, Result
from .settle import memory_of


def _installed(repo: Repo, memory: Memory, archived: bool) -> str:
    """What the repo is on, in words; without a stamp, what enable would take it for (ENABLE.md
    Step 1): a repo disable left, a layer enabled by hand, or a 2.x layer. ``archived``: the
    archive holds files (``memory`` is read without them)."""
    stamp = repo.read(MANIFEST)
    if stamp is not None:
        version, ours = manifest.shown(stamp)
        return version if ours else f"{version} (enabled by hand; agent-memory enable adopts it)"
    folders = [n for n in repo.list_dir(BACKUP_DIR) if DISABLE_FOLDER.match(n)]
    if any(repo.exists(f"{BACKUP_DIR}/{name}/{MANIFEST}") for name in folders):
        return f"none (disabled; agent-memory enable gives the repo back from {BACKUP_DIR}/)"
    if any(f.id for doc in memory.documents for f in doc.facts) or archived:
        return "an unstamped layer enabled by hand (agent-memory enable adopts it)"
    return "2.x (no stamp)"


def status(repo: Repo) -> Result:
    # The archive is counted, not parsed: it may hold thousands of facts.
    memory, continuity = memory_of(repo, archives=False)
    archive = archive_files(repo)
    archived = sum(facts.fact_count(rel, data) for rel, data in archive)
    installed = _installed(repo, memory, bool(archive))
    # Live facts: continuity.md, the one-file threads and vision.md (DESIGN §13).
    live_docs = memory.documents[: len(memory.documents) - len(memory.archives)]
    live = [f for doc in live_docs for f in doc.facts]
    stale = stale_marks(repo, live_docs)
    tiers = dict(sorted(Counter(f.field("tier") or "(no footer)" for f in live).items()))
    review = last_review(continuity)
    through = cursor(review, memory.logs)
    reasons, _ = why_due(repo, memory, archive)
    policy = memory.policy
    data: dict[str, Any] = {
        "installed": installed,
        "tool": resources.version(),
        "facts": len(live),
        "tiers": tiers,
        "decaying_facts": sum(1 for f in continuity.facts if decays(f)),
        "max_facts": policy.continuity_max_facts,
        "lines": len(continuity.text.lines),
        "max_lines": policy.continuity_max_lines,
        "last_review": review.date,
        "through": through,
        "sessions": len(memory.logs),
        "sessions_since_review": unread(review, memory.sessions),
        "review_every": policy.review_every,
        "due": reasons,
        "advice": advice(continuity, memory.sessions, policy, repo.today),
        "archived_facts": archived,
        "archive_files": len(archive),
        "stale": len(stale),
    }
    text = (
        f"installed {installed}, tool {data['tool']}",
        f"facts: {data['facts']} ({', '.join(f'{n} {t}' for t, n in tiers.items()) or 'none'})",
        f"continuity.md: {data['decaying_facts']}/{policy.continuity_max_facts} decaying facts, "
        f"{data['lines']}/{policy.continuity_max_lines} lines",
        f"last review: {review.date or 'never'}; {data['sessions_since_review']} of "
        f"{data['sessions']} session logs since (review_every: {policy.review_every})",
        f"archive: {data['archived_facts']} facts in {data['archive_files']} files",
        "review: due — " + "; ".join(reasons) if reasons else "review: not due",
        *(f"advice: {note}" for note in data["advice"]),
        *(
            [
                f"stale: {len(stale)} {'fact cites' if len(stale) == 1 else 'facts cite'} code "
                "that changed since; "
                "agent-memory lint --only stale lists them"
            ]
            if stale
            else []
        ),
    )
    outcome = "due" if reasons else "ok"
    report = Report("status", repo.shown, outcome, None, (), data, text)
    return Result(report, 0)
