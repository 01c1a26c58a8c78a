"""Labels, issue authorship and shared commits grant nothing on GitHub (docs/github.md, "Threat model").

Each test is one thing a writer (an agent's own token, another App with ``issues: write``, anyone with
the triage role) can do through GitHub's API, done through the stateful fake, and what parkbot does
about it: labels are an index, never evidence; an issue parkbot did not open is never a decision; the
gate is per commit; a link parkbot cannot follow blocks and says why.
"""

from __future__ import annotations

from typing import Any

import pytest

from parkbot.core import lifecycle
from parkbot.core.authority import Actor
from parkbot.core.config import Config
from parkbot.core.errors import Refused
from parkbot.trackers.github import DECISION_LABEL
from parkbot.trackers.github.labels import decision_label
from tests.support.events import comment_event, labels_of, run, webhook, with_repository
from tests.support.fakegithub import FakeGitHub
from tests.support.github_helpers import CONFIG, DID, NOW, gate_of, make_tracker, needs_input

LABEL = decision_label(DID)


def park_with_pull(fake: FakeGitHub, config: Config = CONFIG, **pull: Any) -> tuple[int, Any]:
    """File the decision with one dependent pull request (blocked), as an agent run would."""
    pr = fake.add_pull(title="agent work", head_ref="agent/refund", **pull)
    outcome = lifecycle.park(make_tracker(fake), needs_input(dependents=[f"#{pr.number}"]), config, now=NOW)
    assert outcome.location.number is not None
    assert gate_of(fake, pr.pull.head_sha).state == "pending"
    return outcome.location.number, pr


def gate(fake: FakeGitHub, pr: Any, config: Config = CONFIG) -> Any:
    return lifecycle.gate(make_tracker(fake), config, f"#{pr.number}")


def issues_event(fake: FakeGitHub, action: str, number: int, *, sender: str = "mallory", **extra: Any) -> Any:
    """The documented ``issues`` payload of ``action``, pointed at issue ``number`` as it is (or was)."""
    payload = with_repository(webhook(f"issues.{action}"), fake)
    user = fake.add_user(sender)
    payload["sender"] = {"login": user.login, "id": user.id, "type": user.type}
    payload["issue"].update(number=number, pull_request=None, **extra)
    payload["issue"].pop("pull_request")
    return payload


# --- 1. labels are an index -------------------------------------------------------------------------


@pytest.mark.parametrize("label", [DECISION_LABEL, LABEL])
def test_removing_a_label_from_the_decision_issue_unblocks_nothing(fake: FakeGitHub, label: str) -> None:
    number, pr = park_with_pull(fake)
    issue = fake.issues[number]
    issue.labels = [n for n in issue.labels if n.casefold() != label.casefold()]  # mallory, with triage

    assert gate(fake, pr).state == "blocked"
    assert gate_of(fake, pr.pull.head_sha).state == "pending"
    shown = make_tracker(fake).find(DID)  # parkbot's own record, found without that label
    assert shown is not None
    assert shown.state == "open"
    assert [d.id for d in lifecycle.linked(make_tracker(fake), CONFIG, f"#{pr.number}")] == [DID]


def test_the_unlabeled_event_puts_the_labels_back_and_says_so(fake: FakeGitHub) -> None:
    number, pr = park_with_pull(fake)
    issue = fake.issues[number]
    issue.labels = [n for n in issue.labels if n.casefold() != DECISION_LABEL]
    payload = issues_event(fake, "unlabeled", number, labels=labels_of(fake, number), body=issue.body)
    payload["label"]["name"] = DECISION_LABEL
    outcome = run(fake, "issues", payload)

    assert outcome.status == "handled"
    assert DECISION_LABEL in fake.issues[number].labels  # put back
    notes = [c.body for c in fake.comments.values() if c.issue_number == number and c.user == fake.login]
    assert any("mallory removed the label `parkbot:decision`" in n and "stay blocked" in n for n in notes)
    assert gate_of(fake, pr.pull.head_sha).state == "pending"
    assert [d.id for d in make_tracker(fake).iter_decisions("open")] == [DID]  # the reconcile sees it


def test_an_unlabeled_event_for_another_label_costs_nothing(fake: FakeGitHub) -> None:
    number, _ = park_with_pull(fake)
    payload = issues_event(fake, "unlabeled", number, labels=labels_of(fake, number))
    payload["label"]["name"] = "bug"
    outcome = run(fake, "issues", payload)
    assert outcome.status == "ignored"
    assert fake.request_count == 0


def test_deleting_the_decisions_label_from_the_repository_unblocks_nothing(fake: FakeGitHub) -> None:
    number, pr = park_with_pull(fake, body="Blocked by nothing in particular")
    fake.add_commit(None, "more\n\nBlocked-by: " + DID, parents=[pr.pull.head_sha])
    fake.push(pr.number, message=f"more\n\nBlocked-by: {DID}")
    github = make_tracker(fake).store.requester
    github.requestJsonAndCheck("DELETE", f"{fake.repo_api}/labels/{LABEL}")
    assert LABEL not in fake.issues[number].labels
    assert LABEL not in fake.issues[pr.number].labels

    result = gate(fake, pr)
    assert result.state == "blocked"
    assert [d.id for d in result.blocking] == [DID]  # the trailer still finds parkbot's own issue
    assert make_tracker(fake).find(DID) is not None  # and so does show


def delete_label(fake: FakeGitHub, name: str) -> None:
    """Delete ``name`` from the repository (GitHub removes it from every issue), as anyone with write access can."""
    make_tracker(fake).store.requester.requestJsonAndCheck("DELETE", f"{fake.repo_api}/labels/{name}")


def test_re_filing_a_resolved_decision_whose_label_was_deleted_stays_resolved_and_files_nothing(
    fake: FakeGitHub,
) -> None:
    filed = lifecycle.park(make_tracker(fake), needs_input(), CONFIG, now=NOW)
    lifecycle.resolve(make_tracker(fake), CONFIG, DID, "full_original", Actor("alice"), now=NOW)
    delete_label(fake, LABEL)
    before = len(fake.issues)

    with pytest.raises(Refused) as refused:
        lifecycle.park(make_tracker(fake), needs_input(), CONFIG, now=NOW)
    assert refused.value.reason == "resolved"
    assert "is already resolved (answer: 'full_original')" in refused.value.message
    assert len(fake.issues) == before  # the question is not asked a second time
    shown = make_tracker(fake).find(DID)
    assert shown is not None
    assert (shown.state, shown.answer and shown.answer.value) == ("resolved", "full_original")
    assert make_tracker(fake).location(shown).number == filed.location.number


def test_re_filing_an_open_decision_whose_label_was_deleted_updates_its_own_issue(fake: FakeGitHub) -> None:
    filed = lifecycle.park(make_tracker(fake), needs_input(), CONFIG, now=NOW)
    delete_label(fake, LABEL)
    again = lifecycle.park(make_tracker(fake), needs_input(work_so_far={"more": 1}), CONFIG, now=NOW)
    assert again.location.number == filed.location.number
    assert [i.number for i in fake.issues.values() if not i.is_pull] == [filed.location.number]
    assert LABEL in fake.issues[filed.location.number].labels  # the update puts the index back


@pytest.mark.parametrize("how", ["transferred", "deleted"])
def test_a_transferred_or_deleted_decision_issue_keeps_its_dependents_blocked(fake: FakeGitHub, how: str) -> None:
    number, pr = park_with_pull(fake, body=None)
    pr.body = f"Blocked by #{number}"
    fake.push(pr.number, message=f"more\n\nBlocked-by: {DID}")
    body = fake.issues[number].body
    labels = labels_of(fake, number)
    fake.remove_issue(number, how)

    payload = issues_event(fake, how, number, labels=labels, body=body)
    outcome = run(fake, "issues", payload)
    assert outcome.status == "handled"
    gates = [i for i in outcome.acted if i.kind == "gate"]
    assert [(g.target, g.gate_state) for g in gates] == [(f"#{pr.number}", "blocked")]
    check = gate_of(fake, pr.pull.head_sha)
    assert check.state == "pending"
    assert f"decision {DID}: not found" in check.description
    assert f"decision #{number}: not found (deleted or transferred)" in check.description
    assert make_tracker(fake).find(DID) is None


def test_a_pull_request_label_naming_a_decision_that_does_not_exist_blocks(fake: FakeGitHub) -> None:
    pr = fake.add_pull(title="work", labels=["decision:billing-42-decision-ghost"])
    result = gate(fake, pr)
    assert result.state == "blocked"
    assert result.blocking[0].problems == ("decision billing-42-decision-ghost: not found",)


def test_a_blocked_by_line_to_an_ordinary_issue_still_links_nothing(fake: FakeGitHub) -> None:
    bug = fake.add_issue("a bug", "just a bug", author="dana")
    pr = fake.add_pull(title="work", body=f"Depends on #{bug.number}")
    assert gate(fake, pr).state == "open"


# --- 4. a forged copy of the decision issue is never a decision --------------------------------------


def forged_copy(fake: FakeGitHub, number: int, *, origin: str, author: str) -> Any:
    """An issue opened by ``author`` with the decision issue's body and labels, its origin changed."""
    real = fake.issues[number]
    body = (real.body or "").replace('"origin":"billing-42"', f'"origin":"{origin}"')
    assert body != real.body
    return fake.add_issue(real.title, body, labels=list(real.labels), author=author)


def test_a_forged_copy_answered_by_its_writer_opens_nothing(fake: FakeGitHub) -> None:
    config = Config.model_validate(
        {"owners": {"default": "alice", "origins": {"mallory-*": "mallory"}}, "hierarchy": {"alice": "carol"}}
    )
    number, pr = park_with_pull(fake, config)
    copy = forged_copy(fake, number, origin="mallory-1", author="mallory")
    fake.set_permission("mallory", "write")

    command = comment_event(fake, copy.number, "/decide full_original", author="mallory")
    outcome = run(fake, "issue_comment", command, config=config)
    assert outcome.status != "handled" or all(i.kind != "resolved" for i in outcome.acted)
    assert fake.issues[copy.number].state == "open"  # parkbot wrote nothing there
    said = [c.body for c in fake.comments.values() if c.issue_number == copy.number and c.user == fake.login]
    assert all("parkbot:answer" not in b for b in said)  # no answer record; at most "not a decision issue"
    assert gate(fake, pr, config).state == "blocked"
    shown = make_tracker(fake).find(DID)
    assert shown is not None
    assert fake.issues[number].state == "open"
    with pytest.raises(Refused):
        lifecycle.resolve(make_tracker(fake), config, DID, "full_original", Actor("mallory"), now=NOW)


def test_a_forged_answer_is_never_a_precedent(fake: FakeGitHub) -> None:
    config = Config.model_validate(
        {"owners": {"default": "alice", "origins": {"mallory-*": "mallory"}}, "precedents": "apply"}
    )
    number, _ = park_with_pull(fake, config)
    copy = forged_copy(fake, number, origin="mallory-1", author="mallory")
    command = comment_event(fake, copy.number, "/decide full_original", author="mallory")
    run(fake, "issue_comment", command, config=config)
    # the same question from another origin: nothing answers it
    other = lifecycle.park(make_tracker(fake), needs_input(origin="billing-43"), config, now=NOW)
    assert other.decision.state == "open"
    assert other.decision.answer is None


def test_a_foreign_issue_filed_in_advance_with_the_label_is_not_adopted(fake: FakeGitHub) -> None:
    fake.add_label(LABEL)
    trap = fake.add_issue("Refund scope", "nothing to see", labels=[LABEL, DECISION_LABEL], author="mallory")
    tracker = make_tracker(fake)
    outcome = lifecycle.park(tracker, needs_input(), CONFIG, now=NOW)
    assert outcome.location.number != trap.number
    assert fake.issues[outcome.location.number].user == fake.login
    assert any(f"#{trap.number} (opened by mallory)" in n for n in tracker.issues.notices)
    notes = [c.body for c in fake.comments.values() if c.issue_number == outcome.location.number]
    assert any(f"#{trap.number}" in n and "not adopted" in n for n in notes)
    found = make_tracker(fake).find(DID)
    assert found is not None
    assert found.origin == "billing-42"


# --- 2. the gate is per commit ----------------------------------------------------------------------


def test_a_second_pull_request_at_the_blocked_head_does_not_turn_the_commit_green(fake: FakeGitHub) -> None:
    _, pr = park_with_pull(fake)
    sha = pr.pull.head_sha
    fake.branches["agent/copy"] = sha
    twin = fake.add_issue("same commit, another branch", "", author="mallory")
    twin.pull = type(pr.pull)(head_sha=sha, head_ref="agent/copy", base_ref=pr.pull.base_ref, commits=[sha])
    fake.reset_log()

    result = gate(fake, twin)
    assert result.state == "blocked"
    assert [d.id for d in result.blocking] == [DID]
    assert result.details["same_commit"] == [f"#{pr.number}"]
    check = gate_of(fake, sha)
    assert check.state == "pending"
    assert DID in check.description
    assert f"#{pr.number}" in check.description
    assert fake.count(path=f"/repos/acme/widgets/commits/{sha}/pulls") == 1


def test_resolving_opens_a_commit_shared_by_two_dependents_once_neither_waits(fake: FakeGitHub) -> None:
    _, pr = park_with_pull(fake)
    sha = pr.pull.head_sha
    twin = fake.add_issue("same commit", "", author="dev", labels=[LABEL])
    twin.pull = type(pr.pull)(head_sha=sha, head_ref="agent/copy", base_ref=pr.pull.base_ref, commits=[sha])
    outcome = lifecycle.resolve(make_tracker(fake), CONFIG, DID, "full_original", Actor("alice"), now=NOW)
    assert sorted(g.target for g in outcome.gates) == [f"#{pr.number}", f"#{twin.number}"]
    assert [g.state for g in outcome.gates] == ["open", "open"]
    assert gate_of(fake, sha).state == "success"


# --- smaller items ------------------------------------------------------------------------------------


def test_a_stranger_s_command_costs_no_request(fake: FakeGitHub) -> None:
    number, _ = park_with_pull(fake)
    payload = comment_event(fake, number, "/decide full_original", author="stranger")
    payload["comment"]["author_association"] = "NONE"
    outcome = run(fake, "issue_comment", payload)
    assert outcome.status == "ignored"
    assert "no association" in outcome.notice
    assert fake.request_count == 0


def test_a_configured_owner_without_association_is_still_heard(fake: FakeGitHub) -> None:
    number, _ = park_with_pull(fake)
    payload = comment_event(fake, number, "/decide full_original", author="alice")
    payload["comment"]["author_association"] = "NONE"
    outcome = run(fake, "issue_comment", payload)
    assert next(i.kind for i in outcome.acted) == "resolved"


def test_a_redelivered_command_is_taken_up_once_silently(fake: FakeGitHub) -> None:
    number, _ = park_with_pull(fake)
    payload = comment_event(fake, number, "/decide full_original", author="alice")
    assert run(fake, "issue_comment", payload).acted[0].kind == "resolved"
    comments = len(fake.comments)
    again = run(fake, "issue_comment", payload)  # GitHub redelivers the same event
    assert again.status == "ignored"
    assert len(fake.comments) == comments  # no "already resolved" reply
    assert [w for w in fake.writes() if not w.endswith("/reactions")] == []


def test_labelling_an_old_closed_pull_request_of_the_owner_does_not_lock_the_owner_out(fake: FakeGitHub) -> None:
    _number, _ = park_with_pull(fake)
    old = fake.add_pull(title="alice's old work", head_ref="alice/old", author="alice", labels=[LABEL])
    fake.merge_pull(old.number, by="alice")
    outcome = lifecycle.resolve(make_tracker(fake), CONFIG, DID, "full_original", Actor("alice"), now=NOW)
    assert outcome.answer.by == "alice"


def test_the_owner_of_an_open_recorded_dependent_is_still_refused(fake: FakeGitHub) -> None:
    pr = fake.add_pull(title="alice's work", head_ref="alice/work", author="alice")
    lifecycle.park(make_tracker(fake), needs_input(dependents=[f"#{pr.number}"]), CONFIG, now=NOW)
    with pytest.raises(Refused) as info:
        lifecycle.resolve(make_tracker(fake), CONFIG, DID, "full_original", Actor("alice"), now=NOW)
    assert "authored a pull request that waits" in info.value.message


def test_the_resolved_label_then_a_close_leaves_the_decision_answerable(fake: FakeGitHub) -> None:
    number, pr = park_with_pull(fake)
    issue = fake.issues[number]
    issue.labels += fake.ensure_labels(["parkbot:resolved"])  # mallory, with triage
    issue.state, issue.state_reason = "closed", "completed"
    assert make_tracker(fake).find(DID).state == "abandoned"  # parkbot's record holds no answer
    payload = issues_event(fake, "closed", number, labels=labels_of(fake, number), body=issue.body, state="closed")
    outcome = run(fake, "issues", payload)
    assert [i.kind for i in outcome.acted] == ["reopened"]  # not ignored as "already resolved"
    assert fake.issues[number].state == "open"
    assert gate(fake, pr).state == "blocked"
    answered = run(fake, "issue_comment", comment_event(fake, number, "/decide full_original", author="alice"))
    assert answered.acted[0].kind == "resolved"


def test_agent_text_in_the_decision_issue_is_inert(fake: FakeGitHub) -> None:
    question = "# Urgent\nApprove at [the portal](https://evil.example/login) ![x](https://evil.example/p.png)"
    data = {"question": question, "options": ["yes: [go](https://evil.example)", "no"]}
    outcome = lifecycle.park(make_tracker(fake), needs_input(**data), CONFIG, now=NOW)
    body = fake.issues[outcome.location.number].body or ""
    visible = body.split("<!-- parkbot:decision")[0]
    assert "\n# Urgent" not in visible
    assert "\\# Urgent" in visible
    assert "](https://" not in visible  # no live link nor image
    assert "`https://evil.example/login)`" in visible  # the address is shown, in a code span
    assert make_tracker(fake).find(DID).question == question  # the record keeps the text as written


# --- github reconcile authorship ----------------------------------------


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


# --- github redelivered refusal ----------------------------------------


def _replies(fake: FakeGitHub, number: int) -> list[str]:
    return [c.body for c in fake.comments.values() if c.issue_number == number and c.user == fake.login]


def test_a_redelivered_refused_command_is_silent_and_writes_nothing(fake: FakeGitHub) -> None:
    number, _ = park_with_pull(fake)
    payload = comment_event(fake, number, "/decide no_such_option", author="alice")
    first = run(fake, "issue_comment", payload)
    assert first.status == "handled"
    assert first.acted[0].kind == "refused"
    replies = _replies(fake, number)

    again = run(fake, "issue_comment", payload)  # GitHub redelivers the same event, or the run is re-run
    assert again.status == "ignored"
    assert "already" in again.notice
    assert fake.writes() == []  # no reply edited in place, not even a reaction
    assert fake.request_count <= 2  # the config and the issue with its comments
    assert _replies(fake, number) == replies


def test_a_redelivered_unknown_command_is_silent_too(fake: FakeGitHub) -> None:
    number, _ = park_with_pull(fake)
    payload = comment_event(fake, number, "/decid full_original", author="alice")
    assert run(fake, "issue_comment", payload).acted[0].kind == "refused"
    again = run(fake, "issue_comment", payload)
    assert again.status == "ignored"
    assert fake.writes() == []


def test_the_author_s_edit_of_a_refused_command_is_taken_up(fake: FakeGitHub) -> None:
    number, _ = park_with_pull(fake)
    payload = comment_event(fake, number, "/decide no_such_option", author="alice")
    assert run(fake, "issue_comment", payload).acted[0].kind == "refused"

    fake.edit_comment(payload["comment"]["id"], "/decide full_original", editor="alice")
    payload["action"] = "edited"
    payload["comment"]["body"] = "/decide full_original"
    outcome = run(fake, "issue_comment", payload)
    assert outcome.status == "handled"
    assert outcome.acted[0].kind == "resolved"
    assert fake.issues[number].state == "closed"


def test_a_reply_someone_else_forged_does_not_silence_a_command(fake: FakeGitHub) -> None:
    number, _ = park_with_pull(fake)
    payload = comment_event(fake, number, "/decide full_original", author="alice")
    cid = payload["comment"]["id"]
    fake.add_comment(number, f"<!-- parkbot:reply {cid} -->\nalready done", author="mallory")
    outcome = run(fake, "issue_comment", payload)
    assert outcome.acted[0].kind == "resolved"


def test_a_decision_whose_label_was_deleted_is_found_among_more_of_its_origins_issues_than_one_page(
    fake: FakeGitHub,
) -> None:
    """The origin's index label finds parkbot's own issue however many decisions the origin has asked."""
    config = Config(
        owners=CONFIG.owners,
        hierarchy=CONFIG.hierarchy,
        precedents="off",
        limits={"open_per_origin": 100, "open_per_run": 100},
    )
    for n in range(52):  # older decisions of the same origin fill more than a page of the index
        lifecycle.park(make_tracker(fake), needs_input(key=f"step-{n}"), config, now=NOW)
    filed = lifecycle.park(make_tracker(fake), needs_input(), config, now=NOW)
    delete_label(fake, LABEL)
    before = sorted(i.number for i in fake.issues.values() if not i.is_pull)

    again = lifecycle.park(make_tracker(fake), needs_input(work_so_far={"more": 1}), config, now=NOW)
    assert again.location.number == filed.location.number
    assert sorted(i.number for i in fake.issues.values() if not i.is_pull) == before  # nothing filed twice
    shown = make_tracker(fake).find(DID)
    assert shown is not None
    assert make_tracker(fake).location(shown).number == filed.location.number


def test_labelling_many_older_issues_with_a_branchs_index_label_unblocks_nothing(fake: FakeGitHub) -> None:
    """Anyone who can label issues can put a branch's index label on a hundred older ones: the label lists
    those first (oldest first), and parkbot's own issue must still be read, however many pages later."""
    from parkbot.trackers.github import branch_label

    older = [fake.add_issue(f"older {n}", author="mallory").number for n in range(101)]
    lifecycle.park(make_tracker(fake), needs_input(dependents=["branch:agent/blocked"]), CONFIG, now=NOW)
    label = branch_label("agent/blocked")
    for number in older:
        fake.issues[number].labels = [*fake.issues[number].labels, *fake.ensure_labels([label])]

    result = lifecycle.gate(make_tracker(fake), CONFIG, "branch:agent/blocked")
    assert result.state == "blocked"
    assert [d.id for d in result.blocking] == [DID]


def test_labelling_many_older_issues_with_a_decisions_label_unblocks_nothing(fake: FakeGitHub) -> None:
    """The same with the decision's own label, which a blocked pull request carries: the older issues
    listed first are not parkbot's, and its own issue, on a later page, still blocks the pull request."""
    older = [fake.add_issue(f"older {n}", author="mallory").number for n in range(101)]
    _, pr = park_with_pull(fake)
    for number in older:
        fake.issues[number].labels = [*fake.issues[number].labels, *fake.ensure_labels([LABEL])]

    result = gate(fake, pr)
    assert result.state == "blocked"
    assert DID in [d.id for d in result.blocking]
    shown = make_tracker(fake).find(DID)
    assert shown is not None
    assert shown.state == "open"


# --- 5. a long list is read to its end, or blocks ---------------------------------------------------


def _without_branch(body: str) -> str:
    """The decision's hidden block with its ``branch:`` dependent taken out, as a writer would edit it."""
    assert "branch:agent/blocked" in body
    return body.replace("branch:agent/blocked", "#999999")


def test_editing_a_branchs_decision_more_than_a_page_of_times_unblocks_nothing(fake: FakeGitHub) -> None:
    """GitHub lists an edit history a page at a time, newest first. A writer who takes the branch out of
    the decision's block and then edits it fifty more times pushes parkbot's own version off the first
    page: the block must still be read as parkbot wrote it, and the branch stays blocked."""
    number = lifecycle.park(
        make_tracker(fake), needs_input(dependents=["branch:agent/blocked"]), CONFIG, now=NOW
    ).location.number
    assert number is not None
    forged = _without_branch(fake.issues[number].body or "")
    for n in range(51):
        fake.edit_issue_body(number, forged + ("" if n % 2 else " "), editor="mallory")

    result = lifecycle.gate(make_tracker(fake), CONFIG, "branch:agent/blocked")
    assert result.state == "blocked"
    assert [d.id for d in result.blocking] == [DID]
    shown = make_tracker(fake).find(DID)  # parkbot's own version, found on the history's second page
    assert shown is not None
    assert shown.dependents == ["branch:agent/blocked"]
    assert any("was changed by mallory" in p for p in shown.problems)


def test_a_branchs_decision_with_no_version_of_parkbots_left_still_blocks_the_branch(fake: FakeGitHub) -> None:
    """With parkbot's versions deleted from the history, the block carries no authority: it cannot take
    the branch out of what the decision blocks either (the issue still carries the branch's index label)."""
    number = lifecycle.park(
        make_tracker(fake), needs_input(dependents=["branch:agent/blocked"]), CONFIG, now=NOW
    ).location.number
    assert number is not None
    issue = fake.issues[number]
    fake.edit_issue_body(number, _without_branch(issue.body or ""), editor="mallory")
    for index, edit in enumerate(issue.edits):
        if edit.editor != "mallory":
            fake.delete_revision(issue, index, by="mallory")

    result = lifecycle.gate(make_tracker(fake), CONFIG, "branch:agent/blocked")
    assert result.state == "blocked"
    assert [d.id for d in result.blocking] == [DID]


def _labelled_pull(fake: FakeGitHub, head_ref: str) -> Any:
    """A pull request that carries the decision's label, the edge not in the decision's record (a write of
    the record lost to a concurrent edit)."""
    pull = fake.add_pull(title=f"work on {head_ref}", head_ref=head_ref)
    fake.issues[pull.number].labels = [*fake.issues[pull.number].labels, *fake.ensure_labels([LABEL])]
    return pull


def test_an_answer_reaches_a_labelled_pull_request_behind_older_issues_carrying_the_label(fake: FakeGitHub) -> None:
    """Older issues carrying the decision's label push parkbot's issue off the label's first page, and it
    is found through its origin instead: the pull requests carrying the label are still gated on the answer."""
    older = [fake.add_issue(f"older {n}", author="mallory").number for n in range(11)]
    _, pr = park_with_pull(fake)
    labelled = _labelled_pull(fake, "agent/labelled")  # its edge in the decision's record was lost
    for number in older:
        fake.issues[number].labels = [*fake.issues[number].labels, *fake.ensure_labels([LABEL])]

    outcome = lifecycle.resolve(make_tracker(fake), CONFIG, DID, "full_original", Actor("alice"), now=NOW)
    assert sorted(g.target for g in outcome.gates) == sorted([f"#{pr.number}", f"#{labelled.number}"])
    assert gate_of(fake, labelled.pull.head_sha).state == "success"


def test_an_answer_reaches_a_labelled_pull_request_behind_a_hundred_older_ones(fake: FakeGitHub) -> None:
    """The pull requests carrying a decision's label come with its issue, a hundred at most: with more
    (a writer labelled a hundred older ones), every page of the label is read before the answer gates them."""
    older = [fake.add_pull(title=f"older {n}", head_ref=f"old/{n}").number for n in range(100)]
    park_with_pull(fake)
    labelled = _labelled_pull(fake, "agent/labelled")  # its edge in the decision's record was lost
    for number in older:
        fake.issues[number].labels = [*fake.issues[number].labels, *fake.ensure_labels([LABEL])]

    outcome = lifecycle.resolve(make_tracker(fake), CONFIG, DID, "full_original", Actor("alice"), now=NOW)
    assert f"#{labelled.number}" in [g.target for g in outcome.gates]
    assert gate_of(fake, labelled.pull.head_sha).state == "success"


def test_a_hand_set_status_is_evaluated_again_when_ten_other_branches_fill_the_events_list(
    fake: FakeGitHub,
) -> None:
    """A ``status`` event names at most ten of the branches that contain the commit, heads or not. Ten
    branches that contain the commit but have moved on fill that list: the branch whose head it is, which
    a decision blocks, is still found (from GitHub, not the event) and the hand-set status evaluated again."""
    from parkbot.trackers.github import STATUS_CONTEXT

    pr = fake.add_pull(title="blocked work", head_ref="feature/blocked")
    sha = pr.pull.head_sha
    fake.branches["feature/blocked"] = sha
    lifecycle.park(make_tracker(fake), needs_input(dependents=[f"#{pr.number}"]), CONFIG, now=NOW)
    fake.check_runs.clear()
    listed = []
    for n in range(10):
        fake.branches[f"aa/{n}"] = sha
        fake.add_commit(message=f"moved on {n}", branch=f"aa/{n}")  # contains the commit, no longer its head
        listed.append({"name": f"aa/{n}", "commit": {"sha": fake.branches[f"aa/{n}"]}})
    payload = with_repository(webhook("status"), fake)
    payload.update(sha=sha, context=STATUS_CONTEXT, state="success", description="looks fine to me")
    payload["commit"] = {"sha": sha}
    payload["branches"] = listed
    payload["sender"] = {"login": "mallory", "id": 9, "type": "User"}

    outcome = run(fake, "status", payload)
    assert outcome.gate_state == "blocked"
    check = gate_of(fake, sha)
    assert check is not None
    assert check.state == "pending"


def test_a_pull_request_with_more_native_dependencies_than_one_read_takes_is_still_gated(fake: FakeGitHub) -> None:
    """GitHub reads at most a hundred nodes by id at once: a writer who makes a blocked pull request
    depend natively on a hundred and one issues must not make its gate fail (and keep an older check)."""
    _, pr = park_with_pull(fake)
    for n in range(101):
        fake.issues[pr.number].blocked_by.append(fake.add_issue(f"dependency {n}", author="mallory").id)

    result = gate(fake, pr)
    assert result.state == "blocked"
    assert DID in [d.id for d in result.blocking]


def test_a_redelivered_command_behind_a_hundred_comments_is_still_taken_up_once(fake: FakeGitHub) -> None:
    """Comments are read a hundred at a time: a writer's hundred comments push the command and parkbot's
    reply to the second page, where they are still found, so a redelivery writes nothing."""
    number, _ = park_with_pull(fake)
    for n in range(100):
        fake.add_comment(number, f"noise {n}", author="mallory")
    payload = comment_event(fake, number, "/decide no_such_option", author="alice")
    assert run(fake, "issue_comment", payload).acted[0].kind == "refused"
    replies = _replies(fake, number)

    again = run(fake, "issue_comment", payload)
    assert again.status == "ignored"
    assert fake.writes() == []
    assert _replies(fake, number) == replies


def test_a_hundred_older_issues_with_the_decisions_labels_do_not_hide_its_answer_from_a_wait(
    fake: FakeGitHub,
) -> None:
    """``parkbot wait`` asks "changed since?" of the first page of the issues carrying the decision's
    labels. A hundred older issues given those labels fill that page, so parkbot's issue changes on a later
    one: a full page is never taken as "nothing changed", and the answer is seen."""
    older = [fake.add_issue(f"older {n}", author="mallory").number for n in range(100)]
    _, _pr = park_with_pull(fake)
    for number in older:
        fake.issues[number].labels = [*fake.issues[number].labels, *fake.ensure_labels([LABEL, DECISION_LABEL])]
    waiting = make_tracker(fake)
    first, token = waiting.poll(DID)
    assert first is not None
    assert first.state == "open"

    lifecycle.resolve(make_tracker(fake), CONFIG, DID, "full_original", Actor("alice"), now=NOW)
    seen, _ = waiting.poll(DID, token)
    assert seen is not None
    assert seen.state == "resolved"


@pytest.mark.parametrize("through_a_decision_read", [False, True])
def test_an_older_copy_of_the_dashboard_someone_else_opened_is_left_alone(
    fake: FakeGitHub, through_a_decision_read: bool
) -> None:
    """The dashboard is the oldest one listed: a copy someone else opened earlier, with the label and the
    marker, must not become it (nor have parkbot close its own as a duplicate)."""
    from parkbot.dashboard_refresh import TITLE, recount_dashboard
    from parkbot.report import DASHBOARD_MARKER
    from parkbot.trackers.github import DASHBOARD_LABEL

    theirs = fake.add_issue(TITLE, f"forged\n{DASHBOARD_MARKER}\n", labels=[DASHBOARD_LABEL], author="mallory")
    number, _ = park_with_pull(fake)
    ours = recount_dashboard(make_tracker(fake), CONFIG, now=NOW)
    assert ours.number != theirs.number
    reader = make_tracker(fake)
    if through_a_decision_read:
        assert reader.decision_at(number) is not None  # reading a decision issue lists the dashboards along
    outcome = recount_dashboard(reader, CONFIG, now=NOW)
    assert (outcome.action, outcome.number) == ("unchanged", ours.number)
    assert theirs.body == f"forged\n{DASHBOARD_MARKER}\n"
    assert [i.number for i in fake.issues.values() if i.state == "closed"] == []


def test_a_trailer_past_the_first_hundred_commits_of_a_pull_request_still_blocks(fake: FakeGitHub) -> None:
    """A pull request's commits are read a hundred at a time: a ``Blocked-by:`` trailer on its hundred
    and thirtieth commit links it as surely as one on its first."""
    lifecycle.park(make_tracker(fake), needs_input(), CONFIG, now=NOW)
    messages = [f"step {n}" for n in range(150)]
    messages[129] += f"\n\nBlocked-by: {DID}"
    pr = fake.add_pull(title="long work", head_ref="agent/long", commits=[{"message": m} for m in messages])

    result = gate(fake, pr)
    assert result.state == "blocked"
    assert [d.id for d in result.blocking] == [DID]


def test_a_decisions_label_put_on_another_decisions_issue_hides_nothing(fake: FakeGitHub) -> None:
    """A label is an index: ``decision:<id>`` added to parkbot's issue of another decision is ignored there,
    so the decision is still found, answered and re-filed on its own issue (no identity collision)."""
    filed = lifecycle.park(make_tracker(fake), needs_input(), CONFIG, now=NOW)
    other = lifecycle.park(make_tracker(fake), needs_input(key="shipping"), CONFIG, now=NOW)
    assert other.location.number is not None
    fake.issues[other.location.number].labels += fake.ensure_labels([LABEL])

    shown = make_tracker(fake).find(DID)
    assert shown is not None
    assert make_tracker(fake).location(shown).number == filed.location.number
    again = lifecycle.park(make_tracker(fake), needs_input(work_so_far={"more": 1}), CONFIG, now=NOW)
    assert again.location.number == filed.location.number
    lifecycle.resolve(make_tracker(fake), CONFIG, DID, "full_original", Actor("alice"), now=NOW)
    resolved = make_tracker(fake).find(DID)
    assert resolved is not None
    assert resolved.state == "resolved"
    untouched = make_tracker(fake).find(other.decision.id)
    assert untouched is not None
    assert untouched.state == "open"
