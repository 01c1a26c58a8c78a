"""The configuration file: defaults, owners, hierarchy, and errors that name the line."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.core.config import Config, load_config, parse_config
from bot.core.errors import InvalidInput

EXAMPLE = """\
owners:
  default: alice            # who answers when no origin pattern matches
  origins:
    "billing-*": bob
hierarchy:
  bob: alice
  alice: "@acme/leads"
"""


def test_design_example() -> None:
    config = parse_config(EXAMPLE)
    assert config.owner_for("billing-42") == "bob"
    assert config.owner_for("search-1") == "alice"
    assert config.chain_above("bob") == ["alice", "@acme/leads"]
    assert config.above("@acme/leads") is None


def test_empty_file_and_no_file_mean_defaults() -> None:
    assert parse_config("") == Config()
    assert load_config(None).owner_for("x") is None
    assert Config().limits.open_per_origin == 3
    assert Config().limits.open_per_run == 20


def test_unknown_keys_are_named_with_their_line() -> None:
    with pytest.raises(InvalidInput) as info:
        parse_config("owners:\n  default: alice\n  defualt: bob\n")
    assert ".github/parkbot.yml:3: owners.defualt: unknown setting" in info.value.message


def test_wrong_types_are_named_with_their_line() -> None:
    with pytest.raises(InvalidInput) as info:
        parse_config("limits:\n  open_per_origin: lots\n")
    assert ":2: limits.open_per_origin" in info.value.message


def test_cycles_in_the_hierarchy_are_refused() -> None:
    with pytest.raises(InvalidInput, match="cycle"):
        parse_config("hierarchy:\n  a: b\n  b: a\n")


def test_invalid_yaml_and_non_mapping() -> None:
    with pytest.raises(InvalidInput, match="not valid YAML"):
        parse_config("owners: [\n")
    with pytest.raises(InvalidInput, match="mapping"):
        parse_config("- a\n- b\n")


def test_yaml_is_loaded_safely() -> None:
    with pytest.raises(InvalidInput):
        parse_config("owners: !!python/object/apply:os.system ['echo pwned']\n")


def test_missing_named_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="does not exist"):
        load_config(tmp_path / "nope.yml")


@pytest.mark.parametrize(
    ("branch", "expected"),
    [("agent/x", True), ("agent/x/y", True), ("agents/x", False), ("main", False)],
)
def test_agent_branches_glob(branch: str, expected: bool) -> None:
    assert Config().is_agent_branch(branch) is expected
