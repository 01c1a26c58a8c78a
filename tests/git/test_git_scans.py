"""Whole scans of the git backlog: ``list`` and ``report`` over every decision.

``parkbot list`` keeps each decision as the text it prints (its JSON rendered as it is read), so the
output must be exactly what the API's :class:`~parkbot.api.DecisionList` dumps; a scan reads the files a
chunk at a time; and a damaged file still stops the command with one error naming it.
"""

from __future__ import annotations

import gc
import json
import tracemalloc
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from parkbot.api import Backlog
from parkbot.cli import cli
from parkbot.cli.common import whole_scan
from parkbot.core import lifecycle
from parkbot.core.authority import Actor
from parkbot.core.config import Config
from parkbot.core.models import Decision, Option
from parkbot.trackers.git import GitTracker, view
from parkbot.trackers.git import reads as git_reads
from parkbot.trackers.git.change import Change
from parkbot.trackers.git.layout import decision_path
from parkbot.trackers.git.objects import ObjectStore
from parkbot.trackers.git.view import BacklogEdit, BacklogView
from tests.support.git_helpers import USER_EMAIL, cli_repo, needs_input

NOW = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
#: Numbers pydantic-core and :func:`json.dumps` spell differently (``1e-05``), and ones they agree on.
FLOATS = {"small": 1e-05, "tiny": 2.5e-07, "plain": 0.1, "big": 1e16, "negative_zero": -0.0}


def invoke(*args: str, stdin: str | None = None) -> Result:
    return CliRunner().invoke(cli, list(args), input=stdin, catch_exceptions=False)


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A backlog with open, resolved and escalated decisions; unicode text and floats in the work so far."""
    path = tmp_path / "repo"
    cli_repo(path, monkeypatch, config=f"owners:\n  default: {USER_EMAIL}\nhierarchy:\n  {USER_EMAIL}: bob\n")
    config = Config.model_validate({"owners": {"default": USER_EMAIL}, "hierarchy": {USER_EMAIL: "bob"}})
    with GitTracker.open(path, config=config) as tracker:
        results = [
            needs_input("billing-42", question="Refund “the rest” for Élodie? 💥", title="Refund — Élodie"),
            needs_input("billing-43", work_so_far={"floats": FLOATS, "nested": [[1.5, {"x": 3}]]}),
            needs_input("billing-44", work_so_far={"plain": "no floats", "count": 12345678901234567890}),
            needs_input("crm-7", key="merge", run="nightly-1"),
            needs_input("crm-8", key="merge", run="nightly-1", work_so_far=None),
        ]
        ids = []
        for n, result in enumerate(results):
            ids.append(lifecycle.park(tracker, result, config, now=NOW - timedelta(hours=10 - n)).decision.id)
        lifecycle.resolve(tracker, config, ids[1], "remaining", Actor(USER_EMAIL), now=NOW - timedelta(hours=2))
        lifecycle.resolve(tracker, config, ids[3], "full_original", Actor(USER_EMAIL), now=NOW - timedelta(hours=3))
        lifecycle.escalate(tracker, config, ids[4], Actor(USER_EMAIL), now=NOW - timedelta(hours=1))
    return path


LISTINGS = [
    [],
    ["--state", "all"],
    ["--state", "open"],
    ["--state", "resolved"],
    ["--state", "abandoned"],
    ["--answered-since", "2026-03-02T09:30:00Z"],
    ["--owner", "BOB"],
    ["--origin", "billing-*"],
    ["--origin", "nobody-*"],
]


@pytest.mark.parametrize("args", LISTINGS, ids=[" ".join(a) or "open" for a in LISTINGS])
def test_list_prints_exactly_what_the_api_returns(root: Path, args: list[str]) -> None:
    """Byte for byte: ``--json`` is ``json.dumps(indent=2)`` of the API's result, and the text its ``text()``."""
    with Backlog.open(root) as backlog:
        options: dict[str, Any] = {}
        if "--state" in args:
            options["state"] = args[args.index("--state") + 1]
        if "--answered-since" in args:
            options["answered_since"] = datetime.fromisoformat(args[args.index("--answered-since") + 1])
        if "--owner" in args:
            options["owner"] = args[args.index("--owner") + 1]
        if "--origin" in args:
            options["origin"] = args[args.index("--origin") + 1]
        listed = backlog.list(**options)
    as_json = invoke("list", *args, "--json")
    assert as_json.exit_code == 0, as_json.output
    assert as_json.stdout == json.dumps(listed.model_dump(mode="json"), indent=2, default=str) + "\n"
    as_text = invoke("list", *args)
    assert as_text.exit_code == 0
    assert as_text.stdout == listed.text() + "\n"


def test_every_kind_of_entry_is_listed_as_stored(root: Path) -> None:
    """The listing holds each case the fixture made: floats spelled as Python spells them, escaped unicode."""
    out = invoke("list", "--state", "all", "--json").stdout
    data = json.loads(out)
    assert data["count"] == 5
    work = {d["origin"]: d["work_so_far"] for d in data["decisions"]}
    assert work["billing-43"]["floats"] == FLOATS
    assert work["billing-44"]["count"] == 12345678901234567890
    assert '"small": 1e-05,' in out  # as json.dumps writes it (pydantic-core would write 0.00001)
    assert "\\u00c9lodie" in out  # ensure_ascii, as json.dumps does
    assert "\\ud83d\\udca5" in out
    assert [d["chain"] for d in data["decisions"] if d["origin"] == "crm-8"] == [[USER_EMAIL, "bob"]]
    assert {d["state"] for d in data["decisions"]} == {"open", "resolved"}


class Counting:
    """The decision files a view parses, by path."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.parsed: Counter[str] = Counter()
        original = BacklogView.parse_decision

        def parse(self_: BacklogView, data: bytes, path: str) -> Decision:
            self.parsed[path] += 1
            return original(self_, data, path)

        monkeypatch.setattr(BacklogView, "parse_decision", parse)


def test_parkbot_list_reads_only_the_open_decisions(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    counting = Counting(monkeypatch)
    listed = json.loads(invoke("list", "--json").stdout)
    open_ids = [d["id"] for d in listed["decisions"]]
    assert len(open_ids) == 3
    assert set(counting.parsed) == {decision_path(i) for i in open_ids}
    counting.parsed.clear()
    assert invoke("list", "--state", "all", "--json").exit_code == 0
    assert len(counting.parsed) == 5


def test_a_scan_reads_one_chunk_of_files_before_it_yields(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The reader streams: the first decision comes after one chunk of files is read, not the whole backlog."""
    monkeypatch.setattr(view, "DECISION_CHUNK", 2)
    monkeypatch.setattr(git_reads, "PROOF_BATCH", 2)
    asked: list[int] = []
    original = ObjectStore.read_many

    def read_many(store: ObjectStore, oids: Any) -> Any:
        asked.append(len(oids))
        return original(store, oids)

    monkeypatch.setattr(ObjectStore, "read_many", read_many)
    with GitTracker.open(root) as tracker:
        for state, count in ((None, 5), ("open", 3)):
            asked.clear()
            scan = tracker.iter_decisions(state)
            next(scan)
            before = sum(asked)
            assert len(list(scan)) == count - 1
            assert sum(asked) - before == count - 2  # every file past the first chunk was read later
            assert asked[-1] <= 2


def put_decisions(root: Path, decisions: list[Decision]) -> None:
    """Write decisions straight onto the backlog in one commit (quicker than parking each)."""

    def change(edit: BacklogEdit) -> Change:
        for decision in decisions:
            edit.put_decision(decision, None)
        return Change(f"add {len(decisions)} decisions")

    with GitTracker.open(root) as tracker:
        tracker.backlog.mutate(change)


def test_list_json_holds_the_text_it_prints_not_the_models(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    options = [Option(id="a", label="the first way"), Option(id="b", label="the second way")]
    put_decisions(
        root,
        [
            Decision(
                id=f"bulk-{n}-decision-q",
                origin=f"bulk-{n}",
                key="q",
                title=f"Which way for {n}?",
                question=f"Which way for {n}?",
                options=options,
                work_so_far={"step": n},
                owner=USER_EMAIL,
                created_at=NOW,
                updated_at=NOW,
            )
            for n in range(600)
        ],
    )
    monkeypatch.setattr(view, "DECISION_CHUNK", 32)
    monkeypatch.setattr(git_reads, "PROOF_BATCH", 32)
    with Backlog.open(root) as backlog:
        tracemalloc.start()
        try:
            printed = backlog.list_printed("all", as_json=True)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        size = sum(len(part) for part in printed.json_parts())
        assert printed.count == 605
        tracemalloc.start()
        try:
            listed = backlog.list("all")
            _, as_models = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert listed.count == 605
    # The models take about ten times their JSON; the printed list a few times (its text, one chunk, the trees).
    assert peak < 4 * size, (peak, size)
    assert peak < as_models / 3, (peak, as_models)


def test_a_damaged_decision_stops_list_and_report_with_one_error(root: Path) -> None:
    did = "billing-44-decision-refund"

    def damage(edit: BacklogEdit) -> Change:
        edit.tx.write(decision_path(did), b'{"id": "billing-44-decision-refund"}')
        return Change("edit by hand")

    with GitTracker.open(root) as tracker:
        tracker.backlog.mutate(damage)
    for args in (["list", "--state", "all"], ["list"], ["report"]):
        result = CliRunner().invoke(cli, [*args, "--json"])
        assert result.exit_code == 4, (args, result.output)
        error = json.loads(result.stdout)  # exactly one object: nothing of the listing was printed first
        assert error["error"] == "backend_failure"
        assert decision_path(did) in error["message"]
        assert "damaged or edited by hand" in result.stderr


def test_the_collector_is_paused_while_a_command_scans_and_resumed_after(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[bool] = []
    original = BacklogView.parse_decision

    def parse(self_: BacklogView, data: bytes, path: str) -> Decision:
        seen.append(gc.isenabled())
        return original(self_, data, path)

    monkeypatch.setattr(BacklogView, "parse_decision", parse)
    assert gc.isenabled()
    for args in (["list", "--state", "all", "--json"], ["list"], ["report"]):
        seen.clear()
        assert invoke(*args).exit_code == 0
        assert seen
        assert not any(seen), args
        assert gc.isenabled(), args
    with pytest.raises(RuntimeError), whole_scan():
        raise RuntimeError("a scan that fails")
    assert gc.isenabled()
