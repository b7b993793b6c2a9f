"""The inbox: the proposals pending in session logs (``fact accept``'s list), each beside the
facts it resembles (``fact add``'s duplicate check) and those it may contradict (its
contradiction check), to accept or to reject with a reason
(``fact reject``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ...core.facts.conflicts import against
from ...core.facts.duplicates import compare
from ...shell.load import load
from .actions import Setting, run
from .browse import Body, opened
from .html import e, form, link, text_field

SIMILAR_SHOWN = 3


def inbox_page(root: Path, setting: Setting, issue: Callable[[], str]) -> Body:
    # --dry-run: the listing reads only, so it takes no lock and rolls no journal back
    listed = run(("fact", "accept"), root, {"dry_run": True})
    if listed.error is not None:
        raise listed.error
    pending = listed.result.report.summary["pending"] if listed.result is not None else []
    if not pending:
        return ['<p class="notice">No proposals pending.</p>']
    memory = load(opened(root))
    live = memory.documents[: len(memory.documents) - len(memory.archives)]
    body = [f"<p>{len(pending)} proposals pending, oldest log first.</p>"]
    token = issue()  # one for every form of the page, however many proposals it lists
    for proposal in pending:
        body.append(
            f'<div class="fact"><p>{e(proposal["text"])}</p><p class="meta">'
            f"{e(proposal['address'])} · {e(proposal['kind'])}</p>"
        )
        found = compare(proposal["text"], memory.documents)
        near = ([found.same] if found.same is not None else []) + list(found.similar)
        for match in near[:SIMILAR_SHOWN]:
            body.append(
                f'<p class="meta">similar ({match.similarity:.0%}): '
                f'<a href="{link("/fact", {"id": match.id})}">{e(match.id)}</a> '
                f"{e(match.first_line)}{' (archived)' if match.archived else ''}</p>"
            )
        for clash in against(proposal["text"], live)[:SIMILAR_SHOWN]:
            body.append(
                f'<p class="meta">may contradict ({e(clash.kind)}: {e(clash.detail)}): '
                f'<a href="{link("/fact", {"id": clash.other.id})}">{e(clash.other.id)}</a> '
                f"{e(clash.other.first_line)}</p>"
            )
        if not setting.read_only:
            hidden = {
                "action": "accept",
                "subject": proposal["address"],
                "proposed": proposal["text"],
            }
            field = text_field("text", "Text (edit it to accept it changed)", proposal["text"])
            body.append(form("/preview", token, [field], "Accept: preview", hidden=hidden))
            why = text_field("reason", "Reason (kept in memory/rejected.md)")
            hidden = {"action": "reject", "subject": proposal["address"]}
            body.append(form("/preview", token, [why], "Reject: preview", hidden=hidden))
        body.append("</div>")
    return body
