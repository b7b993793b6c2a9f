"""``agent-memory replay``: the review's projection run forward over the repo's own history.

It reads what ``review --full`` reads (every log's references, every memory file) and writes
nothing: no lock, no journal, no plan.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import resources
from ..core.replay import periods, tally
from ..core.replay.periods import Period
from ..core.replay.run import Replay, replay, subjects
from ..core.replay.view import layout
from ..errors import refuse_errors
from ..parse.memory import Memory
from ..parse.policy import Policy, overridden
from ..shell.logs import references
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
    refs = references(repo, memory.logs)
    ordered = [refs[name] for name in memory.logs]
    found = subjects(memory.documents, len(memory.archives))
    shape = layout(max_bytes)
    return [replay(found, memory.logs, ordered, policy, shape, period) for policy in policies]


def replay_command(repo: Repo, policy_items: tuple[str, ...], max_bytes: int) -> Result:
    memory, _ = memory_of(repo)
    refuse_errors(memory.policy_problems, "then replay again")
    other, changed = overridden(memory.policy, policy_items)
    policies = [memory.policy, other] if changed else [memory.policy]
    runs = replayed(repo, memory, policies, max_bytes)
    base = runs[0]
    quarters = tally.per_period(base.steps)
    missed = tally.most_missed(base.steps)
    outlooks = [
        tally.outlook(tally.policy_words(p._asdict(), changed if n else ()), run)
        for n, (p, run) in enumerate(zip(policies, runs, strict=True))
    ]
    data: dict[str, Any] = {
        "max_bytes": max_bytes,
        "totals": tally.totals(base.steps).as_data(),
        "quarters": [{"quarter": q, **t.as_data()} for q, t in quarters],
        "most_missed": [{"id": i, "archived": a, "not_shown": u} for i, a, u in missed],
        "comparison": [o.as_data() for o in outlooks] if changed else [],
    }
    lines = _lines(tally.totals(base.steps), quarters, missed, outlooks if changed else [])
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
        f"  shown at session start  {found['shown']:>7}  {tally.percent(totals.hit_rate)}",
        f"  cut by the budget       {found['cut']:>7}",
        f"  live, not in the view   {found['hidden']:>7}  (archive candidates, closed threads)",
        f"  archived (a miss)       {found['archived']:>7}",
        f"  not counted: {found['unknown']} of unknown ids, {found['new']} of facts the "
        "session created",
    ]
    if quarters:
        lines.append("per quarter:    logs    uses   shown  archived")
        lines += [
            f"  {q:<9} {t.logs:>7} {t.existing:>7} {tally.percent(t.hit_rate):>7} "
            f"{t.outcomes['archived']:>9}"
            for q, t in quarters
        ]
    if missed:
        lines.append("missed most (archived, not shown):")
        lines += [f"  {i}  {a}, {u}" for i, a, u in missed]
    if outlooks:
        lines.append("policy comparison:")
        lines += [
            f"  {o.label}: hit rate {tally.percent(o.totals.hit_rate)}, misses "
            f"{o.totals.outcomes['archived']}, mean context {o.context_bytes:.0f} bytes, "
            f"continuity.md at the end {o.live} facts ({o.live_bytes} bytes)"
            for o in outlooks
        ]
    return tuple(lines)
