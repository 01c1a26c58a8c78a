"""Faults: any request of a resolution may fail; a re-run converges to exactly the unfaulted end state.

Also the retry policy itself (what is retried, how long it waits, where it stops) and that the token
never shows up in messages, logs or reprs.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any

import pytest
from click.testing import CliRunner

from parkbot.core import lifecycle
from parkbot.core.authority import Actor
from parkbot.core.config import Config, Owners
from parkbot.core.errors import BackendFailure, Refused
from parkbot.trackers.github.client import RetryPolicy, VirtualClock
from tests.support.fakegithub import FakeGitHub
from tests.support.github_helpers import DID, NOW, TOKEN, fake_github, gate_of, make_tracker, needs_input

CONFIG = Config(owners=Owners(default="alice"), precedents="off")
KINDS = ("500", "secondary_rate_limit", "connection_reset")


def seeded() -> tuple[FakeGitHub, list[int]]:
    """A started fake with one decision blocking two pull requests (one also waits on another decision)."""
    fake = fake_github().start()
    prs = [fake.add_pull(title=f"work {i}", head_ref=f"agent/w{i}").number for i in (1, 2)]
    tracker = make_tracker(fake)
    lifecycle.park(tracker, needs_input(dependents=[f"#{n}" for n in prs]), CONFIG, now=NOW)
    lifecycle.park(tracker, needs_input(key="currency", title="Currency", dependents=[f"#{prs[1]}"]), CONFIG, now=NOW)
    fake.reset_log()
    return fake, prs


def resolve(fake: FakeGitHub, answer: str = "full_original", **kw: Any) -> lifecycle.ResolveOutcome:
    return lifecycle.resolve(make_tracker(fake, **kw), CONFIG, DID, answer, Actor("alice"), now=NOW)


def snapshot(fake: FakeGitHub) -> dict[str, Any]:
    def statuses(number: int) -> Any:
        pull = fake.issues[number].pull
        st = gate_of(fake, pull.head_sha) if pull else None
        return (st.state, st.description) if st else None

    return {
        "issues": {
            n: (i.state, i.state_reason, sorted(i.labels), sorted(i.assignees), i.body, sorted(i.blocked_by))
            for n, i in fake.issues.items()
        },
        "comments": sorted(
            (c.issue_number, c.user, re.sub(r"issuecomment-\d+", "issuecomment-N", c.body))
            for c in fake.comments.values()
        ),
        "statuses": {n: statuses(n) for n, i in fake.issues.items() if i.pull},
    }


def closes(fake: FakeGitHub) -> int:
    return sum(
        1
        for r in fake.requests
        if r.method == "PATCH" and r.status == 200 and isinstance(r.body, dict) and r.body.get("state") == "closed"
    )


@pytest.fixture(scope="module")
def reference() -> tuple[dict[str, Any], int]:
    fake, _ = seeded()
    try:
        outcome = resolve(fake)
        assert [g.state for g in outcome.gates] == ["open", "blocked"]
        n = fake.request_count
        assert closes(fake) == 1
        return snapshot(fake), n
    finally:
        fake.stop()


def test_reference_resolution_is_small(reference: tuple[dict[str, Any], int]) -> None:
    _, n = reference
    assert n <= 6 + 4 * 2 + 1  # one extra lookup: PR 2 also waits on the currency decision


@pytest.mark.parametrize("kind", KINDS)
def test_every_request_failing_once_is_absorbed_by_retries(kind: str, reference: tuple[dict[str, Any], int]) -> None:
    expected, n = reference
    for index in range(1, n + 1):
        fake, _ = seeded()
        try:
            fake.fail_request(index, kind)
            outcome = resolve(fake)
            assert outcome.action == "resolved"
            assert snapshot(fake) == expected, f"request {index} ({kind})"
            assert closes(fake) == 1
        finally:
            fake.stop()


@pytest.mark.parametrize("kind", KINDS)
def test_every_request_failing_for_real_then_a_rerun_converges(
    kind: str, reference: tuple[dict[str, Any], int]
) -> None:
    expected, n = reference
    for index in range(1, n + 1):
        fake, _ = seeded()
        try:
            fake.fail_request(index, kind)
            with pytest.raises(BackendFailure, match="safe to re-run"):
                resolve(fake, policy=RetryPolicy.instant(max_attempts=1))
            assert fake.issues[1 + 2].state == "open"  # the decision is issue #3 and stays open
            answer_recorded = any("parkbot:answer" in c.body for c in fake.comments.values())
            if answer_recorded:  # a different answer now is refused, quoting the recorded one
                with pytest.raises(Refused, match="'full_original'"):
                    resolve(fake, "remaining_three")
            again = resolve(fake)
            assert again.action == ("completed" if answer_recorded else "resolved")
            assert snapshot(fake) == expected, f"request {index} ({kind})"
            assert closes(fake) == 1
            assert resolve(fake).action == "unchanged"
        finally:
            fake.stop()


# --- the retry policy --------------------------------------------------------------------------


def test_retry_after_is_honoured(fake: FakeGitHub) -> None:
    clock = VirtualClock()
    fake.fail_next("secondary_rate_limit")
    assert make_tracker(fake, policy=RetryPolicy.instant(clock=clock)).claim(DID) is True
    assert clock.slept == [1.0]


def test_server_errors_back_off_exponentially(fake: FakeGitHub) -> None:
    clock = VirtualClock()
    fake.fail_next("502", count=3)
    assert make_tracker(fake, policy=RetryPolicy.instant(clock=clock)).claim(DID) is True
    assert clock.slept == [1.0, 2.0, 4.0]


def test_primary_limit_waits_for_the_reset_when_it_is_near(fake: FakeGitHub) -> None:
    clock = VirtualClock()
    fake.fail_next("primary_rate_limit")  # resets in ~3 s
    assert make_tracker(fake, policy=RetryPolicy.instant(clock=clock)).claim(DID) is True
    assert len(clock.slept) == 1
    assert 1.0 <= clock.slept[0] <= 6.0


def test_primary_limit_far_away_fails_at_once(fake: FakeGitHub) -> None:
    clock = VirtualClock()
    fake.set_rate_limit(0)  # resets in an hour: beyond the 60 s bound
    with pytest.raises(BackendFailure, match=r"primary rate limit.*safe to re-run"):
        make_tracker(fake, policy=RetryPolicy.instant(clock=clock)).claim(DID)
    assert clock.slept == []
    assert fake.request_count == 1


def test_attempts_are_bounded(fake: FakeGitHub) -> None:
    fake.fail_next("500", count=100)
    with pytest.raises(BackendFailure, match=r"5 attempt\(s\).*safe to re-run"):
        make_tracker(fake).claim(DID)
    assert fake.request_count == 5


def test_total_time_is_bounded(fake: FakeGitHub) -> None:
    clock = VirtualClock()
    fake.fail_next("503", count=100)
    with pytest.raises(BackendFailure):
        make_tracker(fake, policy=RetryPolicy.instant(max_attempts=50, max_seconds=10, clock=clock)).claim(DID)
    assert sum(clock.slept) <= 10
    assert fake.request_count < 50


def test_client_errors_are_not_retried(fake: FakeGitHub) -> None:
    tracker = make_tracker(fake)
    with pytest.raises(BackendFailure, match=r"404 Not Found.*safe to re-run"):
        tracker.store.unit("edit issue #999", lambda _: tracker.store.edit(999, {"title": "x"}))
    assert fake.request_count == 1


# --- the token never leaks ---------------------------------------------------------------------


def test_token_never_appears_in_failures_logs_or_reprs(
    fake: FakeGitHub, caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    caplog.set_level(logging.DEBUG)
    caplog.set_level(logging.DEBUG, logger="github")  # PyGithub's own logger (INFO by default)
    seen: list[str] = []
    tracker = make_tracker(fake)
    assert tracker.claim("other-decision-ok")  # a request that works, logged by PyGithub at DEBUG
    fake.fail_next("500", count=100)
    with pytest.raises(BackendFailure) as info:
        tracker.claim(DID)
    seen += [str(info.value), repr(info.value), info.value.message, repr(tracker), repr(tracker.client)]
    fake.clear_faults()
    bad = FakeGitHub(owner="acme", repo="widgets", token="another-token").start()  # 401 Bad credentials
    try:
        with pytest.raises(BackendFailure, match="401") as denied:
            make_tracker(bad).claim(DID)
        seen.append(str(denied.value))
    finally:
        bad.stop()
    out = capsys.readouterr()
    seen += [caplog.text, out.out, out.err]
    assert TOKEN in fake.tokens_seen  # it was sent ...
    assert "/labels" in caplog.text  # and the requests were logged
    for text in seen:
        assert TOKEN not in text  # ... and shown nowhere


def test_cli_failure_output_hides_the_token(fake: FakeGitHub, tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from parkbot.cli import cli
    from parkbot.trackers.github import client as github_client

    real = github_client.client_from_env
    monkeypatch.setattr(github_client, "client_from_env", lambda env: real(env, policy=RetryPolicy.instant()))
    config = tmp_path / "parkbot.yml"
    config.write_text("owners:\n  default: alice\n")
    path = tmp_path / "result.json"
    path.write_text(json.dumps(needs_input().model_dump(mode="json")))
    fake.fail_next("500", count=1000)
    env = {
        "GITHUB_TOKEN": TOKEN,
        "GITHUB_REPOSITORY": "acme/widgets",
        "GITHUB_API_URL": fake.base_url,
        "PARKBOT_BACKEND": "github",
    }
    outcome = CliRunner().invoke(cli, ["park", str(path), "--json", "--config", str(config)], env=env)
    assert outcome.exit_code == 4
    assert "safe to re-run" in outcome.output
    assert TOKEN not in outcome.output
