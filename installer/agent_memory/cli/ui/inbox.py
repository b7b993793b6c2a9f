"""The inbox: the proposals pending in session logs (``fact accept``'s list), each beside the
facts it resembles (``fact add``'s duplicate check) and those it may contradict (its
contradiction check), to accept or to reject with a reason
(``fact reject``)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ...core.facts.conflicts import against
from ...core.facts.duplicates import compare
from ...shell.load import load
from .actions import Setting, run
from .browse import Body, opened
from .html import e, form, link, text_field

SIMILAR_SHOWN = 3


def pending(root: Path) -> list[dict[str, Any]]:
    """The proposals pending, as ``fact accept``'s list gives them."""
    # --dry-run: the listing reads only, so it takes no lock and rolls no journal back
    listed = run(("fact", "accept"), root, {"dry_run": True})
    if listed.error is not None:
        raise listed.error
    return list(listed.result.report.summary["pending"]) if listed.result is not None else []


def rendered(address: str, text: str | None) -> str:
    """What the inbox shows of a proposal (its text, None once it waits no more), as a digest its
    forms carry: one accepted or rejected since the page was rendered is not acted on again."""
    return hashlib.sha256(f"{address}\0{text}".encode()).hexdigest()


def inbox_page(root: Path, setting: Setting, issue: Callable[[], str]) -> Body:
    pending_now = pending(root)
    if not pending_now:
        return ['<p class="notice">No proposals pending.</p>']
    memory = load(opened(root))
    live = memory.documents[: len(memory.documents) - len(memory.archives)]
    body = [f"<p>{len(pending_now)} proposals pending, oldest log first.</p>"]
    token = issue()  # one for every form of the page, however many proposals it lists
    for proposal in pending_now:
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
                "rendered": rendered(proposal["address"], proposal["text"]),
            }
            field = text_field("text", "Text (edit it to accept it changed)", proposal["text"])
            body.append(form("/preview", token, [field], "Accept: preview", hidden=hidden))
            why = text_field("reason", "Reason (kept in memory/rejected.md)")
            hidden = {**hidden, "action": "reject"}
            del hidden["proposed"]
            body.append(form("/preview", token, [why], "Reject: preview", hidden=hidden))
        body.append("</div>")
    return body
