"""Health: what ``agent-memory report`` says (its content, as the report's JSON carries it),
with each fact it names linked to the fact's page. The report replays every session log, so it
is worked out in the background and kept while its inputs stay the same (``kept``): until it is
ready, the page says so and reloads itself."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ...commands.runner import Answer
from .actions import Setting
from .browse import Body, opened
from .html import e, link
from .kept import Kept

RELOAD = 2  # seconds between the reloads of a page waiting for its report


def health_page(root: Path, setting: Setting, kept: Kept) -> Body:
    last, now, waited = kept.get(opened(root), setting)
    if now and last is not None:
        return _report(last.said)
    so_far = f"{waited:.0f} s so far" + (f", {last.seconds:.0f} s last time" if last else "")
    body = [
        f'<meta http-equiv="refresh" content="{RELOAD}">',  # no script: the browser reloads
        '<p class="notice">The report replays every session log: it is being worked out '
        f"({e(so_far)}), and this page reloads itself until it is ready.</p>",
    ]
    if last is not None and last.said.error is None:
        body.append('<p class="notice">Until then, the report as it was last worked out:</p>')
        body.extend(_report(last.said))
    return body


def _report(said: Answer) -> Body:
    """The report's content, or the one line it stopped on."""
    if said.error is not None:
        raise said.error
    data: Mapping[str, Any] = said.result.report.summary if said.result is not None else {}
    due = data["due"]
    totals = data["totals"]
    rate, named = totals.get("in_full_rate"), totals.get("named_rate")
    body = [
        "<h2>Review</h2>",
        "<ul>" + "".join(f"<li>{e(r)}</li>" for r in due) + "</ul>"
        if due
        else "<p>No review is due.</p>",
        "<h2>In full at session start</h2>",
        f"<p>{e(totals['logs'])} sessions replayed; of the {e(totals['uses'])} uses of a fact, "
        f"{e(_percent(rate))} were in full in the session-start view, "
        f"{e(_percent(named))} in full or named ({e(data['logs_found_in_git'])} laid out on the "
        "memory git holds from before the session, the others on the memory the rules "
        "project).</p>",
        _table(
            ("period", "sessions", "uses", "in full", "named"),
            [
                (
                    p["period"],
                    p["logs"],
                    p["uses"],
                    _percent(p["in_full_rate"]),
                    _percent(p["named_rate"]),
                )
                for p in data["hits_over_time"]
            ],
        ),
        "<h2>Facts per tier</h2>",
        _table(("tier", "facts"), list(data["tiers_now"].items())),
        "<h2>Tiers over time</h2>",
        _over_time(data["tiers_over_time"]),
        "<h2>Missed most</h2>",
        _table(
            ("fact", "uses not in full", "named only", "archived when used"),
            [(_fact(m["id"]), m["missed"], m["named"], m["archived"]) for m in data["most_missed"]],
            raw=0,
        ),
        "<h2>Stale citations</h2>",
        _table(
            ("fact", "what changed"), [(_fact(s["id"]), s["why"]) for s in data["stale"]], raw=0
        ),
        "<h2>Expiring</h2>",
        _table(
            ("fact", "valid until", "past"),
            [
                (_fact(x["id"]), x["valid_until"], "yes" if x["past"] else "")
                for x in data["expiring"]
            ],
            raw=0,
        ),
        f'<p>Proposals pending: <a href="{link("/inbox")}">{e(data["pending_proposals"])}</a></p>',
    ]
    return body


def _percent(rate: float | None) -> str:
    return "n/a" if rate is None else f"{rate:.0%}"


def _fact(fact_id: str) -> str:
    return f'<a href="{link("/fact", {"id": fact_id})}">{e(fact_id)}</a>'


def _over_time(rows: Sequence[Mapping[str, Any]]) -> str:
    tiers = sorted({k for row in rows for k in row if k != "period"})
    return _table(("period", *tiers), [(r["period"], *(r.get(t, 0) for t in tiers)) for r in rows])


def _table(heads: Sequence[str], rows: Iterable[Sequence[object]], raw: int | None = None) -> str:
    """A table of ``rows``, every cell escaped but column ``raw`` (a link made here)."""
    made = [
        "<tr>" + "".join(f"<td>{c if n == raw else e(c)}</td>" for n, c in enumerate(row)) + "</tr>"
        for row in rows
    ]
    if not made:
        return "<p>None.</p>"
    head = "".join(f"<th>{e(h)}</th>" for h in heads)
    return f"<table><tr>{head}</tr>{''.join(made)}</table>"
