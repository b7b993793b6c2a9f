"""``agent-memory replay``: the review's projection run forward over the repo's own history.

It reads what ``review --full`` reads (every log and every memory file), and from git the memory
each session start found, and writes nothing: no lock, no journal, no plan. A view's task is
what the session start could know (DESIGN §26): its first prompt where the log records one
(``--task-from prompt``, the default), or none; the log's own text (``--task-from log``) held
the answer, so its figures are an upper bound, and said to be one.
"""

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from .. import patterns
from ..core.agents.context import Entries, View
from ..core.replay import history, periods, tally
from ..core.replay.periods import Period
from ..core.replay.run import Replay, Step, replay, steps, subjects
from ..errors import AgentMemoryError, refuse_errors
from ..layout import CONTEXT_MIN_BYTES, SESSIONS_DIR
from ..parse.facts import Document
from ..parse.memory import Memory
from ..parse.policy import Policy, overridden
from ..parse.sessions import first_prompt, read_refs
from ..shell.focus import TASK_MAX
from ..shell.history import session_starts
from ..shell.repo import Repo
from .report import Report, Result
from .settle import memory_of

BUDGETS_MAX = 8  # budgets one replay compares
_BUDGET = patterns.compile(r"[0-9]{1,9}")
UPPER_BOUND = "an upper bound: each view's task was its session's own log, written after the work"


def budgets_of(text: str) -> tuple[int, ...]:
    """The budgets of ``--max-bytes A,B,C``, in the order given, each once."""
    found: list[int] = []
    for word in text.split(","):
        word = word.strip()
        if not _BUDGET.fullmatch(word) or int(word) < CONTEXT_MIN_BYTES:
            raise AgentMemoryError(
                f"--max-bytes {text!r}: give whole numbers of at least {CONTEXT_MIN_BYTES}, "
                "separated by commas (e.g. 4096,8192,16384)"
            )
        if int(word) not in found:
            found.append(int(word))
    if len(found) > BUDGETS_MAX:
        raise AgentMemoryError(f"--max-bytes {text!r}: compare at most {BUDGETS_MAX} budgets")
    return tuple(found)


def task_of(data: bytes, source: str) -> str:
    """The task of a log's view: its first prompt (``prompt``), nothing (``none``), or its own
    text (``log``), bounded as the session-start hook bounds a prompt."""
    if source == "none":
        return ""
    text = data.decode("utf-8", "replace")
    if source == "log":
        return text.strip()[:TASK_MAX]
    return (first_prompt(text) or "")[:TASK_MAX]


class Replayed(NamedTuple):
    """A history replayed: under each policy at each budget (``projected``), and the steps of
    each log whose session start's memory git holds, one per budget, counted on that memory
    (``found``, by the log's index): what a policy does is projected, what a start showed is
    what it found, where it can be known."""

    projected: list[tuple[Replay, ...]]
    found: dict[int, tuple[Step, ...]]

    def run(self, budget: int = 0) -> Replay:
        """The repo's own policy's replay at ``budgets[budget]``, each log's step the one found
        where git holds its start."""
        run = self.projected[0][budget]
        steps = (self.found[n][budget] if n in self.found else s for n, s in enumerate(run.steps))
        return run._replace(steps=tuple(steps))


def replayed(
    repo: Repo,
    memory: Memory,
    policies: Sequence[Policy],
    budgets: Sequence[int],
    source: str = "prompt",
    period: Period = periods.quarter,
    watch: Callable[[int, Sequence[View]], object] | None = None,
) -> Replayed:
    """The repo's history replayed under each of ``policies`` at each of ``budgets``, its logs
    read once; ``source``: the views' task (``task_of``); facts per tier are counted at the end
    of each ``period``; ``watch``: told the views each log's step counts on."""
    refs, tasks = [], []
    for _name, data in repo.read_each(SESSIONS_DIR, memory.logs):
        refs.append(read_refs(data))
        tasks.append(task_of(data, source))
    found: dict[int, tuple[Step, ...]] = {}
    known = memory.known_ids
    # the views of the last start (its commit's, whatever ids its log asked the archive about)
    kept: tuple[tuple[Document, ...] | None, str, tuple[View, ...]] = (None, "", ())
    for index, start in session_starts(repo.root, memory.logs, [r.used for r in refs]):
        task = tasks[index]
        if kept[0] is not start.live or kept[1] != task:  # no paths known, no review due
            kept = (start.live, task, Entries(start.live, task, recent=start.recent).views(budgets))
        if watch is not None:
            watch(index, kept[2])
        uses = history.uses(start, refs[index], known)
        found[index] = steps(memory.logs[index], uses, kept[2])

    def projected_watch(index: int, views: Sequence[View]) -> None:
        if watch is not None and index not in found:
            watch(index, views)

    docs = memory.documents
    facts = subjects(docs, len(memory.archives))
    projected = [
        replay(docs, facts, memory.logs, refs, tasks, policy, budgets, period, projected_watch)
        for policy in policies
    ]
    return Replayed(projected, found)


def replay_command(
    repo: Repo, policy_items: tuple[str, ...], max_bytes: str, source: str = "prompt"
) -> Result:
    budgets = budgets_of(max_bytes)
    memory, _ = memory_of(repo)
    refuse_errors(memory.policy_problems, "then replay again")
    other, changed = overridden(memory.policy, policy_items)
    policies = [memory.policy, other] if changed else [memory.policy]
    done = replayed(repo, memory, policies, budgets, source)
    runs = [done.run(n) for n in range(len(budgets))]
    base = runs[0]
    whole = tally.totals(base.steps)
    quarters = tally.per_period(base.steps)
    missed = tally.most_missed(base.steps)
    outlooks = [  # a comparison only when a policy was given
        tally.outlook(tally.policy_words(p._asdict(), changed if n else ()), run[0])
        for n, (p, run) in enumerate(zip(policies, done.projected, strict=True))
        if changed
    ]
    sizes = [tally.outlook(f"{b} bytes", run) for b, run in zip(budgets, runs, strict=True)]
    data: dict[str, Any] = {
        "max_bytes": budgets[0],
        "task_from": source,
        "upper_bound": source == "log",
        "logs_found_in_git": len(done.found),
        "totals": whole.as_data(),
        "quarters": [{"quarter": q, **t.as_data()} for q, t in quarters],
        "most_missed": [m.as_data() for m in missed],
        "budgets": tally.budget_rows(zip(budgets, sizes, strict=True)),
        "comparison": [o.as_data() for o in outlooks],
    }
    lines = _lines(source, whole, quarters, missed, outlooks, len(done.found))
    if len(budgets) > 1:
        lines += budget_lines(budgets, sizes)
    report = Report("replay", repo.shown, "ok", None, (), data, tuple(lines))
    return Result(report, 0)


def _lines(
    source: str,
    totals: tally.Totals,
    quarters: Sequence[tuple[str, tally.Totals]],
    missed: Sequence[tally.Missed],
    outlooks: Sequence[tally.Outlook],
    from_git: int,
) -> list[str]:
    found = totals.outcomes
    task = {"prompt": "its first prompt where its log records one, else none", "none": "none"}
    bound = " (an upper bound, not a figure: --task-from log)" if source == "log" else ""
    lines = [
        f"replayed {totals.logs} session logs: {totals.existing} uses of facts that existed "
        f"then{bound}",
        f"  in full at session start {found['shown']:>6}  {tally.percent(totals.in_full_rate)}",
        f"  named only (one line)    {found['named']:>6}  "
        f"{tally.percent(totals.named_rate)} named or in full",
        f"  cut (over the budget)    {found['cut']:>6}",
        f"  live, left out           {found['hidden']:>6}",
        f"  archived (a miss)        {found['archived']:>6}",
        f"  not counted: {found['unknown']} of unknown ids, {found['new']} of facts the "
        "session created",
        f"  each view's task: {task.get(source, UPPER_BOUND)}",
        f"  each view's memory: git's before the log's commit ({_logs(from_git)}), else "
        f"projected by the rules ({_logs(totals.logs - from_git)})",
    ]
    if quarters:
        lines.append("per quarter:    logs    uses  in full    named  archived")
        lines += [
            f"  {q:<9} {t.logs:>7} {t.existing:>7} {tally.percent(t.in_full_rate):>8} "
            f"{tally.percent(t.named_rate):>8} {t.outcomes['archived']:>9}"
            for q, t in quarters
        ]
    if missed:
        lines.append("most often not in full (uses not in full: named only, archived):")
        lines += [f"  {m.id}  {m.missed}: {m.named}, {m.archived}" for m in missed]
    if outlooks:
        lines.append("policy comparison:")
        lines += [
            f"  {o.label}: in full {tally.percent(o.totals.in_full_rate)}, named "
            f"{tally.percent(o.totals.named_rate)}, misses "
            f"{o.totals.outcomes['archived']}, mean context {o.context_bytes:.0f} bytes, "
            f"continuity.md at the end {o.live} facts ({o.live_bytes} bytes)"
            for o in outlooks
        ]
        lines.append("  (both projected by the rules, each log's memory rebuilt from the logs)")
    return lines


def _logs(count: int) -> str:
    return f"{count} log" if count == 1 else f"{count} logs"


def budget_lines(budgets: Sequence[int], sizes: Sequence[tally.Outlook]) -> list[str]:
    """The budgets side by side: in full, named, the mean view."""
    lines = ["by budget:   max bytes  in full    named  mean context"]
    lines += [
        f"  {b:>19} {tally.percent(o.totals.in_full_rate):>8} "
        f"{tally.percent(o.totals.named_rate):>8} {o.context_bytes:>13.0f}"
        for b, o in zip(budgets, sizes, strict=True)
    ]
    return lines
