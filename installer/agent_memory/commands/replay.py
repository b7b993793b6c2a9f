"""``agent-memory replay``: the review's projection run forward over the repo's own history.

It reads what ``review --full`` reads (every log and every memory file) and writes nothing: no
lock, no journal, no plan. Each log's text is the task of its view, bounded as the
session-start hook bounds a prompt.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import resources
from ..core.replay import periods, tally
from ..core.replay.periods import Period
from ..core.replay.run import Replay, replay, subjects
from ..errors import refuse_errors
from ..layout import SESSIONS_DIR
from ..parse.memory import Memory
from ..parse.policy import Policy, overridden
from ..parse.sessions import read_refs
from ..shell.focus import TASK_MAX
from ..shell.repo import Repo
from .report import Report, Result
from .settle import memory_of


def replayed(
    repo: Repo,
    memory: Memory,
    policies: Sequence[Policy],
    max_bytes: int,
    period: Period = periods.quarter,
) -> list[Replay]:
    """The repo's history replayed under each of ``policies``, its logs read once; facts per
    tier are counted at the end of each ``period``."""
    refs, tasks = [], []
    for _name, data in repo.read_each(SESSIONS_DIR, memory.logs):
        refs.append(read_refs(data))
        tasks.append(data.decode("utf-8", "replace").strip()[:TASK_MAX])
    docs = memory.documents
    found = subjects(docs, len(memory.archives))
    return [
        replay(docs, found, memory.logs, refs, tasks, policy, max_bytes, period)
        for policy in policies
    ]


def replay_command(repo: Repo, policy_items: tuple[str, ...], max_bytes: int) -> Result:
    memory, _ = memory_of(repo)
    refuse_errors(memory.policy_problems, "then replay again")
    other, changed = overridden(memory.policy, policy_items)
    policies = [memory.policy, other] if changed else [memory.policy]
    runs = replayed(repo, memory, policies, max_bytes)
    base = runs[0]
    whole = tally.totals(base.steps)
    quarters = tally.per_period(base.steps)
    missed = tally.most_missed(base.steps)
    outlooks = [  # a comparison only when a policy was given
        tally.outlook(tally.policy_words(p._asdict(), changed if n else ()), run)
        for n, (p, run) in enumerate(zip(policies, runs, strict=True))
        if changed
    ]
    data: dict[str, Any] = {
        "max_bytes": max_bytes,
        "totals": whole.as_data(),
        "quarters": [{"quarter": q, **t.as_data()} for q, t in quarters],
        "most_missed": [{"id": i, "archived": a, "not_named": u} for i, a, u in missed],
        "comparison": [o.as_data() for o in outlooks],
    }
    lines = _lines(whole, quarters, missed, outlooks)
    report = Report("replay", resources.version(), repo.shown, "ok", None, (), data, lines)
    return Result(report, 0)


def _lines(
    totals: tally.Totals,
    quarters: Sequence[tuple[str, tally.Totals]],
    missed: Sequence[tuple[str, int, int]],
    outlooks: Sequence[tally.Outlook],
) -> tuple[str, ...]:
    found = totals.outcomes
    lines = [
        f"replayed {totals.logs} session logs: {totals.existing} uses of facts that existed then",
        f"  in full at session start {found['shown']:>6}  {tally.percent(totals.hit_rate)}",
        f"  named (its one line)     {found['named']:>6}  "
        f"{tally.percent(totals.named_rate)} named or in full",
        f"  cut (over the budget)    {found['cut']:>6}",
        f"  live, left out           {found['hidden']:>6}",
        f"  archived (a miss)        {found['archived']:>6}",
        f"  not counted: {found['unknown']} of unknown ids, {found['new']} of facts the "
        "session created",
    ]
    if quarters:
        lines.append("per quarter:    logs    uses   named  in full  archived")
        lines += [
            f"  {q:<9} {t.logs:>7} {t.existing:>7} {tally.percent(t.named_rate):>7} "
            f"{tally.percent(t.hit_rate):>8} {t.outcomes['archived']:>9}"
            for q, t in quarters
        ]
    if missed:
        lines.append("missed most (archived, not named):")
        lines += [f"  {i}  {a}, {u}" for i, a, u in missed]
    if outlooks:
        lines.append("policy comparison:")
        lines += [
            f"  {o.label}: named {tally.percent(o.totals.named_rate)}, in full "
            f"{tally.percent(o.totals.hit_rate)}, misses "
            f"{o.totals.outcomes['archived']}, mean context {o.context_bytes:.0f} bytes, "
            f"continuity.md at the end {o.live} facts ({o.live_bytes} bytes)"
            for o in outlooks
        ]
    return tuple(lines)
