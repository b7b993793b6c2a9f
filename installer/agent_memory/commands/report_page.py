"""``agent-memory report``: one page on whether the memory works — the replay's share in full
over time and by budget, facts per tier, archive growth, the facts used most and least, stale
and expiring facts, pending proposals and whether a review is due.

It reads what ``replay`` reads and writes only the file it is given, never in ``memory/``.
"""

from __future__ import annotations

from pathlib import Path

from .. import resources
from ..core.replay import periods
from ..core.report import markdown, page
from ..core.report.content import Seen, content
from ..errors import refuse_errors
from ..layout import CONTEXT_BYTES
from ..shell.cited import stale_marks
from ..shell.export import write_output
from ..shell.repo import Repo
from .context import pending_proposals
from .due import why_due
from .replay import replayed
from .report import Report, Result
from .settle import memory_of

# The budgets the report compares, the default first: a team picks its own from its history.
BUDGETS = (CONTEXT_BYTES, CONTEXT_BYTES // 2, CONTEXT_BYTES * 2)


def report_page(repo: Repo, target: Path | None, form: str | None) -> Result:
    memory, continuity = memory_of(repo)
    refuse_errors(memory.policy_problems, "then run the report again")
    reasons, _ = why_due(repo, memory)
    period = periods.fitting(memory.logs)
    done = replayed(repo, memory, [memory.policy], BUDGETS, period=period)
    runs = tuple(done.run(n) for n in range(len(BUDGETS)))
    live = memory.documents[: len(memory.documents) - len(memory.archives)]
    pending = pending_proposals(repo, continuity, memory.sessions, live[1:])
    seen = Seen(
        repo.root.name or "repository",  # never the path as typed: a shared page leaks it
        repo.today.isoformat(),
        resources.version(),
        reasons,
        stale_marks(repo, live),
        pending,
        len(done.found),
    )
    at = tuple(zip(BUDGETS, runs, strict=True))
    found = content(memory.documents, len(memory.archives), at, seen, period)
    form = form or ("html" if target is not None else "md")
    text = page.render(found) if form == "html" else markdown.render(found)
    data = found.as_data()
    if target is None:
        report = Report("report", repo.shown, "ok", None, (), data)
        return Result(report._replace(heading=(text.rstrip("\n"),)), 0)
    written = write_output(repo, target, text.encode("utf-8"))
    data["file"] = str(written)
    said = (f"wrote {target} ({len(text.encode('utf-8'))} bytes, {form})",)
    return Result(Report("report", repo.shown, "written", None, (), data, said), 0)
