"""``python -m agent_memory``."""

from agent_memory.cli import main

main(prog_name="agent-memory")
