"""The report's page as a new user met it: its title, its hit-rate chart and its least used
facts (issue "Fidelity 4", item 14)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from conftest import build_tree, cli, git_init, run_console


def ten_facts(root: Path) -> Path:
    """A fresh memory of ten live facts, three sessions naming some of them."""
    git_init(root)
    assert cli("enable", root, "--today", "2026-03-01", "--vendor", "none").exit_code == 0
    for n in range(10):
        text = f"Decision number {n} about the {['api', 'cli', 'db', 'ui', 'ci'][n % 5]} layer"
        done = cli("fact", "add", text, root, "--id", f"fact-{n}", "--today", "2026-03-01")
        assert done.exit_code == 0, done.output
    build_tree(
        root,
        {
            f"memory/sessions/2026-03-0{day}-100000.md": (
                f"## Memory References\n- Referenced: fact-0, fact-{day}\n"
            )
            for day in (2, 3, 4)
        },
    )
    return root


def test_the_title_is_the_repo_s_name_never_the_path_typed(tmp_path: Path) -> None:
    root = ten_facts(tmp_path / "widgets")
    done = run_console("report", ".", "--html", "../r.html", "--today", "2026-03-05", cwd=root)
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "r.html").read_text()
    assert "<title>Memory report: widgets</title>" in page
    assert "<h1>Memory report: widgets</h1>" in page
    assert str(tmp_path) not in page and "Memory report: ." not in page
    text = run_console("report", str(root), "--format", "md", "--today", "2026-03-05", cwd=tmp_path)
    assert text.stdout.startswith("# Memory report: widgets\n") and str(tmp_path) not in text.stdout


def test_the_hit_rate_chart_has_a_legend_and_ticks_between_0_and_100(tmp_path: Path) -> None:
    root = ten_facts(tmp_path / "repo")
    assert (
        cli("report", root, "--html", tmp_path / "r.html", "--today", "2026-03-05").exit_code == 0
    )
    page = (tmp_path / "r.html").read_text()
    figure = page.split('<h2 id="id-hit-rate">', 1)[1].split("</figure>", 1)[0]
    legend = figure.split('<ul class="legend">', 1)[1]
    assert "in full: the start view showed the fact&#x27;s text" in legend
    assert "named only: it showed one line naming the fact" in legend
    assert "lower bar" in figure and "upper bar" in figure  # which bar is which
    ticks = re.findall(r'text-anchor="end">([^<]*)</text>', figure)
    assert ticks == ["0 %", "25 %", "50 %", "75 %", "100 %"]


def test_least_used_never_repeats_a_most_used_fact(tmp_path: Path) -> None:
    root = ten_facts(tmp_path / "repo")
    done = cli("report", root, "--today", "2026-03-05", "--json")
    summary = json.loads(done.output)["summary"]
    most = [r["id"] for r in summary["most_used"]]
    least = [r["id"] for r in summary["least_used"]]
    assert len(most) == 10 and most[0] == "fact-0"
    assert not set(most) & set(least)


def test_a_count_axis_ticks_on_whole_values() -> None:
    from agent_memory.core.report.charts import Series, bars

    chart = bars("t", ["a", "b"], [Series("s", "#000", (3.0, 17.0))])
    assert re.findall(r'text-anchor="end">([^<]*)</text>', chart) == [
        "0",
        "4",
        "8",
        "12",
        "16",
        "20",
    ]
