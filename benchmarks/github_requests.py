"""HTTP requests per operation of the GitHub backend, counted against the stateful fake GitHub.

**What a user pays** (:func:`user_rows`, the first table). Every operation runs the way a user runs
it: the ``parkbot`` command, or ``parkbot handle-event`` for a GitHub Actions event, each a fresh
process with nothing cached, on a repository whose ``.github/parkbot.yml`` names only the default
owner (every other setting is the default: question budgets on, precedents ``suggest``). Everything
between its first request and its last is counted: reading the config, parkbot's own-login lookup if
it makes one, the budget and precedent lookups, the reactions on a command, the dashboard patch.
Each row runs with 10 and with 1,000 other decisions in the repository (half of them resolved,
written straight into the fake), with an up-to-date dashboard, and must cost the same in both,
except the scheduled reconcile, which reads every decision on purpose.

**The tracker operations inside them** (:func:`tracker_rows`, ``--tracker``): the same operations
called in-process on the tracker with the configuration already loaded and precedents off, to see
where the requests go.

    python benchmarks/github_requests.py               # 10 vs 1,000 other decisions
    python benchmarks/github_requests.py --quick       # 10 vs 120 (still more than one page of 100)
    python benchmarks/github_requests.py --tracker     # also the tracker-level table
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from click.testing import CliRunner, Result  # noqa: E402

from parkbot.core import lifecycle  # noqa: E402
from parkbot.core.authority import Actor  # noqa: E402
from parkbot.core.config import Config, Owners  # noqa: E402
from parkbot.core.models import Answer, Decision, NeedsInput  # noqa: E402
from parkbot.trackers.github import DECISION_LABEL, GitHubTracker, index_label, precedent_labels  # noqa: E402
from parkbot.trackers.github import client as github_client  # noqa: E402
from parkbot.trackers.github.client import RetryPolicy  # noqa: E402
from parkbot.trackers.github.labels import decision_label  # noqa: E402
from parkbot.trackers.github.render import render_decision  # noqa: E402
from tests.support.fakegithub import FakeGitHub  # noqa: E402
from tests.support.github_helpers import TOKEN, fake_github, make_tracker, needs_input  # noqa: E402

#: The owner's personal token (``parkbot resolve`` acts as the token's login).
ALICE_TOKEN = "ghp_alicepersonaltoken0000000000000000"

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
DID = "billing-42-decision-refund"
#: The default configuration: only the default owner is named.
CONFIG_TEXT = "owners:\n  default: alice\n"
DEFAULT_CONFIG = Config(owners=Owners(default="alice"))
#: What the tracker-level rows use: the configuration preloaded, precedents off.
TRACKER_CONFIG = Config(owners=Owners(default="alice"), precedents="off")
WRITES = frozenset({"POST", "PATCH", "PUT", "DELETE"})


def result(key: str = "refund", **changes: Any) -> NeedsInput:
    """The tests' question under ``key``, with a title and question text of its own."""
    own = {
        "title": f"Question {key}",
        "question": f"Refund the remaining three, or the full total? ({key})",
        "work_so_far": {"verified": ["A-4471"]},
    }
    return needs_input(**{"key": key, **own, **changes})


def seed_others(fake: FakeGitHub, count: int) -> list[Decision]:
    """``count`` unrelated decisions (half resolved) written straight into the fake's state; returned."""
    seeded: list[Decision] = []
    for i in range(count):
        decision = lifecycle.build_decision(
            result(key=f"other-{i}", origin=f"other-{i % 37}"), "bob", NOW - timedelta(days=1)
        )
        labels = [decision_label(decision.id), DECISION_LABEL, index_label("parkbot:origin:", decision.origin)]
        state = "open"
        if i % 2:
            answer = Answer(value="full_original", by="bob", at=NOW - timedelta(hours=1))
            decision = decision.model_copy(update={"state": "resolved", "answer": answer})
            labels += ["parkbot:resolved", *precedent_labels(decision)]
            state = "closed"
        fake.add_label(decision_label(decision.id))
        rendered = render_decision(decision)
        fake.add_issue(rendered.title, rendered.body, labels=labels, author=fake.login, state=state)
        seeded.append(decision)
    return seeded


# --- what a user pays ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class UserRow:
    """One operation as a user runs it: requests with the small and the large backlog, and its writes."""

    operation: str
    how: str
    small: int
    large: int
    writes: int
    note: str = ""

    @property
    def grows(self) -> bool:
        return self.small != self.large


@dataclass
class World:
    """A fake repository with its config file, a checkout (for push events) and a work folder."""

    fake: FakeGitHub
    work: Path
    state: Any = None


@contextlib.contextmanager
def instant_retries() -> Iterator[None]:
    """The CLI's client, with retries that never really sleep (the fake never fails unless told)."""
    real = github_client.client_from_env

    def instant(env: Any, *, policy: RetryPolicy | None = None) -> Any:
        return real(env, policy=policy or RetryPolicy.instant())

    github_client.client_from_env = instant  # type: ignore[assignment]
    try:
        yield
    finally:
        github_client.client_from_env = real  # type: ignore[assignment]


def parkbot(world: World, *args: str, expect: int = 0, **env: str) -> Result:
    """``parkbot ARGS`` against the fake, as a fresh process would run it."""
    from parkbot.cli import cli

    fake = world.fake
    base = {
        "GITHUB_TOKEN": TOKEN,
        "GITHUB_REPOSITORY": fake.full_name,
        "GITHUB_API_URL": fake.base_url,
        "PARKBOT_BACKEND": "github",
    }
    with instant_retries():
        outcome = CliRunner().invoke(cli, list(args), env={**base, **env}, catch_exceptions=False)
    assert outcome.exit_code == expect, (args, outcome.output)
    return outcome


def handle_event(world: World, name: str, payload: dict[str, Any], *, expect: int = 0) -> dict[str, Any]:
    """``parkbot handle-event`` for one event (what the action runs); its JSON outcome."""
    path = world.work / "event.json"
    path.write_text(json.dumps(payload), encoding="utf-8")
    done = parkbot(
        world,
        "handle-event",
        "--json",
        "--no-summary",
        "--repo",
        str(world.work / "checkout"),
        expect=expect,
        GITHUB_EVENT_NAME=name,
        GITHUB_EVENT_PATH=str(path),
    )
    data: dict[str, Any] = json.loads(done.stdout)
    return data


def result_file(world: World, **changes: Any) -> str:
    path = world.work / "result.json"
    path.write_text(json.dumps(result(**changes).model_dump(mode="json")), encoding="utf-8")
    return str(path)


def reconciled_dashboard(fake: FakeGitHub) -> None:
    """The dashboard the last scheduled reconcile left: a recount of the fake's decisions, computed
    in-process from its state (reading them through the API would only make the benchmark slow)."""
    from parkbot.dashboard_refresh import recount_index
    from parkbot.report.dashboard_body import render_body
    from parkbot.trackers.github.render import parse_decision

    decisions = []
    for issue in fake.issues.values():
        if issue.pull is None and DECISION_LABEL in issue.labels:
            state = "open" if issue.state == "open" else "resolved"
            decisions.append(parse_decision(issue.body).model_copy(update={"state": state}))
    index = recount_index(decisions, [], NOW)
    make_tracker(fake).write_dashboard(index, lambda fitted, budget: render_body(fitted, NOW, budget=budget))


def measure_user(setup: Callable[[World], Any], run: Callable[[World], Any], others: int) -> tuple[int, int]:
    """(requests, content-creating requests) of ``run`` after ``setup``, on a backlog of ``others``."""
    from tests.support.git_helpers import make_repo

    fake = fake_github().start()
    try:
        with tempfile.TemporaryDirectory(prefix="parkbot-bench-") as tmp:
            world = World(fake, Path(tmp))
            make_repo(world.work / "checkout")
            fake.put_file(".github/parkbot.yml", CONFIG_TEXT)
            seed_others(fake, others)
            world.state = setup(world)
            reconciled_dashboard(fake)
            fake.reset_log()
            run(world)
            fake.assert_no_violations()
            return fake.request_count, len(fake.writes())  # GraphQL queries are POSTs, but reads
    finally:
        fake.stop()


# setups (in-process, uncounted) ------------------------------------------------------------------------


def nothing_yet(world: World) -> None:
    return None


def already_parked(world: World) -> None:
    lifecycle.park(make_tracker(world.fake), result(), DEFAULT_CONFIG, now=NOW)


def pull_linked_to(k: int) -> Callable[[World], int]:
    """A pull request (a person's branch) gated once when it was opened, then named by ``k`` decisions."""

    def setup(world: World) -> int:
        fake = world.fake
        pr = fake.add_pull(title="work", head_ref="feature/work")
        lifecycle.gate(make_tracker(fake), DEFAULT_CONFIG, f"#{pr.number}")
        for i in range(k):
            dependent = result(key="q", origin=f"task-{i}", dependents=[f"#{pr.number}"])
            lifecycle.park(make_tracker(fake), dependent, DEFAULT_CONFIG, now=NOW)
        return pr.number

    return setup


def decision_with_dependents(k: int) -> Callable[[World], list[int]]:
    def setup(world: World) -> list[int]:
        fake = world.fake
        prs = [fake.add_pull(title=f"work {i}", head_ref=f"agent/w{i}").number for i in range(k)]
        for number in prs:
            lifecycle.gate(make_tracker(fake), DEFAULT_CONFIG, f"#{number}")  # the PR's `opened` event
        lifecycle.park(make_tracker(fake), result(dependents=[f"#{n}" for n in prs]), DEFAULT_CONFIG, now=NOW)
        return prs

    return setup


def pushed_result(world: World) -> str:
    """An agent branch whose commit holds one decision file (the push is not handled yet)."""
    from tests.support.events import AGENT, commit, result_json

    return commit(world.work / "checkout", AGENT, {".parkbot/decisions/refund.json": result_json()})


# runs (counted) ------------------------------------------------------------------------------------------


def cli_park(expected: str, **changes: Any) -> Callable[[World], Any]:
    def run(world: World) -> Any:
        outcome = json.loads(parkbot(world, "park", result_file(world, **changes), "--json").stdout)
        assert outcome["action"] == expected, outcome
        return outcome

    return run


def push_park(world: World) -> Any:
    from tests.support.events import AGENT, push_event

    outcome = handle_event(world, "push", push_event(world.fake, AGENT, world.state))
    assert [i["action"] for i in outcome["items"] if i["kind"] == "parked"] == ["created"], outcome
    return outcome


def cli_gate(world: World) -> Any:
    return parkbot(world, "gate", str(world.state), expect=1)


def pull_request_event(world: World) -> Any:
    from tests.support.events import pr_event

    world.fake.push(world.state)  # a new commit on the pull request
    outcome = handle_event(world, "pull_request", pr_event(world.fake, world.state, "synchronize"))
    assert outcome["gate_state"] == "blocked", outcome
    return outcome


def cli_resolve(world: World) -> Any:
    # The owner's own token: on GitHub the actor of a command is whoever the token belongs to, and the
    # answer is left as the owner's own /decide comment (parkbot's workflow records it: the row below).
    world.fake.add_token(ALICE_TOKEN, "alice", kind="personal")
    # parkbot's own records were written by its App (the fake's parkbot[bot]), as the config would say.
    answered = parkbot(
        world,
        "resolve",
        DID,
        "--answer",
        "full_original",
        "--json",
        GITHUB_TOKEN=ALICE_TOKEN,
        PARKBOT_BOT_LOGIN=world.fake.login,
    )
    outcome = json.loads(answered.stdout)
    assert outcome["action"] == "requested", outcome  # left as the owner's comment for parkbot to record
    return outcome


def decide_comment(world: World) -> Any:
    from tests.support.events import comment_event

    fake = world.fake
    number = next(n for n, i in fake.issues.items() if f"decision:{DID}" in i.labels and i.pull is None)
    payload = comment_event(fake, number, "/decide full_original")
    fake.reset_log()  # posting the comment is the owner's request, not parkbot's
    outcome = handle_event(world, "issue_comment", payload)
    assert [i["kind"] for i in outcome["items"]][:1] == ["resolved"], outcome
    assert outcome["dashboard"]["mode"] == "patch", outcome
    return outcome


def cli_wait(world: World) -> Any:
    return parkbot(world, "wait", DID, "--timeout", "0s", "--json", expect=1)


def reconcile(world: World) -> Any:
    from tests.support.events import webhook

    outcome = handle_event(world, "schedule", webhook("schedule"))
    assert outcome["dashboard"]["mode"] == "recount", outcome
    return outcome


USER_OPERATIONS: list[tuple[str, str, Callable[[World], Any], Callable[[World], Any], str]] = [
    ("park new", "`parkbot park`", nothing_yet, cli_park("created"), ""),
    ("park new, with a run id", "`parkbot park`", nothing_yet, cli_park("created", run="run-7"), "+1: per-run budget"),
    (
        "park new, from a push",
        "`handle-event` push",
        pushed_result,
        push_park,
        "blocks its branch; the dashboard patch (2)",
    ),
    ("park unchanged", "`parkbot park`", already_parked, cli_park("unchanged"), ""),
    ("park updated", "`parkbot park`", already_parked, cli_park("updated", work_so_far={"more": 1}), ""),
    *[
        (f"gate, k={k}", "`parkbot gate`", pull_linked_to(k), cli_gate, "linked at park; the PR was gated when opened")
        for k in (1, 3, 5)
    ],
    ("gate, k=1, on a new commit", "`handle-event` pull_request", pull_linked_to(1), pull_request_event, ""),
    *[(f"resolve, k={k}", "`parkbot resolve`", decision_with_dependents(k), cli_resolve, "") for k in (0, 1, 3)],
    *[
        (
            f"resolve from a `/decide` comment, k={k}",
            "`handle-event` issue_comment",
            decision_with_dependents(k),
            decide_comment,
            "with 👀 and 👍 on the comment (2) and the dashboard patch (2)",
        )
        for k in (0, 1, 3)
    ],
    ("wait, first poll", "`parkbot wait`", already_parked, cli_wait, "every further poll: 1 request, 0 rate limit"),
    (
        "scheduled reconcile",
        "`handle-event` schedule",
        already_parked,
        reconcile,
        "lists every decision (1 per 100), then each open one's comments (1 each)",
    ),
]


def user_rows(sizes: tuple[int, int] = (10, 1000)) -> list[UserRow]:
    small, large = sizes
    rows = []
    for name, how, setup, run, note in USER_OPERATIONS:
        a, _ = measure_user(setup, run, small)
        b, writes = measure_user(setup, run, large)
        rows.append(UserRow(name, how, a, b, writes, note))
    return rows


def user_table(rows: list[UserRow], sizes: tuple[int, int]) -> str:
    small, large = sizes
    head = f"| operation | runs as | requests, {small} decisions | requests, {large:,} decisions | writes | note |"
    lines = [head, "| --- | --- | ---: | ---: | ---: | --- |"]
    for row in rows:
        grows = " (grows)" if row.grows else ""
        lines.append(f"| {row.operation} | {row.how} | {row.small} | {row.large}{grows} | {row.writes} | {row.note} |")
    return "\n".join(lines)


# --- the tracker operations inside them ------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    operation: str
    requests: int
    note: str = ""


def measure(fake: FakeGitHub, operation: Callable[[], Any]) -> int:
    fake.reset_log()
    operation()
    return fake.request_count


def scenario(
    setup: Callable[[FakeGitHub, GitHubTracker], Any],
    run: Callable[[FakeGitHub, GitHubTracker, Any], Any],
    others: int = 0,
) -> int:
    fake = fake_github().start()
    try:
        seed_others(fake, others)
        state = setup(fake, make_tracker(fake))
        tracker = make_tracker(fake)  # a fresh process: nothing cached
        count = measure(fake, lambda: run(fake, tracker, state))
        fake.assert_no_violations()
        return count
    finally:
        fake.stop()


def nothing(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    return None


def park_new(config: Config = TRACKER_CONFIG, **changes: Any) -> Callable[[FakeGitHub, GitHubTracker, Any], Any]:
    def run(fake: FakeGitHub, tracker: GitHubTracker, _: Any) -> Any:
        outcome = lifecycle.park(tracker, result(**changes), config, now=NOW)
        assert outcome.action == "created", outcome.action
        return outcome

    return run


def parked(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    lifecycle.park(tracker, result(), TRACKER_CONFIG, now=NOW)


def park_again(**changes: Any) -> Callable[[FakeGitHub, GitHubTracker, Any], Any]:
    def run(fake: FakeGitHub, tracker: GitHubTracker, _: Any) -> Any:
        return lifecycle.park(tracker, result(**changes), TRACKER_CONFIG, now=NOW)

    return run


def with_linked_pull(k: int, how: str) -> Callable[[FakeGitHub, GitHubTracker], Any]:
    """A PR linked to ``k`` open decisions: listed as a dependent at park, or by ``Blocked by`` lines.

    ``dependents``: the PR was gated once when it was opened (what the ``pull_request`` ``opened``
    event does), then the decisions were parked; ``dependents-ungated``: the same, never gated before.
    """

    def setup(fake: FakeGitHub, tracker: GitHubTracker) -> Any:
        pr = fake.add_pull(title="work", head_ref="agent/work")
        if how == "dependents":
            lifecycle.gate(make_tracker(fake), Config(), f"#{pr.number}")
        numbers = []
        for i in range(k):
            deps = [f"#{pr.number}"] if how.startswith("dependents") else []
            outcome = lifecycle.park(
                tracker, result(key="q", origin=f"task-{i}", dependents=deps), TRACKER_CONFIG, now=NOW
            )
            numbers.append(outcome.location.number)
        if how == "body":
            pr.body = "\n".join(f"Blocked by #{n}" for n in numbers)
        return pr.number

    return setup


def gate(fake: FakeGitHub, tracker: GitHubTracker, number: int) -> Any:
    return lifecycle.gate(tracker, Config(), f"#{number}")


def with_dependents(k: int) -> Callable[[FakeGitHub, GitHubTracker], Any]:
    def setup(fake: FakeGitHub, tracker: GitHubTracker) -> Any:
        prs = [fake.add_pull(title=f"work {i}", head_ref=f"agent/w{i}").number for i in range(k)]
        lifecycle.park(tracker, result(dependents=[f"#{n}" for n in prs]), TRACKER_CONFIG, now=NOW)
        return prs

    return setup


def resolve(fake: FakeGitHub, tracker: GitHubTracker, _: Any) -> Any:
    outcome = lifecycle.resolve(tracker, TRACKER_CONFIG, DID, "full_original", Actor("alice"), now=NOW)
    assert outcome.action == "resolved"
    return outcome


def open_pull(fake: FakeGitHub, tracker: GitHubTracker) -> Any:
    return fake.add_pull(title="work", head_ref="agent/work").number


RATE_USED: dict[str, int] = {}


def poll_unchanged(polls: int) -> Callable[[FakeGitHub, GitHubTracker, Any], Any]:
    """``parkbot wait``'s polls of an unanswered decision; records the rate limit they used."""

    def run(fake: FakeGitHub, tracker: GitHubTracker, _: Any) -> Any:
        before = fake.rate_remaining
        token = None
        for _ in range(polls):
            decision, token = lifecycle.poll_answer(tracker, Config(), DID, token)
            assert decision.state == "open"
        RATE_USED["wait"] = before - fake.rate_remaining
        return token

    return run


def tracker_rows(sizes: tuple[int, int] = (10, 1000)) -> list[Row]:
    """The tracker's own operations (config preloaded, precedents off), and whether they grow."""
    small, large = sizes
    growth: list[tuple[str, Callable[..., Any], Callable[..., Any], str]] = [
        ("park new", nothing, park_new(), "claim the label, the origin's index, the per-origin budget, create"),
        ("park new, precedents suggest", nothing, park_new(DEFAULT_CONFIG), "+2: the precedent index labels"),
        ("park unchanged", parked, park_again(), ""),
        ("park updated", parked, park_again(work_so_far={"more": 1}), ""),
        ("gate, k=0 (a new PR's first gate)", open_pull, gate, "+2 once per PR: the branch index, the mark"),
        ("gate, k=1 (linked at park)", with_linked_pull(1, "dependents"), gate, ""),
        ("gate, k=3 (linked at park)", with_linked_pull(3, "dependents"), gate, ""),
        ("gate, k=1 (`Blocked by` only, first sight)", with_linked_pull(1, "body"), gate, "records the edge once"),
        ("resolve, k=0", with_dependents(0), resolve, ""),
        ("resolve, k=1", with_dependents(1), resolve, "+5 per dependent"),
        ("resolve, k=3", with_dependents(3), resolve, ""),
    ]
    rows = []
    for name, setup, run, note in growth:
        a = scenario(setup, run, others=small)
        b = scenario(setup, run, others=large)
        grows = "" if a == b else f"GROWS: {a} -> {b}; "
        rows.append(Row(name, b, grows + note))
    polls = scenario(parked, poll_unchanged(10))
    rows.append(Row("wait: 10 polls, no answer", polls, f"rate limit used: {RATE_USED['wait']} (the other 9 are 304s)"))
    return rows


def table(rows: list[Row]) -> str:
    lines = ["| operation | requests | note |", "| --- | ---: | --- |"]
    lines += [f"| {row.operation} | {row.requests} | {row.note} |" for row in rows]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="10 vs 120 other decisions instead of 10 vs 1,000")
    parser.add_argument("--tracker", action="store_true", help="also the tracker-level table")
    args = parser.parse_args(argv)
    sizes = (10, 120) if args.quick else (10, 1000)
    print("What a user pays (the default configuration, each command a fresh process):\n")
    print(user_table(user_rows(sizes), sizes))
    if args.tracker:
        print("\nThe tracker operations inside them (configuration preloaded, precedents off):\n")
        print(table(tracker_rows(sizes)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
