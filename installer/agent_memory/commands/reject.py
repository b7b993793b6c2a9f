"""``agent-memory fact reject LOG#N --reason TEXT``: a proposal refused by a person, recorded at
the end of ``memory/rejected.md`` (committed, append-only) so that it waits no more and its text
is not proposed again (DECAY.md § The review gate). The log is never modified."""

from __future__ import annotations

from ..core.agents.inbox import Rejection, appended, rejections
from ..core.plan import FileEdit, Outcome, Plan
from ..core.secrets import redact, scan
from ..errors import AgentMemoryError
from ..layout import REJECTED
from ..parse.untrusted import first_unsafe
from ..shell.load import log_names
from ..shell.repo import Repo
from .accept import proposal_at
from .report import Report, Result
from .settle import Options, memory_of, review_date, settle

REASON_MAX = 300  # characters, as a retraction's reason


def fact_reject(repo: Repo, address: str, reason: str, options: Options) -> Result:
    memory_of(repo, archives=False)  # refuses a repo that is not enabled
    why = " ".join(reason.split())
    unsafe = first_unsafe(why)
    if not why or len(why) > REASON_MAX or unsafe is not None:
        raise AgentMemoryError(
            f"--reason must be plain text of 1 to {REASON_MAX} characters"
            + (f" (it holds {unsafe})" if unsafe else "")
        )
    if secret := scan(why):
        raise AgentMemoryError(
            f"--reason holds what looks like a credential ({secret[0].kind}, column "
            f"{secret[0].start + 1}); nothing was written — {REJECTED} is committed: give the "
            "reason without it (SECURITY.md)"
        )
    names = log_names(repo)
    found = proposal_at(repo, names, address)
    before = repo.read(REJECTED)
    text = before.decode("utf-8", errors="replace") if before is not None else None
    done = next((r for r in rejections(text or "") if r.address == found.address), None)
    if done is not None:
        raise AgentMemoryError(f"{found.address} was rejected on {done.day}: {done.reason}")
    day = review_date(repo.today, names.newest).isoformat()
    # A hand-written log may hold what capture would have scrubbed: never copied to a committed
    # file, and the proposal is still rejected (it could not be accepted either).
    proposal = redact(found.text)[0]
    rejection = Rejection(found.address, day, proposal, why)
    after = appended(text, rejection).encode()
    reason = f"rejected: {found.address}"
    plan = Plan.of([FileEdit(REJECTED, before, after, Outcome.written(before), reason)])
    settled = settle(repo, [plan], options, "unchanged")
    summary = {"address": found.address, "text": proposal, "reason": why, "day": day}
    said = f"{found.address} rejected: it waits no more, and its text is not proposed again"
    report = Report("fact reject", repo.shown, settled.outcome, plan, (), summary)
    return Result(report._replace(closing=(said,)), settled.exit_code, settled.diff)
