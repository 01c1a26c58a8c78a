"""What parkbot trusts on GitHub, and the attacks that must fail (docs/github.md, "Threat model").

parkbot exists so that an agent never answers its own question. On GitHub anyone with write access
(an agent's own token included) can edit any comment or issue body, post as another bot, and set
commit statuses; each test here is one such attempt, through the stateful fake, and what parkbot does
about it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from github import Auth, Github, GithubException

from parkbot.core import lifecycle
from parkbot.core.authority import Actor
from parkbot.core.config import Config
from parkbot.core.errors import BackendFailure, InvalidInput, Refused
from parkbot.core.models import Answer, Decision
from parkbot.trackers.github import DECISION_LABEL, RESOLVED_LABEL, GitHubTracker
from parkbot.trackers.github.client import GitHubSettings, RetryPolicy, build_client, client_from_env, settings_from_env
from parkbot.trackers.github.render import decision_payload, read_marker, render_answer_comment
from parkbot.trackers.github.trust import actor_login
from tests.support.events import comment_event, run, webhook, with_repository
from tests.support.events import park as park_event
from tests.support.fakegithub import FakeGitHub
from tests.support.github_helpers import CONFIG, DID, NOW, STATUS, TOKEN, gate_of, make_tracker, needs_input, park

# --- the token --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "token",
    [
        f"{TOKEN}\n",
        f"{TOKEN}\r\nX-Injected: 1",
        f"{TOKEN}\rmore",
        f"\n{TOKEN}",
        f"{TOKEN}\x00",
    ],
)
def test_a_token_with_a_line_break_is_refused_and_never_shown(token: str) -> None:
    with pytest.raises(InvalidInput) as info:
        settings_from_env({"GITHUB_REPOSITORY": "acme/widgets", "GITHUB_TOKEN": token})
    assert info.value.exit_code == 2
    assert TOKEN not in info.value.message
    assert "GITHUB_TOKEN" in info.value.message
    with pytest.raises(InvalidInput):
        build_client(GitHubSettings("acme/widgets", token=token))


def test_surrounding_spaces_are_still_stripped() -> None:
    settings = settings_from_env({"GITHUB_REPOSITORY": "acme/widgets", "GITHUB_TOKEN": f"  {TOKEN}\t"})
    assert settings.token == TOKEN


def test_the_cli_refuses_such_a_token_before_any_request(fake: FakeGitHub) -> None:
    from parkbot.cli import cli

    env = {
        "GITHUB_TOKEN": f"{TOKEN}\r\nX-Injected: 1",
        "GITHUB_REPOSITORY": "acme/widgets",
        "GITHUB_API_URL": fake.base_url,
        "PARKBOT_BACKEND": "github",
    }
    outcome: Any = CliRunner().invoke(cli, ["list", "--json"], env=env)
    assert outcome.exit_code == 2, outcome.output
    assert "line break" in outcome.output
    assert TOKEN not in outcome.output
    assert "Traceback" not in outcome.output
    assert outcome.exception is None or isinstance(outcome.exception, SystemExit)
    assert fake.request_count == 0


# --- helpers ----------------------------------------------------------------------------------------


def github_as(fake: FakeGitHub, token: str) -> Github:
    """PyGithub with someone else's token (no retries, no throttling)."""
    return Github(auth=Auth.Token(token), base_url=fake.base_url, retry=None, seconds_between_requests=0)


def decision_number(fake: FakeGitHub) -> int:
    (number,) = [n for n, i in fake.issues.items() if DECISION_LABEL in i.labels and i.pull is None]
    return number


def stored(fake: FakeGitHub) -> Decision:
    found = make_tracker(fake).find(DID)
    assert found is not None
    return found


def state_writes(fake: FakeGitHub) -> list[str]:
    """The writes of the last run besides the reactions on the command's comment (👀, then 👍 or 😕)."""
    return [w for w in fake.writes() if not w.endswith("/reactions")]


def replies(fake: FakeGitHub, number: int, kind: str = "reply") -> list[Any]:
    return [
        c for c in fake.comments.values() if c.issue_number == number and (m := read_marker(c.body)) and m.kind == kind
    ]


def answer_records(fake: FakeGitHub, number: int) -> list[Any]:
    return replies(fake, number, "answer")


def forged_block(body: str, **changes: Any) -> str:
    """``body`` with its hidden block's fields replaced, as anyone with write access could."""
    data = decision_payload(body)
    assert data is not None
    data.update(changes)
    start = body.index("<!-- parkbot:decision ")
    end = body.index(" -->", start) + len(" -->")
    return body[:start] + f"<!-- parkbot:decision {json.dumps(data, separators=(',', ':'))} -->" + body[end:]


# --- 1. editing someone else's comment ------------------------------------------------------------


def test_an_edit_of_someone_elses_comment_is_no_command(fake: FakeGitHub) -> None:
    """GitHub lets any writer edit any comment: mallory turns alice's old "LGTM" into an answer."""
    number = park_event(fake)
    payload = comment_event(fake, number, "LGTM", author="alice")
    comment_id = payload["comment"]["id"]
    fake.edit_comment(comment_id, "/decide full_original", editor="mallory")
    payload["action"] = "edited"
    payload["comment"]["body"] = "/decide full_original"
    mallory = fake.users["mallory"]
    payload["sender"] = {"login": "mallory", "id": mallory.id, "type": "User"}
    outcome = run(fake, "issue_comment", payload)
    assert outcome.status == "ignored"  # the payload shows it: sender is not the comment's author
    assert fake.request_count == 0

    payload["sender"] = payload["comment"]["user"]  # a forged (or stale) payload claims alice sent it
    outcome = run(fake, "issue_comment", payload)
    assert [i.kind for i in outcome.acted] == ["refused"]
    assert "changed by mallory after alice wrote it" in outcome.acted[0].message
    assert stored(fake).state == "open"
    assert answer_records(fake, number) == []
    assert state_writes(fake) == [f"POST /repos/acme/widgets/issues/{number}/comments"]  # the refusal, nothing else
    (reply,) = replies(fake, number)
    assert "mallory" in reply.body
    assert "Nothing was changed" in reply.body


def test_a_command_changed_by_someone_else_before_the_run_is_refused(fake: FakeGitHub) -> None:
    number = park_event(fake)
    payload = comment_event(fake, number, "/decide remaining_three", author="alice")
    fake.edit_comment(payload["comment"]["id"], "/decide full_original", editor="mallory")
    outcome = run(fake, "issue_comment", payload)  # the `created` event arrives after mallory's edit
    assert [i.kind for i in outcome.acted] == ["refused"]
    assert "mallory" in outcome.acted[0].message
    assert stored(fake).state == "open"
    assert make_tracker(fake).recorded_answer(stored(fake)) is None


def test_a_command_its_author_changed_since_the_event_is_left_to_the_newer_event(fake: FakeGitHub) -> None:
    number = park_event(fake)
    payload = comment_event(fake, number, "/decide remaining_three", author="alice")
    fake.edit_comment(payload["comment"]["id"], "/decide full_original", editor="alice")
    outcome = run(fake, "issue_comment", payload)
    assert outcome.status == "ignored"
    assert stored(fake).state == "open"
    assert state_writes(fake) == []


def test_an_owner_editing_their_own_comment_into_another_answer_stays_refused(fake: FakeGitHub) -> None:
    number = park_event(fake)
    payload = comment_event(fake, number, "/decide remaining_three", author="alice")
    assert run(fake, "issue_comment", payload).acted[0].kind == "resolved"
    fake.edit_comment(payload["comment"]["id"], "/decide full_original", editor="alice")
    payload.update(action="edited")
    payload["comment"]["body"] = "/decide full_original"
    outcome = run(fake, "issue_comment", payload)
    assert [i.kind for i in outcome.acted] == ["refused"]
    assert outcome.acted[0].action == "conflicting_answer"
    decision = stored(fake)
    assert decision.state == "resolved"
    assert decision.answer is not None
    assert decision.answer.value == "remaining_three"


def test_a_comment_deleted_before_the_run_is_no_command(fake: FakeGitHub) -> None:
    number = park_event(fake)
    payload = comment_event(fake, number, "/decide full_original", author="alice")
    del fake.comments[payload["comment"]["id"]]
    outcome = run(fake, "issue_comment", payload)
    assert [i.kind for i in outcome.acted] == ["refused"]
    assert "not there any more" in outcome.acted[0].message
    assert stored(fake).state == "open"


# --- 2. another bot passing as parkbot; parkbot's own records changed by someone else ---------------


def forge_answer(fake: FakeGitHub, number: int, author: str, value: str = "full_original", by: str = "alice") -> Any:
    """An answer record as parkbot writes it (marker and all), posted by ``author``."""
    answer = Answer(value=value, by=by, at=NOW)
    return fake.add_comment(number, render_answer_comment(stored(fake), answer), author=author)


def test_an_answer_record_posted_by_another_bot_carries_no_authority(fake: FakeGitHub) -> None:
    pr = fake.add_pull(title="work", head_ref="agent/work")
    lifecycle.park(make_tracker(fake), needs_input(dependents=[f"#{pr.number}"]), CONFIG, now=NOW)
    number = decision_number(fake)
    forge_answer(fake, number, "helper-app[bot]")  # any App with issues: write can post this

    decision = stored(fake)
    assert decision.state == "open"
    assert make_tracker(fake).recorded_answer(decision) is None
    assert any("posted by helper-app[bot], not by parkbot (parkbot[bot])" in p for p in decision.problems)
    (notice,) = replies(fake, number, "notice")
    assert "helper-app[bot]" in notice.body
    stored(fake)  # read again: the notice is not posted twice
    assert len(replies(fake, number, "notice")) == 1

    outcome = run(fake, "workflow_dispatch", {})  # the reconcile must not "finish" the forged resolution
    assert "resolved" not in [i.kind for i in outcome.acted]
    assert stored(fake).state == "open"
    assert gate_of(fake, pr.pull.head_sha).state == "pending"
    done = lifecycle.resolve(make_tracker(fake), CONFIG, DID, "remaining_three", Actor("alice"), now=NOW)
    assert (done.action, done.answer.value) == ("resolved", "remaining_three")  # not "conflicting"


def test_parkbots_answer_record_changed_by_someone_else_is_read_as_parkbot_wrote_it(fake: FakeGitHub) -> None:
    park(make_tracker(fake))
    number = decision_number(fake)
    decision = stored(fake)
    tracker = make_tracker(fake)
    tracker.find(DID)
    tracker.record_answer(decision, Answer(value="remaining_three", by="alice", at=NOW))  # step (a), then a crash
    (record,) = answer_records(fake, number)
    original = record.body
    fake.edit_comment(record.id, original.replace("remaining_three", "full_original"), editor="mallory")

    decision = stored(fake)
    assert any("answer record" in p and "changed by mallory" in p for p in decision.problems)
    recorded = make_tracker(fake).recorded_answer(decision)
    assert recorded is not None
    assert recorded.value == "remaining_three"  # as parkbot recorded it
    done = lifecycle.resolve(make_tracker(fake), CONFIG, DID, "remaining_three", Actor("alice"), now=NOW)
    assert (done.action, done.answer.value) == ("completed", "remaining_three")
    assert fake.comments[record.id].body == original  # written back
    assert fake.comments[record.id].edits[-1].editor == fake.login


def test_a_record_by_parkbot_under_another_login_is_not_trusted(fake: FakeGitHub) -> None:
    """parkbot runs as github-actions[bot] here: what parkbot[bot] (another App) wrote is not its own."""
    park(make_tracker(fake))
    number = decision_number(fake)
    forge_answer(fake, number, "parkbot[bot]")
    actions = FakeGitHub(owner="acme", repo="widgets", login="github-actions[bot]", token=TOKEN)
    actions.__dict__.update({k: v for k, v in fake.__dict__.items() if k in STATE})
    fake.stop()
    with actions.activate():
        tracker = make_tracker(actions)
        assert tracker.find(DID) is None  # an issue another account opened is no decision at all
        assert tracker.own_login == "github-actions[bot]"
        named = make_tracker(actions, bot_login="parkbot[bot]")  # PARKBOT_BOT_LOGIN, or bot_login in the config
        again = named.find(DID)
        assert again is not None
        assert again.problems == ()
        recorded = named.recorded_answer(again)
        assert recorded is not None
        assert recorded.value == "full_original"
    fake.start()


STATE = (
    "users",
    "labels",
    "issues",
    "comments",
    "commits",
    "branches",
    "permissions",
    "_counters",
    "_next_number",
    "_now",
)


def test_a_decision_body_changed_by_someone_else_is_read_as_parkbot_last_wrote_it(fake: FakeGitHub) -> None:
    pr = fake.add_pull(title="work", head_ref="agent/work")
    lifecycle.park(make_tracker(fake), needs_input(dependents=[f"#{pr.number}"]), CONFIG, now=NOW)
    number = decision_number(fake)
    issue = fake.issues[number]
    mine = issue.body or ""
    answer = {"value": "full_original", "kind": "option", "by": "alice", "at": NOW.isoformat()}
    fake.edit_issue_body(number, forged_block(mine, answer=answer, blocking=False), editor="mallory")
    issue.state, issue.state_reason = "closed", "completed"
    issue.labels += fake.ensure_labels([RESOLVED_LABEL])

    decision = stored(fake)
    assert decision.state == "abandoned"  # closed, and parkbot's own record holds no answer: it keeps blocking
    assert decision.answer is None
    assert decision.blocking is True
    assert any(f"the body of #{number}" in p and "changed by mallory at" in p for p in decision.problems)
    assert lifecycle.gate(make_tracker(fake), CONFIG, f"#{pr.number}").state == "blocked"
    assert gate_of(fake, pr.pull.head_sha).state == "pending"
    (notice,) = replies(fake, number, "notice")
    assert "mallory" in notice.body
    assert "stays open and blocks its dependents" in notice.body

    lifecycle.closed_by_hand(make_tracker(fake), CONFIG, stored(fake), "mallory", now=NOW)  # the next write
    assert issue.state == "open"
    assert issue.body == mine  # parkbot's own version, written back
    assert issue.edits[-1].editor == fake.login
    assert stored(fake).problems == ()


def test_without_a_version_of_its_own_a_record_carries_no_authority(fake: FakeGitHub) -> None:
    park(make_tracker(fake))
    number = decision_number(fake)
    issue = fake.issues[number]
    hop = {"from_owner": "alice", "to_owner": "mallory", "by": "alice", "at": NOW.isoformat()}
    fake.edit_issue_body(number, forged_block(issue.body or "", escalations=[hop], owner="mallory"), editor="mallory")
    fake.delete_revision(issue, 0, by="mallory")  # and removes parkbot's version from the history
    decision = stored(fake)
    assert decision.state == "open"
    assert decision.blocking is True
    assert decision.escalations == []
    assert decision.owner == "acme"  # the repository's owner; the configuration names the real one anyway
    assert any("no version by parkbot is left" in p for p in decision.problems)
    with pytest.raises(Refused) as info:
        lifecycle.resolve(make_tracker(fake), CONFIG, DID, "full_original", Actor("mallory"), now=NOW)
    assert info.value.reason == "not_authorized"


def test_finding_parkbots_login_costs_no_request_of_its_own(fake: FakeGitHub) -> None:
    park(make_tracker(fake))
    fake.reset_log()
    lifecycle.resolve(make_tracker(fake), CONFIG, DID, "full_original", Actor("alice"), now=NOW)
    assert fake.count(operation="graphql/ParkbotViewer") == 0


@pytest.mark.parametrize(
    ("actor", "login"),
    [
        ({"__typename": "Bot", "login": "parkbot"}, "parkbot[bot]"),
        ({"__typename": "Bot", "login": "parkbot[bot]"}, "parkbot[bot]"),
        ({"__typename": "User", "login": "parkbot"}, "parkbot"),  # a person of that name is someone else
        (None, None),  # a deleted account
    ],
)
def test_graphql_logins_are_spelt_as_rest_spells_them(actor: Any, login: str | None) -> None:
    assert actor_login(actor) == login


@pytest.mark.parametrize("value", ["two logins", "a,b", "-dash", "x" * 50])
def test_a_bot_login_that_is_not_a_login_is_refused(fake: FakeGitHub, value: str) -> None:
    with pytest.raises(InvalidInput, match="bot_login"):
        make_tracker(fake, bot_login=value)
    with pytest.raises(InvalidInput, match="bot_login"):
        make_tracker(fake).configure(Config(bot_login=value))


# --- 3. the owner read back from the issue body ---------------------------------------------------


@pytest.mark.parametrize("config", [CONFIG, Config(precedents="off")], ids=["configured", "no-config"])
def test_rewriting_the_blocks_owner_to_yourself_gives_no_authority(fake: FakeGitHub, config: Config) -> None:
    number = park_event(fake, config)
    issue = fake.issues[number]
    owner = stored(fake).owner
    hop = {"from_owner": owner, "to_owner": "mallory", "by": owner, "at": NOW.isoformat()}
    fake.edit_issue_body(number, forged_block(issue.body or "", owner="mallory", escalations=[hop]), editor="mallory")
    outcome = run(
        fake, "issue_comment", comment_event(fake, number, "/decide full_original", author="mallory"), config=config
    )
    assert [i.kind for i in outcome.acted] == ["refused"]
    assert outcome.acted[0].action == "not_authorized"
    assert stored(fake).state == "open"
    rightful = run(
        fake, "issue_comment", comment_event(fake, number, "/decide full_original", author=owner), config=config
    )
    assert rightful.acted[0].kind == "resolved"


# --- 4. a dependent pull request's author who is also an owner ------------------------------------


def test_the_author_of_a_dependent_pull_request_never_answers_even_as_the_owner(fake: FakeGitHub) -> None:
    pr = fake.add_pull(title="work", head_ref="agent/work", author="alice")
    number = park_event(fake, dependents=[f"#{pr.number}"])
    outcome = run(fake, "issue_comment", comment_event(fake, number, "/decide full_original", author="alice"))
    assert [i.kind for i in outcome.acted] == ["refused"]
    assert "authored a pull request that waits for" in outcome.acted[0].message
    assert stored(fake).state == "open"
    assert gate_of(fake, pr.pull.head_sha).state == "pending"
    above = run(fake, "issue_comment", comment_event(fake, number, "/decide full_original", author="carol"))
    assert above.acted[0].kind == "resolved"
    assert gate_of(fake, pr.pull.head_sha).state == "success"


# --- 6. the gate itself forged ----------------------------------------------------------------------


def blocked_pull(fake: FakeGitHub) -> Any:
    pr = fake.add_pull(title="work", head_ref="refund-flow")
    lifecycle.park(make_tracker(fake), needs_input(dependents=[f"#{pr.number}"]), CONFIG, now=NOW)
    return pr


def test_a_forged_status_or_another_apps_check_does_not_open_the_gate(fake: FakeGitHub) -> None:
    pr = blocked_pull(fake)
    sha = pr.pull.head_sha
    fake.add_token("ghp_mallory", "mallory", kind="personal")
    mallory = github_as(fake, "ghp_mallory")
    # Anything with statuses: write may set a status of any name: that is why the gate is not one.
    mallory.requester.requestJsonAndCheck(
        "POST", f"/repos/acme/widgets/statuses/{sha}", input={"state": "success", "context": STATUS}
    )
    with pytest.raises(GithubException) as denied:  # only GitHub Apps create check runs
        mallory.requester.requestJsonAndCheck(
            "POST", "/repos/acme/widgets/check-runs", input={"name": STATUS, "head_sha": sha, "conclusion": "success"}
        )
    assert denied.value.status == 403
    fake.add_token("ghs_impostor", "impostor[bot]")  # another App can create one of the same name ...
    github_as(fake, "ghs_impostor").requester.requestJsonAndCheck(
        "POST", "/repos/acme/widgets/check-runs", input={"name": STATUS, "head_sha": sha, "conclusion": "success"}
    )
    gate = gate_of(fake, sha)  # ... but branch protection expects parkbot's App as the check's source
    assert gate is not None
    assert gate.state == "pending"
    assert fake.check_of(sha, STATUS).app == "impostor[bot]"  # what a check required from *any* source would read


def test_a_re_run_of_the_check_evaluates_the_gate_again(fake: FakeGitHub) -> None:
    pr = blocked_pull(fake)
    before = len(fake.check_runs)
    payload = with_repository(webhook("check_run.rerequested.pull_request"), fake)
    payload["check_run"].update(name=STATUS, head_sha=pr.pull.head_sha)
    payload["check_run"]["pull_requests"] = [
        {"number": pr.number, "head": {"sha": pr.pull.head_sha, "ref": pr.pull.head_ref}, "base": {}}
    ]
    outcome = run(fake, "check_run", payload)
    assert outcome.gate_state == "blocked"
    assert len(fake.check_runs) == before + 1
    latest = fake.check_of(pr.pull.head_sha, STATUS, app=fake.login)
    assert latest is not None
    assert (latest.status, latest.title) == ("in_progress", "Waiting for 1 open decision")


def test_the_check_waits_then_succeeds_and_lists_the_decisions(fake: FakeGitHub) -> None:
    pr = blocked_pull(fake)
    number = decision_number(fake)
    waiting = fake.check_of(pr.pull.head_sha, STATUS, app=fake.login)
    assert waiting is not None
    assert (waiting.status, waiting.conclusion) == ("in_progress", None)
    assert f"[`{DID}`](https://github.com/acme/widgets/issues/{number})" in (waiting.summary or "")
    assert "Refund scope" in (waiting.summary or "")
    lifecycle.resolve(make_tracker(fake), CONFIG, DID, "full_original", Actor("alice"), now=NOW)
    done = fake.check_of(pr.pull.head_sha, STATUS, app=fake.login)
    assert done is not None
    assert (done.status, done.conclusion, done.title) == ("completed", "success", "All 1 linked decision answered")
    assert f"[`{DID}`](https://github.com/acme/widgets/issues/{number})" in (done.summary or "")
    assert fake.statuses == []


def test_the_merge_queue_and_a_pushed_commit_fail_as_check_runs(fake: FakeGitHub) -> None:
    blocked_pull(fake)
    tracker = make_tracker(fake)
    queued = fake.add_commit(message="merge queue").sha
    result = lifecycle.evaluate_gate("#1", [stored(fake)])
    tracker.publish_commit_gate(queued, result, blocked_fails=True)
    run_ = fake.check_of(queued, STATUS, app=fake.login)
    assert run_ is not None
    assert (run_.conclusion, run_.title) == ("failure", "Blocked by 1 open decision")
    pushed = fake.add_commit(message="agent push").sha
    tracker.publish_commit_failure(pushed, "no inventory in the commit")
    failed = fake.check_of(pushed, STATUS, app=fake.login)
    assert failed is not None
    assert (failed.conclusion, failed.title) == ("failure", "no inventory in the commit")


@pytest.mark.parametrize(("publish", "checks", "statuses"), [("check", 1, 0), ("status", 0, 1), ("both", 1, 1)])
def test_gate_publish_chooses_the_form(fake: FakeGitHub, publish: str, checks: int, statuses: int) -> None:
    pr = fake.add_pull(title="work", head_ref="agent/work")
    tracker = make_tracker(fake)
    tracker.configure(Config.model_validate({"gate": {"publish": publish}}))
    lifecycle.park(tracker, needs_input(dependents=[f"#{pr.number}"]), CONFIG, now=NOW)
    assert len(fake.check_runs) == checks
    assert len(fake.statuses) == statuses
    if statuses:
        status = fake.status_of(pr.pull.head_sha, STATUS)
        assert status is not None
        assert status.state == "pending"


def test_a_personal_token_gets_a_clear_message_about_check_runs(fake: FakeGitHub) -> None:
    pr = fake.add_pull(title="work", head_ref="agent/work")
    person = FakeGitHub(owner="acme", repo="widgets", login="alice", token=TOKEN, token_kind="personal")
    person.__dict__.update({k: v for k, v in fake.__dict__.items() if k in STATE})
    fake.stop()
    try:
        with person.activate():
            with pytest.raises(BackendFailure) as info:
                lifecycle.park(make_tracker(person), needs_input(dependents=[f"#{pr.number}"]), CONFIG, now=NOW)
            assert "only a GitHub App can write check runs" in info.value.message
            assert "gate: {publish: status}" in info.value.message
            assert info.value.exit_code == 4
            assert TOKEN not in info.value.message
    finally:
        fake.start()


# --- the actor of a command line --------------------------------------------------------------------


def cli(fake: FakeGitHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, token: str, *args: str) -> Any:
    from parkbot.cli import cli as main
    from parkbot.trackers.github import client as github_client

    monkeypatch.setattr(
        github_client, "client_from_env", lambda env: client_from_env(env, policy=RetryPolicy.instant())
    )
    config = tmp_path / "parkbot.yml"
    config.write_text("owners:\n  default: alice\nhierarchy:\n  alice: carol\n")
    env = {
        "GITHUB_TOKEN": token,
        "GITHUB_REPOSITORY": "acme/widgets",
        "GITHUB_API_URL": fake.base_url,
        "PARKBOT_BACKEND": "github",
    }
    fake.reset_log()
    return CliRunner().invoke(main, [*args, "--config", str(config), "--json"], env=env)


def test_the_actor_of_a_command_is_the_tokens_login(fake: FakeGitHub, tmp_path: Path, monkeypatch: Any) -> None:
    pr = blocked_pull(fake)
    number = decision_number(fake)
    fake.add_token("ghp_alice", "alice", kind="personal")
    monkeypatch.setenv("PARKBOT_BOT_LOGIN", fake.login)  # parkbot's records are its App's, not alice's
    outcome = cli(fake, tmp_path, monkeypatch, "ghp_alice", "resolve", DID, "--answer", "full_original")
    assert outcome.exit_code == 0, outcome.output
    requested = json.loads(outcome.stdout)
    assert (requested["action"], requested["by"], requested["command"]) == (
        "requested",
        "alice",
        "/decide full_original",
    )
    assert fake.count(operation="graphql/ParkbotViewer") == 1  # who the token belongs to: one request
    assert replies(fake, number, "notice") == []  # parkbot's App's records read as parkbot's own
    (posted,) = [c for c in fake.comments.values() if c.issue_number == number and c.user == "alice"]
    assert posted.body == "/decide full_original"  # the owner's own act, for parkbot to record
    assert fake.issues[number].state == "open"  # nothing recorded under alice's login
    waiting = gate_of(fake, pr.pull.head_sha)  # parkbot's workflow records it and turns the gate
    assert waiting is not None
    assert waiting.state == "pending"


def test_a_persons_token_reads_the_actions_bots_records_as_parkbots(fake: FakeGitHub) -> None:
    actions = FakeGitHub(owner="acme", repo="widgets", login="github-actions[bot]", token=TOKEN)
    fake.stop()
    try:
        with actions.activate():
            park(make_tracker(actions))
            actions.add_token("ghp_alice", "alice", kind="personal")
            settings = GitHubSettings("acme/widgets", actions.base_url, "ghp_alice")
            mine = GitHubTracker(build_client(settings, policy=RetryPolicy.instant()), race_wait=0)
            decision = mine.find(DID)
            assert decision is not None
            assert (mine.own_login, mine.token_login()) == ("github-actions[bot]", "alice")
            assert decision.problems == ()
    finally:
        fake.start()


def test_by_must_be_the_tokens_own_login(fake: FakeGitHub, tmp_path: Path, monkeypatch: Any) -> None:
    park(make_tracker(fake))
    fake.add_token("ghp_mallory", "mallory", kind="personal")
    outcome = cli(
        fake, tmp_path, monkeypatch, "ghp_mallory", "resolve", DID, "--answer", "full_original", "--by", "alice"
    )
    assert outcome.exit_code == 3, outcome.output
    data = json.loads(outcome.stdout)
    assert data["error"] == "not_authorized"
    assert "belongs to mallory" in data["message"]
    assert stored(fake).state == "open"
    assert fake.writes() == []


def test_the_actions_token_never_answers_from_the_command_line(
    fake: FakeGitHub, tmp_path: Path, monkeypatch: Any
) -> None:
    park(make_tracker(fake))
    for by in ((), ("--by", "alice")):
        outcome = cli(fake, tmp_path, monkeypatch, TOKEN, "resolve", DID, "--answer", "full_original", *by)
        assert outcome.exit_code == 3, outcome.output
        message = json.loads(outcome.stdout)["message"]
        assert "parkbot[bot]" in message
        assert ("a bot" in message) if not by else ("belongs to parkbot[bot]" in message)
    assert stored(fake).state == "open"
    assert "Traceback" not in outcome.output


def test_bot_login_from_the_environment_and_the_configuration(fake: FakeGitHub) -> None:
    """``PARKBOT_BOT_LOGIN`` names parkbot's login; ``bot_login`` in the reviewed configuration wins."""
    from parkbot.backends import open_backend

    env = {"GITHUB_TOKEN": TOKEN, "GITHUB_REPOSITORY": "acme/widgets", "GITHUB_API_URL": fake.base_url}
    plain = open_backend("github", env=env).tracker
    assert plain.own_login == "parkbot[bot]"  # type: ignore[attr-defined] - the token's login (GraphQL viewer)
    named = open_backend("github", env={**env, "PARKBOT_BOT_LOGIN": "other-app[bot]"}).tracker
    assert named.own_login == "other-app[bot]"  # type: ignore[attr-defined]
    fake.put_file(".github/parkbot.yml", "bot_login: configured-app[bot]\ngate:\n  publish: both\n")
    configured = open_backend("github", env={**env, "PARKBOT_BOT_LOGIN": "other-app[bot]"}).tracker
    assert configured.own_login == "configured-app[bot]"  # type: ignore[attr-defined]
    assert configured.publish_mode == "both"  # type: ignore[attr-defined]
    with pytest.raises(InvalidInput, match="bot_login"):
        open_backend("github", env={**env, "PARKBOT_BOT_LOGIN": "not a login"})


def test_a_native_dependency_gone_since_its_listing_does_not_lose_the_others(
    fake: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    pr = fake.add_pull(title="work", head_ref="refund-flow")
    park(make_tracker(fake), dependents=[f"#{pr.number}"])
    number = decision_number(fake)
    pr.labels.clear()  # only the native link and the commits are left to find it by
    tracker = make_tracker(fake)
    issue_id = fake.issues[number].id
    listed = [{"number": number, "id": issue_id, "node_id": "I_gone"}, {"number": number, "id": 1, "node_id": "I_too"}]
    monkeypatch.setattr(tracker.dependents, "_native_blockers", lambda _number: (listed, True))
    result = lifecycle.gate(tracker, CONFIG, f"#{pr.number}")
    assert [d.id for d in result.blocking] == [DID]


def test_a_forged_resolution_does_not_stop_the_owners_own_answer_from_being_posted(
    fake: FakeGitHub, tmp_path: Path, monkeypatch: Any
) -> None:
    """A writer (here another App) posts parkbot's answer record with the owner's answer: the owner's
    `parkbot resolve` must still post the owner's command, never report the forged answer as `unchanged`."""
    blocked_pull(fake)
    number = decision_number(fake)
    forge_answer(fake, number, "helper-app[bot]")
    fake.add_token("ghp_alice", "alice", kind="personal")
    monkeypatch.setenv("PARKBOT_BOT_LOGIN", fake.login)
    outcome = cli(fake, tmp_path, monkeypatch, "ghp_alice", "resolve", DID, "--answer", "full_original")
    assert outcome.exit_code == 0, outcome.output
    requested = json.loads(outcome.stdout)
    assert (requested["action"], requested["command"]) == ("requested", "/decide full_original")
    assert [c.body for c in fake.comments.values() if c.issue_number == number and c.user == "alice"] == [
        "/decide full_original"
    ]


def test_a_forged_escalation_does_not_change_whom_the_owners_escalate_names(
    fake: FakeGitHub, tmp_path: Path, monkeypatch: Any
) -> None:
    """Rewriting the hidden block so the question seems escalated to mallory gives mallory nothing: the
    owner's `parkbot escalate` still moves it from alice to carol, as the configuration says."""
    blocked_pull(fake)
    number = decision_number(fake)
    issue = fake.issues[number]
    issue.body = issue.body.replace('"owner":"alice"', '"owner":"mallory"')  # any writer may edit the body
    fake.add_token("ghp_alice", "alice", kind="personal")
    monkeypatch.setenv("PARKBOT_BOT_LOGIN", fake.login)
    outcome = cli(fake, tmp_path, monkeypatch, "ghp_alice", "escalate", DID)
    assert outcome.exit_code == 0, outcome.output
    requested = json.loads(outcome.stdout)
    assert (requested["action"], requested["command"]) == ("requested", "/escalate carol")
    fake.add_token("ghp_mallory", "mallory", kind="personal")
    refused = cli(fake, tmp_path, monkeypatch, "ghp_mallory", "escalate", DID)
    assert (refused.exit_code, json.loads(refused.stdout)["error"]) == (3, "not_authorized")
