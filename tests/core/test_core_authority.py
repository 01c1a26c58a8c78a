"""Who the configuration alone names as a possible owner (parkbot.core.authority.named_in_config): a
commenter with no association to the repository is heard only then (GitHub, public repositories)."""

from __future__ import annotations

import pytest

from parkbot.core.authority import named_in_config
from parkbot.core.config import Config, Owners

CONFIG = Config(owners=Owners(default="alice", origins={"billing-*": "@Bob"}), hierarchy={"carol": "dana"})


@pytest.mark.parametrize(
    ("login", "named"),
    [
        ("alice", True),  # the default owner
        ("ALICE", True),  # logins ignore case
        ("@alice", True),
        ("bob", True),  # an origin's owner, written with an @
        ("carol", True),  # in the hierarchy, below ...
        ("dana", True),  # ... and above
        ("mallory", False),
        ("alice@", False),  # only a leading @ is dropped
        ("", False),
    ],
)
def test_a_login_is_named_as_an_owner_or_in_the_hierarchy(login: str, named: bool) -> None:
    assert named_in_config(CONFIG, login) is named


def test_a_configured_team_may_hold_anyone_so_everyone_is_heard() -> None:
    teams = Config(owners=Owners(default="acme/billing"))
    assert named_in_config(teams, "mallory")
    assert not named_in_config(Config(owners=Owners(default="alice")), "mallory")


def test_a_login_named_only_in_the_hierarchy_s_values_or_keys_counts() -> None:
    assert named_in_config(Config(owners=Owners(default="alice"), hierarchy={"erin": "frank"}), "erin")
    assert named_in_config(Config(owners=Owners(default="alice"), hierarchy={"erin": "frank"}), "frank")
    assert not named_in_config(Config(owners=Owners(default="alice"), hierarchy={"erin": "frank"}), "@@frank@")
