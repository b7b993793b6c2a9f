"""The secret scanner: recall on key shapes, precision on lookalikes, redaction, linear time."""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_memory.cli.mcp.tools import McpSession, call
from agent_memory.core.secret_rules import RULES
from agent_memory.core.secrets import KINDS, Secret, redact, scan
from conftest import cli, tree

FIXTURES = Path(__file__).parent / "fixtures" / "secrets"
MARKER = re.compile(r"\[redacted: [a-z-]+\]")


def _lines(name: str) -> list[str]:
    return (FIXTURES / name).read_text(encoding="utf-8").splitlines()


POSITIVES = [tuple(line.split("\t", 1)) for line in _lines("positives.txt")]
LOOKALIKES = _lines("lookalikes.txt")


def _text_of(line: str, secret: Secret) -> str:
    return line[secret.start : secret.end]


def _remove_spans(text: str, secrets: Sequence[Secret]) -> str:
    lines = text.split("\n")
    for secret in sorted(secrets, reverse=True):
        line = lines[secret.line - 1]
        lines[secret.line - 1] = line[: secret.start] + line[secret.end :]
    return "\n".join(lines)


# --- the corpus ----------------------------------------------------------------------------


def test_corpus_sizes() -> None:
    assert len(POSITIVES) >= 60
    assert len(LOOKALIKES) >= 200
    assert {kind for kind, _ in POSITIVES} == set(KINDS)


@pytest.mark.parametrize(("kind", "line"), POSITIVES, ids=[k for k, _ in POSITIVES])
def test_every_positive_is_found_with_its_kind(kind: str, line: str) -> None:
    found = scan(line)
    assert kind in {secret.kind for secret in found}, (kind, line, found)
    redacted, _ = redact(line)
    assert f"[redacted: {kind}]" in redacted
    for secret in found:
        assert _text_of(line, secret) not in redacted


def test_precision_and_recall_on_the_corpus() -> None:
    flagged = [(line, scan(line)) for line in LOOKALIKES]
    false_positives = [(line, found) for line, found in flagged if found]
    missed = [(kind, line) for kind, line in POSITIVES if kind not in {s.kind for s in scan(line)}]
    rate = len(false_positives) / len(LOOKALIKES)
    recall = 1 - len(missed) / len(POSITIVES)
    print(
        f"\nsecrets: {len(POSITIVES)} positives, recall {recall:.1%}; "
        f"{len(LOOKALIKES)} lookalikes, false-positive rate {rate:.2%}"
    )
    assert not missed
    assert rate <= 0.01, false_positives


# --- precise spans and the shapes of the rules ---------------------------------------------


def test_spans_are_line_and_column_of_the_value() -> None:
    text = "intro\r\nDB_PASSWORD=hunter22\r\n  url: redis://:Vq8mZr2Lx9@cache:6379\n"
    assert scan(text) == [
        Secret(2, 12, 20, "password-assignment"),
        Secret(3, 16, 26, "url-credentials"),
    ]
    redacted, _ = redact(text)
    assert redacted == (
        "intro\r\nDB_PASSWORD=[redacted: password-assignment]\r\n"
        "  url: redis://:[redacted: url-credentials]@cache:6379\n"
    )


def test_a_pem_block_is_redacted_to_its_end_and_no_further() -> None:
    text = (
        "Key for the bastion:\n"
        "```\n"
        "-----BEGIN RSA PRIVATE KEY-----\n"
        "Proc-Type: 4,ENCRYPTED\n"
        "DEK-Info: AES-128-CBC,3F17F5316E2BAC89\n"
        "\n"
        "MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi8oR7zq1w+3kX2Vb0Xm4Q7pL\n"
        "q9Wf2Yb7Nc4Zt8Kd1Lp6Rj3Hs5Gv0==\n"
        "-----END RSA PRIVATE KEY-----\n"
        "```\n"
        "done\n"
    )
    redacted, found = redact(text)
    assert [s.line for s in found] == [3, 4, 5, 7, 8, 9]
    assert {s.kind for s in found} == {"private-key"}
    assert "MIIE" not in redacted
    assert redacted.split("\n")[:3] == ["Key for the bastion:", "```", "[redacted: private-key]"]
    assert redacted.endswith("[redacted: private-key]\n```\ndone\n")


def test_a_pem_block_on_one_line_is_one_match() -> None:
    line = 'KEY="-----BEGIN EC PRIVATE KEY-----\\nMHcCAQEEIBk2\\n-----END EC PRIVATE KEY-----"'
    (secret,) = scan(line + "\nMHcCAQEEIBk2\n")
    assert _text_of(line, secret).endswith("-----END EC PRIVATE KEY-----")


def test_the_specific_kind_wins_over_the_generic_one() -> None:
    token = "ghp_" + "Zq8Lm2Vx7Kp4Rt9Wn3Bc6Hy1Jd5Fg0Ts2QaE4"
    assert [s.kind for s in scan(f"password: {token}")] == ["github-token"]
    assert [s.kind for s in scan(f"https://x-access-token:{token}@github.com/a/b")] == [
        "github-token"
    ]


@pytest.mark.parametrize(
    "line",
    [
        "AKIA" + "".join(chr(0x661 + i % 9) for i in range(16)),  # Arabic-Indic digits: not digits.
        "ghp_" + "\uff3a\uff51\uff18" * 12,  # Full-width letters and digits are not either.
        "xghp_Zq8Lm2Vx7Kp4Rt9Wn3Bc6Hy1Jd5Fg0Ts2QaE4",  # Inside a longer word.
        "ghp_Zq8Lm2Vx7Kp4Rt9Wn3Bc6Hy1Jd5Fg0Ts2QaE4_suffix",
        "+AKIA2QWE3RTY4UIO5PAS/base64",  # Inside a base64 run.
    ],
)
def test_no_match_inside_other_runs_or_with_non_ascii(line: str) -> None:
    assert scan(line) == []


def test_scan_is_deterministic_and_ordered() -> None:
    text = "\n".join(line for _, line in POSITIVES)
    first = scan(text)
    assert first == scan(text)
    assert first == sorted(first, key=lambda s: (s.line, s.start))


# --- redaction properties ------------------------------------------------------------------

# Self-identifying tokens can stand alone in a sentence; the others need their context line.
_STANDALONE = {"url-credentials", "password-assignment", "aws-secret-key", "bearer-token"}
TOKENS = [
    _text_of(line, secret)
    for kind, line in POSITIVES
    if kind not in _STANDALONE
    for secret in scan(line)
    if secret.kind == kind
]
VALUES = [(line, [_text_of(line, s) for s in scan(line)]) for _, line in POSITIVES if scan(line)]

filler = st.text(
    alphabet=st.characters(blacklist_characters="[]\n", blacklist_categories=("Cs",)),
    max_size=30,
)
piece = st.one_of(
    filler.map(lambda text: (text, [])),
    st.sampled_from(TOKENS).map(lambda token: (f" {token} ", [token])),
    st.sampled_from(VALUES).map(lambda pair: (f"\n{pair[0]}\n", pair[1])),
)
separator = st.sampled_from(["", " ", "\n", "\r\n", "\t"])


@st.composite
def documents(draw: st.DrawFn) -> tuple[str, list[str]]:
    pieces = draw(st.lists(st.tuples(piece, separator), max_size=12))
    text = "".join(chunk + sep for (chunk, _), sep in pieces)
    return text, [value for (_, values), _ in pieces for value in values]


@settings(max_examples=300, deadline=None)
@given(documents())
def test_redact_changes_only_the_matches(doc: tuple[str, list[str]]) -> None:
    text, inserted = doc
    redacted, found = redact(text)
    assert found == scan(text)
    assert MARKER.sub("", redacted) == _remove_spans(text, found)
    assert redacted.count("\n") == text.count("\n")
    assert redacted.count("\r") == text.count("\r")
    for value in inserted:
        assert value not in redacted
    assert redact(redacted) == (redacted, [])
    assert scan(redacted) == []


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_any_text_redacts_once_and_for_all(text: str) -> None:
    redacted, found = redact(text)
    assert MARKER.sub("", redacted) == MARKER.sub("", _remove_spans(text, found))
    assert scan(redacted) == []


# --- linear time on hostile input ----------------------------------------------------------

MB = 1 << 20
ADVERSARIAL = {
    "a": "a" * MB,
    "=": "=" * MB,
    "-": "-" * MB,
    ":": ":" * MB,
    "eyJ.": "eyJ." * 100_000,
    "ghp_": "ghp_" * (MB // 4),
    "password= spaces": "password=" + " " * MB,
    # The same, with every rule's hint present so that no pre-filter short-cuts the regexes.
    "hints + a": " ".join(hint for rule in RULES for hint in rule.hints) + " " + "a" * MB,
    "eyJ run": "eyJ" + "a" * MB + ".eyJ" + "b" * MB,
    "eyJ.eyJ.": "eyJaaaaaaaaa.eyJaaaaaaaaa." * 40_000,
    "ghp_ run": "ghp_" + "A" * MB,
    "AKIA": "AKIA" * (MB // 4),
    "sk-": "sk-" * (MB // 3),
    "sk-ant-": "sk-ant-api03-" + "a-" * (MB // 2),
    "xoxb": "xoxb-1-" * (MB // 7),
    "glpat": "glpat-" + "a_" * (MB // 2),
    "slack hook": "hooks.slack.com/services/T" + "A" * MB,
    "url": "x://" + "a:" * (MB // 2),
    "url users": "ab://c:" * (MB // 7),
    "password= a": "password=" + "a" * MB,
    "passwords": "password" * (MB // 8) + "=",
    "TOKEN": "A_" * (MB // 2) + "TOKEN=x",
    "token:": "token:" * (MB // 6),
    "token=": "token=" * (MB // 6),
    "secret: quoted": 'secret:"' * (MB // 8),
    "long values": ("token=" + "a" * 200 + " ") * (MB // 207),
    "bearer": "Bearer " + "a" * MB,
    "aws secret": "aws_secret_access_key=" * (MB // 22),
    "BEGIN": "-----BEGIN PRIVATE KEY-----" + "A" * MB,
    "BEGIN words": "-----BEGIN " + "A " * (MB // 2),
    "pem header": "-----BEGIN PRIVATE KEY-----\nA:" + " " * MB,
    # Each line and each match costs some microseconds of Python, so these are a quarter as long:
    # still large enough that quadratic work would take minutes.
    "pem body": "-----BEGIN PRIVATE KEY-----\n" + "QUJD\n" * (MB // 20),
    "many lines": "password=Tr0ub4dor&3x\n" * (MB // 88),
    "BEGINs": "-----BEGIN RSA PRIVATE KEY-----" * (MB // 124),
    "many matches": "ghp_Zq8Lm2Vx7Kp4Rt9Wn3Bc6Hy1Jd5Fg0Ts2QaE4 " * (MB // 164),
}


@pytest.mark.parametrize("name", list(ADVERSARIAL))
def test_hostile_input_runs_in_linear_time(name: str) -> None:
    text = ADVERSARIAL[name]
    begin = time.process_time()
    redact(text)
    elapsed = time.process_time() - begin
    print(f"\n{name!r}: {len(text):,} chars in {elapsed * 1000:.0f} ms")
    assert elapsed < 1.0


@pytest.mark.parametrize("rule", RULES, ids=[rule.kind for rule in RULES])
def test_each_pattern_is_linear_without_the_prefilter(rule: object) -> None:
    pattern = rule.pattern  # type: ignore[attr-defined]
    for name in ("a", "=", "-", ":", "eyJ.", "ghp_", "hints + a", "url", "BEGIN", "TOKEN"):
        text = ADVERSARIAL[name]
        begin = time.process_time()
        for _ in pattern.finditer(text):
            pass
        assert time.process_time() - begin < 1.0, name


# -- the guard on every way a fact is written (SECURITY.md; issue 39, item 4) ----------------

AWS = "AKIA" + "QX7Z3KD2LMNP4R8T"
ANTHROPIC = (
    "sk-ant-" + "api03-" + "Zq8xW2vR7nT4kL9mP3sD6fH1jB5cY0gN-aE8uI2oQ7tX4zV9wK3rM6pL1dS5hF0j"
)


def _enabled_with_a_fact(root: Path) -> Path:
    assert cli("enable", root, "--today", "2026-12-01").exit_code == 0
    added = cli("fact", "add", "Deploys go through the staging bucket", "--id", "staging", root)
    assert added.exit_code == 0, added.output
    return root


@pytest.mark.parametrize("secret", [AWS, ANTHROPIC], ids=["aws", "anthropic"])
@pytest.mark.parametrize(
    "command",
    [
        ("fact", "add", "The deploy key is {}"),
        ("fact", "edit", "staging", "The deploy key is {}"),
        ("fact", "supersede", "staging", "--text", "Deploys use the key {}"),
        ("fact", "retract", "staging", "--reason", "rotated {}"),
    ],
    ids=["add", "edit", "supersede", "retract"],
)
def test_no_command_writes_a_credential_into_the_memory(
    tmp_path: Path, secret: str, command: tuple[str, ...]
) -> None:
    root = _enabled_with_a_fact(tmp_path)
    before = tree(root)
    result = cli(*(part.format(secret) for part in command), root)
    assert result.exit_code == 1
    line = result.output.strip()
    assert "\n" not in line and "looks like a credential (" in line and "column" in line
    assert secret not in result.output  # the refusal never prints it either
    assert tree(root) == before


def test_mcp_fact_add_refuses_a_credential_and_writes_nothing(tmp_path: Path) -> None:
    root = _enabled_with_a_fact(tmp_path)
    before = tree(root)
    done = call(McpSession(root), "memory_fact_add", {"text": f"Use {ANTHROPIC} for tests"})
    assert done.error is not None and "credential (anthropic" in done.err
    assert tree(root) == before
