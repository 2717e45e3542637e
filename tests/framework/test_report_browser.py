"""Reports as a person sees them: index.html rendered in a real browser, every image loaded.

Needs a Chromium binary (Debian: ``apt-get install -y chromium``); skipped without one.
"""

from __future__ import annotations

import html
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from dealsearch.cli import main
from dealsearch.report import FIGURE_SIZE

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
BROWSER = next((path for path in map(shutil.which, BROWSERS) if path), None)

pytestmark = pytest.mark.skipif(
    BROWSER is None, reason="no Chromium binary on PATH (Debian: apt-get install -y chromium)")

# Appended to a copy of index.html: once the page has loaded, the body says how many images
# it has and which did not load (no file, or not an image the browser can decode).
PROBE = """<script>
window.addEventListener("load", () => {
  const broken = [...document.images]
    .filter(img => !(img.complete && img.naturalWidth > 0))
    .map(img => img.getAttribute("src"));
  const sizes = [...document.images].map(img => img.naturalWidth + "x" + img.naturalHeight);
  document.body.dataset.images = document.images.length;
  document.body.dataset.broken = broken.join(" ");
  document.body.dataset.sizes = sizes.join(" ");
});
</script>"""


def render(page: Path, tmp_path: Path) -> dict[str, str]:
    """Load ``page`` plus the probe in headless Chromium; the probe's findings."""
    probe = page.with_name("probe.html")
    probe.write_text(page.read_text(encoding="utf-8").replace("</body>", PROBE + "</body>"),
                     encoding="utf-8")
    profile = tmp_path / "profile"
    result = subprocess.run(
        [BROWSER, "--headless", "--no-sandbox", "--disable-gpu",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--no-first-run", f"--user-data-dir={profile}", "--virtual-time-budget=10000",
         "--dump-dom", probe.as_uri()],
        capture_output=True, text=True, timeout=120, check=True)
    body = re.search(r"<body([^>]*)>", result.stdout)
    assert body, result.stdout[:500]
    return {key: html.unescape(value)
            for key, value in re.findall(r'data-(\w+)="([^"]*)"', body.group(1))}


def report(tmp_path: Path, game: str, search: list[str]) -> Path:
    db = str(tmp_path / f"{game}.sqlite")
    assert main(["search", "random", "--game", game, *search, "--seed", "1", "--workers", "1",
                 "--db", db, "--json", "--quiet"]) == 0
    out = tmp_path / game
    assert main(["report", "--db", db, "--game", game, "--out", str(out)]) == 0
    return out / "index.html"


@pytest.mark.parametrize(("game", "search"), [
    ("beggar", ["--deals", "200000"]),
    ("durak", ["--players", "3", "--policy", "aggressive", "--deals", "100000"]),
    ("spite", ["--deals", "30000"]),
])
def test_every_image_of_a_report_loads_in_a_browser(tmp_path, capsys, game, search):
    page = report(tmp_path, game, search)
    capsys.readouterr()
    sources = re.findall(r'<img src="([^"]+)"', page.read_text(encoding="utf-8"))
    assert len(sources) >= 3
    seen = render(page, tmp_path)
    assert seen["broken"] == ""
    assert int(seen["images"]) == len(sources)
    assert set(seen["sizes"].split()) == {f"{FIGURE_SIZE[0]}x{FIGURE_SIZE[1]}"}


def test_the_probe_sees_a_missing_image(tmp_path):
    page = tmp_path / "index.html"
    page.write_text('<!doctype html><html><body><img src="missing.png"></body></html>',
                    encoding="utf-8")
    assert render(page, tmp_path)["broken"] == "missing.png"
