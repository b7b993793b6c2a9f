"""The health page: the report worked out in the background, kept while what it read is the
same, worked out again when the memory, a log, a cited file or the date changes."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

from agent_memory.cli.ui.actions import Setting
from agent_memory.cli.ui.kept import Kept
from agent_memory.shell.repo import Repo
from conftest import cli
from test_ui import DAY, TODAY, Client, built, repo_root, serving

__all__ = ["built", "repo_root"]  # the fixtures, shared with test_ui
WAITING = 'http-equiv="refresh"'


def aged(root: Path) -> None:
    """Every file of the repo last modified a minute ago, as files not touched while the page is
    asked are: a file modified within two seconds of a key is never trusted."""
    past = time.time_ns() - 60 * 10**9
    for folder, _, names in os.walk(root):
        for name in names:
            os.utime(Path(folder) / name, ns=(past, past), follow_symlinks=False)


def ready(client: Client) -> str:
    """The health page once its report is worked out."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        body = client.ask("GET", "/health").body
        if WAITING not in body:
            return body
        time.sleep(0.05)
    raise AssertionError("the report was not worked out in 60 s")


def sessions_replayed(body: str) -> str:
    return body.split("<h2>In full at session start</h2><p>")[1].split(" sessions replayed")[0]


def test_the_report_is_worked_out_once_and_kept_until_the_memory_changes(repo_root: Path) -> None:
    aged(repo_root)
    with serving(repo_root, Setting(DAY)) as client:
        client.log_in()
        first = client.ask("GET", "/health")
        assert first.status == 200 and WAITING in first.body
        assert "it is being worked out" in first.body and "Until then" not in first.body
        body = ready(client)
        report = cli("report", repo_root, "--json", *TODAY)
        logs = json.loads(report.stdout)["summary"]["totals"]["logs"]
        assert sessions_replayed(body) == str(logs) and "busy" in body.split("Stale")[1]
        assert client.ask("GET", "/health").body == body  # kept: nothing worked out again
        added = cli("fact", "add", "A new decision", repo_root, "--id", "new", *TODAY)
        assert added.exit_code == 0, added.output
        aged(repo_root)
        changed = client.ask("GET", "/health").body
        assert WAITING in changed and "Until then, the report as it was last worked out" in changed
        assert changed.endswith(body.split("<h1>Health</h1>")[1])  # the old one, below
        assert ready(client) != body


def test_a_commit_is_worked_out_again_though_no_file_changed(repo_root: Path) -> None:
    """The report lays each session out on the memory git holds from before it: a commit
    changes that answer, and no file under memory/."""
    aged(repo_root)
    with serving(repo_root, Setting(DAY)) as client:
        client.log_in()
        client.ask("GET", "/health")
        before = ready(client)
        assert "(0 laid out on the memory git holds" in before
        for words in (
            ("add", "-A", "--", ".", ":!memory/sessions"),
            ("commit", "-q", "-m", "the memory"),
            ("add", "-A"),
            ("commit", "-q", "-m", "the sessions"),
        ):
            subprocess.run(["git", *words], cwd=repo_root, check=True, capture_output=True)
        assert WAITING in client.ask("GET", "/health").body
        after = ready(client)
        assert "(0 laid out on the memory git holds" not in after


def test_a_cited_file_a_log_or_the_date_changed_is_worked_out_again(repo_root: Path) -> None:
    repo = Repo(repo_root)
    kept = Kept()

    def settled(setting: Setting) -> str:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            last, now, _ = kept.get(repo, setting)
            if now and last is not None:
                return last.said.out
            time.sleep(0.05)
        raise AssertionError("the report was not worked out in 60 s")

    aged(repo_root)
    before = settled(Setting(DAY))
    assert "stale" in before
    assert kept.get(repo, Setting(DAY))[1]
    (repo_root / "src.txt").write_text("one\ntwo\n")  # the cited lines as they were cited
    aged(repo_root)
    assert not kept.get(repo, Setting(DAY))[1]
    assert settled(Setting(DAY)) != before
    log = repo_root / "memory/sessions/2026-04-05-100000.md"
    log.write_text(log.read_text().replace("Referenced: busy", "Referenced: old"))
    aged(repo_root)
    assert not kept.get(repo, Setting(DAY))[1]
    settled(Setting(DAY))
    assert not kept.get(repo, Setting(None))[1]  # today, not --today's day


def test_a_file_modified_just_now_is_never_trusted(repo_root: Path) -> None:
    """A same-size rewrite within one tick of the clock keeps size and mtime: a result read
    from a file that young is shown but worked out again at the next ask."""
    repo, kept = Repo(repo_root), Kept()
    aged(repo_root)
    (repo_root / "memory/sessions/2026-04-05-100000.md").touch()
    deadline = time.monotonic() + 60
    while kept.get(repo, Setting(DAY))[0] is None:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert not kept.get(repo, Setting(DAY))[1]
    aged(repo_root)
    while not kept.get(repo, Setting(DAY))[1]:
        assert time.monotonic() < deadline
        time.sleep(0.05)


def test_a_report_that_stops_is_its_one_line_on_the_page(repo_root: Path) -> None:
    policy = repo_root / "memory/decay-policy.md"
    policy.write_text(policy.read_text() + "- active_window: many\n")
    aged(repo_root)
    with serving(repo_root, Setting(DAY)) as client:
        client.log_in()
        deadline = time.monotonic() + 60
        while (reply := client.ask("GET", "/health")).status == 200:
            assert WAITING in reply.body and time.monotonic() < deadline
            time.sleep(0.05)
        assert reply.status == 422 and "then run the report again" in reply.body
