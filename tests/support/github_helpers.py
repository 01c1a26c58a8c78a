"""What the tests of the GitHub backend share: the fake repository, a tracker on it, the question they file.

Plain functions and constants; the ``fake`` and ``tracker`` fixtures in ``tests/conftest.py`` are built from them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from parkbot.core import lifecycle
from parkbot.core.config import Config, Owners
from parkbot.core.models import NeedsInput
from parkbot.trackers.github import (
    DECISION_LABEL,
    GitHubTracker,
)
from parkbot.trackers.github.client import GitHubSettings, RetryPolicy, build_client
from tests.support import results
from tests.support.fakegithub import FakeGitHub

TOKEN = "ghs_contractharnesstoken000000000000000"
NOW = results.NOW
#: The id of the decision :func:`needs_input` files.
DID = results.DID
CONFIG = Config(owners=Owners(default="alice"), hierarchy={"alice": "carol"}, precedents="off")
#: The name of the gate: its check run, and the commit status of ``gate.publish: status``.
STATUS = "parkbot/decisions"


def fake_github(**kwargs: Any) -> FakeGitHub:
    """The fake ``acme/widgets`` repository that accepts :data:`TOKEN` (neither started nor activated)."""
    return FakeGitHub(owner="acme", repo="widgets", token=TOKEN, **kwargs)


def make_tracker(fake: FakeGitHub, *, policy: RetryPolicy | None = None, **kwargs: Any) -> GitHubTracker:
    """A GitHubTracker on ``fake`` with retries that never really sleep and no filing-race wait."""
    settings = GitHubSettings(repository=fake.full_name, api_url=fake.base_url, token=TOKEN)
    client = build_client(settings, policy=policy or RetryPolicy.instant())
    kwargs.setdefault("race_wait", 0.0)
    return GitHubTracker(client, **kwargs)


def needs_input_data(**changes: Any) -> dict[str, Any]:
    """The short question (:data:`tests.support.results.SHORT`) as data, with ``changes`` applied."""
    return results.result_data(results.SHORT, **changes)


def needs_input(**changes: Any) -> NeedsInput:
    """The short question, parsed."""
    return results.result(results.SHORT, **changes)


def labels_listed(fake: FakeGitHub) -> list[str]:
    """The label each logged listing asked for: REST's ``labels=`` or the GraphQL ``$labels``, in order."""
    out: list[str] = []
    for request in fake.requests:
        if request.path.endswith("/graphql") and isinstance(request.body, dict):
            labels = (request.body.get("variables") or {}).get("labels")
            if labels:
                out.append(",".join(labels))
        elif "labels" in request.query and request.method == "GET":
            out.append(request.query["labels"])
    return out


def operations(fake: FakeGitHub) -> list[str]:
    """``"METHOD /path"`` of each logged request, with ``graphql/<operation>`` for GraphQL ones."""
    return [
        f"{r.method} {r.path}" + (f" {op}" if op and op.startswith("graphql") else "")
        for r, op in zip(fake.requests, fake.operations, strict=True)
    ]


@dataclass(frozen=True)
class Gate:
    """The gate parkbot last published on a commit, in commit-status words whatever its form.

    ``state``: ``pending`` (a check run in progress), ``success`` or ``failure``; ``description``: the
    check run's title and summary (or the status's description); ``conclusion``: the check run's.
    """

    state: str
    description: str
    conclusion: str | None = None


def gate_of(fake: FakeGitHub, sha: str, *, app: str | None = None) -> Gate | None:
    """The latest ``parkbot/decisions`` check run on ``sha`` by parkbot's App (``fake.login``), or None."""
    run = fake.check_of(sha, STATUS, app=app or fake.login)
    if run is None:
        return None
    state = "pending" if run.status != "completed" else ("success" if run.conclusion == "success" else "failure")
    return Gate(state, f"{run.title}\n{run.summary}", run.conclusion)


#: The short question with the longer title, the work so far and the guess the tracker's tests look at.
FULLER = {
    **results.SHORT,
    "title": "Refund scope for order A-4471",
    "work_so_far": {"verified": ["A-4471"]},
    "guess": "remaining_three",
}


def result(**changes: Any) -> NeedsInput:
    """:data:`FULLER`, parsed."""
    return results.result(FULLER, **changes)


def park(tracker: GitHubTracker, config: Config = CONFIG, **changes: Any) -> lifecycle.ParkOutcome:
    return lifecycle.park(tracker, result(**changes), config, now=NOW)


def decision_issue(fake: FakeGitHub) -> Any:
    found = [i for i in fake.issues.values() if DECISION_LABEL in i.labels]
    assert len(found) == 1
    return found[0]
