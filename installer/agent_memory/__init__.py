"""agent-memory: vendor-neutral, git-committed long-term memory for coding agents.

The command line is ``agent_memory.cli:entry``; the modules below are the pure core it calls.
"""

__all__ = ["AgentMemoryError", "__version__"]


def __getattr__(name: str) -> object:
    # Lazy, so that `agent-memory --version` imports nothing it does not need.
    if name == "__version__":
        from .resources import version

        return version()
    if name == "AgentMemoryError":
        from .errors import AgentMemoryError

        return AgentMemoryError
    raise AttributeError(name)
