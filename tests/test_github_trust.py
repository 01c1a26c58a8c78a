"""What parkbot trusts on GitHub, and the attacks that must fail (docs/github.md, "Threat model").

parkbot exists so that an agent never answers its own question. On GitHub anyone with write access
(an agent's own token included) can edit any comment or issue body, post as another bot, and set
commit statuses; each test here is one such attempt, through the stateful fake, and what parkbot does
about it.
"""

from __future__ import annotations

from typing import Any

import pytest
from click.testing import CliRunner

from bot.core.errors import InvalidInput
from bot.trackers.github.client import GitHubSettings, build_client, settings_from_env
from tests.fakegithub import FakeGitHub
from tests.github_support import TOKEN

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
    from bot.cli import cli

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
