"""``parkbot doctor``'s reads of what protects the default branch are read to their last page."""

from __future__ import annotations

from parkbot.trackers.github.client import RetryPolicy, build_client
from parkbot.trackers.github.protection import ruleset_checks
from parkbot.trackers.github.settings import GitHubSettings
from tests.support.fakegithub import FakeGitHub
from tests.support.github_helpers import TOKEN

GATE = "parkbot/decisions"


def test_a_required_check_on_a_later_page_of_the_branch_rules_is_found(fake: FakeGitHub) -> None:
    """GitHub lists the rules that apply to a branch thirty at a time by default: a repository with many
    rulesets must not have its required check reported missing."""
    for n in range(120):
        fake.rulesets.append({"type": "deletion", "ruleset_source_type": "Repository", "ruleset_id": 6000 + n})
    fake.require_check(GATE, 15368)
    client = build_client(
        GitHubSettings(repository=fake.full_name, api_url=fake.base_url, token=TOKEN), policy=RetryPolicy.instant()
    )
    checks = ruleset_checks(client, fake.default_branch)
    assert [(c.context, c.app_id) for c in checks] == [(GATE, 15368)]
