"""Recording uses in a session's own log: the ``- Label: ids`` lines of its Memory References.

What ``memory_reference`` writes: ids go on the log's line for their label (created from the
schema's template with an empty ``- Referenced:``), each id once; a log without the section or the
line gets them appended. Pure: bytes in, bytes out, unchanged bytes when every id is there already.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...parse.refitems import segment_ids
from ...parse.sessions import reference_sections
from ...parse.text import Text, split_lines

LABELS = ("Referenced", "Created", "Reactivated")


def add_references(log: bytes, label: str, ids: Sequence[str]) -> bytes:
    """``log`` with ``ids`` listed under ``label`` (one of ``LABELS``) in Memory References; a
    line written or extended ends as the log's lines do."""
    text = log.decode("utf-8")
    lines = text.split("\n")  # a CRLF line keeps its "\r"
    cr = "\r" if Text(False, tuple(split_lines(text))).newline == "\r\n" else ""
    sections = reference_sections(text)
    span = sections[-1] if sections else None  # the server's own log has one; a stub's second
    if span is None:
        tail = "" if text.endswith("\n") or not text else cr + "\n"
        added = f"{cr}\n## Memory References{cr}\n- {label}: {', '.join(ids)}{cr}\n"
        return f"{text}{tail}{added}".encode()
    first, body = span
    prefix = f"- {label.lower()}:"
    for offset, line in enumerate(body):
        if line.lower().startswith(prefix):
            rest = line[len(prefix) :]
            listed = segment_ids(rest)
            new = [i for i in dict.fromkeys(ids) if i not in listed]
            if not new:
                return log
            joined = ", ".join(new)
            ending = "\r" if line.endswith("\r") else ""
            stripped = line.rstrip()
            # After "none" or another id, a comma: each comma-separated segment names one id.
            lines[first - 1 + offset] = f"{stripped}{', ' if rest.strip() else ' '}{joined}{ending}"
            return "\n".join(lines).encode()
    # No line for the label: a new one after the section's last non-blank line.
    last = max((i for i, line in enumerate(body) if line.strip()), default=-1)
    if first + last == len(lines):  # the section's last line ends the log, with no newline
        lines[-1] += cr
        lines.append("")
    lines.insert(first + last, f"- {label}: {', '.join(dict.fromkeys(ids))}{cr}")
    return "\n".join(lines).encode()
