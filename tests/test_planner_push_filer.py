"""A question filed from a push records who filed it, so the planner never answers its own question there either.

The push event's ``sender`` is who GitHub says pushed; the head commit's author is what the commit
states. Either being the planner means the planner filed the question: ``filed_by`` is the planner,
the question goes to its owner at once, and the planner's ``/cite`` on it is refused.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.git_helpers import make_repo
from tests.github_support import DID, make_tracker
from tests.test_events_push import AGENT, commit, push_event, result_json
from tests.test_events_support import run
from tests.test_planner_github import CONFIG, PLANNER, REFUNDS, say


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
