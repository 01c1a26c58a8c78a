"""parkbot.core.config, the configuration file: defaults, owners, hierarchy, and errors that name the line; and its
rules one test each: who a config routes to, and the exact error a person reads."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from parkbot.cli import cli
from parkbot.config_file import find_config, load_config
from parkbot.core.config import MAX_CONFIG_BYTES, MAX_DEPTH, Config, check_config, parse_config
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


SOURCE = ".github/parkbot.yml"


def refusal(text: str, source: str = SOURCE) -> str:
    with pytest.raises(InvalidInput) as info:
        parse_config(text, source)
    return info.value.message


def config_check(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["config", "check", *args])
    return result.exit_code, result.stdout, result.stderr


# --- agent branches ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("branch", "expected"),
    [("agent/x", True), ("agent/x/y", False), ("other/x", False), ("agent", False), ("bot-1", True)],
)
def test_a_single_star_in_an_agent_branch_glob_does_not_cross_a_slash(branch: str, expected: bool) -> None:
    config = parse_config("agent_branches: ['agent/*', 'bot-*']\n")
    assert config.is_agent_branch(branch) is expected


def test_a_single_star_at_the_top_level_does_not_match_a_branch_with_a_slash() -> None:
    assert parse_config("agent_branches: ['bot-*']\n").is_agent_branch("bot-1/x") is False


def test_configured_agent_branches_replace_the_default() -> None:
    config = parse_config("agent_branches: ['bots/**']\n")
    assert config.is_agent_branch("bots/a/b") is True
    assert config.is_agent_branch("agent/x") is False


# --- owner routing and the hierarchy ----------------------------------------------------------------


def test_an_origin_pattern_is_matched_whatever_case_it_is_written_in() -> None:
    config = parse_config('owners:\n  default: alice\n  origins:\n    "Billing-*": bob\n')
    assert config.owner_for("billing-42") == "bob"
    assert config.owner_for("search-1") == "alice"


def test_the_first_matching_origin_pattern_wins() -> None:
    config = parse_config('owners:\n  origins:\n    "billing-eu-*": carol\n    "billing-*": bob\n')
    assert config.owner_for("billing-eu-1") == "carol"
    assert config.owner_for("billing-us-1") == "bob"
    assert config.owner_for("search-1") is None


def test_the_owner_above_is_found_whatever_case_the_hierarchy_is_written_in() -> None:
    config = parse_config("hierarchy:\n  Bob: Alice\n  alice: carol\n")
    assert config.above("bob") == "Alice"
    assert config.chain_above("BOB") == ["Alice", "carol"]
    assert config.chain_above("carol") == []


# --- rate-limit waits -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("written", "seconds"),
    [("90s", 90.0), ("5m", 300.0), ("1.5h", 5400.0), ('" 2M "', 120.0), ("1m30s", 90.0), ("45", 45.0), ("0", 0.0)],
)
def test_a_rate_limit_wait_is_a_duration_or_a_yaml_number_of_seconds(written: str, seconds: float) -> None:
    assert parse_config(f"github:\n  rate_limit_wait: {written}\n").github.rate_limit_wait == seconds


@pytest.mark.parametrize(
    ("written", "why"),
    [
        ("true", "true is not a duration: write one such as 5m, or 0 never to wait"),
        ("[1]", "Input should be a valid number"),
    ],
)
def test_a_rate_limit_wait_that_is_no_text_or_number_is_refused(written: str, why: str) -> None:
    assert refusal(f"github:\n  rate_limit_wait: {written}\n") == (
        f"invalid configuration:\n  {SOURCE}:2: github.rate_limit_wait: {why}"
    )


@pytest.mark.parametrize(
    ("written", "why"),
    [
        ("soon", "'soon' is not a duration: write a number and a unit, e.g. 90s, 10m, 1m30s, 2h or 7d"),
        ('""', "'' is not a duration: write a number and a unit, e.g. 90s, 10m, 1m30s, 2h or 7d"),
        ("m", "'m' is not a duration: write a number and a unit, e.g. 90s, 10m, 1m30s, 2h or 7d"),
        ('"45"', "'45' has no unit: write 45s (seconds), 45m, 45h or 45d"),
        ("-5s", "'-5s' is negative: a duration counts forward; write 5s"),
    ],
)
def test_a_rate_limit_wait_of_another_shape_is_refused_with_what_to_write(written: str, why: str) -> None:
    assert refusal(f"github:\n  rate_limit_wait: {written}\n") == (
        f"invalid configuration:\n  {SOURCE}:2: github.rate_limit_wait: {why}"
    )


# --- YAML 1.1 booleans ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("word", "yaml11"), [("y", True), ("Yes", True), ("ON", True), ("n", False), ("NO", False), ("off", False)]
)
def test_a_yaml11_boolean_word_is_text_with_a_warning_saying_what_yaml11_tools_read(word: str, yaml11: bool) -> None:
    config, warnings = check_config(f"owners:\n  default: {word}\n")
    assert config.owners.default == word
    assert [(w.line, w.message) for w in warnings] == [
        (
            2,
            f"{word} is read as the text {word!r}, but YAML 1.1 tools read it as {yaml11}: "
            f'quote it ("{word}") to be clear',
        )
    ]


def test_warnings_come_in_the_order_of_the_file_also_from_inside_a_list() -> None:
    """A list's items are read where they stand, not after the rest of the file."""
    _, warnings = check_config("agent_branches: [yes, agent/**]\nprecedents: off\n")
    assert [(w.line, w.message.split()[0]) for w in warnings] == [(1, "yes"), (2, "off")]


def test_a_quoted_yaml11_boolean_word_gets_no_warning() -> None:
    assert check_config('owners:\n  default: "no"\n')[1] == []


# --- errors name the file, the line and the field ---------------------------------------------------


def test_an_error_names_the_source_it_was_read_from() -> None:
    assert refusal("limits:\n  open_per_origin: 0\n", "custom.yml") == (
        "invalid configuration:\n  custom.yml:2: limits.open_per_origin: Input should be greater than or equal to 1"
    )


def test_every_problem_is_listed_one_per_line_each_with_its_line() -> None:
    assert refusal("owners:\n  default: [a]\nhierarchy: 5\n") == (
        "invalid configuration:\n"
        f"  {SOURCE}:2: owners.default: Input should be a valid string\n"
        f"  {SOURCE}:3: hierarchy: Input should be a valid dictionary"
    )


def test_a_bad_top_level_setting_is_named_with_its_line() -> None:
    assert refusal("owners:\n  default: a\nprecedents: sometimes\n") == (
        f"invalid configuration:\n  {SOURCE}:3: precedents: Input should be 'off', 'suggest' or 'apply'"
    )


def test_a_bad_list_item_is_named_with_the_line_of_its_setting() -> None:
    assert refusal("limits: {}\nagent_branches:\n  - [x]\n") == (
        f"invalid configuration:\n  {SOURCE}:2: agent_branches.0: Input should be a valid string"
    )
    assert refusal("agent_branches:\n  - name: x\n") == (
        f"invalid configuration:\n  {SOURCE}:1: agent_branches.0: Input should be a valid string"
    )


def test_a_key_that_is_a_number_is_named_with_its_own_line() -> None:
    assert refusal("limits:\n  open_per_run: 5\n  1: x\n") == (
        f"invalid configuration:\n  {SOURCE}:3: limits.1: Keys should be strings"
    )


def test_a_rule_across_settings_is_reported_at_the_top_level_without_a_line() -> None:
    assert refusal("answers:\n  require_signed: true\n") == (
        f"invalid configuration:\n  {SOURCE}: (top level): answers.require_signed needs owners.default: with "
        "signed answers, who owns a decision must come from this reviewed file, not from the backlog"
    )


def test_a_cycle_in_the_hierarchy_is_reported_without_pydantics_prefix() -> None:
    assert refusal("hierarchy:\n  a: b\n  b: a\n") == (
        f"invalid configuration:\n  {SOURCE}:1: hierarchy: the hierarchy has a cycle through 'a'; "
        "questions must only go up"
    )


def test_a_key_that_is_a_list_is_refused_naming_its_line() -> None:
    assert refusal("owners: {}\n? [a]\n: 1\n") == f"{SOURCE}:2: found unhashable key"


# --- hostile files ----------------------------------------------------------------------------------


def nested(keys: int) -> str:
    """A chain of ``keys`` mappings, one inside the other: ``keys + 1`` levels with the final empty value."""
    return "".join("  " * i + f"k{i}:\n" for i in range(keys))


def test_a_configuration_nested_exactly_the_maximum_depth_is_read() -> None:
    assert (
        refusal(nested(MAX_DEPTH - 1))
        == f"invalid configuration:\n  {SOURCE}:1: k0: unknown setting (see docs/configuration.md)"
    )


def test_a_configuration_nested_one_level_deeper_is_refused_at_the_line_where_it_gets_too_deep() -> None:
    assert (
        refusal(nested(MAX_DEPTH))
        == f"{SOURCE}:{MAX_DEPTH}: the configuration is nested more than {MAX_DEPTH} levels deep"
    )


def test_a_control_character_is_refused_naming_its_line_not_a_traceback() -> None:
    assert refusal("owners:\n  default: a\x07b\n") == (
        f"{SOURCE}:2: not valid YAML: the character U+0007 cannot appear in YAML; remove it"
    )
    assert refusal("\nowners:\n  default: a\x07b\n") == (
        f"{SOURCE}:3: not valid YAML: the character U+0007 cannot appear in YAML; remove it"
    )


def test_config_check_refuses_a_control_character_with_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "parkbot.yml"
    path.write_text("# \x1b[31m red\nowners: {}\n")
    code, stdout, stderr = config_check(str(path))
    assert (code, stdout) == (2, "")
    assert stderr == f"parkbot: {path}:1: not valid YAML: the character U+001B cannot appear in YAML; remove it\n"


def padded(size: int) -> str:
    """A valid configuration of exactly ``size`` characters (one long comment)."""
    return "#" + "x" * (size - 2) + "\n"


def test_a_configuration_of_exactly_the_size_limit_is_read_and_one_character_more_is_refused() -> None:
    assert parse_config(padded(MAX_CONFIG_BYTES)) == Config()
    assert refusal(padded(MAX_CONFIG_BYTES + 1)) == (
        f"{SOURCE}: the configuration is larger than {MAX_CONFIG_BYTES} bytes"
    )


def test_a_file_of_exactly_the_size_limit_in_bytes_is_read_and_one_byte_more_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "parkbot.yml"
    path.write_bytes(("#\u00e9" + "x" * (MAX_CONFIG_BYTES - 4) + "\n").encode())  # "é" is two bytes in UTF-8
    assert load_config(path) == Config()
    path.write_bytes(("#\u00e9" + "x" * (MAX_CONFIG_BYTES - 3) + "\n").encode())  # fewer characters than the limit
    with pytest.raises(InvalidInput) as info:
        load_config(path)
    assert info.value.message == f"{path}: the configuration is larger than {MAX_CONFIG_BYTES} bytes"


# --- reading the file -------------------------------------------------------------------------------


def test_a_file_saved_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    path = tmp_path / "parkbot.yml"
    path.write_bytes(b"\xef\xbb\xbfowners:\n  default: alice\n")
    assert load_config(path).owners.default == "alice"


def test_an_error_in_a_loaded_file_names_its_path(tmp_path: Path) -> None:
    path = tmp_path / "parkbot.yml"
    path.write_text("owners:\n  defualt: alice\n")
    with pytest.raises(InvalidInput) as info:
        load_config(path)
    assert info.value.message == (
        f"invalid configuration:\n  {path}:2: owners.defualt: unknown setting; did you mean owners.default? "
        "(see docs/configuration.md)"
    )


@pytest.mark.skipif(not Path("/proc/self/mem").is_file(), reason="needs Linux's /proc/self/mem, a file reads fail on")
def test_a_file_that_cannot_be_read_is_refused_with_the_systems_reason() -> None:
    with pytest.raises(InvalidInput) as info:
        load_config("/proc/self/mem")
    assert info.value.message == "cannot read the configuration file /proc/self/mem: Input/output error"


def test_the_configuration_is_not_looked_for_above_the_repository_root(tmp_path: Path) -> None:
    (tmp_path / ".github").mkdir()
    (tmp_path / ".github" / "parkbot.yml").write_text("owners:\n  default: outsider\n")
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "src").mkdir()
    assert find_config(repo / "src") is None
    assert find_config(tmp_path / "elsewhere") == tmp_path / ".github" / "parkbot.yml"
