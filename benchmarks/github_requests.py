"""HTTP requests per operation of the GitHub backend, counted against the stateful fake.

Every scenario runs on a fresh fake (``tests/fakegithub``) through the real PyGithub code path and
counts what the fake saw, from the first request of the operation to its last. The configuration is
given to the tracker as the CLI would after loading it (reading it is not counted). Ceilings come
from issue 3; "growth" rows run the same operation with 10 and with 500 other decisions in the
repository (seeded straight into the fake's state) and must not differ.

    python benchmarks/github_requests.py            # 10 vs 500 other decisions
    python benchmarks/github_requests.py --quick    # 10 vs 150 (still more than one page of 100)
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bot.core.authority import Actor

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bot.core import lifecycle  # noqa: E402
from bot.core.config import Config, Owners  # noqa: E402
from bot.core.models import Answer, Decision, NeedsInput  # noqa: E402
from bot.trackers.github import DECISION_LABEL, GitHubTracker, index_label, precedent_labels  # noqa: E402
from bot.trackers.github.labels import decision_label  # noqa: E402
from bot.trackers.github.render import render_decision  # noqa: E402
from tests.fakegithub import FakeGitHub  # noqa: E402
from tests.github_support import fake_github, make_tracker, needs_input  # noqa: E402

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
#: What the issue's ceilings were written against: budgets on, precedents off.
CONFIG = Config(owners=Owners(default="alice"), precedents="off")
DEFAULT_CONFIG = Config(owners=Owners(default="alice"))  # precedents: suggest


@dataclass(frozen=True)
class Row:
    operation: str
    requests: int
    ceiling: int | None
    note: str = ""

    @property
    def ok(self) -> bool | None:
        return None if self.ceiling is None else self.requests <= self.ceiling


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


# --- operations ------------------------------------------------------------------------------


def nothing(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    return None


def park_new(config: Config = CONFIG, **changes: Any) -> Callable[[FakeGitHub, GitHubTracker, Any], Any]:
    def run(fake: FakeGitHub, tracker: GitHubTracker, _: Any) -> Any:
        outcome = lifecycle.park(tracker, result(**changes), config, now=NOW)
        assert outcome.action == "created", outcome.action
        return outcome

    return run


def parked(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    lifecycle.park(tracker, result(), CONFIG, now=NOW)


def park_again(**changes: Any) -> Callable[[FakeGitHub, GitHubTracker, Any], Any]:
    def run(fake: FakeGitHub, tracker: GitHubTracker, _: Any) -> Any:
        return lifecycle.park(tracker, result(**changes), CONFIG, now=NOW)

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
            outcome = lifecycle.park(tracker, result(key="q", origin=f"task-{i}", dependents=deps), CONFIG, now=NOW)
            numbers.append(outcome.location.number)
        if how == "body":
            pr.body = "\n".join(f"Blocked by #{n}" for n in numbers)
        if how == "body-seen":
            pr.body = "\n".join(f"Blocked by #{n}" for n in numbers)
            lifecycle.gate(make_tracker(fake), Config(), f"#{pr.number}")
        return pr.number

    return setup


def gate(fake: FakeGitHub, tracker: GitHubTracker, number: int) -> Any:
    return lifecycle.gate(tracker, Config(), f"#{number}")


def with_dependents(k: int) -> Callable[[FakeGitHub, GitHubTracker], Any]:
    def setup(fake: FakeGitHub, tracker: GitHubTracker) -> Any:
        prs = [fake.add_pull(title=f"work {i}", head_ref=f"agent/w{i}").number for i in range(k)]
        lifecycle.park(tracker, result(dependents=[f"#{n}" for n in prs]), CONFIG, now=NOW)
        return prs

    return setup


def resolve_by_comment(fake: FakeGitHub, tracker: GitHubTracker, _: Any) -> Any:
    """The ``issue_comment`` path: the owner typed ``/decide`` on the decision issue."""
    from bot.comment_handler import handle_comment

    number = next(n for n, i in fake.issues.items() if DECISION_LABEL in i.labels)
    posted = fake.add_comment(number, "/decide full_original", author="alice")
    fake.reset_log()
    outcome = handle_comment(
        tracker, CONFIG, issue_number=number, comment_id=posted.id, body=posted.body, actor=Actor("alice"), now=NOW
    )
    assert outcome.action == "resolved", outcome
    return outcome


def filed_for_branch(fake: FakeGitHub, tracker: GitHubTracker) -> Any:
    """A decision naming ``branch:agent/work`` filed before that branch had a pull request; then the PR."""
    lifecycle.park(tracker, result(dependents=["branch:agent/work"]), CONFIG, now=NOW)
    return fake.add_pull(title="work", head_ref="agent/work").number


def open_pull(fake: FakeGitHub, tracker: GitHubTracker) -> Any:
    return fake.add_pull(title="work", head_ref="agent/work").number


def park_new_for_pull(fake: FakeGitHub, tracker: GitHubTracker, number: int) -> Any:
    """Park a new decision that lists the open pull request ``number`` as its dependent."""
    outcome = lifecycle.park(tracker, result(dependents=[f"#{number}"]), CONFIG, now=NOW)
    assert outcome.action == "created", outcome.action
    assert [g.state for g in outcome.gates] == ["blocked"], outcome.gates
    return outcome


def poll_unchanged(polls: int) -> Callable[[FakeGitHub, GitHubTracker, Any], Any]:
    """``parkbot wait``'s polls of an unanswered decision; records the rate limit they used."""

    def run(fake: FakeGitHub, tracker: GitHubTracker, _: Any) -> Any:
        before = fake.rate_remaining
        token = None
        for _ in range(polls):
            decision, token = lifecycle.poll_answer(tracker, Config(), "billing-42-decision-refund", token)
            assert decision.state == "open"
        RATE_USED["wait"] = before - fake.rate_remaining
        return token

    return run


RATE_USED: dict[str, int] = {}


def refresh_dashboard(fake: FakeGitHub, tracker: GitHubTracker, _: Any) -> Any:
    from bot.dashboard_refresh import recount_dashboard

    return recount_dashboard(tracker, now=NOW)


def with_dashboard(change: bool) -> Callable[[FakeGitHub, GitHubTracker], Any]:
    """Three open decisions and an up-to-date dashboard; then (``change``) one more decision."""

    def setup(fake: FakeGitHub, tracker: GitHubTracker) -> Any:
        from bot.dashboard_refresh import recount_dashboard

        for i in range(3):
            lifecycle.park(tracker, result(key=f"q{i}", origin=f"task-{i}"), CONFIG, now=NOW)
        recount_dashboard(tracker, now=NOW)
        if change:
            lifecycle.park(make_tracker(fake), result(key="q9", origin="task-9"), CONFIG, now=NOW)

    return setup


def resolve(fake: FakeGitHub, tracker: GitHubTracker, _: Any) -> Any:
    outcome = lifecycle.resolve(tracker, CONFIG, "billing-42-decision-refund", "full_original", Actor("alice"), now=NOW)
    assert outcome.action == "resolved"
    return outcome


# --- the table -------------------------------------------------------------------------------


def run_all(sizes: tuple[int, int] = (10, 500)) -> list[Row]:
    rows = [
        Row("park new", scenario(nothing, park_new()), 3),
        Row("park new, with a run id", scenario(nothing, park_new(run="run-7")), 3, "+1: the per-run budget"),
        Row(
            "park new, with 1 dependent PR",
            scenario(open_pull, park_new_for_pull),
            None,
            "reads the PR, links it natively, labels it, sets its status",
        ),
        Row("park unchanged", scenario(parked, park_again()), 2),
        Row("park updated", scenario(parked, park_again(work_so_far={"more": 1})), None),
    ]
    first_note = "once per PR: +1 the branch index, +1 the `parkbot:tracked` mark"
    rows.append(Row("gate, k=0 (a new PR's first gate)", scenario(open_pull, gate), 3, first_note))
    for k in (1, 3, 5):
        rows.append(
            Row(
                f"gate, k={k} (linked at park)",
                scenario(with_linked_pull(k, "dependents"), gate),
                3 + k,
                "the PR was gated when it was opened" if k == 1 else "",
            )
        )
    rows.append(
        Row(
            "gate, k=1 (linked at park, the PR's first gate)",
            scenario(with_linked_pull(1, "dependents-ungated"), gate),
            4,
            first_note,
        )
    )
    for k in (1, 3):
        rows.append(
            Row(
                f"gate, k={k} (`Blocked by` only, first sight)",
                scenario(with_linked_pull(k, "body"), gate),
                3 + k,
                "records each edge once",
            )
        )
        rows.append(
            Row(
                f"gate, k={k} (`Blocked by`, seen before)",
                scenario(with_linked_pull(k, "body-seen"), gate),
                3 + k,
            )
        )
    rows.append(
        Row(
            "gate, k=1 (filed for the branch before its PR, first sight)",
            scenario(filed_for_branch, gate),
            4,
            "found through the branch index; records the edge and the `parkbot:tracked` mark in one write",
        )
    )
    rows.append(
        Row(
            "park new, branch dependent with an open PR",
            scenario(open_pull, park_new(dependents=["branch:agent/work"])),
            None,
            "finds the PR (1) and blocks it",
        )
    )
    for k in (0, 1, 3):
        rows.append(Row(f"resolve, k={k}", scenario(with_dependents(k), resolve), 6 + 4 * k))
    for k in (0, 1):
        rows.append(
            Row(
                f"resolve from a `/decide` comment, k={k}",
                scenario(with_dependents(k), resolve_by_comment),
                6 + 4 * k,
                "+1 read of the commented issue",
            )
        )
    polls = scenario(parked, poll_unchanged(10))
    rows.append(
        Row("wait: 10 polls, no answer", polls, None, f"rate limit used: {RATE_USED['wait']} (the other 9 are 304s)")
    )
    for change in (False, True):
        rows.append(
            Row(
                f"dashboard refresh, {'one decision more' if change else 'nothing changed'}",
                scenario(with_dashboard(change), refresh_dashboard),
                None,
                ("edits the issue once" if change else "no write")
                + "; reads every decision: +1 per 100 (a scan, like the report)",
            )
        )
    small, large = sizes
    growth: list[tuple[str, Callable[..., Any], Callable[..., Any], int | None]] = [
        ("park new", nothing, park_new(), 3),
        ("park unchanged", parked, park_again(), 2),
        ("gate, k=1", with_linked_pull(1, "dependents"), gate, 4),
        ("resolve, k=1", with_dependents(1), resolve, 10),
        (
            "park new, default config (precedents: suggest, with a run id)",
            nothing,
            park_new(DEFAULT_CONFIG, run="run-7"),
            None,
        ),
    ]
    for name, setup, run, ceiling in growth:
        a = scenario(setup, run, others=small)
        b = scenario(setup, run, others=large)
        note = "no growth" if a == b else f"GROWS: {a} -> {b}"
        rows.append(Row(f"{name}, {small} vs {large} other decisions", b, ceiling, f"{a} vs {b}: {note}"))
    return rows


def table(rows: list[Row]) -> str:
    lines = ["| operation | requests | ceiling | within | note |", "| --- | ---: | ---: | :---: | --- |"]
    for row in rows:
        ceiling = "-" if row.ceiling is None else str(row.ceiling)
        ok = "-" if row.ok is None else ("yes" if row.ok else "**no**")
        lines.append(f"| {row.operation} | {row.requests} | {ceiling} | {ok} | {row.note} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="10 vs 150 other decisions instead of 10 vs 500")
    args = parser.parse_args(argv)
    rows = run_all((10, 150) if args.quick else (10, 500))
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
