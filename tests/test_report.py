"""The report page's layout: the nav bar wraps inside the page, bars in value order."""
import re
import shutil
import subprocess

import pytest

from misigen.pipeline.report import _bar_chart, render_report


def _records(tasks):
    """Rotation-type QA records under the given (variant) task names, angles −90…90."""
    out = []
    for t in tasks:
        for k, v in enumerate((-90.0, -15.0, -30.0, 15.0, 45.0, 90.0, 30.0, -45.0)):
            out.append({"id": f"{t}-s-test-{k:03d}", "task": t, "split": "test", "structure": "s", "images": [],
                        "options": None, "question": "q", "answer": f"roll x {v:g}",
                        "program": {"task_type": "rotation", "axes": ["x", "y", "z"], "value_range": [-90, 90],
                                    "ops": [{"op": "roll", "axis": "xyz"[k % 3], "value": v}]}})
    return out


def test_bars_in_numeric_order():
    svg = _bar_chart("roll_value", {"-15.0": 1, "-90.0": 2, "15.0": 3, "-30.0": 1, "90.0": 1, "5.0": 1})
    labels = re.findall(r"text-anchor='end'>([^<]+)<", svg)
    assert labels == ["-90.0", "-30.0", "-15.0", "5.0", "15.0", "90.0"]     # as strings: -15, -30, -90, 15, 5, 90
    # text labels keep their alphabetical order; numbers come first
    svg = _bar_chart("answer", {"No": 2, "Yes": 1, "B": 1, "A": 3, "10": 1, "2": 1})
    assert re.findall(r"text-anchor='end'>([^<]+)<", svg) == ["2", "10", "A", "B", "No", "Yes"]


def test_report_bars_follow_the_values(tmp_path):
    page = render_report(tmp_path, _records(["rotation"]), {"tasks": ["rotation"]}, 2, [])
    chart = re.search(r"aria-label='roll_value'>(.*?)</svg>", page).group(1)
    values = [float(x) for x in re.findall(r"text-anchor='end'>([^<]+)<", chart)]
    assert values == sorted(values) and len(values) == 8


def _chromium():
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        if shutil.which(name):
            return shutil.which(name)
    return None


# Appended to a copy of the page: how wide the nav and the page are in the browser's layout.
MEASURE = """<script>window.addEventListener('load', function () {
  var nav = document.querySelector('nav'), r = nav.getBoundingClientRect();
  document.body.setAttribute('data-nav', [Math.ceil(nav.scrollWidth), Math.ceil(r.right), Math.ceil(r.height),
    document.documentElement.scrollWidth, window.innerWidth].join(','));
});</script>"""


@pytest.mark.slow      # runs headless Chromium
def test_nav_fits_the_window_in_chromium(tmp_path):
    browser = _chromium()
    if browser is None:
        pytest.skip("no chromium binary (apt-get install chromium; .ci/run installs it)")
    # Fifteen long task names (a large user suite): one unbreakable line before the fix.
    tasks = [f"rotation_variant_number_{k}_with_a_long_name" for k in range(15)]
    page = tmp_path / "report.html"
    page.write_text(render_report(tmp_path, _records(tasks), {"tasks": tasks}, 1, []).replace(
        "</body>", MEASURE + "</body>"))
    run = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--window-size=1024,768",
                          "--virtual-time-budget=10000", "--dump-dom", page.resolve().as_uri()],
                         capture_output=True, text=True, timeout=180)
    found = re.search(r'data-nav="([\d,]+)"', run.stdout)
    assert found, run.stderr[-2000:]
    nav_scroll, nav_right, nav_height, page_width, window = map(int, found.group(1).split(","))
    assert page_width <= window, found.group(1)            # no horizontal scroll bar
    assert nav_right <= window and nav_scroll <= window, found.group(1)
    assert nav_height > 30, found.group(1)                  # it wrapped onto several lines
