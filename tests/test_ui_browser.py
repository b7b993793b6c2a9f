"""``agent-memory ui`` as a person uses it: Debian's chromium, driven by playwright, opens the
printed address, accepts a proposal in the inbox and rejects another with a reason, edits a fact
after reading the diff, retracts another; the repo then holds what the command line would have
written, byte for byte.

Skipped, saying why, where the browser or playwright is missing (as ``test_report_browser``).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_memory.cli.ui.actions import Setting
from conftest import cli, tree
from test_report_browser import CHROMIUM, FLAGS, _browser
from test_ui import DAY, PROPOSAL, SECOND, TODAY, _memory, serving


@pytest.fixture
def root(tmp_path: Path) -> Iterator[Path]:
    yield _memory(tmp_path / "repo")


def test_a_person_accepts_rejects_edits_and_retracts_in_chromium(
    root: Path, tmp_path: Path
) -> None:
    sync_api = _browser()
    twin = Path(shutil.copytree(root, tmp_path / "twin"))
    errors: list[str] = []
    outside: list[str] = []
    with serving(root, Setting(DAY)) as client, sync_api.sync_playwright() as driver:
        home = client.server.address  # every request stays under the token's folder
        browser = driver.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1100, "height": 900})
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on(
                "request",
                lambda r: None if r.url.startswith(home) else outside.append(r.url),
            )
            page.goto(client.server.address)
            assert page.url == home
            assert "Busy decision" in page.inner_text("main")
            page.screenshot(path=str(tmp_path / "memory.png"), full_page=True)

            page.click("text=Inbox")
            page.screenshot(path=str(tmp_path / "inbox.png"), full_page=True)
            card = page.locator("div.fact", has_text="one").first
            card.locator("button", has_text="Accept: preview").click()
            assert "+- one" in page.inner_text("pre.diff")
            page.click("text=Apply: Accept")
            assert PROPOSAL in page.inner_text("main")

            page.click("text=Back")
            card = page.locator("div.fact", has_text=SECOND).first
            card.locator("input[name=reason]").fill("not how we <decide>")
            card.locator("button", has_text="Reject: preview").click()
            assert "memory/rejected.md" in page.inner_text("pre.diff")
            page.click("text=Apply: Reject")
            assert f"{SECOND} rejected" in page.inner_text("main")
            page.click("text=Back")
            assert "No proposals pending" in page.inner_text("main")

            page.goto(f"{home}fact?id=old")
            edit = page.locator("form", has=page.locator("input[value=edit]"))
            edit.locator("textarea").fill("Old decision, now <b>bold</b>\nand a second line")
            edit.locator("button").click()
            diff = page.inner_text("pre.diff")
            assert "-- Old <decision> & `quoted`" in diff
            assert "+- Old decision, now <b>bold</b>" in diff
            page.screenshot(path=str(tmp_path / "diff.png"), full_page=True)
            page.click("text=Apply: Edit")

            page.goto(f"{home}fact?id=busy")
            retract = page.locator("form", has=page.locator("input[value=retract]"))
            retract.locator("input[name=reason]").fill("replaced by the queue")
            retract.locator("button").click()
            page.click("text=Apply: Retract")
            assert "retract" in page.inner_text("main")

            page.goto(f"{home}fact?id=evil")
            assert page.title() != "owned" and page.locator("main img").count() == 0
            page.goto(f"{home}health")  # worked out in the background, then
            assert "being worked out" in page.inner_text("main")  # reloaded by the page itself
            page.wait_for_selector("text=In full at session start", timeout=60_000)
            page.screenshot(path=str(tmp_path / "health.png"), full_page=True)
            page.goto(f"{home}fact?id=old")
            page.screenshot(path=str(tmp_path / "fact.png"), full_page=False)
        finally:
            browser.close()
    for words in (
        ("fact", "accept", PROPOSAL),
        ("fact", "reject", SECOND, "--reason", "not how we <decide>"),
        ("fact", "edit", "old", "Old decision, now <b>bold</b>\nand a second line"),
        ("fact", "retract", "busy", "--reason", "replaced by the queue"),
    ):
        assert cli(*words, twin, *TODAY).exit_code == 0
    rejected = (root / "memory/rejected.md").read_bytes()
    assert rejected == (twin / "memory/rejected.md").read_bytes() and SECOND.encode() in rejected
    assert tree(root) == tree(twin)
    assert errors == []
    assert outside == []
    for shot in ("memory", "inbox", "diff", "fact", "health"):
        assert (tmp_path / f"{shot}.png").stat().st_size > 10_000
