"""The planner on GitHub, through the stateful fake: the planner is an App (``planner[bot]``) whose ``/cite``
counts only from that login, never from a lookalike or an edited comment; owners review, override, correct."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from parkbot.core import lifecycle, planner
from parkbot.core.config import Config, Owners, Planner
from parkbot.core.errors import Refused
from parkbot.trackers.github.render import read_marker
from tests.support.events import AGENT, comment_event, commit, push_event, result_json, run
from tests.support.git_helpers import make_repo
from tests.support.github_helpers import DID, NOW, gate_of, make_tracker, needs_input

PLANNER = "planner[bot]"
CONFIG = Config(
    owners=Owners(default="alice"),
    hierarchy={"alice": "carol"},
    precedents="off",
    planner=Planner(by=PLANNER, sources=["docs/**"], never=["payroll-*"]),
)
REFUNDS = "".join(f"refund rule {n}\n" for n in range(1, 11))


def setup(fake: Any, *, config: Config = CONFIG, **changes: Any) -> tuple[int, int, str]:
    """The default branch with docs/refunds.md, a pull request waiting for the decision: (issue, pull, head)."""
    main = fake.add_commit(message="docs", branch=fake.default_branch)
    fake.put_file("docs/refunds.md", REFUNDS)
    fake.put_file("secret/notes.md", REFUNDS)
    assert main.sha
    pull = fake.add_pull(head_ref="agent/billing-42", author="dev")
    result = needs_input(dependents=[f"#{pull.number}"], **changes)
    outcome = lifecycle.park(make_tracker(fake), result, config, now=NOW)
    assert outcome.location.number is not None
    return outcome.location.number, pull.number, pull.pull.head_sha


def say(fake: Any, number: int, body: str, author: str = "alice", action: str = "created") -> Any:
    """``author`` comments ``body`` on issue ``number``; the event is handled with the planner's config."""
    return run(fake, "issue_comment", comment_event(fake, number, body, author=author, action=action), config=CONFIG)


def replies(fake: Any, number: int) -> list[str]:
    return [c.body for c in fake.comments.values() if c.issue_number == number and read_marker(c.body)]


def answer_record(fake: Any, number: int) -> str:
    (found,) = [b for b in replies(fake, number) if read_marker(b).kind == "answer"]  # type: ignore[union-attr]
    return found


def test_the_planner_app_cites_lines_the_dependent_opens_and_the_record_quotes_lines_and_sha(fake: Any) -> None:
    number, _, head = setup(fake)
    assert fake.issues[number].assignees == []  # with the planner: the owner is not assigned yet
    assert gate_of(fake, head).state == "pending"

    outcome = run(
        fake,
        "issue_comment",
        comment_event(fake, number, "/cite full_original docs/refunds.md#L2-L3", author=PLANNER),
        config=CONFIG,
    )

    assert outcome.acted[0].action == "cited"
    assert fake.issues[number].state == "closed"
    assert gate_of(fake, head).state == "success"
    record = answer_record(fake, number)
    assert "refund rule 2\nrefund rule 3" in record
    assert fake.branches[fake.default_branch][:12] in record
    data = read_marker(record).data  # type: ignore[union-attr]
    assert data["kind"] == "planner"
    assert data["sources"][0]["commit"] == fake.branches[fake.default_branch]
    assert data["sources"][0]["quote"] == "refund rule 2\nrefund rule 3"
    assert fake.issues[number].assignees == ["alice"]  # handed to the owner for review


@pytest.mark.parametrize(
    ("author", "user_type"),
    [("planner-bot[bot]", "Bot"), ("planner", "User"), ("other[bot]", "Bot")],
)
def test_a_cite_from_a_lookalike_login_answers_nothing(fake: Any, author: str, user_type: str) -> None:
    number, _, head = setup(fake)
    fake.add_user(author, type=user_type)
    run(
        fake,
        "issue_comment",
        comment_event(fake, number, "/cite full_original docs/refunds.md#L2", author=author),
        config=CONFIG,
    )
    assert fake.issues[number].state == "open"
    assert gate_of(fake, head).state == "pending"


def test_an_edited_cite_is_never_taken_even_from_the_planner(fake: Any) -> None:
    number, _, _head = setup(fake)
    payload = comment_event(fake, number, "/cite full_original docs/refunds.md#L2", author=PLANNER, action="edited")
    outcome = run(fake, "issue_comment", payload, config=CONFIG)
    assert outcome.acted == [] or all(i.kind == "ignored" for i in outcome.acted)
    assert fake.issues[number].state == "open"


def test_a_planner_comment_sent_by_someone_else_is_ignored(fake: Any) -> None:
    number, _, _ = setup(fake)
    payload = comment_event(fake, number, "/cite full_original docs/refunds.md#L2", author=PLANNER)
    mallory = fake.add_user("mallory")
    payload["sender"] = {"login": mallory.login, "id": mallory.id, "type": "User"}
    run(fake, "issue_comment", payload, config=CONFIG)
    assert fake.issues[number].state == "open"


def test_a_cite_whose_comment_someone_else_changed_is_refused(fake: Any) -> None:
    number, _, _ = setup(fake)
    payload = comment_event(fake, number, "/cite full_original docs/refunds.md#L2", author=PLANNER)
    fake.edit_comment(payload["comment"]["id"], "/cite full_original docs/refunds.md#L2", editor="mallory")
    run(fake, "issue_comment", payload, config=CONFIG)
    assert fake.issues[number].state == "open"


@pytest.mark.parametrize(
    ("body", "named"),
    [
        ("/cite full_original", "no source"),
        ("/cite full_original secret/notes.md#L1", "secret/notes.md#L1"),
        ("/cite full_original docs/refunds.md#L9-L12", "docs/refunds.md#L9-L12"),
        ("/cite full_original docs/missing.md#L1", "docs/missing.md#L1"),
    ],
)
def test_a_bad_source_is_refused_visibly_naming_it(fake: Any, body: str, named: str) -> None:
    number, _, head = setup(fake)
    outcome = run(fake, "issue_comment", comment_event(fake, number, body, author=PLANNER), config=CONFIG)
    assert [i.kind for i in outcome.acted] == ["refused"]
    assert any(named in b and "/cite" in b and "--answer" not in b for b in replies(fake, number))
    assert fake.issues[number].state == "open"
    assert gate_of(fake, head).state == "pending"


def test_a_never_origin_is_assigned_at_once_and_refused_to_the_planner(fake: Any) -> None:
    number, _, _ = setup(fake, origin="payroll-7")
    assert fake.issues[number].assignees == ["alice"]
    outcome = run(
        fake,
        "issue_comment",
        comment_event(fake, number, "/cite full_original docs/refunds.md#L1", author=PLANNER),
        config=CONFIG,
    )
    assert [i.kind for i in outcome.acted] == ["refused"]


def test_pass_assigns_the_owner(fake: Any) -> None:
    number, _, _ = setup(fake)
    say(fake, number, "/pass nothing in the docs", PLANNER)
    assert fake.issues[number].assignees == ["alice"]
    assert fake.issues[number].state == "open"


def test_override_replaces_the_planner_answer_and_regates_the_open_pull(fake: Any) -> None:
    number, pull, head = setup(fake)
    run(
        fake,
        "issue_comment",
        comment_event(fake, number, "/cite full_original docs/refunds.md#L2", author=PLANNER),
        config=CONFIG,
    )
    outcome = run(
        fake,
        "issue_comment",
        comment_event(fake, number, "/override remaining_three the policy changed"),
        config=CONFIG,
    )
    assert outcome.acted[0].action == "overridden"
    decision = make_tracker(fake).find(DID)
    assert decision is not None
    assert decision.current_answer is not None
    assert decision.current_answer.value == "remaining_three"
    assert decision.planner is not None
    assert decision.planner.review == "overridden"
    assert [c.previous.kind for c in decision.corrections] == ["planner"]
    pointer = [c.body for c in fake.comments.values() if c.issue_number == pull and "remaining_three" in c.body]
    assert pointer, "the pull request is told the new answer"
    assert gate_of(fake, head).state == "success"


def test_accept_clears_the_review_item_and_only_an_owner_may(fake: Any) -> None:
    number, _, _ = setup(fake)
    run(
        fake,
        "issue_comment",
        comment_event(fake, number, "/cite full_original docs/refunds.md#L2", author=PLANNER),
        config=CONFIG,
    )
    refused = say(fake, number, "/accept", "mallory")
    assert [i.kind for i in refused.acted] == ["refused"]
    say(fake, number, "/accept")
    decision = make_tracker(fake).find(DID)
    assert decision is not None
    assert decision.planner is not None
    assert decision.planner.review == "accepted"


def test_correct_on_github_regates_the_open_pull_and_sends_rework_to_the_merged_one(fake: Any) -> None:
    main = fake.add_commit(message="docs", branch=fake.default_branch)
    assert main.sha
    merged = fake.add_pull(head_ref="agent/one", author="dev")
    waiting = fake.add_pull(head_ref="agent/two", author="dev")
    result = needs_input(dependents=[f"#{merged.number}", f"#{waiting.number}"])
    number = lifecycle.park(make_tracker(fake), result, CONFIG, now=NOW).location.number
    assert number is not None
    say(fake, number, "/pass", PLANNER)
    say(fake, number, "/decide full_original")
    fake.merge_pull(merged.number)

    different = say(fake, number, "/decide remaining_three")
    assert [i.kind for i in different.acted] == ["refused"]  # a different answer without /correct
    stranger = run(
        fake,
        "issue_comment",
        comment_event(fake, number, "/correct remaining_three oops", author="mallory"),
        config=CONFIG,
    )
    assert [i.kind for i in stranger.acted] == ["refused"]

    outcome = run(
        fake,
        "issue_comment",
        comment_event(fake, number, "/correct remaining_three typed the wrong one"),
        config=CONFIG,
    )
    assert outcome.acted[0].action == "corrected"
    decision = make_tracker(fake).find(DID)
    assert decision is not None
    (correction,) = decision.corrections
    assert correction.rework == [f"#{merged.number}"]
    assert correction.regated == [f"#{waiting.number}"]
    assert correction.previous.value == "full_original"
    assert decision.answer is not None
    assert decision.answer.value == "full_original"
    assert any("rework" in c.body for c in fake.comments.values() if c.issue_number == merged.number)
    again = say(fake, number, "/decide full_original")
    assert [i.action for i in again.acted][:1] == ["unchanged"]  # a retry of the first answer
    above = run(
        fake,
        "issue_comment",
        comment_event(fake, number, "/correct full_original carol decides", author="carol"),
        config=CONFIG,
    )
    assert above.acted[0].action == "corrected"


def test_the_planner_never_cites_a_question_it_filed(fake: Any) -> None:
    fake.add_commit(message="docs", branch=fake.default_branch)
    fake.put_file("docs/refunds.md", REFUNDS)
    outcome = lifecycle.park(make_tracker(fake), needs_input(), CONFIG, now=NOW, filed_by=PLANNER)
    number = outcome.location.number
    assert number is not None
    assert fake.issues[number].assignees == ["alice"]  # not routed to the planner that asked
    refused = say(fake, number, "/cite full_original docs/refunds.md#L1", PLANNER)
    assert [i.kind for i in refused.acted] == ["refused"]
    assert any("never answers its own question" in b for b in replies(fake, number))


def test_a_decision_answered_by_a_default_is_not_a_citable_source_and_one_answered_by_a_person_is(fake: Any) -> None:
    fake.add_commit(message="docs", branch=fake.default_branch)
    tracker = make_tracker(fake)
    by_default = lifecycle.park(tracker, needs_input(origin="billing-1"), CONFIG, now=NOW).location.number
    by_person = lifecycle.park(tracker, needs_input(origin="billing-2"), CONFIG, now=NOW).location.number
    number = lifecycle.park(tracker, needs_input(), CONFIG, now=NOW).location.number
    assert by_default is not None
    assert by_person is not None
    assert number is not None
    for issue in (by_default, by_person):
        say(fake, issue, "/pass", PLANNER)
    say(fake, by_default, "/default full_original")
    say(fake, by_person, "/decide full_original")

    refused = say(fake, number, "/cite full_original billing-1-decision-refund", PLANNER)
    assert [i.kind for i in refused.acted] == ["refused"]
    assert any("explicit default" in b for b in replies(fake, number))
    cited = say(fake, number, "/cite full_original billing-2-decision-refund", PLANNER)
    assert cited.acted[0].action == "cited"
    assert fake.issues[number].state == "closed"


def test_when_the_window_ends_the_scheduled_run_assigns_the_owner(fake: Any) -> None:
    number, _, _ = setup(fake)
    assert fake.issues[number].assignees == []
    assert planner.expire(make_tracker(fake), CONFIG, now=NOW + timedelta(minutes=29)) == []
    assert fake.issues[number].assignees == []
    handed = planner.expire(make_tracker(fake), CONFIG, now=NOW + timedelta(minutes=30))
    assert [h.decision.id for h in handed] == [DID]
    assert fake.issues[number].assignees == ["alice"]
    late = say(fake, number, "/cite full_original docs/refunds.md#L1", PLANNER)
    assert [i.kind for i in late.acted] == ["refused"]


def test_the_planner_app_running_parkbot_cite_posts_its_own_cite_which_the_workflow_records(
    fake: Any, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The planner agent runs `parkbot cite` with its App's token: the citation is left as planner[bot]'s own
    `/cite` comment (only parkbot's records count on GitHub), and the comment's event records it."""
    from parkbot import Backlog
    from parkbot.trackers.github import client as github_client
    from parkbot.trackers.github.client import RetryPolicy

    real = github_client.client_from_env
    monkeypatch.setattr(github_client, "client_from_env", lambda env: real(env, policy=RetryPolicy.instant()))
    number, _, head = setup(fake)
    config = tmp_path / "parkbot.yml"
    config.write_text(  # bot_login: parkbot's own App, so the planner's token leaves comments for it to record
        f'bot_login: "{fake.login}"\nowners:\n  default: alice\nprecedents: "off"\n'
        f'planner:\n  by: "{PLANNER}"\n  sources: ["docs/**"]\n'
    )
    token = "ghs_planner000000000000000000000000000000"
    fake.add_token(token, PLANNER, "app")
    env = {"GITHUB_TOKEN": token, "GITHUB_REPOSITORY": fake.full_name, "GITHUB_API_URL": fake.base_url}
    with Backlog.open(backend="github", config=config, env=env) as as_planner:
        with pytest.raises(Refused):  # checked before anything is posted: a source is required
            as_planner.cite(DID, "full_original", [])
        requested = as_planner.cite(DID, "full_original", ["docs/refunds.md#L4"])
    assert requested.action == "requested"
    assert requested.command == "/cite full_original docs/refunds.md#L4"
    (posted,) = [c for c in fake.comments.values() if c.issue_number == number and c.user == PLANNER]
    payload = comment_event_for(fake, number, posted)
    outcome = run(fake, "issue_comment", payload, config=CONFIG)
    assert outcome.acted[0].action == "cited"
    assert gate_of(fake, head).state == "success"
    assert "refund rule 4" in answer_record(fake, number)


def comment_event_for(fake: Any, number: int, posted: Any) -> dict[str, Any]:
    """The issue_comment event of a comment already on the fake."""
    from tests.support.events import labels_of, webhook, with_repository

    payload = with_repository(webhook("issue_comment.created"), fake)
    payload["issue"].update(number=number, title=fake.issues[number].title, labels=labels_of(fake, number))
    user = fake.users[posted.user.lower()]
    payload["comment"].update(
        id=posted.id, body=posted.body, user={"login": user.login, "id": user.id, "type": user.type}
    )
    payload["sender"] = payload["comment"]["user"]
    return payload


# --- planner push filer ----------------------------------------


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "checkout"
    make_repo(path)
    return path


def _push(fake: Any, repo: Path, *, sender: str, author: dict[str, Any] | None = None) -> Any:
    fake.add_commit(message="docs", branch=fake.default_branch)
    fake.put_file("docs/refunds.md", REFUNDS)
    sha = commit(repo, AGENT, {".parkbot/decisions/refund.json": result_json()})
    payload = push_event(fake, AGENT, sha)
    user = fake.add_user(sender)
    payload["sender"] = {"login": user.login, "id": user.id, "type": user.type}
    payload["pusher"] = {"name": user.login, "email": None}
    if author is not None:
        payload["head_commit"]["author"] = author
    outcome = run(fake, "push", payload, config=CONFIG, repo_path=repo)
    assert [(i.decision_id, i.action) for i in outcome.items if i.kind == "parked"] == [(DID, "created")]
    decision = make_tracker(fake).find(DID)
    assert decision is not None
    return decision


def test_a_push_records_its_pusher_as_the_filer(fake: Any, repo: Path) -> None:
    decision = _push(fake, repo, sender="dev")
    assert decision.filed_by == "dev"


def test_a_question_the_planner_pushed_is_never_cited_by_it(fake: Any, repo: Path) -> None:
    decision = _push(fake, repo, sender=PLANNER)
    assert decision.filed_by == PLANNER
    number = make_tracker(fake).location(decision).number
    assert fake.issues[number].assignees == ["alice"]  # not routed to the planner that asked
    refused = say(fake, number, "/cite full_original docs/refunds.md#L1", PLANNER)
    assert [i.kind for i in refused.acted] == ["refused"]


def test_a_commit_the_planner_wrote_counts_as_the_planner_s_even_pushed_by_another(fake: Any, repo: Path) -> None:
    author = {"name": "planner", "email": "planner@example.com", "username": PLANNER}
    decision = _push(fake, repo, sender="github-actions[bot]", author=author)
    assert decision.filed_by == PLANNER
