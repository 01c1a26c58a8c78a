"""What ``parkbot handle-event`` says about the dashboard refresh: a typed summary, printed as the same JSON object.

``EventOutcome.dashboard`` is a :class:`~parkbot.dashboard_refresh.DashboardOutcome` (written, unchanged, nothing to
show yet) or a :class:`~parkbot.events.base.DashboardFailed`; the ``--json`` output, the text, the job summary and the
annotations read its fields, and the JSON keeps its keys and their order.
"""

from __future__ import annotations

import json

import pytest

from parkbot.cli.events import dashboard_line, render_summary, render_text, report
from parkbot.dashboard_refresh import DashboardOutcome
from parkbot.events import EventOutcome
from parkbot.events.base import DashboardFailed, DashboardSummary, Item

URL = "https://github.com/acme/widgets/issues/9"


def outcome(dashboard: DashboardSummary | None) -> EventOutcome:
    item = Item("resolved", "billing-42-decision-refund: resolved", decision_id="billing-42-decision-refund")
    return EventOutcome("issue_comment", "created", "handled", "parkbot: resolved", [item], True, dashboard)


def test_a_written_dashboard_prints_its_fields_in_order_without_its_body() -> None:
    written = DashboardOutcome("updated", 9, URL, 2, "the body", "could not pin it", mode="patch")
    printed = outcome(written).as_dict()["dashboard"]
    assert list(printed.items()) == [
        ("action", "updated"),
        ("number", 9),
        ("url", URL),
        ("open", 2),
        ("mode", "patch"),
        ("notice", "could not pin it"),
    ]
    assert dashboard_line(outcome(written)) == "Dashboard #9: updated (2 open)"
    assert f"Dashboard [#9]({URL}): updated (2 open)" in render_summary(outcome(written))


def test_nothing_to_show_and_no_refresh() -> None:
    absent = DashboardOutcome("absent", None, None, 0, "", mode="recount")
    assert outcome(absent).as_dict()["dashboard"] == {
        "action": "absent",
        "number": None,
        "url": None,
        "open": 0,
        "mode": "recount",
    }
    assert dashboard_line(outcome(absent)) == "Dashboard: none yet (no decision to show)"
    assert outcome(None).as_dict()["dashboard"] is None
    assert dashboard_line(outcome(None)) is None
    assert "Dashboard" not in render_text(outcome(None))


def test_a_failed_refresh_prints_the_backends_reason_and_warns(capsys: pytest.CaptureFixture[str]) -> None:
    failed = DashboardFailed("GitHub kept failing; safe to re-run", "backend_failure")
    assert report(outcome(failed), {}, as_json=True, summary=False) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["dashboard"] == {
        "action": "failed",
        "message": "GitHub kept failing; safe to re-run",
        "reason": "backend_failure",
    }
    assert '"dashboard": {\n    "action": "failed",\n    "message": "GitHub kept failing' in out
    assert err == (
        "parkbot: warning: Dashboard not refreshed: GitHub kept failing; safe to re-run "
        "(the next event or reconcile retries)\n"
    )


def test_a_pin_notice_is_a_notice_of_the_run(capsys: pytest.CaptureFixture[str]) -> None:
    written = DashboardOutcome("created", 9, URL, 1, "the body", "could not pin it")
    report(outcome(written), {}, as_json=False, summary=False)
    out, err = capsys.readouterr()
    assert "Dashboard #9: created (1 open)" in out
    assert err == "parkbot: notice: parkbot dashboard: could not pin it\n"
    report(outcome(DashboardOutcome("unchanged", 9, URL, 1, "the body")), {}, as_json=False, summary=False)
    assert capsys.readouterr().err == ""
