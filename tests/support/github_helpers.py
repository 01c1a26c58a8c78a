"""What the tests of the GitHub backend share: the fake repository, a tracker on it, the question they file.

Plain functions and constants; the ``fake`` and ``tracker`` fixtures in ``tests/conftest.py`` are built from them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from parkbot.core.config import Config, Owners
from parkbot.core.models import NeedsInput, parse_result
from parkbot.trackers.github import GitHubTracker
from parkbot.trackers.github.client import GitHubSettings, RetryPolicy, build_client
from tests.support.fakegithub import FakeGitHub

TOKEN = "ghs_contractharnesstoken000000000000000"
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
#: The id of the decision :func:`needs_input` files.
DID = "billing-42-decision-refund"
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
    """The ``needs_input`` result the tests file (billing-42 asks about a refund), with ``changes`` applied."""
    data: dict[str, Any] = {
        "status": "needs_input",
        "origin": "billing-42",
        "key": "refund",
        "title": "Refund scope",
        "question": "Refund the remaining three, or the full total?",
        "options": ["remaining_three: 412.00", "full_original: 690.00"],
    }
    data.update(changes)
    return data


def needs_input(**changes: Any) -> NeedsInput:
    """:func:`needs_input_data`, parsed."""
    parsed = parse_result(needs_input_data(**changes))
    assert isinstance(parsed, NeedsInput)
    return parsed


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
