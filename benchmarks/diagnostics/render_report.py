"""Render leaderboard reports in a real browser (headless Chromium), check their layout, save screenshots.

    python benchmarks/diagnostics/render_report.py [--out DIR] [--resamples B]

Builds the HTML report of the bundled model-vs-human and texture-vs-shape data (the
default protocol, and texture-vs-shape under the flat protocol, whose human–human
estimate lies outside its percentile interval), opens each in headless Chromium and

* measures the layout in the browser: the page must not be wider than the window, no
  table may be wider than the text column, and no figure may be shrunk by more than
  15 % to fit (shrunk figures have unreadably small labels);
* takes a full-page screenshot, cut into tiles of 1300 px (``DIR/<name>_01.png`` ...),
  to be looked at: axis labels complete, panels in the leaderboard's order, p-values
  never shown as 0 (three significant digits, ``1.00e-04`` below 1e-4), legends that say
  what they show.

Exit status 1 when a layout check fails, 2 when Chromium is missing (``apt-get install
-y chromium``). Needs nothing beyond trialwise's own dependencies (Pillow comes with
matplotlib). The report's content is tested in ``tests/report/test_report.py``; this script is
the visual check, run it after changing ``report.py`` or ``plot.py`` and look at the
tiles.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

WIDTH = 1280
TILE = 1300

# Runs in the page after it has loaded; the result replaces the body so --dump-dom returns it.
_PROBE = """
<script>
window.addEventListener('load', () => {
  const doc = document.documentElement, body = document.body;
  const column = body.clientWidth - parseFloat(getComputedStyle(body).paddingLeft)
                 - parseFloat(getComputedStyle(body).paddingRight);
  const tables = [...document.querySelectorAll('table')].map((t, i) => ({
      index: i, width: t.scrollWidth, hidden: t.closest('details') !== null && !t.closest('details').open,
      head: t.querySelector('th') ? t.querySelector('th').textContent : ''}));
  const images = [...document.querySelectorAll('img')].map((im, i) => ({
      index: i, natural: im.naturalWidth, shown: im.getBoundingClientRect().width,
      section: (im.previousElementSibling && im.previousElementSibling.tagName === 'H2')
               ? im.previousElementSibling.textContent : ''}));
  const result = {pageWidth: doc.scrollWidth, windowWidth: window.innerWidth, height: doc.scrollHeight,
                  column: column, tables: tables, images: images};
  document.body.innerHTML = '<pre id="probe">' + JSON.stringify(result) + '</pre>';
});
</script>
"""


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    print("render_report: Chromium not found; install it (apt-get install -y chromium)", file=sys.stderr)
    sys.exit(2)


def _run(browser: str, *args: str, height: int) -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory() as profile:
        return subprocess.run(
            [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--disable-component-update", "--no-first-run", f"--user-data-dir={profile}",
             "--hide-scrollbars", f"--window-size={WIDTH},{height}", *args],
            capture_output=True, text=True, timeout=180, check=False)


def measure(browser: str, html_path: Path) -> dict:
    """The layout of the report as the browser computes it (see _PROBE)."""
    probe = html_path.with_suffix(".probe.html")
    probe.write_text(html_path.read_text(encoding="utf-8").replace("</body>", _PROBE + "</body>"), encoding="utf-8")
    try:
        proc = _run(browser, "--dump-dom", probe.resolve().as_uri(), height=1000)
    finally:
        probe.unlink()
    found = re.search(r'<pre id="probe">(.*?)</pre>', proc.stdout, re.S)
    if not found:
        raise RuntimeError(f"the layout probe did not run: {proc.stderr.strip()[-500:]}")
    return json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&"))


def problems(layout: dict) -> list[str]:
    out = []
    if layout["pageWidth"] > layout["windowWidth"]:
        out.append(f"the page is {layout['pageWidth']} px wide in a {layout['windowWidth']} px window")
    for t in layout["tables"]:
        if not t["hidden"] and t["width"] > layout["column"] + 1:
            out.append(f"table {t['index']} ({t['head']!r} ...) is {t['width']} px wide; the column is "
                       f"{layout['column']:.0f} px")
    for im in layout["images"]:
        if im["natural"] and im["shown"] < 0.85 * im["natural"]:
            out.append(f"figure {im['index']} {im['section']!r} is shrunk from {im['natural']} to "
                       f"{im['shown']:.0f} px: its labels become too small")
    return out


def screenshot(browser: str, html_path: Path, height: int, out_dir: Path, name: str) -> list[Path]:
    from PIL import Image

    shot = out_dir / f"{name}_full.png"
    _run(browser, f"--screenshot={shot.resolve()}", html_path.resolve().as_uri(), height=height + 40)
    tiles = []
    with Image.open(shot) as im:
        for i, top in enumerate(range(0, min(im.height, height + 40), TILE), start=1):
            tile = out_dir / f"{name}_{i:02d}.png"
            im.crop((0, top, im.width, min(top + TILE, im.height))).save(tile)
            tiles.append(tile)
    return tiles


def build_reports(out_dir: Path, resamples: int) -> dict[str, Path]:
    import matplotlib

    matplotlib.use("Agg")
    import trialwise as tw

    cases = {
        "model-vs-human": (tw.datasets.model_vs_human, "model-vs-human"),
        "texture-vs-shape": (tw.datasets.texture_vs_shape, "model-vs-human"),
        "texture-vs-shape-flat": (tw.datasets.texture_vs_shape, "flat"),
    }
    paths = {}
    for name, (load, protocol) in cases.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the data's notes are in the report
            lb = tw.leaderboard(load(), protocol, n_resamples=resamples, rng=0)
            pairs = lb.pairwise(which="neighbours") if len(lb.candidates) > 3 else lb.pairwise(which="all")
            paths[name] = lb.report(out_dir / f"{name}.html", pairwise=pairs)
    return paths


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="report-screenshots", help="folder for the reports and screenshots")
    parser.add_argument("--resamples", type=int, default=1000, help="bootstrap replicates (default 1000)")
    args = parser.parse_args(argv)
    browser = chromium()
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    failed = False
    for name, path in build_reports(out_dir, args.resamples).items():
        layout = measure(browser, path)
        found = problems(layout)
        tiles = screenshot(browser, path, layout["height"], out_dir, name)
        status = "ok" if not found else "LAYOUT PROBLEMS"
        print(f"{name}: {path} — {layout['height']} px tall, {len(layout['images'])} figures, "
              f"{len(layout['tables'])} tables — {status}; screenshots {tiles[0].name} … {tiles[-1].name}")
        for p in found:
            print(f"  - {p}")
        failed |= bool(found)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
