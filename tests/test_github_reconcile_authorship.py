"""The nightly reconcile finds decisions by parkbot's own authorship, not by their labels.

Labels are an index that anyone with triage can remove; the ``issues.unlabeled`` event puts them back,
but an event can be missed (the workflow lacks the event type, Actions is down). The reconcile lists
the issues parkbot opened (``GET /issues?creator=<its login>&state=all``, paginated), restores the
labels of every decision among them that lost one, and gates its dependents again.
"""

from __future__ import annotations

from parkbot.trackers.github import DECISION_LABEL
from tests.fakegithub import FakeGitHub
from tests.github_support import DID, gate_of, make_tracker
from tests.test_events_support import run, webhook
from tests.test_github_index_attacks import LABEL, park_with_pull


def _strip(fake: FakeGitHub, number: int, *names: str) -> None:
    wanted = {n.casefold() for n in names}
    fake.issues[number].labels = [n for n in fake.issues[number].labels if n.casefold() not in wanted]


def test_the_reconcile_restores_a_decision_whose_labels_were_removed_without_the_event(fake: FakeGitHub) -> None:
    number, pr = park_with_pull(fake)
    _strip(fake, number, DECISION_LABEL, LABEL)  # mallory, with triage; no workflow saw it
    _strip(fake, pr.number, LABEL)
    fake.check_runs.clear()  # and the gate a failed run should have published is lost too

    outcome = run(fake, "schedule", webhook("schedule"))

    assert fake.count("GET", r"/repos/acme/widgets/issues") >= 1
    assert any(r.query.get("creator") == fake.login for r in fake.requests if r.path.endswith("/issues"))
    assert DECISION_LABEL in fake.issues[number].labels
    assert LABEL in fake.issues[number].labels
    assert LABEL in fake.issues[pr.number].labels  # the dependent is linked again
    gate = gate_of(fake, pr.pull.head_sha)
    assert gate is not None
    assert gate.state == "pending"
    assert any(i.decision_id == DID and i.action == "restored" for i in outcome.items)
    notes = [c.body for c in fake.comments.values() if c.issue_number == number and c.user == fake.login]
    assert any("stay blocked" in n for n in notes)
    assert [d.id for d in make_tracker(fake).iter_decisions("open")] == [DID]


def test_an_issue_someone_else_opened_with_a_copy_of_the_block_is_not_restored(fake: FakeGitHub) -> None:
    number, _ = park_with_pull(fake)
    copy = fake.add_issue("copy", fake.issues[number].body, labels=[], author="mallory")
    run(fake, "schedule", webhook("schedule"))
    assert fake.issues[copy.number].labels == []  # only issues parkbot opened are listed, and read


def test_the_listing_follows_every_page(fake: FakeGitHub) -> None:
    for i in range(105):  # more than one page of issues parkbot opened
        fake.add_issue(f"log {i}", "not a decision", author=fake.login)
    number, _ = park_with_pull(fake)
    _strip(fake, number, DECISION_LABEL)
    run(fake, "schedule", webhook("schedule"))
    assert DECISION_LABEL in fake.issues[number].labels
