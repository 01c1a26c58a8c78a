"""``issue_comment`` events end to end: documented payload shapes, the fake GitHub, zero-request ignores."""

from __future__ import annotations

from typing import Any

import pytest

from parkbot.core.config import Config, Owners
from parkbot.trackers.github import RESOLVED_LABEL
from parkbot.trackers.github.render import read_marker
from tests.support.events import (
    HOSTILE,
    comment_event,
    park,
    run,
    webhook,
)
from tests.support.github_helpers import CONFIG, DID

FREE_TEXT = Config(owners=Owners(default="alice"), precedents="off")


def test_decide_resolves_the_decision(fake: Any) -> None:
    number = park(fake)
    outcome = run(fake, "issue_comment", comment_event(fake, number, "/decide full_original"))
    assert outcome.status == "handled"
    assert [i.kind for i in outcome.acted] == ["resolved"]
    assert outcome.decision_id == DID
    assert outcome.issue_number == number
    assert fake.issues[number].state == "closed"
    assert RESOLVED_LABEL in fake.issues[number].labels


def test_edited_comment_runs_its_command(fake: Any) -> None:
    number = park(fake)
    payload = comment_event(fake, number, "/decide remaining_three", action="edited")
    outcome = run(fake, "issue_comment", payload)
    assert outcome.acted[0].kind == "resolved"
    assert fake.issues[number].state == "closed"


def test_command_from_a_non_owner_is_refused_visibly(fake: Any) -> None:
    number = park(fake)
    outcome = run(fake, "issue_comment", comment_event(fake, number, "/decide full_original", author="mallory"))
    assert [i.kind for i in outcome.acted] == ["refused"]
    assert outcome.exit_code == 0  # refused on the issue, visibly; the run did its job
    assert fake.issues[number].state == "open"
    replies = [c for c in fake.comments.values() if c.issue_number == number and read_marker(c.body)]
    assert any("mallory" in c.body for c in replies)


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ("pull_request", "pull request"),
        ("bot", "bot"),
        ("github_actions", "bot"),
        ("not_a_decision", "not a decision"),
        ("no_command", "no command"),
    ],
)
def test_irrelevant_comments_make_no_request(fake: Any, change: str, why: str) -> None:
    number = park(fake)
    payload = comment_event(fake, number, "/decide full_original")
    if change == "pull_request":
        payload["issue"]["pull_request"] = {"url": f"{fake.repo_api}/pulls/{number}"}
    elif change == "bot":
        payload["comment"]["user"] = {"login": "parkbot[bot]", "id": 1, "type": "Bot"}
    elif change == "github_actions":
        payload["comment"]["user"] = {"login": "github-actions[bot]", "id": 41898282, "type": "User"}
    elif change == "not_a_decision":
        payload["issue"]["labels"] = [{"id": 1, "name": "bug", "color": "d73a4a"}]
    else:
        payload["comment"]["body"] = "Thanks! I will look at /usr/bin/env later.\n> /decide full_original"
    outcome = run(fake, "issue_comment", payload)
    assert outcome.status == "ignored"
    assert why in outcome.notice
    assert fake.request_count == 0
    assert not outcome.api_used
    assert fake.issues[number].state == "open"


def test_the_documented_payload_as_is_is_ignored_without_a_request(fake: Any) -> None:
    outcome = run(fake, "issue_comment", webhook("issue_comment.created"))  # a "bug" issue, no command
    assert outcome.status == "ignored"
    assert fake.request_count == 0


def test_pull_request_comment_fixture_is_ignored(fake: Any) -> None:
    payload = webhook("issue_comment.created.pull_request")
    payload["issue"]["labels"].append({"id": 2, "name": "parkbot:decision", "color": "d4c5f9"})
    payload["comment"]["body"] = "/decide anything"
    outcome = run(fake, "issue_comment", payload)
    assert outcome.status == "ignored"
    assert fake.request_count == 0


def test_unknown_action_is_a_notice_without_a_request(fake: Any) -> None:
    payload = webhook("issue_comment.created")
    payload["action"] = "deleted"
    outcome = run(fake, "issue_comment", payload)
    assert outcome.status == "unknown"
    assert outcome.exit_code == 0
    assert "issue_comment.deleted" in outcome.notice
    assert fake.request_count == 0


def test_hostile_free_text_answer_is_stored_verbatim_and_changes_nothing_else(fake: Any) -> None:
    number = park(fake, FREE_TEXT, options=[], key="wording", title="Wording", question="How should we word it?")
    before = {n: (i.title, list(i.labels)) for n, i in fake.issues.items() if n != number}
    answer = " ".join(HOSTILE.split())  # /answer takes one paragraph; keep every metacharacter on one line
    outcome = run(fake, "issue_comment", comment_event(fake, number, f"/answer {answer}"), config=FREE_TEXT)
    assert [i.kind for i in outcome.acted] == ["resolved"]
    from parkbot.core import commands
    from tests.support.github_helpers import make_tracker

    decision = make_tracker(fake).find("billing-42-decision-wording")
    assert decision is not None
    assert decision.answer is not None
    parsed = commands.parse(f"/answer {answer}")
    assert parsed is not None
    assert decision.answer.value == parsed.arg  # exactly what the owner typed (HTML comments are invisible)
    for fragment in ("$(touch /tmp/pwned)", "`id`", "${{ github.token }}", "::set-output", "##[set-output", "%0A"):
        assert fragment in decision.answer.value
    # Besides the decision, only the dashboard issue (refreshed after every change) was written.
    after = {n: (i.title, list(i.labels)) for n, i in fake.issues.items() if n != number}
    assert {n: v for n, v in after.items() if "parkbot:dashboard" not in v[1]} == before
    # Nothing was interpolated anywhere: no status, file or other issue holds a fragment of it.
    assert not fake.statuses
    assert not any("pwned" in (i.body or "") for n, i in fake.issues.items() if n != number)


def test_missing_keys_are_invalid_input(fake: Any) -> None:
    from parkbot.core.errors import InvalidInput

    payload = webhook("issue_comment.created")
    del payload["comment"]["user"]
    with pytest.raises(InvalidInput, match=r"comment\.user is missing"):
        run(fake, "issue_comment", payload)
    payload = webhook("issue_comment.created")
    payload["issue"]["number"] = "1"
    with pytest.raises(InvalidInput, match=r"issue\.number should be int"):
        run(fake, "issue_comment", payload)
    assert fake.request_count == 0


def test_config_is_read_from_the_default_branch_once_needed(fake: Any, tmp_path: Any) -> None:
    """Through the CLI path (open_backend): the config file on the fake decides the owner."""
    fake.put_file(".github/parkbot.yml", "owners:\n  default: bob\n")
    number = park(fake, Config(owners=Owners(default="bob"), precedents="off"))
    from tests.support.events import run_cli

    result = run_cli(
        fake, "issue_comment", comment_event(fake, number, "/decide full_original", author="bob"), tmp_path
    )
    assert result.exit_code == 0, result.output
    assert fake.issues[number].state == "closed"
    assert fake.count("GET", r".*/contents/\.github/parkbot\.yml") == 1
    assert CONFIG.owners.default == "alice"  # the module-level default is untouched
