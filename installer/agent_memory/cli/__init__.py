"""The command line: options only. Each module declares some commands on the one group in
``base`` and hands each call to one module of ``commands``; importing them registers them."""

from . import mcp, memory, sessions, setup
from .base import entry, main

__all__ = ["entry", "main", "mcp", "memory", "sessions", "setup"]
