"""What ``list`` and ``report`` print over a whole backlog, byte for byte, against outputs recorded once.

The scans are tuned for speed (records rendered as they are read, a report that keeps a small fact of
each decision); these files pin that a quicker scan prints exactly what the slower one did, over a
backlog with open, resolved, escalated and review items, a refusal, recurring questions, unicode and
floats. The recorded outputs are in ``scan_output/``; ``PARKBOT_RECORD_SCANS=1`` writes them again (only
when an output is meant to change: review the diff).
"""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner

from parkbot.cli import cli
from parkbot.core import lifecycle
from parkbot.core.authority import Actor
from parkbot.core.config import Config
from parkbot.core.errors import Refused
from parkbot.trackers.git import GitTracker
from tests.support.git_helpers import USER_EMAIL, cli_repo, needs_input
from tests.support.results import review_result

NOW = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
RECORDED = Path(__file__).with_name("scan_output")
BOSS = "bob@example.com"
FLOATS = {"small": 1e-05, "tiny": 2.5e-07, "plain": 0.1, "big": 1e16, "negative_zero": -0.0}


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "repo"
    text = f"owners:\n  default: {USER_EMAIL}\n  origins:\n    'crm-*': {BOSS}\nhierarchy:\n  {USER_EMAIL}: {BOSS}\n"
    cli_repo(path, monkeypatch, config=text)
    monkeypatch.setattr("parkbot.trackers.git.writes.utcnow", lambda: NOW - timedelta(days=20))  # a resolution's time
    config = Config.model_validate(
        {
            "owners": {"default": USER_EMAIL, "origins": {"crm-*": BOSS}},
            "hierarchy": {USER_EMAIL: BOSS},
        }
    )
    me, boss = Actor(USER_EMAIL), Actor(BOSS)
    with GitTracker.open(path, config=config) as tracker:
        at = NOW - timedelta(days=40)

        def park(origin: str, key: str = "refund", **changes: object) -> str:
            nonlocal at
            at += timedelta(hours=7)
            return lifecycle.park(tracker, needs_input(origin, key, **changes), config, now=at).decision.id

        ids = [
            park("billing-42", question="Refund “the rest” for Élodie? 💥", title="Refund — Élodie", guess="remaining"),
            park("billing-43", work_so_far={"floats": FLOATS, "nested": [[1.5, {"x": 3}]]}, guess="remaining"),
            park("billing-44", work_so_far={"plain": "no floats", "count": 12345678901234567890}),
            park("crm-7", key="merge", run="nightly-1", blocking=False),
            park("crm-8", key="merge", run="nightly-1", work_so_far=None),
            park("crm-9", key="merge", run="nightly-2", guess="full_original"),
            park("billing-45", dependents=["#12", "branch:agent/billing-45"]),
            park("billing-45", key="scope"),
            park("billing-45", key="tax"),
        ]
        with pytest.raises(Refused):  # a fourth open question of one origin: the log records a refusal
            park("billing-45", key="fourth")
        for n in range(6):
            ids.append(park(f"ops-{n}", key="rotate", question=f"Rotate the key of host-{n} now or at 0{n}:00?"))
        lifecycle.park_review(tracker, review_result(origin="billing-42"), config, now=at + timedelta(hours=1))
        answers = [
            (0, "remaining", me),
            (1, "full_original", me),
            (4, "remaining", boss),
            (5, "full_original", boss),
            (9, "remaining", me),
            (10, "remaining", me),
            (11, "full_original", me),
        ]
        for index, value, who in answers:
            at += timedelta(hours=3)
            lifecycle.resolve(tracker, config, ids[index], value, who, now=at)
        lifecycle.escalate(tracker, config, ids[2], me, now=at + timedelta(hours=1))
        lifecycle.escalate(tracker, config, ids[12], me, now=at + timedelta(hours=2))
    return path


COMMANDS = {
    "list-all.json": ["list", "--state", "all", "--json"],
    "list-all.txt": ["list", "--state", "all"],
    "list-open.json": ["list", "--json"],
    "list-resolved.txt": ["list", "--state", "resolved"],
    "report.md": ["report", "--since", "2026-01-01"],
    "report.json": ["report", "--since", "2026-01-01", "--json"],
    "report.html": ["report", "--since", "2026-01-01", "--format", "html"],
    "report-window.md": ["report", "--since", "2026-02-10T00:00:00Z"],
}


def test_list_and_report_print_what_they_always_printed(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("parkbot.cli.report.utcnow", lambda: NOW)
    record = os.environ.get("PARKBOT_RECORD_SCANS") == "1"
    for name, args in COMMANDS.items():
        done = CliRunner().invoke(cli, args, catch_exceptions=False)
        assert done.exit_code == 0, (args, done.output)
        file = RECORDED / name
        if record:
            RECORDED.mkdir(exist_ok=True)
            file.write_text(done.stdout, encoding="utf-8")
        assert done.stdout == file.read_text(encoding="utf-8"), f"{' '.join(args)} differs from {file}"
