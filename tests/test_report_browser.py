"""The report as a person sees it: Debian's chromium, driven by playwright, loads the page.

Skipped, saying why, where the browser or playwright is missing (`.ci/run` installs both where
it can: `apt-get install chromium`, and playwright with the `test` extra).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from conftest import cli
from test_report import history

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]


def _browser() -> Any:
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="playwright is not installed (pip install '.[test]')"
    )
    if not Path(CHROMIUM).is_file():
        pytest.skip("no chromium here (Debian: apt-get install chromium); the page is untested")
    return sync_api


def test_the_page_renders_in_a_real_browser_with_data_and_nothing_fetched(
    tmp_path: Path,
) -> None:
    sync_api = _browser()
    root = history(tmp_path / "repo")
    page_file = tmp_path / "report.html"
    assert cli("report", root, "--html", page_file, "--today", "2026-03-01").exit_code == 0
    url = page_file.as_uri()
    errors: list[str] = []
    outside: list[str] = []
    with sync_api.sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            page = browser.new_page(java_script_enabled=False)
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("request", lambda r: outside.append(r.url) if r.url != url else None)
            page.goto(url)
            charts = page.locator("figure.chart svg")
            assert charts.count() == 3
            for n in range(charts.count()):
                bars = charts.nth(n).locator("rect.bar")
                values = [
                    float(bars.nth(k).get_attribute("data-value") or 0) for k in range(bars.count())
                ]
                assert any(v > 0 for v in values), f"chart {n} has no data"
            box = charts.first.bounding_box()
            assert box is not None and box["width"] > 300 and box["height"] > 100
            assert "Review" in page.inner_text("body")
            page.screenshot(path=str(tmp_path / "report.png"), full_page=True)
        finally:
            browser.close()
    assert errors == []
    assert outside == []
    assert (tmp_path / "report.png").stat().st_size > 10_000
