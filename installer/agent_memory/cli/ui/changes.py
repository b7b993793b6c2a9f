"""A change, in two steps: its preview (the line's ``--dry-run``: the plan and its diff,
nothing written) and, once confirmed, the same line applied."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from pathlib import Path

from ...commands.runner import Answer
from ...errors import AgentMemoryError
from . import browse, inbox
from .actions import ACTIONS, Refused, Setting, accept_edited, change, edited_text
from .browse import Body, found
from .html import diff, e, form, link, pre
from .inbox import pending

BACK = {"accept": "/inbox", "reject": "/inbox"}


def preview_page(
    root: Path, form_data: Mapping[str, str], setting: Setting, issue: Callable[[], str]
) -> Body:
    name, subject = form_data.get("action", ""), form_data.get("subject", "")
    _refuse_if_changed(root, form_data)
    said = _run(root, form_data, True, setting)
    body = [f"<p>{e(' '.join(ACTIONS[name].words))} {e(subject)}: nothing is written yet.</p>"]
    if said.code != 0:
        raise _failed(said)
    if _edited(form_data) is not None:
        body.append(
            "<p>Accepted with its text edited: <code>fact accept</code>, then <code>fact "
            "edit</code> of the fact it makes, written together as one change.</p>"
        )
    body.append(diff(said.out.rstrip("\n")))
    more = ("rendered", "text", "proposed") if name == "accept" else ("rendered",)
    kept = {k: form_data.get(k, "") for k in ("action", "subject", *ACTIONS[name].fields, *more)}
    kept["seen"] = _digest(said.out)
    body.append(form("/apply", issue(), [], f"Apply: {ACTIONS[name].label}", hidden=kept))
    body.append(_back(name, subject))
    return body


def apply_page(root: Path, form_data: Mapping[str, str], setting: Setting) -> Body:
    name, subject = form_data.get("action", ""), form_data.get("subject", "")
    _refuse_if_changed(root, form_data)
    again = _run(root, form_data, True, setting)
    if again.code != 0 or _digest(again.out) != form_data.get("seen"):
        raise Refused(
            "the memory changed since the preview, so this change would not be the one shown: "
            "nothing was written; go back and preview it again"
        )
    done = _run(root, form_data, False, setting)
    if done.code != 0:
        raise _failed(done)
    return [f'<div class="notice">{pre(done.out.rstrip())}</div>', _back(name, subject)]


def _run(root: Path, form_data: Mapping[str, str], preview: bool, setting: Setting) -> Answer:
    """The form's change: its line's plan, previewed or applied; an accept with its text edited
    is one plan of both steps."""
    name, subject = form_data.get("action", ""), form_data.get("subject", "")
    text = _edited(form_data)
    if text is not None:
        return accept_edited(subject, text, root, preview, setting)
    return change(name, subject, form_data, root, preview, setting)


def _edited(form_data: Mapping[str, str]) -> str | None:
    if form_data.get("action") != "accept":
        return None
    return edited_text(form_data, form_data.get("proposed", ""))


def _refuse_if_changed(root: Path, form_data: Mapping[str, str]) -> None:
    """Refuse a form whose page showed its fact (or proposal) otherwise than the memory holds it
    now: the change would be made to what the person did not see."""
    action = ACTIONS.get(form_data.get("action", ""))
    subject, shown = form_data.get("subject", ""), form_data.get("rendered")
    if action is None:
        return  # the line refuses an action it does not know
    if action.subject == "address":
        now = {p["address"]: p["text"] for p in pending(root)}
        if inbox.rendered(subject, now.get(subject)) != shown:
            raise Refused(
                "this proposal was accepted, rejected or changed since the page was rendered: "
                "nothing was written; reload the inbox"
            )
        return
    _, _, doc, fact = found(root, subject)  # a fact gone since says so, as the line would
    if browse.rendered(doc, fact) != shown:
        raise Refused("this fact changed since the page was rendered; reload it")


def _failed(said: Answer) -> AgentMemoryError | OSError:
    """The line's own error, for the page's runner to word as the command line does."""
    return said.error if said.error is not None else Refused(said.out.strip())


def _digest(previewed: str) -> str:
    """What the preview showed, as the apply form carries it back."""
    return hashlib.sha256(previewed.encode("utf-8")).hexdigest()


def _back(name: str, subject: str) -> str:
    where = BACK.get(name)
    if where is not None:
        return f'<p><a href="{link(where)}">Back</a></p>'
    return f'<p><a href="{link("/fact", {"id": subject})}">Back to {e(subject)}</a></p>'
