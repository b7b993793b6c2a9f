"""What the command line's output does with a character its stream cannot encode: it writes the
character's JSON escape (``\\u2192``) instead of stopping the run with a traceback.

A stream set to latin-1 or ASCII (``PYTHONIOENCODING``, a locale) cannot encode a fact's ``→``.
The JSON escape keeps a ``--json`` document and a hook's answer valid JSON that reads back to
the same text (a character past U+FFFF is its surrogate pair, as JSON writes it); in text it is
an escape a reader recognises. A UTF-8 stream meets none but a lone surrogate, escaped alike.
Nothing else changes: every character the stream can encode, and the exit code.
"""

from __future__ import annotations

import codecs
import io
import sys

ESCAPE = "agent-memory-escape"  # the name the handler is registered under


def _escaped(error: UnicodeError) -> tuple[str, int]:
    if not isinstance(error, UnicodeEncodeError):
        raise error
    return "".join(map(_escape, error.object[error.start : error.end])), error.end


def _escape(char: str) -> str:
    code = ord(char)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 | code >> 10:04x}\\u{0xDC00 | code & 0x3FF:04x}"


def escaping() -> None:
    """Set stdout and stderr to escape what they cannot encode, before anything is written
    (a stream that is not the interpreter's own, or is closed, is left as it is)."""
    codecs.register_error(ESCAPE, _escaped)
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper) and not stream.closed:
            stream.reconfigure(errors=ESCAPE)
