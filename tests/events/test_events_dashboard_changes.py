"""What an event hands the dashboard patch: the typed changes its outcomes said (parkbot.core.dashboard_index.Changed),
carried on its items, never read back from what the items print.

A comment command the bot confirmed as an act refreshes its decision's line even when nothing was left to change
(the same ``/accept`` twice); the standing answer again, ``/help``, a refusal or an ignored comment change nothing.
End to end on the fake GitHub: an ``/escalate`` moves the line to the new owner, an answer takes it off, and a
redelivered answer makes no dashboard request at all.
"""

from __future__ import annotations

from typing import Any

from parkbot.core import lifecycle
from parkbot.core.commands import parse
from parkbot.core.config import Config
from parkbot.core.dashboard_index import Changed
from parkbot.core.lifecycle import ParkOutcome, ResolveOutcome
from parkbot.core.models import Answer, Decision
from parkbot.core.tracker import Location
from parkbot.events.commands import CommandResult
from parkbot.events.comments import comment_items
from parkbot.trackers.github.dashboard_issue import read_index
from tests.support.events import comment_event, park, run
from tests.support.github_helpers import NOW, needs_input
from tests.support.memory_tracker import MemoryTracker
from tests.support.results import DID

HERE = Location(backend="github", number=7)


def _decision() -> Decision:
    return lifecycle.park(MemoryTracker(), needs_input(), Config(), now=NOW).decision


def resolved(action: Any) -> ResolveOutcome:
    answer = Answer(value="full_original", kind="option", by="alice", at=NOW)
    return ResolveOutcome(_decision(), action, answer, HERE)


def parked(action: Any, *, moved: bool = False) -> ParkOutcome:
    return ParkOutcome(_decision(), action, HERE, moved=moved)


def change_of(result: CommandResult) -> Changed | None:
    items = comment_items(result, 7)
    assert all(item.change is None for item in items[1:])  # the gates it published change no decision
    return items[0].change


def command(action: Any, outcome: Any, text: str = "/decide full_original") -> CommandResult:
    return CommandResult(action, "ok", parse(text), DID, outcome=outcome)


def test_a_command_carries_what_its_outcome_changed() -> None:
    assert change_of(command("resolved", resolved("resolved"))) == Changed(decision_id=DID)
    assert change_of(command("completed", resolved("completed"))) == Changed(decision_id=DID)
    assert change_of(command("unchanged", resolved("unchanged"))) is None
    escalated = command("escalated", parked("updated", moved=True), "/escalate")
    assert change_of(escalated) == Changed(decision_id=DID, moved=True)


def test_a_confirmed_act_refreshes_its_line_even_when_nothing_was_left_to_change() -> None:
    assert change_of(command("accepted", resolved("unchanged"), "/accept")) == Changed(decision_id=DID)
    assert change_of(command("passed", parked("unchanged"), "/pass")) == Changed(decision_id=DID)
    assert change_of(command("overridden", parked("unchanged"), "/override 1 no")) == Changed(decision_id=DID)


def test_help_refusals_and_ignored_comments_change_nothing() -> None:
    assert change_of(command("help", None, "/help")) is None
    refused = CommandResult("refused", "not_authorized", parse("/decide x"), DID, "no")
    assert [item.change for item in comment_items(refused, 7)] == [None]
    assert comment_items(CommandResult("ignored", "no_command"), 7)[0].change is None


def test_the_change_is_never_printed() -> None:
    item = comment_items(command("escalated", parked("updated", moved=True), "/escalate"), 7)[0]
    assert item.change is not None
    assert "change" not in item.as_dict()


# --- end to end: the event patches the dashboard with what its outcomes said --------------------------------


def listed(fake: Any) -> dict[str, str]:
    (issue,) = [i for i in fake.issues.values() if "parkbot:dashboard" in i.labels]
    index = read_index(issue.body)
    assert index is not None
    return {e.id: e.owner for e in index.entries}


def test_an_escalation_moves_the_line_and_an_answer_takes_it_off(fake: Any) -> None:
    number = park(fake)
    moved = run(fake, "issue_comment", comment_event(fake, number, "/escalate"))
    assert moved.dashboard is not None
    assert moved.dashboard.mode == "patch"
    assert listed(fake) == {DID: "carol"}
    answered = run(fake, "issue_comment", comment_event(fake, number, "/decide full_original", author="carol"))
    assert [i.kind for i in answered.acted] == ["resolved"]
    assert answered.dashboard is not None
    assert answered.dashboard.open == 0
    assert listed(fake) == {}


def test_an_answer_given_again_makes_no_dashboard_request(fake: Any) -> None:
    number = park(fake)
    run(fake, "issue_comment", comment_event(fake, number, "/decide full_original"))
    again = run(fake, "issue_comment", comment_event(fake, number, "/decide full_original"))
    assert [(i.kind, i.action) for i in again.acted] == [("resolved", "unchanged")]
    assert again.dashboard is None
