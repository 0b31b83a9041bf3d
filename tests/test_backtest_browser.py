"""The backtest's HTML report in a real headless Chromium (Debian's /usr/bin/chromium).

Driven by playwright with `executable_path` (no browser download). The page
is opened from disk with the network unreachable by construction: every
request it makes must be a `file://` one. Checked: the rule table and the
findings table have one row per rule and per finding of the JSON report, both
plots load, and a screenshot of each plot is not blank.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import backtest_repo
import pytest

from bot import cli
from bot.backtest import cli as backtest_cli

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _chromium() -> Path:
    if not CHROMIUM.exists():
        pytest.skip(
            "no Chromium at /usr/bin/chromium (apt-get install -y chromium chromium-driver; "
            ".ci/run installs it)"
        )
    return CHROMIUM


def _ink(png: bytes) -> float:
    """The share of pixels that are not (near) white."""
    from PIL import Image

    counts = Image.open(io.BytesIO(png)).convert("L").histogram()
    return sum(counts[:235]) / max(1, sum(counts))


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    root = tmp_path_factory.mktemp("btb") / "repo"
    backtest_repo.build(root)
    out = tmp_path_factory.mktemp("btb-out")
    args = cli.build_parser().parse_args(
        [
            "backtest",
            "--no-progress",
            "--repo",
            str(root),
            "--commits",
            "-j",
            "1",
            "--out",
            str(out),
            "--github-repo",
            "acme/recipes",
            "--format",
            "json",
        ]
    )
    stdout, stderr = io.StringIO(), io.StringIO()
    assert backtest_cli.main(args, stdout, stderr) == 0, stderr.getvalue()
    return out, json.loads(stdout.getvalue())


def test_report_renders_in_chromium(report: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    chromium = _chromium()
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    out, data = report
    requests: list[str] = []
    profile = tmp_path / "profile"
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch_persistent_context(
            str(profile),
            executable_path=str(chromium),
            headless=True,
            args=FLAGS,
            viewport={"width": 1280, "height": 900},
        )
        try:
            page = browser.new_page()
            page.on("request", lambda r: requests.append(r.url))
            page.goto((out / "index.html").as_uri())
            page.wait_for_load_state("load")
            rule_rows = page.locator("#rules tbody tr").count()
            finding_rows = page.locator("#findings tbody tr").count()
            cells = page.locator("#rules tbody tr").first.locator("td").count()
            sizes = page.evaluate(
                "['plot-weeks', 'plot-fixed'].map(id => {"
                " const img = document.getElementById(id);"
                " return [img.complete, img.naturalWidth, img.naturalHeight]; })"
            )
            weeks_png = page.locator("#plot-weeks").screenshot()
            fixed_png = page.locator("#plot-fixed").screenshot()
            link = page.locator("#findings a").first.get_attribute("href")
            page.screenshot(path=str(tmp_path / "page.png"), full_page=True)
        finally:
            browser.close()
    assert rule_rows == len(data["rules"]) > 0
    assert finding_rows == len(data["findings"]) == 5
    assert cells == 11
    for complete, width, height in sizes:
        assert complete and width > 300 and height > 100
    # bars, axes and labels: far from a blank box (a broken image is near 0)
    assert _ink(weeks_png) > 0.05
    assert _ink(fixed_png) > 0.03
    assert link is not None and link.startswith("https://github.com/acme/recipes/pull/")
    assert requests and all(u.startswith("file://") for u in requests), requests
    assert (tmp_path / "page.png").stat().st_size > 10_000
