"""The install manifest ``.agent/version.md``: what version a repo is on and what we installed.

Keys are read in the plain and the bold form; a re-stamp rewrites only the values that change,
regenerates the managed-files list (ours) and appends to the upgrade history (never rewritten).

Every review reads the stamp, only to see whose it is; ``packaging`` (4 ms to import) and
``hashlib`` (6 ms: it loads OpenSSL) are imported where a version or a digest is computed.
"""

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple

from ..errors import InputError
from ..layout import MANIFEST
from .keyvalue import like, parse_key_line, with_value
from .text import Text, decode, strip_eol

if TYPE_CHECKING:
    from packaging.version import Version

_MANAGED_HEADING = "## managed files"
_HISTORY_HEADING = "## upgrade history"


class Manifest(NamedTuple):
    version: "Version"
    enabled_with: str
    last_upgraded: str
    mode: str
    vendors: tuple[str, ...]
    managed: Mapping[str, str]
    history: tuple[str, ...]
    text: Text
    ours: bool = True  # see written_by_us
    version_line: int = 1  # where the version is written, for a message about it


def sha256(data: bytes) -> str:
    import hashlib

    return "sha256:" + hashlib.sha256(data).hexdigest()


def _sections(lines: Sequence[str]) -> dict[str, tuple[int, list[int]]]:
    """Each ``##`` section's heading index and body line indices, keyed by lower-cased heading."""
    sections: dict[str, tuple[int, list[int]]] = {"": (-1, [])}
    current = ""
    for index, line in enumerate(lines):
        bare = strip_eol(line).strip()
        if bare.startswith("## "):
            current = bare.lower()
            sections.setdefault(current, (index, []))
        else:
            sections[current][1].append(index)
    return sections


def _is_item(line: str) -> bool:
    return strip_eol(line).strip().startswith("- ")


def written_by_us(data: bytes) -> bool:
    """Whether a stamp is this tool's: it has our "## Managed files" section or a vendors: key.
    A stamp with neither was written by hand (HANDRUN.md), whatever its version says."""
    lines = decode(MANIFEST, data).lines
    sections = _sections(lines)
    return _ours(sections, _keys(lines, sections))


def _ours(sections: Mapping[str, object], keys: Mapping[str, object]) -> bool:
    return _MANAGED_HEADING in sections or "vendors" in keys


def _keys(
    lines: Sequence[str], sections: Mapping[str, tuple[int, list[int]]]
) -> dict[str, tuple[str, int]]:
    """The stamp's top keys: value and line number of each key's first line."""
    keys: dict[str, tuple[str, int]] = {}
    for index in sections[""][1]:
        parsed = parse_key_line(lines[index])
        if parsed is not None:
            keys.setdefault(parsed.key, (parsed.value.strip(), index + 1))
    return keys


def parse(data: bytes) -> Manifest:
    text, sections, keys = _read(data)
    raw_version, line = keys["version"]
    version = _version(raw_version, line)
    managed: dict[str, str] = {}
    for index in sections.get(_MANAGED_HEADING, (0, []))[1]:
        bare = strip_eol(text.lines[index]).strip()
        if bare.startswith("- ") and ": " in bare:
            path, _, digest = bare[2:].rpartition(": ")
            managed[path.strip().strip("`")] = digest.strip()
    history = tuple(
        strip_eol(text.lines[i]).strip()[2:]
        for i in sections.get(_HISTORY_HEADING, (0, []))[1]
        if _is_item(text.lines[i])
    )
    vendors_raw = keys.get("vendors", ("", 0))[0]
    vendors = tuple(v.strip() for v in vendors_raw.split(",") if v.strip() and v.strip() != "none")
    return Manifest(
        version=version,
        enabled_with=keys.get("enabled_with", (str(version), 0))[0],
        last_upgraded=keys.get("last_upgraded", ("", 0))[0],
        mode=keys.get("mode", ("", 0))[0],
        vendors=vendors,
        managed=managed,
        history=history,
        text=text,
        ours=_ours(sections, keys),
        version_line=line,
    )


def shown(data: bytes) -> tuple[str, bool]:
    """``str(parse(data).version)`` and ``parse(data).ours``, what ``status`` shows; a plain
    release (``5.0.0``) is already as packaging writes it, and packaging is not imported."""
    _, sections, keys = _read(data)
    raw_version, line = keys["version"]
    if not plain_release(raw_version):
        raw_version = str(_version(raw_version, line))
    return raw_version, _ours(sections, keys)


def plain_release(version: str) -> bool:
    """Whether ``version`` is numbers without leading zeros between dots (``str(Version(v))``
    is then ``v``)."""
    numbers = version.split(".")
    return all(n.isascii() and n.isdigit() and (n == "0" or n[0] != "0") for n in numbers)


def _read(data: bytes) -> tuple[Text, dict[str, tuple[int, list[int]]], dict[str, tuple[str, int]]]:
    """The stamp's text, sections and top keys; refused when it is empty or has no version."""
    text = decode(MANIFEST, data)
    if not text.body.strip():
        raise InputError(
            MANIFEST, 1, "is empty", "restore it from git, or delete it to re-detect the install"
        )
    sections = _sections(text.lines)
    keys = _keys(text.lines, sections)
    if "version" not in keys:
        raise InputError(
            MANIFEST,
            1,
            "has no '- version: X.Y.Z' line",
            "restore it from git, or delete it to re-detect the install",
        )
    return text, sections, keys


def _version(raw: str, line: int) -> "Version":
    from packaging.version import InvalidVersion, Version

    try:
        return Version(raw)
    except InvalidVersion:
        raise InputError(
            MANIFEST,
            line,
            f"version {raw!r} is not a version number",
            "write the installed version as X.Y.Z (see the upgrade history), or restore from git",
        ) from None


def render_new(
    template: bytes,
    *,
    version: str,
    today: str,
    mode: str,
    vendors: Sequence[str],
    managed: Mapping[str, str],
    enabled_with: str | None = None,
) -> bytes:
    """A first manifest, from the template in ``templates/.agent/version.md``."""
    lines: list[str] = []
    fields = {
        "version": version,
        "enabled_with": enabled_with or version,
        "last_upgraded": today,
        "mode": mode,
        "vendors": ", ".join(vendors) or "none",
    }
    for line in template.decode("utf-8").splitlines(keepends=True):
        bare = line.strip()
        if bare == "{managed_files}":
            lines.extend(_managed_lines(managed, "\n"))
        elif bare == "{history}":
            continue
        else:
            lines.append(line.format(**fields))
    return "".join(lines).encode("utf-8")


def _managed_lines(managed: Mapping[str, str], newline: str) -> list[str]:
    return [f"- {path}: {managed[path]}{newline}" for path in sorted(managed)]


def restamp(
    manifest: Manifest,
    *,
    values: Mapping[str, str],
    managed: Mapping[str, str],
    history: Sequence[str] = (),
) -> bytes:
    """The manifest with new key values, a regenerated managed list and history lines appended."""
    text = manifest.text
    newline = text.newline
    lines = list(text.lines)
    found: list[int] = []
    for index in _sections(lines)[""][1]:
        parsed = parse_key_line(lines[index])
        if parsed is None:
            continue
        found.append(index)
        if parsed.key in values and parsed.value.strip() != values[parsed.key]:
            lines[index] = with_value(lines[index], values[parsed.key])
    present = {key for i in found if (key := _key(lines[i]))}
    missing = [key for key in values if key not in present]
    if missing and found:  # a hand-run stamp has no vendors: line; add it in the stamp's form
        last = found[-1]
        lines[last] = _ensure_trailing_newline([lines[last]], newline)[0]
        added = [like(lines[last], key, values[key]) for key in missing]
        lines[last + 1 : last + 1] = added
    lines = _set_items(lines, _MANAGED_HEADING, _managed_lines(managed, newline), newline, True)
    if history:
        entries = [f"- {entry}{newline}" for entry in history]
        lines = _set_items(lines, _HISTORY_HEADING, entries, newline, False)
    return Text(text.bom, tuple(lines)).encode()


def _key(line: str) -> str | None:
    parsed = parse_key_line(line)
    return parsed.key if parsed else None


def _set_items(
    lines: list[str], heading: str, items: list[str], newline: str, replace: bool
) -> list[str]:
    """Replace (or append to) the ``- `` items of a section, creating the section if missing."""
    section = _sections(lines).get(heading)
    if section is None:
        title = "## " + heading[3:].capitalize()
        return [*_ensure_trailing_newline(lines, newline), newline, title + newline, *items]
    head, body = section
    existing = [i for i in body if _is_item(lines[i])]
    if replace:
        at = existing[0] if existing else head + 1
        gone = set(existing)
        lines = [line for i, line in enumerate(lines) if i not in gone]
    else:
        at = existing[-1] + 1 if existing else head + 1
    before = _ensure_trailing_newline(lines[:at], newline)
    return [*before, *items, *lines[at:]]


def _ensure_trailing_newline(lines: list[str], newline: str) -> list[str]:
    if lines and not lines[-1].endswith("\n"):
        return [*lines[:-1], lines[-1] + newline]
    return lines
