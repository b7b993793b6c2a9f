"""``python -m agent_memory``."""

from agent_memory.cli import entry

entry()
