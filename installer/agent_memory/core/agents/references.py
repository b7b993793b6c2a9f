"""Recording uses in a session's own log: the ``- Label: ids`` lines of its Memory References.

What ``memory_reference`` writes: ids go on the log's line for their label (created from the
schema's template with an empty ``- Referenced:``), each id once; a log without the section or the
line gets them appended. Pure: bytes in, bytes out, unchanged bytes when every id is there already.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...parse.refitems import segment_ids
from ...parse.sessions import reference_sections

LABELS = ("Referenced", "Created", "Reactivated")


def add_references(log: bytes, label: str, ids: Sequence[str]) -> bytes:
    """``log`` with ``ids`` listed under ``label`` (one of ``LABELS``) in Memory References."""
    text = log.decode("utf-8")
    lines = text.split("\n")
    sections = reference_sections(text)
    span = sections[-1] if sections else None  # the server's own log has one; a stub's second
    if span is None:
        tail = "" if text.endswith("\n") or not text else "\n"
        return f"{text}{tail}\n## Memory References\n- {label}: {', '.join(ids)}\n".encode()
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
            stripped = line.rstrip()
            # After "none" or another id, a comma: each comma-separated segment names one id.
            lines[first - 1 + offset] = f"{stripped}{', ' if rest.strip() else ' '}{joined}"
            return "\n".join(lines).encode()
    # No line for the label: a new one after the section's last non-blank line.
    last = max((i for i, line in enumerate(body) if line.strip()), default=-1)
    lines.insert(first + last, f"- {label}: {', '.join(dict.fromkeys(ids))}")
    return "\n".join(lines).encode()
