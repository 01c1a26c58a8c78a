"""The HTML report in a real browser: headless Chromium lays it out, and the chart and tables fit the page.

The report page itself is served unchanged (its Content-Security-Policy forbids scripts). A harness page
on the same localhost origin frames it at a narrow and a wide width and measures it from outside, with
its own script; Chromium's ``--dump-dom`` prints the harness DOM, measurements included.
"""

from __future__ import annotations

import functools
import html
import http.server
import json
import os
import re
import shutil
import subprocess
import threading
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from parkbot.report import compute_report, render
from tests.support.planner_report import NOW as PLANNER_NOW
from tests.support.planner_report import T0, person_answered, planner_answered
from tests.support.planner_report import history as planner_history
from tests.support.report import NOW, REFUSALS, SINCE, history, make

VIEWPORTS = {"narrow": 400, "wide": 1280}
#: Sub-pixel rounding: a box may end this far past the viewport and still count as inside.
TOLERANCE = 0.5

HARNESS = r"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>harness</title>
<style>body{margin:0} iframe{border:0;display:block;height:900px}</style></head>
<body>
FRAMES
<pre id="result">pending</pre>
<script>
function describe(el) {
  const section = el.closest("section");
  const classes = el.className.trim().split(/\s+/).filter(Boolean).map((c) => "." + c).join("");
  return (section ? "#" + section.id + " " : "") + el.tagName.toLowerCase() + classes;
}
window.addEventListener("load", () => {
  const out = {};
  for (const frame of document.querySelectorAll("iframe")) {
    const doc = frame.contentDocument;
    const root = doc.documentElement;
    const boxes = [];
    for (const el of doc.querySelectorAll("main, section, table, .bar, .track, .suggestion")) {
      const r = el.getBoundingClientRect();
      boxes.push({what: describe(el), width: r.width, height: r.height, left: r.left, right: r.right});
    }
    const fills = Array.from(doc.querySelectorAll("#weekly .count .fill"), (el) => el.getBoundingClientRect().width);
    out[frame.id] = {viewport: root.clientWidth, scrollWidth: root.scrollWidth, boxes, fills,
                     cspMeta: !!doc.querySelector('meta[http-equiv="Content-Security-Policy"]')};
  }
  document.getElementById("result").textContent = JSON.stringify(out);
});
</script>
</body></html>
"""


def chromium() -> str | None:
    """The Chromium binary: ``PARKBOT_CHROMIUM``, else Debian's ``chromium`` (or ``chromium-browser``)."""
    configured = os.environ.get("PARKBOT_CHROMIUM")
    if configured:
        return configured if shutil.which(configured) else None
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def browser() -> str:
    found = chromium()
    if found is None:
        pytest.skip(
            "the HTML layout test needs Chromium, which is not installed here "
            "(Debian: apt-get install chromium; .ci/run installs it when it can)"
        )
    return found


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A localhost server over ``tmp_path`` (Chromium reaches nothing else), and that folder."""
    handler = functools.partial(_QuietHandler, directory=str(tmp_path))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", tmp_path
    finally:
        server.shutdown()
        server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


def lay_out(browser: str, base: str, folder: Path, page: str) -> dict[str, Any]:
    """Chromium's measurements of ``page`` framed at every width of :data:`VIEWPORTS`."""
    (folder / "report.html").write_text(page, encoding="utf-8")
    frames = "\n".join(
        f'<iframe id="{name}" src="report.html" style="width:{w}px"></iframe>' for name, w in VIEWPORTS.items()
    )
    (folder / "harness.html").write_text(HARNESS.replace("FRAMES", frames), encoding="utf-8")
    profile = folder / "profile"
    command = [
        browser,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--no-default-browser-check",
        "--hide-scrollbars",
        f"--user-data-dir={profile}",
        "--window-size=1400,1000",
        "--virtual-time-budget=5000",
        "--dump-dom",
        f"{base}/harness.html",
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=180, check=False)
    match = re.search(r'<pre id="result">(.*?)</pre>', done.stdout, re.S)
    assert done.returncode == 0, f"chromium exited {done.returncode}: {done.stderr[-2000:]}"
    assert match, f"no measurements in what chromium printed: {done.stdout[-2000:]}"
    assert match.group(1) != "pending", "the harness script did not run"
    result: dict[str, Any] = json.loads(html.unescape(match.group(1)))
    return result


def check_fits(measured: dict[str, Any]) -> None:
    for name, width in VIEWPORTS.items():
        frame = measured[name]
        assert frame["viewport"] == width, (name, frame["viewport"])
        assert frame["scrollWidth"] <= width, f"{name}: the page scrolls sideways ({frame['scrollWidth']}px)"
        assert frame["cspMeta"]
        for box in frame["boxes"]:
            assert box["width"] > 0, (name, box)
            assert box["height"] > 0, (name, box)
            assert box["left"] >= -TOLERANCE, (name, box)
            assert box["right"] <= width + TOLERANCE, (name, box)


def test_the_report_fits_a_narrow_and_a_wide_viewport(browser: str, served: tuple[str, Path]) -> None:
    base, folder = served
    page = render(compute_report(history(), REFUSALS, since=SINCE, now=NOW), "html")
    measured = lay_out(browser, base, folder, page)
    check_fits(measured)
    for name in VIEWPORTS:
        boxes = measured[name]["boxes"]
        kinds = {box["what"].split(" ")[-1] for box in boxes}
        # The chart, the owner table, the oldest-open table and the answer splits were all laid out.
        assert {"table.chart", "table.owners.stack", "table.oldest.stack", "table.split", "div.bar.count"} <= kinds
        # Bars are as long as their counts: weeks of 1, 3, 0, 5 and 3 questions.
        fills = measured[name]["fills"]
        assert len(fills) == 5
        assert fills[2] == 0
        assert fills[3] > fills[1] > fills[0] > 0
        assert fills[1] == pytest.approx(fills[4], abs=0.5)
        assert fills[1] == pytest.approx(fills[3] * 3 / 5, rel=0.05)


def test_long_unbroken_text_and_a_year_of_weeks_still_fit(browser: str, served: tuple[str, Path]) -> None:
    base, folder = served
    start = NOW - timedelta(days=365)
    long_word = "x" * 300
    decisions = [
        make(
            f"origin-with-a-long-name-{i}",
            f"key-{i % 3}",
            f"Question {long_word} number {i}?",
            start + timedelta(days=i * 5),
            owner=f"owner-with-a-very-long-address-{i % 4}@{'sub.' * 10}example.com",
            title=f"Title {long_word}",
            dependents=(f"branch:agent/{'deep/' * 20}{i}",),
        )
        for i in range(70)
    ]
    page = render(compute_report(decisions, [], since=start, now=NOW), "html")
    check_fits(lay_out(browser, base, folder, page))


# --- report planner html ----------------------------------------


def _section(page: str, name: str) -> str | None:
    found = re.search(rf'<section id="{name}">(.*?)</section>', page, re.S)
    return found.group(1) if found else None


def test_the_html_report_has_the_planner_s_figures_and_most_cited_sources() -> None:
    page = render(compute_report(planner_history(), since=T0 - timedelta(days=1), now=PLANNER_NOW), "html")
    planner = _section(page, "planner")
    assert planner is not None
    assert "<h2>The planner</h2>" in planner
    text = re.sub(r"<[^>]+>", " ", planner)
    for label, value in [
        ("Answered by the planner", "50%"),
        ("Overridden by an owner", "25%"),
        ("Not reviewed yet", "1"),
        ("Median time to answer: planner / people", "20m / 10h"),
        ("Waiting saved per answer (median)", "9h 40m"),
    ]:
        assert re.search(rf"{re.escape(label)}\s+{re.escape(value)}", text), (label, value, text)
    assert "<code>docs/refunds.md</code> (3)" in planner
    assert "planner.sources" in planner  # what a high override rate says to do
    assert page.index('id="planner"') < page.index('id="owners"')  # where the Markdown report has it


def test_a_cited_source_is_escaped_in_the_html_report() -> None:
    decisions = [planner_answered(1, 10, "docs/<script>x</script>.md"), person_answered(2, 4)]
    page = render(compute_report(decisions, since=T0 - timedelta(days=1), now=PLANNER_NOW), "html")
    assert "<script>x" not in page
    assert "&lt;script&gt;x" in page


def test_an_html_report_without_planner_answers_has_no_planner_section() -> None:
    page = render(compute_report([person_answered(5, 4)], since=T0 - timedelta(days=1), now=PLANNER_NOW), "html")
    assert 'id="planner"' not in page


def test_the_planner_section_fits_a_narrow_and_a_wide_viewport(
    browser: str,
    served: tuple[str, Path],
) -> None:
    base, folder = served
    page = render(compute_report(planner_history(), since=T0 - timedelta(days=1), now=PLANNER_NOW), "html")
    measured = lay_out(browser, base, folder, page)
    check_fits(measured)
    for name in VIEWPORTS:
        laid_out = {box["what"] for box in measured[name]["boxes"]}
        assert "#planner table.figures" in laid_out
