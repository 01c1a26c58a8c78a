"""The configuration file: defaults, owners, hierarchy, and errors that name the line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from parkbot.config_file import find_config, load_config
from parkbot.core.config import Config, check_config, parse_config
from parkbot.core.errors import InvalidInput

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


# --- hostile and surprising files: each a clear error naming the file and line -----------------------


def test_an_alias_bomb_is_refused_before_it_expands() -> None:
    bomb = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    for name, prev in zip("bcdefghi", "abcdefgh", strict=True):
        bomb += f"{name}: &{name} [{', '.join(['*' + prev] * 9)}]\n"
    with pytest.raises(InvalidInput, match=r"parkbot\.yml:1: anchors and aliases are not allowed"):
        parse_config(bomb, ".github/parkbot.yml")


def test_a_key_given_twice_is_an_error_naming_both_lines() -> None:
    with pytest.raises(InvalidInput, match=r":4: the key 'default' is given twice \(lines 2 and 4\)"):
        parse_config("owners:\n  default: alice\n  origins: {}\n  default: bob\n", ".github/parkbot.yml")


@pytest.mark.parametrize(
    "text", ["x: " + "[" * 500 + "]" * 500 + "\n", "".join("  " * i + f"k{i}:\n" for i in range(60))]
)
def test_absurd_nesting_is_refused(text: str) -> None:
    with pytest.raises(InvalidInput, match="nested more than"):
        parse_config(text, ".github/parkbot.yml")


def test_a_file_that_is_not_utf8_is_refused_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "parkbot.yml"
    path.write_bytes(b"owners:\n  default: \xe9mile\n")
    with pytest.raises(InvalidInput, match=r"parkbot\.yml: not UTF-8 text \(byte 19\)"):
        load_config(path)


@pytest.mark.parametrize("ref", ["refs/heads/main", "refs/tags/v1", "refs/remotes/origin/main"])
def test_a_backlog_ref_that_git_moves_for_other_reasons_is_refused(ref: str) -> None:
    with pytest.raises(InvalidInput, match="needs a ref of its own"):
        parse_config(f"backlog_ref: {ref}\n")


def test_off_on_yes_no_are_text_where_a_setting_takes_text_and_switches_where_it_is_a_switch() -> None:
    config, warnings = check_config("precedents: off\nlimits:\n  one_blocking_question_per_origin: yes\n")
    assert config.precedents == "off"
    assert config.limits.one_blocking_question_per_origin is True
    assert [w.line for w in warnings] == [1, 3]
    assert "quote it" in warnings[0].message


def test_an_owner_called_no_stays_a_name() -> None:
    assert parse_config("owners:\n  default: no\n").owners.default == "no"


def test_signed_answers_need_a_configured_default_owner() -> None:
    with pytest.raises(InvalidInput, match=r"require_signed needs owners\.default"):
        parse_config("answers:\n  require_signed: true\n")
    assert parse_config("answers:\n  require_signed: true\nowners:\n  default: a@x\n").answers.require_signed


def test_yml_and_yaml_are_read_alike_and_both_at_once_is_an_error(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    github = tmp_path / ".github"
    github.mkdir()
    assert find_config(tmp_path) is None
    (github / "parkbot.yaml").write_text("owners:\n  default: bob\n")
    assert find_config(tmp_path) == github / "parkbot.yaml"
    (github / "parkbot.yml").write_text("owners:\n  default: alice\n")
    with pytest.raises(InvalidInput, match=r"both .*parkbot\.yml and .*parkbot\.yaml exist"):
        find_config(tmp_path / "sub")


# --- parkbot config check ---------------------------------------------------------------------------


def run_check(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "parkbot", "config", "check", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
    )


def test_config_check_shows_who_answers_each_origin_and_warns(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".github").mkdir()
    (tmp_path / ".github" / "parkbot.yml").write_text(EXAMPLE + "precedents: off\n")
    done = run_check(cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "billing-*  bob -> alice -> @acme/leads" in done.stdout
    assert "(default)  alice -> @acme/leads" in done.stdout
    assert "parkbot.yml:8: off is read as the text 'off'" in done.stdout
    as_json = json.loads(run_check("--json", cwd=tmp_path).stdout)
    assert as_json["valid"] is True
    assert as_json["owners"][0] == {"pattern": "billing-*", "chain": ["bob", "alice", "@acme/leads"]}


def test_config_check_errors_name_the_line_and_exit_2(tmp_path: Path) -> None:
    (tmp_path / "new.yml").write_text("owners:\n  default: alice\nhierarchy:\n  alice: bob\n  bob: alice\n")
    done = run_check("new.yml", "--json", cwd=tmp_path)
    assert done.returncode == 2
    error = json.loads(done.stdout)
    assert error["exit_code"] == 2
    assert "cycle" in error["message"]
    missing = run_check("absent.yml", cwd=tmp_path)
    assert missing.returncode == 2
    assert "absent.yml does not exist" in missing.stderr
    assert "Traceback" not in missing.stderr
