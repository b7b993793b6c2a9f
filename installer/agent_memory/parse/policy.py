"""``memory/decay-policy.md``: the integer windows and triggers users tune, and their switches.

Only the values are read; the user's comments and layout are never rewritten. Missing keys take
their defaults, unknown keys are reported, and an inconsistent policy is an error with its line.
"""

from types import MappingProxyType
from typing import NamedTuple

from .. import patterns
from ..errors import AgentMemoryError, Problem
from ..layout import POLICY
from .keyvalue import parse_key_line
from .text import decode, strip_eol

DEFAULTS = MappingProxyType(
    {
        "working_window": 3,
        "active_window": 8,
        "archive_window": 20,
        "review_every": 10,
        "continuity_max_facts": 30,
        "continuity_max_lines": 600,
        "core_min_uses": 12,
        "core_min_reviews": 5,
    }
)
# The switches: true or false, and their defaults.
SWITCHES = MappingProxyType({"enabled": False, "record_first_prompt": True})
# Keys the hand-run line added (HANDRUN.md): read by its own scripts, kept as written, no warning.
HANDRUN_KEYS = frozenset(
    {"closed_narrative_max_lines", "thread_stale_window", "verify_invariants_every"}
)
# Who lands an agent's writes (MCP tools, hooks): the agent, or a person (DECAY.md § The review
# gate). A value that is neither is an error, and read as the gate closed.
WRITES = ("direct", "propose")
# ASCII digits only ("²".isdigit() is true), and few enough for int() (4,301 digits raise).
_WHOLE = patterns.compile(r"[0-9]{1,9}")
_DOC_SECTION = "## never decays"  # documentation, not settings (it says "- tier: core")


class Policy(NamedTuple):
    working_window: int = 3
    active_window: int = 8
    archive_window: int = 20
    review_every: int = 10
    continuity_max_facts: int = 30
    continuity_max_lines: int = 600
    enabled: bool = False  # auto-core
    core_min_uses: int = 12
    core_min_reviews: int = 5
    record_first_prompt: bool = True  # capture keeps the session's first prompt in its log
    agent_writes: str = "direct"


def parse(data: bytes | None) -> tuple[Policy, list[Problem]]:
    """The policy and what is wrong with it; errors mean the review must not run."""
    if data is None:
        return Policy(), []
    text = decode(POLICY, data)
    values: dict[str, object] = {}
    lines: dict[str, int] = {}
    problems: list[Problem] = []
    in_doc = False
    for index, line in enumerate(text.lines):
        bare = strip_eol(line).strip()
        if bare.startswith("#"):
            in_doc = bare.lower() == _DOC_SECTION
            continue
        parsed = parse_key_line(line)
        if in_doc or parsed is None:
            continue
        key, raw, number = parsed.key, parsed.value.strip(), index + 1
        if key in SWITCHES:
            if raw.lower() not in ("true", "false"):
                problems.append(_error(number, f"{key}: {raw!r} must be true or false"))
            values[key] = raw.lower() == "true"
        elif key == "agent_writes":
            if raw.lower() not in WRITES:
                problems.append(_error(number, f"agent_writes: {raw!r} must be direct or propose"))
            values[key] = raw.lower() if raw.lower() in WRITES else "propose"
        elif key in HANDRUN_KEYS:
            continue
        elif key in DEFAULTS:
            if not _positive(raw):
                problems.append(
                    _error(number, f"{key}: {raw!r} must be a positive whole number (0-9 digits)")
                )
                continue
            values[key] = int(raw)
        else:
            known = ", ".join([*DEFAULTS, *SWITCHES, "agent_writes"])
            problems.append(
                Problem(
                    POLICY,
                    number,
                    "warning",
                    "policy-unknown-key",
                    f"{key!r} is not a policy key (ignored); known keys: {known}",
                )
            )
            continue
        lines[key] = number
    policy = Policy(**{name: values[name] for name in Policy._fields if name in values})  # type: ignore[arg-type]
    broken = _windows(policy)
    if broken:
        problems.append(_error(lines.get("archive_window", lines.get("active_window", 1)), broken))
    return policy, problems


def _positive(raw: str) -> bool:
    """Whether a value is a positive whole number (of at most nine digits)."""
    return _WHOLE.fullmatch(raw) is not None and int(raw) > 0


def _windows(policy: Policy) -> str:
    """What is wrong with the policy's windows ("": nothing)."""
    if policy.working_window <= policy.active_window < policy.archive_window:
        return ""
    return (
        "windows must satisfy working_window ≤ active_window < archive_window "
        f"(got {policy.working_window}, {policy.active_window}, {policy.archive_window})"
    )


def _error(line: int, message: str) -> Problem:
    return Problem(POLICY, line, "error", "policy-invalid", message + "; fix the value")


def overridden(policy: Policy, items: tuple[str, ...]) -> tuple[Policy, tuple[str, ...]]:
    """``policy`` with ``key=value`` items applied (``replay --policy``), and the keys they set,
    in the order given; a bad item is refused as the policy file's own line would be."""
    values: dict[str, object] = policy._asdict()
    changed: list[str] = []
    for item in items:
        key, _, raw = item.partition("=")
        key, raw = key.strip(), raw.strip()
        if key in SWITCHES and raw.lower() in ("true", "false"):
            values[key] = raw.lower() == "true"
        elif key in DEFAULTS and _positive(raw):
            values[key] = int(raw)
        else:
            known = ", ".join([*DEFAULTS, *SWITCHES])
            raise AgentMemoryError(
                f"--policy {item!r} is not key=value with a known key and a positive whole "
                f"number (or true|false for {', '.join(SWITCHES)}); known keys: {known}"
            )
        if key not in changed:
            changed.append(key)
    found = Policy(**values)  # type: ignore[arg-type]
    broken = _windows(found)
    if broken:
        raise AgentMemoryError(f"--policy: {broken}")
    return found, tuple(changed)
