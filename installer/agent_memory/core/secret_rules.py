"""The secret scanner's rules: each credential shape, and the checks that tell a real value
from a placeholder, a documentation example or code (``secrets.py`` runs them)."""

import base64
import binascii
import re
from collections.abc import Callable
from typing import NamedTuple

from .. import patterns


class Rule(NamedTuple):
    kind: str
    # A line can hold a match only if its lower-cased text holds one of these: a cheap filter.
    hints: tuple[str, ...]
    pattern: re.Pattern[str]
    # Groups holding the secret, first that took part wins; none means the whole match.
    groups: tuple[str, ...]
    accept: Callable[[str], bool]


_R = r"(?![A-Za-z0-9_+/-])"


def _compile(pattern: str) -> re.Pattern[str]:
    return patterns.compile(pattern, re.ASCII)


def _token_rule(first: str, rest: str) -> re.Pattern[str]:
    """A token that starts and ends where a run of token characters does.

    Starting only at the start of a run tries each run once, which keeps the bounded
    repetitions linear; checking the boundary after the ``first`` character, not before it,
    lets ``re`` skip ahead to that character instead of trying every position.
    """
    return _compile(rf"{first}(?<![A-Za-z0-9_+/-]{first}){rest}{_R}")


def _run_pattern(length: int) -> re.Pattern[str]:
    """One character ``length`` times, or ``length`` consecutive ASCII digits or letters."""
    rising = [
        alphabet[i : i + length]
        for alphabet in ("0123456789", "abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        for i in range(len(alphabet) - length + 1)
    ]
    return patterns.compile(rf"(.)\1{{{length - 1}}}|" + "|".join(rising), re.ASCII | re.DOTALL)


_RUN_5 = _run_pattern(5)
_RUN_6 = _run_pattern(6)


def _has_run(value: str, length: int) -> bool:
    """True if ``value`` repeats one character, or counts up one by one, ``length`` times."""
    return (_RUN_5 if length == 5 else _RUN_6).search(value) is not None


def _looks_random(body: str) -> bool:
    """Rejects the fillers people write in docs: EXAMPLE, xxxx…, 123456…, abcdef…."""
    if "example" in body.lower() or _has_run(body, 6):
        return False
    return len(set(body)) >= min(8, len(body) // 2)


def _token(prefix_length: int) -> Callable[[str], bool]:
    """Accept a prefixed token whose body (after ``prefix_length`` characters) looks random."""

    def accept(value: str) -> bool:
        return _looks_random(value[prefix_length:])

    return accept


def _any(value: str) -> bool:
    return True


_DIGITS = frozenset("0123456789")
_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
_PLACEHOLDER_WORDS = (
    "example",
    "changeme",
    "change_me",
    "change-me",
    "placeholder",
    "your_",
    "your-",
    "yourpass",
    "yoursecret",
    "yourtoken",
    "yourkey",
    "xxxx",
    "***",
    "...",
    "redacted",
    "dummy",
    "sample",
    "replace",
    "insert",
    "fixme",
    "todo",
    "_here",
    "-here",
    "password",
    "passwd",
    "secret",
)
_PLACEHOLDER = patterns.compile("|".join(map(re.escape, _PLACEHOLDER_WORDS)))
# Templating, shell and code: ${X}, $X, {{ x }}, <x>, %s, os.environ[...], f(x), `x`.
_CODE_CHARS = _compile(r"[${}<>\[\]()%`\\]")
_SLUG = _compile(r"[a-z]+(?:[-_.][a-z0-9]+)*")
_CONSTANT = _compile(r"[A-Z]+(?:_[A-Z0-9]+)*")
_DOTTED = _compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
_SCHEME_LIKE = _compile(r"[a-z][a-z0-9+.-]{1,15}:")


def _is_literal(value: str) -> bool:
    """A value someone typed in, rather than a reference, a template, a name or a filler."""
    if _CODE_CHARS.search(value) or _PLACEHOLDER.search(value.lower()):
        return False
    if len(set(value)) < 4 or _has_run(value, 5):
        return False
    if value[0] in "/~." or _SCHEME_LIKE.match(value):
        return False
    return not (_SLUG.fullmatch(value) or _CONSTANT.fullmatch(value) or _DOTTED.fullmatch(value))


_NUMBER_OR_COLOUR = _compile(r"[0-9][0-9._-]*|#[0-9A-Fa-f]{3,8}")


def password_value(value: str) -> bool:
    """Literal, not a number, date or colour, and not letters only (those are words and names)."""
    return (
        _is_literal(value)
        and not _NUMBER_OR_COLOUR.fullmatch(value)
        and any(ch not in _LETTERS for ch in value)
    )


def bare_password_value(value: str) -> bool:
    """Unquoted values also need a digit: bare words there are mostly names and flags."""
    return password_value(value) and any(ch in _DIGITS for ch in value)


def _bearer_value(value: str) -> bool:
    return (
        _is_literal(value)
        and any(ch in _DIGITS for ch in value)
        and any(ch in _LETTERS for ch in value)
        and _looks_random(value)
    )


_PERCENT_ESCAPE = _compile(r"%[0-9A-Fa-f]{2}")


def _url_password(value: str) -> bool:
    """``scheme://user:password@`` with a typed password, not ``:${VAR}@`` or ``:***@``."""
    return len(value) >= 3 and _is_literal(_PERCENT_ESCAPE.sub("q", value))


def _jwt(value: str) -> bool:
    """The header must decode to a JSON object naming an algorithm."""
    header = value.split(".", 1)[0]
    try:
        decoded = base64.urlsafe_b64decode(header + "=" * (-len(header) % 4))
    except (binascii.Error, ValueError):
        return False
    return decoded.startswith(b"{") and b'"alg"' in decoded


def _aws_secret(value: str) -> bool:
    if "EXAMPLE" in value.upper() or _has_run(value, 6):
        return False
    classes = (str.isupper, str.islower, _DIGITS.__contains__)
    return sum(any(test(ch) for ch in value) for test in classes) >= 2


_PEM_NAME = r"BEGIN (?:[A-Z0-9]{1,16} ){0,3}PRIVATE KEY(?: BLOCK)?-----"
_PEM_END = r"-----END (?:[A-Z0-9]{1,16} ){0,3}PRIVATE KEY(?: BLOCK)?-----"
# The whole name is matched, from the start of its run, so that ``AWS::Glue::ApiKey``, an ARN's
# ``:secret:`` and ``page_token`` are not read as assignments. Grouped by first letters: a long
# flat alternation is tried branch by branch.
_PASSWORD_KEYS = (
    r"(?<![A-Za-z0-9_.:-])[A-Za-z0-9_.-]{0,64}?"
    r"(?:(?i:pass(?:wd|word|phrase)|secret(?:[_-]?key)?|client[_-]?secret|api[_-]?(?:key|token)"
    r"|a(?:ccess|uth)[_-]?token|(?:bot|private|refresh)[_-]?token"
    r"|(?:private|signing|encryption|master)[_-]?key)"
    r"|[Tt](?<![A-Za-z0-9_.-][Tt])(?i:oken)"
    r"|[A-Z](?<![A-Za-z0-9_][A-Z])[A-Z0-9_]{0,40}_(?:TOKEN|PASS|PWD))"
)
# ``key: value`` wants a blank or a quote after the colon, as YAML does: ``secret:x`` is a name.
_ASSIGN = r"""["']?[ \t]{0,4}(?::=|=(?!=)|:(?=[ \t"']))[ \t]{0,4}"""

# In priority order: where two matches overlap, the earlier rule wins.
RULES: tuple[Rule, ...] = (
    Rule(
        "private-key",
        ("private key",),
        # A key kept on one line with ``\\n`` escapes (.env, JSON) is covered up to its END, or
        # as far as its escaped body runs.
        _compile(rf"-----{_PEM_NAME}(?:\\[nr][A-Za-z0-9+/=\\ \t]{{0,65536}})?(?P<end>{_PEM_END})?"),
        (),
        _any,
    ),
    Rule(
        "anthropic-key",
        ("sk-ant-",),
        _token_rule("s", "k-ant-[a-z]{2,10}[0-9]{2}-[A-Za-z0-9_-]{32,512}"),
        (),
        _token(len("sk-ant-")),
    ),
    Rule(
        "openai-key",
        ("sk-",),
        _token_rule("s", "k-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,256}|[A-Za-z0-9]{32,64})"),
        (),
        _token(len("sk-")),
    ),
    Rule(
        "stripe-key",
        ("_live_",),
        _token_rule("[rs]", "k_live_[A-Za-z0-9]{16,247}"),
        (),
        _token(len("sk_live_")),
    ),
    Rule(
        "github-token",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
        _token_rule(
            "g", "(?:h[pousr]_[A-Za-z0-9]{36,251}|ithub_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59})"
        ),
        (),
        _token(len("ghp_")),
    ),
    Rule(
        "gitlab-token",
        ("glpat-", "gldt-", "glrt-", "glptt-", "glcbt-", "gloas-"),
        _token_rule("g", "l(?:pat|dt|rt|ptt|cbt|oas)-[A-Za-z0-9_-]{20,64}"),
        (),
        lambda value: _looks_random(value.split("-", 1)[1]),
    ),
    Rule(
        "slack-webhook",
        ("hooks.slack.com",),
        _compile(
            r"hooks\.slack\.com/services/"
            rf"T[A-Z0-9]{{6,12}}/B[A-Z0-9]{{6,12}}/[A-Za-z0-9]{{20,40}}{_R}"
        ),
        (),
        lambda value: _looks_random(value.rsplit("/", 1)[1]),
    ),
    Rule(
        "slack-token",
        ("xox", "xapp-"),
        _token_rule("x", "(?:ox[abposr]|app)-[0-9]{1,20}-[A-Za-z0-9-]{16,250}"),
        (),
        lambda value: _looks_random(value.split("-", 2)[2]),
    ),
    Rule(
        "aws-access-key",
        ("akia", "asia", "abia", "acca"),
        _token_rule("A", "(?:KIA|SIA|BIA|CCA)[A-Z0-9]{16}"),
        (),
        _token(len("AKIA")),
    ),
    Rule(
        "aws-secret-key",
        ("secret",),
        _compile(
            r"(?i:aws[_.-]?secret(?:[_.-]?access)?[_.-]?key|secret[_.-]?access[_.-]?key)"
            rf"""{_ASSIGN}["']?(?P<s>[A-Za-z0-9/+]{{40}})(?![A-Za-z0-9/+=])"""
        ),
        ("s",),
        _aws_secret,
    ),
    Rule(
        "google-api-key",
        ("aiza",),
        _token_rule("A", "Iza[A-Za-z0-9_-]{35}"),
        (),
        _token(len("AIza")),
    ),
    Rule(
        "npm-token",
        ("npm_",),
        _token_rule("n", "pm_[A-Za-z0-9]{36}"),
        (),
        _token(len("npm_")),
    ),
    Rule(
        "pypi-token",
        ("pypi-",),
        _token_rule("p", "ypi-(?:AgEIcHlwaS5vcmc|AgENdGVzdC5weXBpLm9yZw)[A-Za-z0-9_-]{50,1024}"),
        (),
        _any,
    ),
    Rule(
        "huggingface-token",
        ("hf_",),
        _token_rule("h", "f_[A-Za-z0-9]{34}"),
        (),
        _token(len("hf_")),
    ),
    Rule(
        "sendgrid-key",
        ("sg.",),
        _token_rule("S", r"G\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}"),
        (),
        lambda value: _looks_random(value[3:25]),
    ),
    Rule(
        "jwt",
        ("eyj",),
        _token_rule(
            "e", r"yJ[A-Za-z0-9_-]{8,8192}\.eyJ[A-Za-z0-9_-]{8,8192}\.[A-Za-z0-9_-]{16,8192}"
        ),
        (),
        _jwt,
    ),
    Rule(
        "bearer-token",
        ("bearer",),
        _compile(
            r"[Bb](?<![A-Za-z][Bb])(?i:earer)[ \t]{1,4}"
            r"(?P<s>[A-Za-z0-9._~+/-]{20,1024}={0,2})(?![A-Za-z0-9._~+/=-])"
        ),
        ("s",),
        _bearer_value,
    ),
    Rule(
        "url-credentials",
        ("://",),
        _compile(
            r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{1,31}://"
            r"(?P<user>[^\s:/?#@\"'<>]{0,128}):(?P<s>[^\s/?#@\"'<>,]{1,256})@(?=[A-Za-z0-9\[])"
        ),
        ("s",),
        _url_password,
    ),
    Rule(
        "password-assignment",
        ("pass", "secret", "key", "token", "pwd"),
        # ``(?=(?P<bare>…))(?P=bare)`` is an atomic group: a too-long value fails at once
        # instead of being given back one character at a time. Bare values hold no ``:`` or
        # ``=``, so ``token=token=…`` costs one short look per assignment, not 128 characters.
        # A value that runs into ``&name=`` is a URL's query parameter (``?api_key=…&page=2``):
        # it ends at the ``&`` (``password=Tr0ub4dor&3x`` is still one value).
        _compile(
            rf"(?:{_PASSWORD_KEYS}){_ASSIGN}"
            r"""(?:"(?P<dq>[^"\s]{6,128})"|'(?P<sq>[^'\s]{6,128})'"""
            r"""|(?=(?P<bare>[^\s"'`,;:=]{8,128}={0,2}))(?P=bare)(?![^\s"'`,;])"""
            r"""|(?=(?P<query>[^\s"'`,;:=&]{8,128}={0,2}))(?P=query)(?=&[A-Za-z0-9_.-]{1,64}=))"""
        ),
        ("dq", "sq", "bare", "query"),
        _any,  # Refined per group in _accepts: bare values need a digit.
    ),
)

KINDS: tuple[str, ...] = tuple(rule.kind for rule in RULES)
HINTS = tuple((hint, index) for index, rule in enumerate(RULES) for hint in rule.hints)

# Lines inside a PEM block after its BEGIN line: base64, armour headers, blank, or the END line.
PEM_BODY = _compile(
    r"[ \t]{0,64}(?P<s>={0,1}[A-Za-z0-9+/]{1,256}={0,3}"
    r"|[A-Za-z][A-Za-z-]{0,31}:[ \t]{0,8}[^\r\n]{0,256}"
    rf"|(?P<end>{_PEM_END}))?[ \t]{{0,64}}\r?"
)


# Values that vendors publish in their documentation: they unlock nothing.
DOCUMENTED = frozenset(
    {
        "AKIAIOSFODNN7EXAMPLE",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
        "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwi"
        "aWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    }
)
