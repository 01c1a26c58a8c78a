"""The HTML report shows the planner's section, as the Markdown and JSON reports do, and it fits the page."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

from parkbot.report import compute_report, render
from tests.test_planner_report import NOW, T0, history, person_answered, planner_answered
from tests.test_report_browser import VIEWPORTS, browser, check_fits, lay_out, served  # noqa: F401  (fixtures)


def _section(page: str, name: str) -> str | None:
    found = re.search(rf'<section id="{name}">(.*?)</section>', page, re.S)
    return found.group(1) if found else None


def test_the_html_report_has_the_planner_s_figures_and_most_cited_sources() -> None:
    page = render(compute_report(history(), since=T0 - timedelta(days=1), now=NOW), "html")
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
    page = render(compute_report(decisions, since=T0 - timedelta(days=1), now=NOW), "html")
    assert "<script>x" not in page
    assert "&lt;script&gt;x" in page


def test_an_html_report_without_planner_answers_has_no_planner_section() -> None:
    page = render(compute_report([person_answered(5, 4)], since=T0 - timedelta(days=1), now=NOW), "html")
    assert 'id="planner"' not in page


def test_the_planner_section_fits_a_narrow_and_a_wide_viewport(
    browser: str,  # noqa: F811
    served: tuple[str, Path],  # noqa: F811
) -> None:
    base, folder = served
    page = render(compute_report(history(), since=T0 - timedelta(days=1), now=NOW), "html")
    measured = lay_out(browser, base, folder, page)
    check_fits(measured)
    for name in VIEWPORTS:
        laid_out = {box["what"] for box in measured[name]["boxes"]}
        assert "#planner table.figures" in laid_out
