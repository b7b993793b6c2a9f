"""What the benchmarks share: medians of timed runs, of the tool as pip installs it.

pip compiles a wheel's modules when it installs them. An editable checkout run with
PYTHONDONTWRITEBYTECODE set (as some CI machines do) would instead compile every module on every
run, and a start-up benchmark would time the compiler rather than the tool: byte_compile first.
"""

from __future__ import annotations

import compileall
import statistics
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import agent_memory


def byte_compile() -> None:
    compileall.compile_dir(Path(agent_memory.__file__).parent, quiet=1)


def median(run: Callable[[], object], runs: int) -> float:
    """The median wall time of ``runs`` calls of ``run``, in seconds."""
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        run()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def median_process(command: list[str], runs: int) -> float:
    """The median wall time of a command run ``runs`` times (it must succeed)."""
    return median(lambda: subprocess.run(command, check=True, capture_output=True), runs)


def median_cpu(command: list[str], runs: int) -> float:
    """The median CPU time (user + system) of a command run ``runs`` times: on a shared, busy
    machine wall time measures the neighbours, CPU time still measures the command."""
    import resource

    samples = []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(command, check=True, capture_output=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        samples.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return statistics.median(samples)


def interleaved(
    commands: dict[str, list[str]],
    runs: int,
    prepare: Callable[[str], object] | None = None,
    stdin: dict[str, bytes] | None = None,
    env: dict[str, dict[str, str]] | None = None,
) -> tuple[dict[str, float], dict[str, float]]:
    """Median wall time and median CPU time (user + system) of each command, the commands run
    in turn ``runs`` times: a burst of load from elsewhere then slows every command alike
    instead of the one that happened to be running. ``prepare(name)`` runs, untimed, before
    each run of a command (a writing command's files put back); ``stdin[name]`` is what a
    command reads on stdin (a hook's payload); ``env[name]``, its environment (the code before
    a change, put first on PYTHONPATH)."""
    import resource

    wall: dict[str, list[float]] = {name: [] for name in commands}
    cpu: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, command in commands.items():
            if prepare is not None:
                prepare(name)
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            given = (stdin or {}).get(name)
            environment = (env or {}).get(name)
            subprocess.run(command, check=True, capture_output=True, input=given, env=environment)
            wall[name].append(time.perf_counter() - started)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            used = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
            cpu[name].append(used)
    return (
        {name: statistics.median(values) for name, values in wall.items()},
        {name: statistics.median(values) for name, values in cpu.items()},
    )


def print_ratios(labels: dict[str, str], wall: dict[str, float], cpu: dict[str, float]) -> None:
    """One line per command: wall and CPU medians, each as a ratio to the first command's."""
    base = next(iter(labels))
    print(f"{'':31} {'wall':>9}   {'ratio':>6}   {'cpu':>9}   {'ratio':>6}")
    for name, label in labels.items():
        print(
            f"{label:<31} {wall[name]:8.4f}s   {wall[name] / wall[base]:5.2f}x"
            f"   {cpu[name]:8.4f}s   {cpu[name] / cpu[base]:5.2f}x"
        )
