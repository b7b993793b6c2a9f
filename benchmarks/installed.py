"""Benchmarks time the tool as pip installs it: with its modules byte-compiled.

pip compiles a wheel's modules when it installs them. An editable checkout run with
PYTHONDONTWRITEBYTECODE set (as some CI machines do) would instead compile every module on every
run, and a start-up benchmark would time the compiler rather than the tool.
"""

from __future__ import annotations

import compileall
from pathlib import Path

import agent_memory


def byte_compile() -> None:
    compileall.compile_dir(Path(agent_memory.__file__).parent, quiet=1)
