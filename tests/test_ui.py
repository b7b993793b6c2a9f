"""``agent-memory ui``: a real server on 127.0.0.1, asked as a browser and as an attacker would.

Each change the pages make is held to the command line's: the same repo, changed once through the
page and once through the CLI, ends byte for byte the same.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import gc
import html
import http.client
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import NamedTuple
from urllib.parse import urlencode

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from agent_memory.cli.ui import guard
from agent_memory.cli.ui.actions import Setting
from agent_memory.cli.ui.browse import NOTED
from agent_memory.cli.ui.guard import POLICY, Guard
from agent_memory.cli.ui.html import diff, e
from agent_memory.cli.ui.server import Server
from agent_memory.layout import JOURNAL_DIR, LOCK_FILE
from agent_memory.parse.untrusted import shown
from agent_memory.shell.repo import Repo
from conftest import cli, tree
from test_report import history

DAY = dt.date(2026, 4, 6)
TODAY = ["--today", DAY.isoformat()]
PROPOSAL = "2026-04-05-100000#1"
SECOND = "2026-04-05-100000#2"
SCRIPT = '<script>document.title="owned"</script> & <img src=x onerror=alert(1)>'


class Reply(NamedTuple):
    status: int
    headers: Mapping[str, str]
    body: str


class Client:
    """Raw HTTP to the server, so that every header is the test's to choose."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.port = server.server_address[1]
        self.host = f"127.0.0.1:{self.port}"
        self.origin = f"http://{self.host}"
        self.prefix = ""  # the token's folder, once the printed address is opened

    def ask(self, method: str, path: str, body: str | None = None, **headers: str) -> Reply:
        """``path`` under the token's folder, once the address is opened (``log_in``)."""
        sent = {"Host": self.host}
        sent.update({k.replace("_", "-"): v for k, v in headers.items()})
        if body is not None:
            sent.setdefault("Content-Type", "application/x-www-form-urlencoded")
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            target = self.prefix + path
            connection.putrequest(method, target, skip_host=True, skip_accept_encoding=True)
            for name, value in sent.items():
                connection.putheader(name, value)
            data = body.encode() if body is not None else None
            if data is not None:
                connection.putheader("Content-Length", str(len(data)))
            connection.endheaders(data)
            got = connection.getresponse()
            return Reply(got.status, dict(got.getheaders()), got.read().decode())
        finally:
            connection.close()

    def log_in(self) -> None:
        """Open the printed address: every page after it is under the token's folder."""
        assert self.server.address == f"{self.origin}/{self.server.guard.token}/"
        self.prefix = f"/{self.server.guard.token}"

    def post(self, path: str, form: Mapping[str, str], **headers: str) -> Reply:
        return self.ask("POST", path, urlencode(form), **{"Origin": self.origin, **headers})

    def hidden_of(self, page: str, action: str, subject: str | None = None) -> dict[str, str]:
        """The hidden fields (its token, what the page showed) of ``page``'s ``action`` form
        (the one for ``subject``, else the first), as a browser would post them."""
        for fields in forms(self.ask("GET", page).body):
            if fields.get("action") == action and subject in (None, fields.get("subject")):
                return fields
        raise AssertionError(f"no {action} form on {page}")

    def change(self, page: str, action: str, subject: str, **fields: str) -> Reply:
        """Preview ``action`` from ``page``'s form, then apply it from the preview's form."""
        form = {"action": action, "subject": subject, **fields}
        preview = self.post("/preview", {**self.hidden_of(page, action, subject), **form})
        assert preview.status == 200, preview.body
        return self.post("/apply", applying(preview.body))


def forms(body: str) -> list[dict[str, str]]:
    """Each POST form's hidden fields, as a browser sends them."""
    return [
        {
            k: html.unescape(v)
            for k, v in re.findall(r'type="hidden" name="([^"]+)" value="([^"]*)"', f)
        }
        for f in re.findall(r'<form class="action" method="post"[^>]*>(.*?)</form>', body, re.S)
    ]


def applying(preview: str) -> dict[str, str]:
    """What the preview's Apply button posts: its form's hidden fields, as a browser sends them."""
    found = re.search(
        r'<form class="action" method="post" action="apply">(.*?)</form>', preview, re.S
    )
    assert found is not None, preview
    return forms(found.group(0))[0]


@contextlib.contextmanager
def serving(root: Path, setting: Setting) -> Iterator[Client]:
    server = Server(root, "repo", setting)
    thread = threading.Thread(target=server.serve_forever)
    thread.start()
    try:
        yield Client(server)
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def _memory(root: Path) -> Path:
    history(root)
    added = cli("fact", "add", SCRIPT, root, "--id", "evil", *TODAY)
    assert added.exit_code == 0, added.output
    return root


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _memory(tmp_path_factory.mktemp("ui") / "repo")


@pytest.fixture
def repo_root(built: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(built, tmp_path / "repo", symlinks=True))


@pytest.fixture
def client(repo_root: Path) -> Iterator[Client]:
    with serving(repo_root, Setting(DAY)) as served:
        yield served


def test_the_token_is_the_address_s_first_folder_and_no_cookie_is_set(client: Client) -> None:
    """A cookie of 127.0.0.1 goes to every port of it (another local server would get the
    token; a second ``ui`` would overwrite it): the token is in every address instead."""
    token = client.server.guard.token
    for path in ("/", "/fact?id=busy", "/inbox", "/health", "/style.css", f"/?t={token}"):
        refused = client.ask("GET", path, Cookie=f"agent_memory_ui={token}")
        assert refused.status == 403 and "busy" not in refused.body
    for path in ("/wrong/", f"/{token[:-1]}/", f"/{token}x/", f"/x/{token}/"):
        assert client.ask("GET", path).status == 403, path
    sent_on = client.ask("GET", f"/{token}")
    assert sent_on.status == 303 and sent_on.headers["Location"] == f"/{token}/"
    client.log_in()
    # another local app's cookie that the standard library's parser gives up on is no matter
    home = client.ask("GET", "/", Cookie='prefs={"theme":"dark"}; other=1')
    assert home.status == 200 and "Busy decision" in home.body
    assert "Set-Cookie" not in home.headers and home.headers["Referrer-Policy"] == "same-origin"
    # every address a page names is relative, so it stays under the token's folder
    named = re.findall(r'(?:href|action)="([^"]*)"', home.body)
    assert named and not [n for n in named if n.startswith(("/", "http", "//"))], named
    with serving(client.server.root, Setting(DAY)) as second:
        assert client.ask("GET", "/").status == 200  # a second server locks no one out
        second.log_in()
        assert second.ask("GET", "/").status == 200
        second.prefix = client.prefix
        assert second.ask("GET", "/").status == 403


def test_a_wrong_host_is_refused_even_with_the_token(client: Client) -> None:
    client.log_in()
    for host in (
        "evil.example",
        f"evil.example:{client.port}",
        f"localhost:{client.port}",
        "127.0.0.1",
        f"127.0.0.1:{client.port + 1}",
    ):
        reply = client.ask("GET", "/", Host=host)
        assert reply.status == 403 and "Busy" not in reply.body, host


def test_a_cross_origin_post_changes_nothing(client: Client, repo_root: Path) -> None:
    client.log_in()
    before = tree(repo_root)
    form = {"action": "retract", "subject": "busy", "reason": "x"}
    for origin in (
        {"Origin": "http://evil.example"},
        {"Origin": "null"},
        {"Origin": f"http://localhost:{client.port}"},
    ):
        token = client.hidden_of("/fact?id=busy", "retract")
        assert client.post("/apply", {**token, **form}, **origin).status == 403
    # no Origin: the Referer must be a page of this server
    token = client.hidden_of("/fact?id=busy", "retract")
    no_origin = client.ask(
        "POST", "/apply", urlencode({**token, **form}), Referer="http://evil.example/"
    )
    assert no_origin.status == 403
    # same origin, but a token never issued, or one used already
    assert client.post("/apply", {**form, "csrf": "made-up"}).status == 403
    assert client.post("/apply", form).status == 403
    assert tree(repo_root) == before
    token = client.hidden_of("/fact?id=busy", "retract")
    assert client.post("/preview", {**token, **form}).status == 200
    assert client.post("/apply", {**token, **form}).status == 403  # the preview's, not the apply's
    assert tree(repo_root) == before


def test_every_form_of_a_page_just_rendered_works_however_many_it_holds(
    client: Client, repo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One token per page, shared by its forms: an inbox of thousands of proposals, or a fact's
    page among hundreds opened, expires no form of the page last rendered."""
    client.log_in()
    monkeypatch.setattr(guard, "ISSUED_MOST", 6)  # fewer than a fact's page has forms
    log = repo_root / "memory/sessions/2026-04-05-120000.md"
    log.write_text(
        "## Proposed Facts\n" + "".join(f"{n}. decision: Rule {n}\n" for n in range(1, 9))
    )
    for page in ("/fact?id=old", "/inbox"):
        body = client.ask("GET", page).body
        tokens = set(re.findall(r'name="csrf" value="([^"]+)"', body))
        assert len(tokens) == 1 and body.count('name="csrf"') > 6, page
    first = client.hidden_of("/fact?id=old", "edit")
    for name, fields in (("edit", {"text": "Old, edited"}), ("pin", {}), ("archive", {})):
        form = {**first, "action": name, "subject": "old", **fields}
        assert client.post("/preview", form).status == 200, name
    preview = client.post("/preview", {**first, "action": "pin"})
    assert client.post("/apply", {**applying(preview.body), "csrf": first["csrf"]}).status == 403
    assert client.post("/apply", applying(preview.body)).status == 200
    assert client.post("/apply", applying(preview.body)).status == 403  # good once


def test_a_facts_script_is_inert_text_under_a_strict_policy(client: Client) -> None:
    client.log_in()
    for path in ("/", "/fact?id=evil", "/?q=owned", "/health"):
        reply = client.ask("GET", path)
        assert reply.status == 200, path
        assert reply.headers["Content-Security-Policy"] == POLICY
        assert reply.headers["X-Content-Type-Options"] == "nosniff"
        assert "<script" not in reply.body and "<img" not in reply.body
    shown = client.ask("GET", "/fact?id=evil").body
    assert "&lt;script&gt;document.title=&quot;owned&quot;&lt;/script&gt; &amp; &lt;img" in shown
    assert "script-src" not in POLICY and POLICY.startswith("default-src 'none'")


def test_the_standard_library_s_own_error_pages_carry_the_headers_too(client: Client) -> None:
    for method in ("PUT", "DELETE", "OPTIONS", "TRACE", "PATCH", "HEAD"):
        reply = client.ask(method, "/")
        assert reply.status == 501, method
        assert reply.headers["Content-Security-Policy"] == POLICY, method
        assert reply.headers["X-Frame-Options"] == "DENY", method
    for line in (b"GET /a b HTTP/1.1\r\n\r\n", b"GET /" + b"a" * 70_000 + b" HTTP/1.1\r\n\r\n"):
        with socket.create_connection(("127.0.0.1", client.port), timeout=30) as raw:
            raw.sendall(line)
            head = raw.makefile("rb").read().split(b"\r\n\r\n")[0].decode()
        assert head.split()[1] in ("400", "414"), head
        assert f"Content-Security-Policy: {POLICY}" in head and "nosniff" in head, head


def test_nothing_is_served_but_the_pages_and_their_own_assets(client: Client) -> None:
    client.log_in()
    for path in (
        "/memory/continuity.md",
        "/../../etc/passwd",
        "/style.css/../memory",
        "/%2e%2e/memory/continuity.md",
        "//etc/passwd",
        "/static/../../VERSION",
    ):
        reply = client.ask("GET", path)
        assert reply.status == 404 and "id:" not in reply.body, path
    assert client.ask("GET", "/style.css").headers["Content-Type"].startswith("text/css")


def test_read_only_offers_no_change_and_takes_none(repo_root: Path) -> None:
    before = tree(repo_root)
    with serving(repo_root, Setting(DAY, read_only=True)) as client:
        client.log_in()
        for path in ("/fact?id=busy", "/inbox"):
            body = client.ask("GET", path).body
            assert "<form" not in body.replace('<form method="get"', "")
        form = {"action": "pin", "subject": "busy", "csrf": client.server.guard.issue("/apply")}
        assert client.post("/apply", form).status == 403
    assert tree(repo_root) == before


def test_each_change_writes_what_the_command_line_writes(repo_root: Path, tmp_path: Path) -> None:
    twin = tmp_path / "twin"
    shutil.copytree(repo_root, twin)
    with serving(repo_root, Setting(DAY)) as client:
        client.log_in()
        page = "/fact?id=old"
        assert client.change(page, "edit", "old", text="Old decision,\r\nreworded").status == 200
        assert client.change(page, "relate", "old", other="freeze").status == 200
        assert client.change(page, "expire", "old", until="2026-09-30").status == 200
        assert client.change("/fact?id=freeze", "pin", "freeze").status == 200
        assert client.change("/fact?id=evil", "cite", "evil", place="src.txt:1-2").status == 200
        assert client.change("/fact?id=evil", "archive", "evil").status == 200
        assert client.change("/fact?id=busy", "retract", "busy", reason="gone <now>").status == 200
        assert client.change("/inbox", "accept", PROPOSAL).status == 200
        assert client.change("/inbox", "reject", SECOND, reason="not <ours>").status == 200
    for words in (
        ("fact", "edit", "old", "Old decision,\nreworded"),
        ("fact", "relate", "old", "freeze"),
        ("fact", "expire", "old", "2026-09-30"),
        ("fact", "pin", "freeze"),
        ("fact", "cite", "evil", "src.txt:1-2"),
        ("fact", "archive", "evil"),
        ("fact", "retract", "busy", "--reason", "gone <now>"),
        ("fact", "accept", PROPOSAL),
        ("fact", "reject", SECOND, "--reason", "not <ours>"),
    ):
        done = cli(*words, twin, *TODAY)
        assert done.exit_code == 0, done.output
    assert tree(repo_root) == tree(twin)


def test_edit_then_accept_is_accept_then_edit_of_the_fact_it_made(
    repo_root: Path, tmp_path: Path
) -> None:
    twin = Path(shutil.copytree(repo_root, tmp_path / "twin"))
    second = SECOND
    with serving(repo_root, Setting(DAY)) as client:
        client.log_in()
        form = {"action": "accept", "subject": second, "proposed": "two", "text": "two, reworded"}
        preview = client.post("/preview", {**client.hidden_of("/inbox", "accept", second), **form})
        assert preview.status == 200 and "two, reworded" in preview.body
        applied = client.post("/apply", applying(preview.body))
        assert applied.status == 200 and 'class="error"' not in applied.body
        unchanged = {**form, "subject": PROPOSAL, "proposed": "one", "text": "one\r\n"}
        preview = client.post("/preview", {**client.hidden_of("/inbox", "accept"), **unchanged})
        assert "fact edit</code>" not in preview.body
    made = re.search(r"\S+ \u2192 (\S+) ", cli("fact", "accept", second, twin, *TODAY).output)
    assert made is not None
    assert cli("fact", "edit", made.group(1), "two, reworded", twin, *TODAY).exit_code == 0
    assert tree(repo_root) == tree(twin)


def test_an_edited_text_fact_edit_refuses_refuses_the_acceptance_and_writes_nothing(
    client: Client, repo_root: Path
) -> None:
    """Edit-then-accept is one plan: a text ``fact edit`` would refuse is found by the preview,
    and the apply writes neither the acceptance nor the edit."""
    client.log_in()
    before = tree(repo_root)
    text = "The API uses JSON only <!-- see RFC -->"
    form = {"action": "accept", "subject": SECOND, "proposed": "two", "text": text}
    preview = client.post("/preview", {**client.hidden_of("/inbox", "accept", SECOND), **form})
    assert preview.status == 422 and "holds an HTML comment" in preview.body
    # an apply posted with the digest of the plain acceptance's preview
    token = client.hidden_of("/inbox", "accept", SECOND)
    unedited = client.post("/preview", {**token, **form, "text": "two"})
    applied = client.post("/apply", {**applying(unedited.body), "text": text})
    assert applied.status == 422 and tree(repo_root) == before


def test_the_preview_is_the_dry_run_and_writes_nothing(client: Client, repo_root: Path) -> None:
    client.log_in()
    before = tree(repo_root)
    form = {"action": "pin", "subject": "old"}
    preview = client.post("/preview", {**client.hidden_of("/fact?id=old", "pin"), **form})
    dry = cli("fact", "pin", "old", repo_root, "--dry-run", *TODAY).output
    assert preview.status == 200 and tree(repo_root) == before
    shown = re.search(r'<pre class="diff">(.*?)</pre>', preview.body, re.S)
    assert shown is not None and "+- Old" not in dry
    assert html.unescape(re.sub(r"</?span[^>]*>", "", shown.group(1))) == dry.rstrip("\n")
    assert '<span class="add">' in shown.group(1) and '<span class="del">' in shown.group(1)


def test_a_refused_change_is_one_line_on_the_page_and_writes_nothing(
    client: Client, repo_root: Path
) -> None:
    client.log_in()
    before = tree(repo_root)
    token = client.hidden_of("/fact?id=old", "expire")
    bad = client.post("/preview", {**token, "action": "expire", "subject": "old", "until": "soon"})
    assert bad.status == 422 and "is not a date" in bad.body
    token = client.hidden_of("/fact?id=old", "relate")
    missing = client.post(
        "/preview", {**token, "action": "relate", "subject": "old", "other": "nope"}
    )
    assert "nope" in missing.body and 'class="error"' in missing.body
    assert tree(repo_root) == before


def test_a_reject_without_a_reason_is_one_line_and_writes_nothing(
    client: Client, repo_root: Path
) -> None:
    client.log_in()
    before = tree(repo_root)
    form = {"action": "reject", "subject": PROPOSAL, "reason": " \r\n "}
    bad = client.post("/preview", {**client.hidden_of("/inbox", "reject"), **form})
    assert bad.status == 422
    error = re.search(r'<div class="error">(.*?)</div>', bad.body, re.S)
    assert error is not None and error.group(1).strip() == (
        "agent-memory: reason is needed to reject a proposal"
    )
    assert tree(repo_root) == before
    assert "No proposals pending" not in client.ask("GET", "/inbox").body


def test_the_conflicting_filter_links_each_fact_to_the_one_it_may_contradict(
    client: Client, repo_root: Path
) -> None:
    client.log_in()
    for text, fact_id in (("The CI runs Python 3.11", "py11"), ("The CI runs Python 3.12", "py12")):
        added = cli("fact", "add", text, repo_root, "--id", fact_id, *TODAY)
        assert added.exit_code == 0, added.output
    body = client.ask("GET", "/?filter=conflicting").body
    cards = dict(
        re.findall(r'<a href="fact\?id=(\w+)">\1</a> <span.*?may contradict (.*?)</p>', body)
    )
    assert set(cards) == {"py11", "py12"}
    assert 'href="fact?id=py12"' in cards["py11"] and 'href="fact?id=py11"' in cards["py12"]
    assert "3.11" in cards["py11"] and 'href="fact?id=old"' not in body
    page = client.ask("GET", "/fact?id=py11").body
    named = page.split("<h2>May contradict</h2>")[1]
    assert 'href="fact?id=py12"' in named and "The CI runs Python 3.12" in named
    assert "<h2>May contradict</h2><p>None.</p>" in client.ask("GET", "/fact?id=old").body
    assert cli("fact", "relate", "py11", "py12", repo_root, *TODAY).exit_code == 0  # see: py12
    assert "<h2>May contradict</h2><p>None.</p>" in client.ask("GET", "/fact?id=py11").body
    assert "py11" not in client.ask("GET", "/?filter=conflicting").body


def test_a_note_names_the_first_few_a_fact_may_contradict_and_counts_the_rest(
    client: Client, repo_root: Path
) -> None:
    """A fact like a thousand others would make a page of megabytes: its card names NOTED of
    them; its own page lists every one."""
    client.log_in()
    for n in range(NOTED + 3):
        text = f"The worker pool size is {10 + n}"
        assert cli("fact", "add", text, repo_root, "--id", f"pool{n}", *TODAY).exit_code == 0
    body = client.ask("GET", "/?filter=conflicting").body
    first = re.search(r'<a href="fact\?id=pool0">pool0</a> <span.*?may contradict (.*?)</p>', body)
    assert first is not None
    assert first.group(1).count('<a href="fact?id=pool') == NOTED
    assert first.group(1).endswith(" and 2 more (its page lists them)")
    page = client.ask("GET", "/fact?id=pool0").body.split("<h2>May contradict</h2>")[1]
    assert all(f'href="fact?id=pool{n}"' in page for n in range(1, NOTED + 3))


def test_a_fact_s_page_finds_it_and_its_related_facts_in_the_archive(
    client: Client, repo_root: Path
) -> None:
    """The page reads the archive files that hold the fact or a fact related to it, as
    ``explain`` does, not the whole archive."""
    client.log_in()
    assert "id: gone |" in (repo_root / "memory/archive/2026-Q2.md").read_text()  # archived
    gone = client.ask("GET", "/fact?id=gone")
    assert gone.status == 200 and "Never needed again" in gone.body
    assert "Restore: preview" in gone.body
    assert cli("fact", "relate", "old", "gone", repo_root, *TODAY).exit_code == 0
    related = client.ask("GET", "/fact?id=old").body.split("<h2>Related facts</h2>")[1]
    assert 'href="fact?id=gone"' in related.split("<h2>")[0]
    back = client.ask("GET", "/fact?id=gone").body.split("<h2>Related facts</h2>")[1]
    assert 'href="fact?id=old"' in back.split("<h2>")[0]
    assert client.ask("GET", "/fact?id=nothing").status == 422


def test_the_inbox_names_the_facts_a_proposal_may_contradict(
    client: Client, repo_root: Path
) -> None:
    client.log_in()
    assert cli("fact", "add", "The CI runs Python 3.11", repo_root, "--id", "py11").exit_code == 0
    log = repo_root / "memory/sessions/2026-04-05-120000.md"
    log.write_text("## Proposed Facts\n1. decision: The CI runs Python 3.12\n")
    body = client.ask("GET", "/inbox").body
    cards = body.split('<div class="fact">')
    clash = next(c for c in cards if "2026-04-05-120000#1" in c)
    assert 'may contradict (version: python: 3.12 / 3.11): <a href="fact?id=py11">' in clash
    assert all("may contradict" not in c for c in cards if c is not clash)


def test_a_control_character_in_a_proposal_is_shown_as_the_command_line_shows_it(
    client: Client, repo_root: Path
) -> None:
    client.log_in()
    log = repo_root / "memory/sessions/2026-04-05-120000.md"
    log.write_text("## Proposed Facts\n1. decision: Nul\x00 and bell\x07 here\n")
    body = client.ask("GET", "/inbox").body
    assert "Nul\\x00 and bell\\x07 here" in body
    assert not {"\x00", "\x07"} & set(body)


def test_the_memory_page_shows_each_section_by_tier_core_first(
    client: Client, repo_root: Path
) -> None:
    client.log_in()
    assert cli("fact", "pin", "evil", repo_root, *TODAY).exit_code == 0
    body = client.ask("GET", "/").body
    order = [body.index(f'href="fact?id={i}"') for i in ("evil", "old", "busy", "freeze")]
    assert order == sorted(order)  # evil, pinned, before the active ones written above it
    pinned = client.ask("GET", "/?filter=pinned").body
    assert 'href="fact?id=evil"' in pinned and 'href="fact?id=old"' not in pinned


def test_the_pages_read_while_a_command_line_run_holds_the_lock(client: Client) -> None:
    client.log_in()
    with Repo(client.server.root).locked():
        for path in ("/", "/fact?id=old", "/inbox", "/health", "/?q=decision"):
            reply = client.ask("GET", path)
            assert reply.status == 200 and 'class="error"' not in reply.body, path


def test_a_change_is_applied_only_as_previewed(client: Client, repo_root: Path) -> None:
    client.log_in()
    form = {"action": "edit", "subject": "old", "text": "Old, as previewed"}
    preview = client.post("/preview", {**client.hidden_of("/fact?id=old", "edit"), **form})
    # the fact below it changed: this one did not, the file the plan rewrites did
    assert cli("fact", "edit", "busy", "Busy, reworded", repo_root, *TODAY).exit_code == 0
    before = tree(repo_root)
    stale = client.post("/apply", applying(preview.body))
    assert stale.status == 422 and "changed since the preview" in stale.body
    assert tree(repo_root) == before


def test_a_change_from_a_page_of_before_is_refused_in_one_line(
    client: Client, repo_root: Path
) -> None:
    """A fact or a proposal that changed since its page was rendered is not acted on: the
    change would be made to what the person did not see."""
    client.log_in()
    form = client.hidden_of("/fact?id=old", "edit")
    accept = client.hidden_of("/inbox", "accept", PROPOSAL)
    assert cli("fact", "edit", "old", "Old, changed elsewhere", repo_root, *TODAY).exit_code == 0
    rejected = cli("fact", "reject", PROPOSAL, "--reason", "no", repo_root, *TODAY)
    assert rejected.exit_code == 0, rejected.output
    before = tree(repo_root)
    for sent, said in (
        ({**form, "text": "Old, as I saw it"}, "this fact changed since the page was rendered"),
        (accept, "this proposal was accepted, rejected or changed since the page was rendered"),
    ):
        reply = client.post("/preview", sent)
        error = re.search(r'<div class="error">(.*?)</div>', reply.body, re.S)
        assert reply.status == 422 and error is not None and said in error.group(1)
        assert error.group(1).count("\n") == 1
    assert tree(repo_root) == before


def test_a_change_while_a_command_line_run_holds_the_lock_is_refused(
    client: Client, repo_root: Path
) -> None:
    client.log_in()
    before = tree(repo_root)
    preview = client.post("/preview", client.hidden_of("/fact?id=old", "pin"))
    with Repo(repo_root).locked():
        held = client.post("/apply", applying(preview.body))
        assert 'class="error"' in held.body and "lock" in held.body
        assert "tier: core" not in (repo_root / "memory/continuity.md").read_text()
    assert {k: v for k, v in tree(repo_root).items() if k != LOCK_FILE} == before


def test_ctrl_c_stops_the_server_and_leaves_no_journal_or_lock(repo_root: Path) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "agent_memory", "ui", str(repo_root), "--no-browser", *TODAY],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:(\d+)/([\w-]+)/", first)
        assert found is not None, first
        # a browser's connection, kept open and idle: Ctrl-C does not wait for it
        connection = http.client.HTTPConnection("127.0.0.1", int(found.group(1)), timeout=30)
        connection.request("GET", f"/{found.group(2)}")
        reply = connection.getresponse()
        assert reply.status == 303 and reply.read() == b""
        process.send_signal(signal.SIGINT)
        _out, err = process.communicate(timeout=20)
        connection.close()
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, err
    assert "Traceback" not in err
    assert not (repo_root / JOURNAL_DIR).exists() and not (repo_root / LOCK_FILE).exists()


def test_a_failed_request_is_one_line_and_a_closed_connection_none(
    client: Client, capsys: pytest.CaptureFixture[str]
) -> None:
    for raised, said in ((BrokenPipeError(32, "Broken pipe"), ""), (ValueError("bad"), "bad")):
        try:
            raise raised
        except Exception:
            client.server.handle_error(None, ("127.0.0.1", 1))
        err = capsys.readouterr().err
        assert "Traceback" not in err and (said in err if said else err == "")
        assert err.count("\n") == (1 if said else 0)


def test_a_port_taken_or_out_of_range_is_one_line_and_exit_1(repo_root: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        for given in ("70000", str(port)):
            argv = ["ui", str(repo_root), "--no-browser", "--port", given]
            done = subprocess.run(
                [sys.executable, "-m", "agent_memory", *argv],
                capture_output=True,
                text=True,
                timeout=60,
            )
            assert done.returncode == 1, done
            assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1, done.stderr
        taken_said = f"cannot listen on 127.0.0.1:{port} (Address already in use); pass another "
        assert taken_said + "--port, or --port 0 for a free one" in done.stderr


@given(st.text())
@example("\r\n")  # a CRLF line's end: the diff showed its CR as \x0d, the command line as it is
def test_any_text_is_inert_and_given_back_whole(text: str) -> None:
    made = e(text)
    assert not set("<>\"'") & set(made)
    assert html.unescape(made) == shown(text)  # a control character as the command line shows it
    made = diff(text)
    inner = made.removeprefix('<pre class="diff">').removesuffix("</pre>")
    assert html.unescape(re.sub(r'</?span(?: class="(?:add|del)")?>', "", inner)) == shown(text)
    assert "<" not in re.sub(r'</?span(?: class="(?:add|del)")?>', "", inner)


@given(st.text(), st.text())
def test_only_the_exact_origin_may_write(origin: str, referer: str) -> None:
    guard = Guard("127.0.0.1", 8123, "token")
    assert guard.same_origin(origin, referer) == (origin == "http://127.0.0.1:8123")
    assert guard.same_origin(None, referer) == referer.startswith("http://127.0.0.1:8123/")
    assert not guard.token_ok(None) and guard.token_ok("token") and not guard.token_ok("t")


@given(st.text())
def test_only_an_address_under_the_token_s_folder_is_a_page(path: str) -> None:
    guard = Guard("127.0.0.1", 8123, "token")
    inside = guard.inside(path)
    assert (inside is not None) == path.removeprefix("/").startswith("token/")
    assert inside is None or path.removeprefix("/").removeprefix("token") == inside
    assert guard.inside("/token/fact") == "/fact" and guard.inside("/token/") == "/"


def test_closing_waits_for_the_answers_under_way_and_takes_no_new_one(repo_root: Path) -> None:
    server = Server(repo_root, "repo", Setting(DAY))
    started, finished = threading.Event(), threading.Event()

    def answer() -> None:
        with server.working() as open_:
            assert open_
            started.set()
            finished.wait(0.5)  # a change being applied
            finished.set()

    worker = threading.Thread(target=answer)
    worker.start()
    started.wait(10)
    server.server_close()
    assert finished.is_set()  # close returned only once the answer was done
    with server.working() as open_:
        assert not open_
    worker.join()


def test_the_personal_filter_shows_the_user_s_own_facts_and_shares_one_as_the_cli(
    repo_root: Path, tmp_path: Path
) -> None:
    mine = "I review diffs side by side"
    added = cli("fact", "add", "--personal", mine, "--id", "side", repo_root, *TODAY)
    assert added.exit_code == 0, added.output
    twin = Path(shutil.copytree(repo_root, tmp_path / "twin", symlinks=True))
    with serving(repo_root, Setting(DAY)) as client:
        client.log_in()
        page = client.ask("GET", "/?filter=personal").body
        assert mine in page and "memory/personal.md" in page and "Old decision" not in page
        assert mine in client.ask("GET", "/").body  # among every live fact too
        fact = client.ask("GET", "/fact?id=side").body
        assert "Share with the team: preview" in fact and "Supersede" not in fact
        assert "personal" in fact.split("<h2>Explain</h2>")[1].split("<h2>")[0]
        assert "Share with the team" not in client.ask("GET", "/fact?id=old").body
        assert client.change("/fact?id=side", "share", "side").status == 200
    assert cli("fact", "share", "side", twin, *TODAY).exit_code == 0
    assert tree(repo_root) == tree(twin)


def test_the_server_collects_cycles_though_a_command_does_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``agent-memory`` turns the cycle collector off for a command's short run; a server that
    runs for hours turns it back on before it serves."""
    from agent_memory.cli.ui import serve as serving

    assert cli("enable", tmp_path, "--today", "2026-01-01").exit_code == 0
    seen: list[bool] = []

    def serve_forever(self: Server) -> None:
        seen.append(gc.isenabled())
        raise KeyboardInterrupt

    monkeypatch.setattr(Server, "serve_forever", serve_forever)
    gc.disable()
    try:
        done = serving.serve(Repo(tmp_path), Setting(read_only=True), 0, browser=False)
    finally:
        gc.enable()
    assert seen == [True] and done.report.outcome == "stopped"


def test_the_browser_is_opened_on_a_private_page_never_on_the_token_s_address(
    repo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A browser's arguments are read by every user of the machine (/proc/PID/cmdline): it is
    given a page only the user may read, which sends it on, and which goes with the server."""
    from agent_memory.cli.ui import serve as serving

    opened: list[str] = []
    seen: list[tuple[int, int, str]] = []

    def serve_forever(self: Server) -> None:
        page = Path(opened[0].removeprefix("file://"))
        folder_mode, page_mode = page.parent.stat().st_mode, page.stat().st_mode
        seen.append((folder_mode & 0o777, page_mode & 0o777, page.read_text()))
        assert self.guard.token not in opened[0]
        raise KeyboardInterrupt

    monkeypatch.setattr(serving.webbrowser, "open", lambda url: opened.append(url) or True)
    monkeypatch.setattr(Server, "serve_forever", serve_forever)
    done = serving.serve(Repo(repo_root), Setting(DAY), 0, browser=True)
    assert done.report.outcome == "stopped" and len(opened) == 1
    assert opened[0].startswith("file:///") and opened[0].endswith("/open.html")
    folder, page, text = seen[0]
    assert (folder, page) == (0o700, 0o600)
    address = re.search(r'content="0;url=(http://127\.0\.0\.1:\d+/[\w-]+/)"', text)
    assert address is not None and f'href="{address.group(1)}"' in text
    assert not Path(opened[0].removeprefix("file://")).parent.exists()  # gone with the server
