"""The click group with every command on it: importing the modules registers their commands."""

from . import mcp, memory, sessions, setup
from .base import main

__all__ = ["main", "mcp", "memory", "sessions", "setup"]
