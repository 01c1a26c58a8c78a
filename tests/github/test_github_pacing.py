"""Content creation paced to GitHub's limits; rate limits waited out within a bound, and the waits shown.

The fake answers like GitHub's secondary rate limit (``limit_content_creation``) on a virtual clock that
the client sleeps on, so nothing here really sleeps.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from parkbot.backends import Backend, open_backend
from parkbot.core import lifecycle
from parkbot.core.config import Config, Limits, Owners, parse_config
from parkbot.core.errors import BackendFailure, InvalidInput
from parkbot.events import handle_event
from parkbot.trackers.github import DECISION_LABEL
from parkbot.trackers.github.client import RATE_LIMIT_WAIT_ENV, RetryPolicy, VirtualClock, parse_wait
from parkbot.trackers.github.pacing import ActionsReporter, ContentPacer, LogReporter, TerminalReporter, reporter_for
from tests.support.events import AGENT, commit, push_event, result_json
from tests.support.fakegithub import FakeGitHub
from tests.support.git_helpers import make_repo
from tests.support.github_helpers import DID, NOW, TOKEN, make_tracker, needs_input

CONFIG = Config(owners=Owners(default="alice"), precedents="off", limits=Limits(open_per_origin=10))
WRITES = ("POST", "PATCH", "PUT", "DELETE")


def limited(fake: FakeGitHub, per_minute: int) -> VirtualClock:
    """GitHub's content-creation limit on a virtual clock; every request takes 50 ms of it."""
    clock = VirtualClock()
    fake.limit_content_creation(per_minute, clock.now, advance=clock.advance, latency=0.05)
    return clock


def decision_issues(fake: FakeGitHub) -> dict[str, list[int]]:
    """Decision id (from its ``decision:`` label) -> the issues carrying it (pull requests aside)."""
    found: dict[str, list[int]] = {}
    for issue in fake.issues.values():
        if issue.pull is None and DECISION_LABEL in issue.labels:
            (label,) = [n for n in issue.labels if n.startswith("decision:")]
            found.setdefault(label.removeprefix("decision:"), []).append(issue.number)
    return found


# --- the pacer -------------------------------------------------------------------------------------


def test_the_pacer_keeps_every_window_under_its_limit() -> None:
    pacer = ContentPacer(((4, 60.0), (6, 3600.0)), margin=0.0)
    for t in (0.0, 1.0, 2.0, 3.0):
        assert pacer.delay(t) == 0
        pacer.record(t)
    assert pacer.delay(3.0) == 57.0  # the fifth waits for the first to leave the minute
    pacer.record(60.0)
    pacer.record(61.0)
    assert pacer.delay(62.0) == 3600.0 - 62.0  # six in the hour: the hour's window decides now
    assert pacer.delay(3600.5) == 0.0
    assert pacer.sent == 5  # the one at 0 s has left the hour


def test_github_s_documented_limits_by_default() -> None:
    assert ContentPacer().limits == ((80, 60.0), (500, 3600.0))
    assert ContentPacer().margin == 1.0
    assert RetryPolicy().content_limits == ((80, 60.0), (500, 3600.0))
    assert RetryPolicy().rate_limit_wait == 300.0


def test_writes_are_paced_before_they_are_sent_and_reads_are_not(fake: FakeGitHub) -> None:
    clock = limited(fake, 4)
    policy = RetryPolicy.instant(clock=clock, content_limits=((4, 60.0),))
    tracker = make_tracker(fake, policy=policy)
    for i in range(3):
        lifecycle.park(tracker, needs_input(key=f"q{i}", title=f"Q{i}", question=f"Question {i}?"), CONFIG, now=NOW)
    assert fake.content_limit is not None
    assert fake.content_limit.refused == 0  # paced: GitHub never had to refuse one
    assert not [r for r in fake.requests if r.status == 403]
    writes = len(fake.writes())  # REST writes (GraphQL queries are reads)
    assert writes == 6  # claim the label and create the issue, three times
    (wait,) = clock.slept  # one wait: the fifth write waited for the first to leave the minute (and 1 s more)
    assert 60.0 < wait <= 61.0
    assert tracker.client.transport.waited == wait


def test_every_write_pyGithub_sends_goes_through_the_pacer(fake: FakeGitHub) -> None:
    tracker = make_tracker(fake)
    lifecycle.park(tracker, needs_input(), CONFIG, now=NOW)
    pr = fake.add_pull(title="work", head_ref="agent/x")
    lifecycle.park(tracker, needs_input(key="other", title="Other", dependents=[f"#{pr.number}"]), CONFIG, now=NOW)
    writes = len(fake.writes())  # GraphQL queries are reads, and are not paced
    assert writes > 4
    assert tracker.client.transport.pacer.sent == writes


def test_the_fake_answers_like_github_s_secondary_limit(fake: FakeGitHub) -> None:
    import requests

    clock = VirtualClock()
    fake.limit_content_creation(2, clock.now)
    auth = {"Authorization": f"token {TOKEN}"}
    labels = f"{fake.repo_api}/labels"

    def create(name: str) -> requests.Response:
        return requests.post(labels, json={"name": name, "color": "ededed"}, headers=auth, timeout=5)

    assert [create("a").status_code, create("b").status_code] == [201, 201]
    refused = create("c")
    assert refused.status_code == 403
    assert refused.headers["retry-after"] == "60"
    assert "secondary rate limit" in refused.json()["message"]
    assert refused.json()["documentation_url"].endswith("#about-secondary-rate-limits")
    assert "c" not in fake.labels  # nothing changed
    assert requests.get(labels, headers=auth, timeout=5).status_code == 200  # reads are not limited
    query = {"query": "query { viewer { login } }"}
    assert requests.post(f"{fake.api}/graphql", json=query, headers=auth, timeout=5).status_code != 403
    clock.sleep(30)
    assert create("c").headers["retry-after"] == "30"
    clock.sleep(30)
    assert create("c").status_code == 201
    assert fake.content_limit is not None
    assert fake.content_limit.refused == 2


# --- rate limits waited out -------------------------------------------------------------------------


def test_a_push_of_six_decisions_under_a_secondary_limit_files_all_six_once(fake: FakeGitHub, tmp_path: Path) -> None:
    repo = tmp_path / "checkout"
    make_repo(repo)
    files = {
        f".parkbot/decisions/q{i}.json": result_json(key=f"q{i}", title=f"Question {i}", question=f"Which {i}?")
        for i in range(6)
    }
    sha = commit(repo, AGENT, files)
    clock = limited(fake, 4)  # far below GitHub's 80 a minute: the pacer does not prevent it, waits must
    tracker = make_tracker(fake, policy=RetryPolicy.instant(clock=clock))
    fake.reset_log()
    outcome = handle_event(
        "push",
        push_event(fake, AGENT, sha),
        tracker_factory=lambda: Backend("github", tracker, CONFIG),
        repo_path=repo,
        now=NOW,
    )
    assert outcome.exit_code == 0, [i.message for i in outcome.items]
    parked = sorted((i.decision_id, i.action) for i in outcome.items if i.kind == "parked")
    assert parked == [(f"billing-42-decision-q{i}", "created") for i in range(6)]
    issues = decision_issues(fake)
    assert sorted(issues) == [f"billing-42-decision-q{i}" for i in range(6)]
    assert all(len(numbers) == 1 for numbers in issues.values())  # none filed twice
    assert fake.content_limit is not None
    assert fake.content_limit.refused >= 1  # GitHub did refuse, and every refusal was waited out
    refusals = [r for r in fake.requests if r.status == 403]
    assert len(refusals) == fake.content_limit.refused
    assert 60.0 <= tracker.client.transport.waited <= 300.0
    assert all(wait <= 60.0 for wait in clock.slept)  # as long as GitHub's Retry-After, no longer


def test_waiting_has_a_bound_per_run_then_exit_4(fake: FakeGitHub) -> None:
    clock = limited(fake, 2)
    tracker = make_tracker(fake, policy=RetryPolicy.instant(clock=clock, rate_limit_wait=90.0))

    def park_eight() -> None:
        for i in range(8):
            lifecycle.park(tracker, needs_input(key=f"q{i}", title=f"Q{i}", question=f"Which {i}?"), CONFIG, now=NOW)

    with pytest.raises(BackendFailure) as info:
        park_eight()
    message = info.value.message
    assert info.value.exit_code == 4
    assert "secondary rate limit" in message
    assert "github.rate_limit_wait" in message
    assert RATE_LIMIT_WAIT_ENV in message
    assert "safe to re-run" in message
    assert tracker.client.transport.waited <= 90.0
    assert sum(clock.slept) <= 90.0


def test_a_wait_longer_than_the_bound_is_not_started(fake: FakeGitHub) -> None:
    clock = VirtualClock()
    fake.set_rate_limit(0)  # the primary limit resets in an hour
    with pytest.raises(BackendFailure, match=r"primary rate limit is exhausted.*bound on waiting is 300s"):
        make_tracker(fake, policy=RetryPolicy.instant(clock=clock)).claim(DID)
    assert clock.slept == []
    assert fake.request_count == 1


def test_a_secondary_limit_without_a_time_waits_a_minute_then_doubles(fake: FakeGitHub) -> None:
    clock = VirtualClock()
    fake.fail_next("secondary_rate_limit", count=2)
    real = fake._fault_response  # GitHub's message, here without a Retry-After

    def without_retry_after(kind: str) -> Any:
        status, headers, body = real(kind)
        return status, {k: v for k, v in headers.items() if k != "retry-after"}, body

    fake._fault_response = without_retry_after  # type: ignore[method-assign]
    assert make_tracker(fake, policy=RetryPolicy.instant(clock=clock)).claim(DID) is True
    assert clock.slept == [60.0, 120.0]


def test_pacing_past_the_bound_fails_before_sending(fake: FakeGitHub) -> None:
    clock = VirtualClock()
    policy = RetryPolicy.instant(clock=clock, content_limits=((2, 3600.0),), rate_limit_wait=60.0)
    tracker = make_tracker(fake, policy=policy)
    assert tracker.claim("a-decision-one")
    assert tracker.claim("a-decision-two")
    fake.reset_log()
    with pytest.raises(BackendFailure, match=r"2 content-creating requests.*2 per 3600s.*safe to re-run"):
        tracker.claim("a-decision-three")
    assert fake.request_count == 0  # nothing was sent
    assert clock.slept == []


# --- the bound: config and environment ----------------------------------------------------------------


def test_the_bound_in_the_config() -> None:
    assert Config().github.rate_limit_wait == 300.0
    assert parse_config("github:\n  rate_limit_wait: 2m\n").github.rate_limit_wait == 120.0
    assert parse_config("github:\n  rate_limit_wait: 45\n").github.rate_limit_wait == 45.0
    assert parse_config("github:\n  rate_limit_wait: 0\n").github.rate_limit_wait == 0.0
    with pytest.raises(InvalidInput, match=r"parkbot.yml:2: github.rate_limit_wait: 'soon' is not a duration"):
        parse_config("github:\n  rate_limit_wait: soon\n")
    with pytest.raises(InvalidInput, match=r"github.rate_limit_wait"):
        parse_config("github:\n  rate_limit_wait: -5s\n")


def test_parse_wait() -> None:
    assert parse_wait("90s", "x") == 90.0
    assert parse_wait("1h", "x") == 3600.0
    assert parse_wait(" 10S ", "x") == 10.0
    assert parse_wait("0", "x") == 0.0
    for bad, why in [
        ("10", "has no unit: write 10s"),
        ("", "is not a duration"),
        ("m", "is not a duration"),
        ("-1s", "is negative"),
        ("nan", "is not a duration"),
        ("inf", "is not a duration"),
        ("5 minutes", "is not a duration"),
    ]:
        with pytest.raises(InvalidInput, match=f"^x .*{why}"):
            parse_wait(bad, "x")


def github_env(fake: FakeGitHub, **extra: str) -> dict[str, str]:
    return {"GITHUB_TOKEN": TOKEN, "GITHUB_REPOSITORY": fake.full_name, "GITHUB_API_URL": fake.base_url, **extra}


def test_the_environment_overrides_the_config(fake: FakeGitHub) -> None:
    fake.put_file(".github/parkbot.yml", "github:\n  rate_limit_wait: 2m\n")
    from_config = open_backend("github", env=github_env(fake))
    transport = from_config.tracker.client.transport  # type: ignore[attr-defined]
    assert (transport.rate_limit_wait, transport.wait_bound_source) == (120.0, ".github/parkbot.yml")
    from_env = open_backend("github", env=github_env(fake, **{RATE_LIMIT_WAIT_ENV: "10s"}))
    transport = from_env.tracker.client.transport  # type: ignore[attr-defined]
    assert (transport.rate_limit_wait, transport.wait_bound_source) == (10.0, RATE_LIMIT_WAIT_ENV)
    with pytest.raises(InvalidInput, match=RATE_LIMIT_WAIT_ENV):
        open_backend("github", env=github_env(fake, **{RATE_LIMIT_WAIT_ENV: "a while"}))


# --- showing the waits -------------------------------------------------------------------------------


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_reporter_depends_on_where_parkbot_runs() -> None:
    assert isinstance(reporter_for({"GITHUB_ACTIONS": "true"}, Terminal()), ActionsReporter)
    assert isinstance(reporter_for({}, Terminal()), TerminalReporter)
    assert type(reporter_for({}, io.StringIO())) is LogReporter  # a pipe: only the log


def test_a_terminal_shows_a_countdown(fake: FakeGitHub) -> None:
    clock = VirtualClock()
    terminal = Terminal()
    tracker = make_tracker(fake, policy=RetryPolicy.instant(clock=clock))
    tracker.client.transport.reporter = TerminalReporter(terminal)
    fake.fail_next("secondary_rate_limit")
    fake._fault_response = _retry_after(fake, 3)  # type: ignore[method-assign]
    assert tracker.claim(DID)
    shown = terminal.getvalue()
    assert "secondary rate limit" in shown
    assert "3s left" in shown
    assert "2s left" in shown
    assert "1s left" in shown
    assert shown.endswith("done waiting\x1b[K\n")
    assert clock.slept == [1.0, 1.0, 1.0]


def _retry_after(fake: FakeGitHub, seconds: int) -> Any:
    real = fake._fault_response

    def response(kind: str) -> Any:
        status, headers, body = real(kind)
        return status, {**headers, "retry-after": str(seconds)}, body

    return response


def test_actions_get_one_notice_per_wait(fake: FakeGitHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from parkbot.cli import cli
    from parkbot.trackers.github import client as github_client

    clock = VirtualClock()
    real = github_client.client_from_env
    policy = RetryPolicy.instant(clock=clock)
    monkeypatch.setattr(github_client, "client_from_env", lambda env: real(env, policy=policy))
    path = tmp_path / "result.json"
    path.write_text(json.dumps(needs_input().model_dump(mode="json")))
    config = tmp_path / "parkbot.yml"
    config.write_text("owners:\n  default: alice\nprecedents: 'off'\n")
    fake.fail_next("secondary_rate_limit", match=r"^POST .*/issues$")
    env = github_env(fake, GITHUB_ACTIONS="true", PARKBOT_BACKEND="github")
    result = CliRunner().invoke(cli, ["park", str(path), "--json", "--config", str(config)], env=env)
    assert result.exit_code == 0, result.output
    notices = [line for line in result.stderr.splitlines() if line.startswith("::notice::")]
    assert len(notices) == 1
    assert "secondary rate limit" in notices[0]
    assert "waiting 1s (at most 5m 00s in this run)" in notices[0]
    assert json.loads(result.stdout)["action"] == "created"
    assert clock.slept == [1.0]


def test_past_the_bound_the_cli_exits_4(fake: FakeGitHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from parkbot.cli import cli
    from parkbot.trackers.github import client as github_client

    clock = limited(fake, 1)
    real = github_client.client_from_env
    policy = RetryPolicy.instant(clock=clock)
    monkeypatch.setattr(github_client, "client_from_env", lambda env: real(env, policy=policy))
    path = tmp_path / "result.json"
    path.write_text(json.dumps(needs_input().model_dump(mode="json")))
    config = tmp_path / "parkbot.yml"
    config.write_text("owners:\n  default: alice\nprecedents: 'off'\n")
    env = github_env(fake, PARKBOT_BACKEND="github", **{RATE_LIMIT_WAIT_ENV: "30s"})
    result = CliRunner().invoke(cli, ["park", str(path), "--config", str(config)], env=env)
    assert result.exit_code == 4, result.output
    assert "safe to re-run" in result.output
    assert "30s" in result.output
    assert RATE_LIMIT_WAIT_ENV in result.output
    assert TOKEN not in result.output
    assert sum(clock.slept) <= 30.0
